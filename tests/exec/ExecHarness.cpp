//===- ExecHarness.cpp - compile a model, run it on N ranks, read results -===//
#include "tests/exec/ExecHarness.h"

#include "compiler/host/Executor.h"
#include "runtime/src/Dtype.h"
#include "shardrt.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace shardc_test {

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

static bool exists(const std::string &path) {
  std::ifstream f(path);
  return f.good();
}

std::string runfile(const std::string &workspacePath) {
  const char *srcdir = std::getenv("TEST_SRCDIR");
  const char *workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir && workspace) {
    std::string p = std::string(srcdir) + "/" + workspace + "/" + workspacePath;
    if (exists(p))
      return p;
  }
  if (const char *dir = std::getenv("RUNFILES_DIR")) {
    std::string p = std::string(dir) + "/shardc/" + workspacePath;
    if (exists(p))
      return p;
  }
  return workspacePath;
}

std::string readFile(const std::string &path, std::string &error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    error = "cannot read '" + path + "'";
    return "";
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

//===----------------------------------------------------------------------===//
// Host arrays
//===----------------------------------------------------------------------===//

F32Array::F32Array(std::vector<int64_t> s, std::vector<float> v)
    : shape(std::move(s)), values(std::move(v)) {}

F32Array F32Array::zeros(std::vector<int64_t> shape) {
  F32Array a;
  a.shape = std::move(shape);
  a.values.assign(a.numel(), 0.0f);
  return a;
}

int64_t F32Array::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

static std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]) + (shape.size() == 1 ? "," : "");
  return s + ")";
}

std::string F32Array::shapeString() const { return shapeText(shape); }

static bool fromShardrt(const shardrt_array &a, F32Array &out, std::string &error) {
  if (a.dtype != SHARDRT_F32) {
    const char *name = shardrt_dtype_name(a.dtype);
    error = std::string("expected an f32 array, got ") + (name ? name : "an unknown dtype");
    return false;
  }
  out.shape.assign(a.shape, a.shape + a.rank);
  out.values.resize(out.numel());
  if (!out.values.empty())
    std::memcpy(out.values.data(), a.data, out.values.size() * sizeof(float));
  return true;
}

static bool toShardrt(const F32Array &in, shardrt_array &out, std::string &error) {
  if (static_cast<int64_t>(in.values.size()) != in.numel()) {
    error = "array of shape " + in.shapeString() + " has " + std::to_string(in.values.size()) +
            " values";
    return false;
  }
  out = shardrt_array{};
  if (shardrt_array_alloc(&out, SHARDRT_F32, static_cast<int32_t>(in.shape.size()),
                          in.shape.data()) != SHARDRT_OK) {
    error = std::string("shardrt_array_alloc: ") + shardrt_last_error();
    return false;
  }
  if (!in.values.empty())
    std::memcpy(out.data, in.values.data(), in.values.size() * sizeof(float));
  return true;
}

std::vector<double> matmulReference(const F32Array &X, const F32Array &W) {
  int64_t r = X.shape[0], k = X.shape[1], n = W.shape[1];
  std::vector<double> h(r * n, 0.0);
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t q = 0; q < k; ++q)
        h[i * n + j] += static_cast<double>(X.at(i, q)) * W.at(q, j);
  return h;
}

F32Array loadNpy(const std::string &path, std::string &error) {
  shardrt_array a{};
  F32Array out;
  if (shardrt_npy_read(path.c_str(), &a) != SHARDRT_OK) {
    error = path + ": " + shardrt_last_error();
    return out;
  }
  if (!fromShardrt(a, out, error))
    error = path + ": " + error;
  shardrt_array_free(&a);
  return out;
}

int64_t TypedArray::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string TypedArray::shapeString() const { return shapeText(shape); }

