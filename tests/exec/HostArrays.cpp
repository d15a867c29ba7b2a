//===- HostArrays.cpp - typed global arrays for the execution tests -------===//
#include "tests/exec/HostArrays.h"

#include "compiler/host/Executor.h"
#include "shardrt.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace shardc_test {

namespace {

uint16_t toBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if (std::isnan(f))
    return 0x7FC0;
  u += 0x7FFF + ((u >> 16) & 1); // round to nearest, ties to even
  return static_cast<uint16_t>(u >> 16);
}

double fromBf16(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

} // namespace

int64_t HostArray::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

HostArray randomInts(Rng &rng, const std::string &dtype, std::vector<int64_t> shape, int64_t lo,
                     int64_t hi) {
  HostArray a{dtype, std::move(shape), {}};
  a.values.resize(a.numel());
  for (double &v : a.values) {
    int64_t k = lo + static_cast<int64_t>(rng.uniform(0.0f, 1.0f) * static_cast<float>(hi - lo + 1));
    v = static_cast<double>(std::min(k, hi));
  }
  return a;
}

HostArray randomReals(Rng &rng, const std::string &dtype, std::vector<int64_t> shape, float lo,
                      float hi) {
  HostArray a{dtype, std::move(shape), {}};
  a.values.resize(a.numel());
  for (double &v : a.values) {
    v = rng.uniform(lo, hi);
    // The values the device sees: rounded to the dtype.
    if (dtype == "f16")
      v = static_cast<double>(static_cast<_Float16>(v));
    else if (dtype == "bf16")
      v = fromBf16(toBf16(static_cast<float>(v)));
  }
  return a;
}

namespace {

template <typename T> void store(void *data, const std::vector<double> &values) {
  T *out = static_cast<T *>(data);
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = static_cast<T>(values[i]);
}

template <typename T> void load(const void *data, std::vector<double> &values) {
  const T *in = static_cast<const T *>(data);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<double>(in[i]);
}

/// Copies between host doubles and a runtime buffer of `dtype`.
bool convert(int32_t dtype, void *data, std::vector<double> &values, bool toBuffer) {
  switch (dtype) {
  case SHARDRT_F32: toBuffer ? store<float>(data, values) : load<float>(data, values); return true;
  case SHARDRT_F64: toBuffer ? store<double>(data, values) : load<double>(data, values); return true;
  case SHARDRT_I64: toBuffer ? store<int64_t>(data, values) : load<int64_t>(data, values); return true;
  case SHARDRT_I32: toBuffer ? store<int32_t>(data, values) : load<int32_t>(data, values); return true;
  case SHARDRT_I8: toBuffer ? store<int8_t>(data, values) : load<int8_t>(data, values); return true;
  // clang's _Float16 converts with round-to-nearest-even; bf16 by hand (the
  // host's libgcc may lack __truncsfbf2).
  case SHARDRT_F16:
    toBuffer ? store<_Float16>(data, values) : load<_Float16>(data, values);
    return true;
  case SHARDRT_BF16:
    for (size_t i = 0; i < values.size(); ++i) {
      uint16_t *b = static_cast<uint16_t *>(data) + i;
      if (toBuffer)
        *b = toBf16(static_cast<float>(values[i]));
      else
        values[i] = fromBf16(*b);
    }
    return true;
  case SHARDRT_BOOL:
    if (toBuffer)
      for (size_t i = 0; i < values.size(); ++i)
        static_cast<uint8_t *>(data)[i] = values[i] != 0.0;
    else
      load<uint8_t>(data, values);
    return true;
  default: return false;
  }
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

} // namespace

TypedOutcome runTyped(const Compiled &model, const TypedInputs &inputs) {
  TypedOutcome r;
  r.ranks = model.signature.mesh.deviceCount();
  if (!model.ok) {
    r.error = "the model did not compile:\n" + model.diagnostics;
    return r;
  }
  shardc::ArraySet set;
  for (const auto &[name, array] : inputs) {
    int32_t dtype = shardrt_dtype_from_name(array.dtype.c_str());
    shardrt_array a{};
    if (static_cast<int64_t>(array.values.size()) != array.numel() || dtype < 0 ||
        shardrt_array_alloc(&a, dtype, static_cast<int32_t>(array.shape.size()),
                            array.shape.data()) != SHARDRT_OK) {
      r.error = "input '" + name + "': cannot make a " + array.dtype + " array of shape " +
                shapeText(array.shape) + " from " + std::to_string(array.values.size()) +
                " values";
      return r;
    }
    std::vector<double> values = array.values;
    if (!convert(dtype, a.data, values, /*toBuffer=*/true)) {
      shardrt_array_free(&a);
      r.error = "input '" + name + "': dtype " + array.dtype + " is not supported here";
      return r;
    }
    set.add(name, a);
  }
  shardc::RunResult result;
  std::string error;
  if (!shardc::runThreads(model.signature, model.object, set, result, error)) {
    r.error = "runThreads on " + std::to_string(r.ranks) + " ranks: " + error;
    return r;
  }
  for (size_t o = 0; o < result.outputs.names.size(); ++o) {
    const shardrt_array &a = result.outputs.arrays[o];
    HostArray out{shardrt_dtype_name(a.dtype) ? shardrt_dtype_name(a.dtype) : "?",
                  std::vector<int64_t>(a.shape, a.shape + a.rank),
                  {}};
    out.values.resize(out.numel());
    if (!convert(a.dtype, a.data, out.values, /*toBuffer=*/false)) {
      r.error = "output '" + result.outputs.names[o] + "': dtype " + out.dtype +
                " is not supported here";
      return r;
    }
    r.outputs[result.outputs.names[o]] = std::move(out);
    r.replicaDiffs[result.outputs.names[o]] =
        o < result.replicaDiffs.size() ? result.replicaDiffs[o] : -1.0;
  }
  r.ok = true;
  return r;
}

TypedOutcome compileAndRunTyped(const std::string &modelText, const std::string &mesh,
                                const TypedInputs &inputs) {
  return runTyped(compile(modelText, mesh), inputs);
}

static std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string mismatchTyped(const std::string &what, const HostArray &actual,
                          const std::string &dtype, const std::vector<int64_t> &shape,
                          const std::vector<double> &expected, Tolerance tol) {
  if (actual.dtype != dtype)
    return what + ": expected dtype " + dtype + ", got " + actual.dtype;
  if (actual.shape != shape)
    return what + ": expected shape " + shapeText(shape) + ", got " + shapeText(actual.shape);
  if (expected.size() != actual.values.size())
    return what + ": " + std::to_string(expected.size()) + " expected values for " +
           std::to_string(actual.values.size()) + " actual ones";
  for (size_t i = 0; i < expected.size(); ++i) {
    double a = actual.values[i], e = expected[i];
    if (std::isnan(e) && std::isnan(a))
      continue;
    double bound = tol.abs + tol.rel * std::fabs(e);
    if (!(std::fabs(a - e) <= bound))
      return what + "[" + std::to_string(i) + "]: expected " + fmt(e) + ", got " + fmt(a) +
             " (|diff| " + fmt(std::fabs(a - e)) + " > " + fmt(bound) + ")";
  }
  return "";
}

} // namespace shardc_test