/// `v` as a float rounded to odd (truncated, last bit set when inexact), so
/// that rounding it again to f16 or bf16 rounds `v` once, as the compiled
/// conversions do; a plain cast would round twice.
static float roundToOddFloat(double v) {
  float f = static_cast<float>(v);
  if (std::isnan(v) || static_cast<double>(f) == v)
    return f;
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if (std::fabs(static_cast<double>(f)) > std::fabs(v))
    --bits; // one ulp toward zero
  bits |= 1u;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// Stores `v` (already representable, see roundToDtype) as element `i`.
static void storeDouble(void *data, int64_t i, int32_t dtype, double v) {
  char *p = static_cast<char *>(data);
  auto put = [&](auto x) { std::memcpy(p + i * sizeof x, &x, sizeof x); };
  switch (dtype) {
  case SHARDRT_F32: put(static_cast<float>(v)); break;
  case SHARDRT_F64: put(v); break;
  case SHARDRT_F16: put(shardrt::floatToHalf(roundToOddFloat(v))); break;
  case SHARDRT_BF16: put(shardrt::floatToBf16(roundToOddFloat(v))); break;
  case SHARDRT_I64: // 2^63 and beyond (e.g. a saturated INT64_MAX read back) clamp
    put(v >= 9223372036854775807.0   ? INT64_MAX
        : v <= -9223372036854775808.0 ? INT64_MIN
                                      : static_cast<int64_t>(v));
    break;
  case SHARDRT_I32: put(static_cast<int32_t>(static_cast<int64_t>(v))); break;
  case SHARDRT_I8: put(static_cast<int8_t>(static_cast<int64_t>(v))); break;
  case SHARDRT_BOOL: put(static_cast<uint8_t>(v != 0.0)); break;
  // Negative values wrap as the signed integer's cast would.
  case SHARDRT_U8: put(static_cast<uint8_t>(static_cast<int64_t>(v))); break;
  case SHARDRT_U32: put(static_cast<uint32_t>(static_cast<int64_t>(v))); break;
  case SHARDRT_I16: put(static_cast<int16_t>(static_cast<int64_t>(v))); break;
  case SHARDRT_U16: put(static_cast<uint16_t>(static_cast<int64_t>(v))); break;
  case SHARDRT_U64: // 2^64 and beyond clamp
    put(v >= 18446744073709551615.0 ? UINT64_MAX
        : v < 0                      ? static_cast<uint64_t>(static_cast<int64_t>(v))
                                     : static_cast<uint64_t>(v));
    break;
  }
}

double roundToDtype(const std::string &dtype, double v) {
  int32_t d = shardrt_dtype_from_name(dtype.c_str());
  if (d < 0)
    return std::nan("");
  uint64_t bits = 0; // wide enough for any element
  storeDouble(&bits, 0, d, v);
  return shardrt::loadAsDouble(&bits, 0, d);
}

static bool toShardrtTyped(const TypedArray &in, shardrt_array &out, std::string &error) {
  int32_t dtype = shardrt_dtype_from_name(in.dtype.c_str());
  if (dtype < 0) {
    error = "unknown dtype '" + in.dtype + "'";
    return false;
  }
  if (static_cast<int64_t>(in.values.size()) != in.numel()) {
    error = "array of shape " + in.shapeString() + " has " + std::to_string(in.values.size()) +
            " values";
    return false;
  }
  out = shardrt_array{};
  if (shardrt_array_alloc(&out, dtype, static_cast<int32_t>(in.shape.size()), in.shape.data()) !=
      SHARDRT_OK) {
    error = std::string("shardrt_array_alloc: ") + shardrt_last_error();
    return false;
  }
  for (size_t i = 0; i < in.values.size(); ++i)
    storeDouble(out.data, static_cast<int64_t>(i), dtype, in.values[i]);
  return true;
}

bool saveNpy(const std::string &path, const TypedArray &a, std::string &error) {
  shardrt_array arr{};
  if (!toShardrtTyped(a, arr, error))
    return false;
  bool ok = shardrt_npy_write(path.c_str(), &arr) == SHARDRT_OK;
  if (!ok)
    error = std::string("shardrt_npy_write: ") + shardrt_last_error();
  shardrt_array_free(&arr);
  return ok;
}

static TypedArray fromShardrtTyped(const shardrt_array &a) {
  TypedArray out;
  const char *name = shardrt_dtype_name(a.dtype);
  out.dtype = name ? name : "?";
  out.shape.assign(a.shape, a.shape + a.rank);
  out.values.resize(out.numel());
  for (int64_t i = 0; i < out.numel(); ++i)
    out.values[i] = shardrt::loadAsDouble(a.data, i, a.dtype);
  return out;
}

TypedArray loadTypedNpy(const std::string &path, std::string &error) {
  shardrt_array a{};
  if (shardrt_npy_read(path.c_str(), &a) != SHARDRT_OK) {
    error = path + ": " + shardrt_last_error();
    return {};
  }
  TypedArray out = fromShardrtTyped(a);
  shardrt_array_free(&a);
  return out;
}

//===----------------------------------------------------------------------===//
// Deterministic inputs
//===----------------------------------------------------------------------===//

float Rng::uniform(float lo, float hi) {
  // 23 random bits → k / 2^23 in [0, 1), exact in f32.
  uint32_t k = static_cast<uint32_t>(gen_()) >> 9;
  double unit = static_cast<double>(k) / 8388608.0;
  return static_cast<float>(lo + (hi - lo) * unit);
}

F32Array Rng::array(std::vector<int64_t> shape, float lo, float hi) {
  F32Array a = F32Array::zeros(std::move(shape));
  for (float &v : a.values)
    v = uniform(lo, hi);
  return a;
}

std::vector<int64_t> Rng::permutation(int64_t n) {
  std::vector<int64_t> p(n);
  for (int64_t i = 0; i < n; ++i)
    p[i] = i;
  for (int64_t i = n - 1; i > 0; --i) {
    int64_t j = static_cast<int64_t>(gen_() % static_cast<uint32_t>(i + 1));
    std::swap(p[i], p[j]);
  }
  return p;
}

//===----------------------------------------------------------------------===//
// Compile and run
//===----------------------------------------------------------------------===//

bool &gpuSequentialMode() {
  static bool on = false;
  return on;
}

bool &gpuTf32Mode() {
  static bool on = false;
  return on;
}

unsigned &codegenPartitionsMode() {
  static unsigned partitions = 0;
  return partitions;
}

int64_t &shardOptimizerStateMode() {
  static int64_t minElements = 0;
  return minElements;
}

Compiled compile(const std::string &modelText, const std::string &mesh,
                 const std::string &bufferName, std::optional<shardc::Phase> emit) {
  Compiled c;
  shardc::CompileOptions options;
  options.meshSizes = mesh;
  options.gpuSequential = gpuSequentialMode();
  options.gpuTf32 = gpuTf32Mode();
  options.codegenPartitions = codegenPartitionsMode();
  options.shardOptimizerState = shardOptimizerStateMode() > 0;
  if (options.shardOptimizerState)
    options.shardStateMinElements = shardOptimizerStateMode();
  options.verifyEachPass = true; // a broken pass is named, not just found

  llvm::raw_string_ostream emitStream(c.emitted);
  if (emit) {
    options.emit = emit;
    options.emitStream = &emitStream;
  }
  std::optional<shardc::CompileResult> result =
      shardc::compileText(modelText, bufferName, options, c.diagnostics);
  llvm::raw_string_ostream diag(c.diagnostics);
  if (!result) {
    diag << "(the model does not parse or compile for mesh '" << mesh << "')\n";
    return c;
  }
  if (!emit && result->object.empty()) {
    diag << "(compileModule returned no object for mesh '" << mesh << "')\n";
    return c;
  }
  c.signature = std::move(result->signature);
  c.object = std::move(result->object);
  c.ok = true;
  return c;
}

Compiled compileFile(const std::string &path, const std::string &mesh) {
  std::string error;
  std::string text = readFile(path, error);
  if (!error.empty()) {
    Compiled c;
    c.diagnostics = error;
    return c;
  }
  return compile(text, mesh, path);
}

/// The part of run() and runTyped() after the inputs are shardrt arrays.
static bool runArrays(const Compiled &model, const shardc::ArraySet &set,
                      shardc::RunResult &result, std::string &error) {
  if (std::string e = shardc::checkInputs(model.signature, set); !e.empty()) {
    error = "checkInputs: " + e;
    return false;
  }
  if (!shardc::runThreads(model.signature, model.object, set, result, error)) {
    error = "runThreads on " + std::to_string(model.signature.mesh.deviceCount()) +
            " ranks: " + error;
    return false;
  }
  return true;
}

namespace {
/// run() and runTyped(): convert the inputs, run on every rank, convert the
/// outputs; `Outcome` is RunOutcome or TypedRunOutcome and the converters
/// are the matching to/from-shardrt functions.
template <typename Outcome, typename Array, typename ToShardrt, typename FromShardrt>
Outcome runConverted(const Compiled &model, const std::map<std::string, Array> &inputs,
                     ToShardrt toShardrt, FromShardrt fromShardrt) {
  Outcome r;
  r.ranks = model.signature.mesh.deviceCount();
  if (!model.ok) {
    r.error = "the model did not compile:\n" + model.diagnostics;
    return r;
  }
  shardc::ArraySet set;
  for (const auto &[name, array] : inputs) {
    shardrt_array a{};
    if (!toShardrt(array, a, r.error)) {
      r.error = "input '" + name + "': " + r.error;
      return r;
    }
    set.add(name, a);
  }
  shardc::RunResult result;
  if (!runArrays(model, set, result, r.error))
    return r;
  for (size_t o = 0; o < result.outputs.names.size(); ++o) {
    const std::string &name = result.outputs.names[o];
    std::string error;
    if (!fromShardrt(result.outputs.arrays[o], r.outputs[name], error)) {
      r.error = "output '" + name + "': " + error;
      return r;
    }
    r.replicaDiffs[name] = o < result.replicaDiffs.size() ? result.replicaDiffs[o] : -1.0;
  }
  r.ok = true;
  return r;
}
} // namespace

RunOutcome run(const Compiled &model, const Inputs &inputs) {
  RunOutcome r = runConverted<RunOutcome>(model, inputs, toShardrt, fromShardrt);
  r.signature = model.signature;
  return r;
}

TypedRunOutcome runTyped(const Compiled &model, const TypedInputs &inputs) {
  return runConverted<TypedRunOutcome>(
      model, inputs, toShardrtTyped,
      [](const shardrt_array &a, TypedArray &out, std::string &) {
        out = fromShardrtTyped(a);
        return true;
      });
}

std::vector<TypedRunOutcome> runTypedSteps(const Compiled &model, const TypedInputs &inputs,
                                           int steps, shardc::ReplicaCheck check) {
  std::vector<TypedRunOutcome> out;
  auto failed = [&](const std::string &error) {
    out.emplace_back();
    out.back().ranks = model.signature.mesh.deviceCount();
    out.back().error = error;
    return out;
  };
  if (!model.ok)
    return failed("the model did not compile:\n" + model.diagnostics);
  shardc::ArraySet set;
  for (const auto &[name, array] : inputs) {
    shardrt_array a{};
    std::string error;
    if (!toShardrtTyped(array, a, error))
      return failed("input '" + name + "': " + error);
    set.add(name, a);
  }
  std::unique_ptr<shardc::RankGroup> group = shardc::threadsRankGroup(model.signature);
  shardc::RunResult result;
  std::string error;
  auto afterStep = [&](int64_t, const shardc::RunResult &r) {
    TypedRunOutcome o;
    o.ok = true;
    o.ranks = model.signature.mesh.deviceCount();
    for (size_t i = 0; i < r.outputs.names.size(); ++i) {
      if (!r.outputs.arrays[i].data)
        continue; // state kept on the ranks this step
      o.outputs[r.outputs.names[i]] = fromShardrtTyped(r.outputs.arrays[i]);
      o.replicaDiffs[r.outputs.names[i]] = r.replicaDiffs[i];
    }
    out.push_back(std::move(o));
    return true;
  };
  if (!shardc::runSteps(model.signature, model.object, set, steps, check, afterStep, result, error,
                        *group))
    return failed(error);
  return out;
}

RunOutcome compileAndRun(const std::string &modelText, const std::string &mesh,
                         const Inputs &inputs, const std::string &bufferName) {
  return run(compile(modelText, mesh, bufferName), inputs);
}

//===----------------------------------------------------------------------===//
// Comparing results
//===----------------------------------------------------------------------===//

static std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string mismatch(const std::string &what, const F32Array &actual,
                     const std::vector<int64_t> &shape, const std::vector<double> &expected,
                     Tolerance tol) {
  if (actual.shape != shape)
    return what + ": expected shape " + shapeText(shape) + ", got " + actual.shapeString();
  if (static_cast<int64_t>(expected.size()) != actual.numel() ||
      static_cast<int64_t>(actual.values.size()) != actual.numel())
    return what + ": " + std::to_string(expected.size()) + " expected values for " +
           std::to_string(actual.values.size()) + " actual ones";
  for (size_t i = 0; i < expected.size(); ++i) {
    double a = actual.values[i], e = expected[i];
    double bound = tol.abs + tol.rel * std::fabs(e);
    if (!(std::fabs(a - e) <= bound)) // also catches NaN
      return what + "[" + std::to_string(i) + "]: expected " + fmt(e) + ", got " + fmt(a) +
             " (|diff| " + fmt(std::fabs(a - e)) + " > " + fmt(bound) + ")";
  }
  return "";
}

std::string mismatchArrays(const std::string &what, const F32Array &actual,
                           const F32Array &expected, Tolerance tol) {
  return mismatch(what, actual, expected.shape,
                  std::vector<double>(expected.values.begin(), expected.values.end()), tol);
}

std::string mismatchTyped(const std::string &what, const TypedArray &actual,
                          const TypedArray &expected, Tolerance tol) {
  if (actual.dtype != expected.dtype)
    return what + ": expected dtype " + expected.dtype + ", got " + actual.dtype;
  if (actual.shape != expected.shape)
    return what + ": expected shape " + expected.shapeString() + ", got " + actual.shapeString();
  if (actual.values.size() != expected.values.size())
    return what + ": " + std::to_string(expected.values.size()) + " expected values for " +
           std::to_string(actual.values.size()) + " actual ones";
  for (size_t i = 0; i < expected.values.size(); ++i) {
    double a = actual.values[i], e = expected.values[i];
    if (std::isnan(e) && std::isnan(a))
      continue;
    if (a == e) // also equal infinities
      continue;
    double bound = tol.abs + tol.rel * std::fabs(e);
    if (!(std::fabs(a - e) <= bound)) // also catches NaN
      return what + "[" + std::to_string(i) + "]: expected " + fmt(e) + ", got " + fmt(a) +
             " (|diff| " + fmt(std::fabs(a - e)) + " > " + fmt(bound) + ")";
  }
  return "";
}

std::string describe(const RunOutcome &r) {
  return r.signature.mesh.str() + " (" + std::to_string(r.ranks) + " ranks)";
}


TypedRunOutcome compileAndRunTyped(const std::string &modelText, const std::string &mesh,
                                   const TypedInputs &inputs) {
  return runTyped(compile(modelText, mesh), inputs);
}

TypedArray randomInts(Rng &rng, const std::string &dtype, std::vector<int64_t> shape, int64_t lo,
                      int64_t hi) {
  TypedArray a{dtype, std::move(shape), {}};
  a.values.resize(a.numel());
  for (double &v : a.values) {
    int64_t k = lo + static_cast<int64_t>(rng.uniform(0.0f, 1.0f) * static_cast<float>(hi - lo + 1));
    v = static_cast<double>(std::min(k, hi));
  }
  return a;
}

TypedArray randomReals(Rng &rng, const std::string &dtype, std::vector<int64_t> shape, float lo,
                       float hi) {
  TypedArray a{dtype, std::move(shape), {}};
  a.values.resize(a.numel());
  for (double &v : a.values)
    v = roundToDtype(dtype, rng.uniform(lo, hi));
  return a;
}

std::string mismatchTyped(const std::string &what, const TypedArray &actual,
                          const std::string &dtype, const std::vector<int64_t> &shape,
                          const std::vector<double> &expected, Tolerance tol) {
  return mismatchTyped(what, actual, TypedArray{dtype, shape, expected}, tol);
}

} // namespace shardc_test
