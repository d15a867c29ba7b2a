//===- ShapeOpsTest.cpp - shape ops on 1, 2 and 4 ranks --------------------===//
//
// Every shape op (reshape, transpose, slice, pad, concatenate, reverse) runs
// with each dimension of its main operand placed P("data") in turn (the others
// None), compiled for data = 1, 2 and 4, on random inputs; each run is checked
// against a C++ reference and the 2- and 4-rank runs against the 1-rank run.
// Dtype coverage: every case in f32, f64, f16, bf16, i32, i64 and i1 on 4
// ranks.
//
// Also: a reshape that splits or merges a sharded dim keeps it sharded (no
// all_gather in the partitioned IR), and pending partial sums flow through
// the linear shape ops but are reduced before a pad.
//
// The harness's run() is f32-only; shape ops move data of any dtype, so this
// file runs models through shardc::runThreads with typed arrays (`Array`).
//
//===----------------------------------------------------------------------===//
#include "compiler/host/Executor.h"
#include "tests/exec/ExecHarness.h"
#include "tests/exec/ModelText.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

//===----------------------------------------------------------------------===//
// Typed host arrays
//===----------------------------------------------------------------------===//

/// A global array of any dtype; values held as doubles (exact for every
/// dtype used here: float values, integers below 2^53, 0/1 for i1).
struct Array {
  std::string mlirType; // f32, f64, i32, i64, i1
  std::vector<int64_t> shape;
  std::vector<double> values;
};

int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// shardrt's name for an MLIR element type.
std::string dtypeName(const std::string &mlirType) { return mlirType == "i1" ? "bool" : mlirType; }
bool isFloat(const std::string &t) { return t[0] == 'f' || t == "bf16"; }

// 16-bit floats for values that are exact in them (multiples of 1/4 below 4
// in magnitude, as randomArray makes): no rounding is ever needed.
uint16_t toBf16(double v) {
  float f = static_cast<float>(v);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return static_cast<uint16_t>(bits >> 16);
}
double fromBf16(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
uint16_t toF16(double v) {
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  int e;
  double m = std::frexp(std::fabs(v), &e); // |v| = m * 2^e, m in [0.5, 1)
  uint16_t exponent = static_cast<uint16_t>(e - 1 + 15);
  uint16_t mantissa = static_cast<uint16_t>((2 * m - 1) * 1024);
  return sign | static_cast<uint16_t>(exponent << 10) | mantissa;
}
double fromF16(uint16_t h) {
  int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double magnitude = exponent == 0 ? std::ldexp(mantissa, -24)
                                   : std::ldexp(1024 + mantissa, exponent - 25);
  return h & 0x8000 ? -magnitude : magnitude;
}

bool toShardrt(const Array &a, shardrt_array &out, std::string &error) {
  out = shardrt_array{};
  int32_t dtype = shardrt_dtype_from_name(dtypeName(a.mlirType).c_str());
  if (shardrt_array_alloc(&out, dtype, static_cast<int32_t>(a.shape.size()), a.shape.data()) !=
      SHARDRT_OK) {
    error = std::string("shardrt_array_alloc: ") + shardrt_last_error();
    return false;
  }
  for (size_t i = 0; i < a.values.size(); ++i) {
    double v = a.values[i];
    if (a.mlirType == "f32")
      static_cast<float *>(out.data)[i] = static_cast<float>(v);
    else if (a.mlirType == "f64")
      static_cast<double *>(out.data)[i] = v;
    else if (a.mlirType == "bf16")
      static_cast<uint16_t *>(out.data)[i] = toBf16(v);
    else if (a.mlirType == "f16")
      static_cast<uint16_t *>(out.data)[i] = toF16(v);
    else if (a.mlirType == "i32")
      static_cast<int32_t *>(out.data)[i] = static_cast<int32_t>(v);
    else if (a.mlirType == "i64")
      static_cast<int64_t *>(out.data)[i] = static_cast<int64_t>(v);
    else
      static_cast<uint8_t *>(out.data)[i] = v != 0;
  }
  return true;
}

Array fromShardrt(const shardrt_array &a, const std::string &mlirType) {
  Array out{mlirType, std::vector<int64_t>(a.shape, a.shape + a.rank), {}};
  int64_t n = numel(out.shape);
  for (int64_t i = 0; i < n; ++i) {
    if (mlirType == "f32")
      out.values.push_back(static_cast<const float *>(a.data)[i]);
    else if (mlirType == "f64")
      out.values.push_back(static_cast<const double *>(a.data)[i]);
    else if (mlirType == "bf16")
      out.values.push_back(fromBf16(static_cast<const uint16_t *>(a.data)[i]));
    else if (mlirType == "f16")
      out.values.push_back(fromF16(static_cast<const uint16_t *>(a.data)[i]));
    else if (mlirType == "i32")
      out.values.push_back(static_cast<const int32_t *>(a.data)[i]);
    else if (mlirType == "i64")
      out.values.push_back(static_cast<double>(static_cast<const int64_t *>(a.data)[i]));
    else // a byte per element; anything but 0/1 is a bug the comparison shows
      out.values.push_back(static_cast<const uint8_t *>(a.data)[i]);
  }
  return out;
}

/// Random values that survive the round trip through the dtype exactly.
Array randomArray(Rng &rng, const std::string &mlirType, std::vector<int64_t> shape) {
  Array a{mlirType, shape, {}};
  for (int64_t i = 0, n = numel(shape); i < n; ++i) {
    float u = rng.uniform(-1.0f, 1.0f);
    if (mlirType == "f16" || mlirType == "bf16")
      a.values.push_back(std::round(16 * u) / 4);
    else if (isFloat(mlirType))
      a.values.push_back(4 * u);
    else if (mlirType == "i1")
      a.values.push_back(u < 0 ? 0 : 1);
    else
      a.values.push_back(std::floor(1000 * u));
  }
  return a;
}

struct TypedRun {
  bool ok = false;
  std::string error;
  Array output;
  double replicaDiff = -1;
  std::string partitioned; // when asked for
};

/// Compiles `text` for `mesh` and runs it on every rank with the threads
/// runtime; the model has one result named "y" of element type `outType`.
TypedRun runTyped(const std::string &text, const std::string &mesh,
                  const std::map<std::string, Array> &inputs, const std::string &outType) {
  TypedRun r;
  Compiled c = compile(text, mesh);
  if (!c.ok) {
    r.error = "compile for " + mesh + ":\n" + c.diagnostics;
    return r;
  }
  shardc::ArraySet set;
  for (const auto &[name, array] : inputs) {
    shardrt_array a{};
    if (!toShardrt(array, a, r.error))
      return r;
    set.add(name, a);
  }
  shardc::RunResult result;
  if (!shardc::runThreads(c.signature, c.object, set, result, r.error)) {
    r.error = "run for " + mesh + ": " + r.error;
    return r;
  }
  const shardrt_array *y = result.outputs.find("y");
  if (!y) {
    r.error = "no output 'y'";
    return r;
  }
  r.output = fromShardrt(*y, outType);
  r.replicaDiff = result.replicaDiffs.empty() ? -1 : result.replicaDiffs[0];
  r.ok = true;
  return r;
}

/// "" when equal within a float tolerance (exactly, for integers and i1).
std::string compareArrays(const std::string &what, const Array &actual,
                          const std::vector<int64_t> &shape, const std::vector<double> &expected) {
  if (actual.shape != shape)
    return what + ": wrong shape";
  if (actual.values.size() != expected.size())
    return what + ": wrong number of values";
  double tol = isFloat(actual.mlirType) ? 1e-6 : 0.0;
  for (size_t i = 0; i < expected.size(); ++i)
    if (!(std::fabs(actual.values[i] - expected[i]) <= tol * (1 + std::fabs(expected[i]))))
      return what + "[" + std::to_string(i) + "]: expected " + std::to_string(expected[i]) +
             ", got " + std::to_string(actual.values[i]);
  return "";
}

//===----------------------------------------------------------------------===//
// References (row-major index helpers)
//===----------------------------------------------------------------------===//

std::vector<int64_t> unravel(int64_t i, const std::vector<int64_t> &shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  return idx;
}

int64_t ravel(const std::vector<int64_t> &idx, const std::vector<int64_t> &shape) {
  int64_t i = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    i = i * shape[d] + idx[d];
  return i;
}

/// out[i] = f(multi-index of i in outShape).
std::vector<double> generate(const std::vector<int64_t> &outShape,
                             const std::function<double(const std::vector<int64_t> &)> &f) {
  std::vector<double> out;
  for (int64_t i = 0, n = numel(outShape); i < n; ++i)
    out.push_back(f(unravel(i, outShape)));
  return out;
}

double at(const Array &a, const std::vector<int64_t> &idx) { return a.values[ravel(idx, a.shape)]; }

//===----------------------------------------------------------------------===//
// Cases
//===----------------------------------------------------------------------===//

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s;
}
std::string tensorType(const std::vector<int64_t> &shape, const std::string &t) {
  return "tensor<" + shapeText(shape) + t + ">";
}

/// One op on operand x0 (sharded), maybe more operands x1.. (unannotated),
/// with a reference on the inputs.
struct Case {
  std::string name;
  std::vector<std::vector<int64_t>> inShapes; // x0 first; {} is a scalar
  std::vector<int64_t> outShape;
  /// The op, with {X0}, {X1}.. for operand types and {Y} for the result type.
  std::string op;
  std::function<std::vector<double>(const std::vector<Array> &)> reference;
};

std::string spec(size_t rank, int64_t shardedDim) {
  std::string s = "P(";
  for (size_t d = 0; d < rank; ++d)
    s += std::string(d ? ", " : "") + (static_cast<int64_t>(d) == shardedDim ? "\"data\"" : "None");
  return s + ")";
}

std::string modelText(const Case &c, const std::string &t, int64_t shardedDim) {
  std::map<std::string, std::string> types = {{"Y", tensorType(c.outShape, t)}};
  std::string args;
  for (size_t i = 0; i < c.inShapes.size(); ++i) {
    std::string name = "x" + std::to_string(i);
    types["X" + std::to_string(i)] = tensorType(c.inShapes[i], t);
    args += std::string(i ? ",\n    " : "") + "%" + name + ": " + tensorType(c.inShapes[i], t) +
            " {garray.name = \"" + name + "\"" +
            (i == 0 ? ", garray.sharding = #garray.sharding<@mesh, " +
                          spec(c.inShapes[0].size(), shardedDim) + ">"
                    : std::string()) +
            "}";
  }
  std::string text = "garray.mesh @mesh [\"data\" = 4]\n"
                     "func.func @main(\n    " +
                     args + ")\n    -> ({Y} {garray.name = \"y\"}) {\n  %y = " + c.op +
                     "\n  return %y : {Y}\n}\n";
  return subst(text, types);
}

std::vector<Case> cases() {
  std::vector<Case> all;
  auto identity = [](const std::vector<Array> &in) { return in[0].values; };
  all.push_back({"reshape merge [8,4]->[32]", {{8, 4}}, {32},
                 "garray.reshape %x0 : ({X0}) -> {Y}", identity});
  all.push_back({"reshape split [32]->[8,4]", {{32}}, {8, 4},
                 "garray.reshape %x0 : ({X0}) -> {Y}", identity});
  all.push_back({"reshape regroup [8,4]->[4,8]", {{8, 4}}, {4, 8},
                 "garray.reshape %x0 : ({X0}) -> {Y}", identity});
  all.push_back({"reshape 3-D [4,4,8]->[16,2,4]", {{4, 4, 8}}, {16, 2, 4},
                 "garray.reshape %x0 : ({X0}) -> {Y}", identity});
  all.push_back({"transpose [8,4]", {{8, 4}}, {4, 8},
                 "garray.transpose %x0, permutation = [1, 0] : ({X0}) -> {Y}",
                 [](const std::vector<Array> &in) {
                   return generate({4, 8}, [&](auto i) { return at(in[0], {i[1], i[0]}); });
                 }});
  all.push_back({"transpose [4,8,12] by [2,0,1]", {{4, 8, 12}}, {12, 4, 8},
                 "garray.transpose %x0, permutation = [2, 0, 1] : ({X0}) -> {Y}",
                 [](const std::vector<Array> &in) {
                   return generate({12, 4, 8},
                                   [&](auto i) { return at(in[0], {i[1], i[2], i[0]}); });
                 }});
  // Larger than a 32 x 32 tile, with edge tiles: the GPU target moves them
  // through a shared tile (gpu-stage-transposes).
  all.push_back({"transpose [72,100] (edge tiles)", {{72, 100}}, {100, 72},
                 "garray.transpose %x0, permutation = [1, 0] : ({X0}) -> {Y}",
                 [](const std::vector<Array> &in) {
                   return generate({100, 72}, [&](auto i) { return at(in[0], {i[1], i[0]}); });
                 }});
  all.push_back({"transpose [8,70,36] by [2,0,1] (edge tiles, a loop along)", {{8, 70, 36}},
                 {36, 8, 70}, "garray.transpose %x0, permutation = [2, 0, 1] : ({X0}) -> {Y}",
                 [](const std::vector<Array> &in) {
                   return generate({36, 8, 70},
                                   [&](auto i) { return at(in[0], {i[1], i[2], i[0]}); });
                 }});
  // Dim 0 whole (kept sharded, limit localized), dim 1 strided.
  all.push_back({"slice whole rows, strided columns", {{8, 8}}, {8, 3},
                 "garray.slice %x0, start = [0, 1], limit = [8, 7], strides = [1, 2] "
                 ": ({X0}) -> {Y}",
                 [](const std::vector<Array> &in) {
                   return generate({8, 3}, [&](auto i) { return at(in[0], {i[0], 1 + 2 * i[1]}); });
                 }});
  all.push_back({"slice rows", {{8, 4}}, {2, 4},
                 "garray.slice %x0, start = [2, 0], limit = [8, 4], strides = [3, 1] "
                 ": ({X0}) -> {Y}",
                 [](const std::vector<Array> &in) {
                   return generate({2, 4}, [&](auto i) { return at(in[0], {2 + 3 * i[0], i[1]}); });
                 }});
  all.push_back({"pad columns", {{8, 4}, {}}, {8, 7},
                 "garray.pad %x0, %x1, low = [0, 1], high = [0, 2] : ({X0}, {X1}) -> {Y}",
                 [](const std::vector<Array> &in) {
                   return generate({8, 7}, [&](auto i) {
                     return i[1] >= 1 && i[1] < 5 ? at(in[0], {i[0], i[1] - 1}) : in[1].values[0];
                   });
                 }});
  all.push_back({"pad both dims", {{8, 4}, {}}, {12, 5},
                 "garray.pad %x0, %x1, low = [1, 0], high = [3, 1] : ({X0}, {X1}) -> {Y}",
                 [](const std::vector<Array> &in) {
                   return generate({12, 5}, [&](auto i) {
                     return i[0] >= 1 && i[0] < 9 && i[1] < 4 ? at(in[0], {i[0] - 1, i[1]})
                                                               : in[1].values[0];
                   });
                 }});
  all.push_back({"concatenate columns", {{8, 4}, {8, 8}}, {8, 12},
                 "garray.concatenate %x0, %x1, dim = 1 : ({X0}, {X1}) -> {Y}",
                 [](const std::vector<Array> &in) {
                   return generate({8, 12}, [&](auto i) {
                     return i[1] < 4 ? at(in[0], {i[0], i[1]}) : at(in[1], {i[0], i[1] - 4});
                   });
                 }});
  all.push_back({"concatenate rows, three operands", {{4, 4}, {8, 4}, {4, 4}}, {16, 4},
                 "garray.concatenate %x0, %x1, %x2, dim = 0 : ({X0}, {X1}, {X2}) -> {Y}",
                 [](const std::vector<Array> &in) {
                   return generate({16, 4}, [&](auto i) {
                     if (i[0] < 4)
                       return at(in[0], {i[0], i[1]});
                     if (i[0] < 12)
                       return at(in[1], {i[0] - 4, i[1]});
                     return at(in[2], {i[0] - 12, i[1]});
                   });
                 }});
  all.push_back({"reverse columns", {{8, 4}}, {8, 4},
                 "garray.reverse %x0, dims = [1] : {Y}",
                 [](const std::vector<Array> &in) {
                   return generate({8, 4}, [&](auto i) { return at(in[0], {i[0], 3 - i[1]}); });
                 }});
  all.push_back({"reverse both dims", {{8, 4}}, {8, 4},
                 "garray.reverse %x0, dims = [0, 1] : {Y}",
                 [](const std::vector<Array> &in) {
                   return generate({8, 4}, [&](auto i) { return at(in[0], {7 - i[0], 3 - i[1]}); });
                 }});
  return all;
}

std::map<std::string, Array> randomInputs(const Case &c, const std::string &t, uint32_t seed) {
  Rng rng(seed);
  std::map<std::string, Array> in;
  for (size_t i = 0; i < c.inShapes.size(); ++i)
    in["x" + std::to_string(i)] = randomArray(rng, t, c.inShapes[i]);
  return in;
}

std::vector<Array> ordered(const std::map<std::string, Array> &in, size_t n) {
  std::vector<Array> v;
  for (size_t i = 0; i < n; ++i)
    v.push_back(in.at("x" + std::to_string(i)));
  return v;
}

} // namespace

TEST_CASE("shape ops: each operand dim sharded in turn, 1/2/4 ranks vs 1 rank and a reference",
          "[exec][shape]") {
  uint32_t seed = 100;
  for (const Case &c : cases()) {
    for (int64_t dim = 0; dim < static_cast<int64_t>(c.inShapes[0].size()); ++dim) {
      std::string text = modelText(c, "f32", dim);
      auto inputs = randomInputs(c, "f32", ++seed);
      std::vector<double> expected = c.reference(ordered(inputs, c.inShapes.size()));
      INFO(c.name << ", operand dim " << dim << " sharded\n" << text);
      TypedRun one = runTyped(text, "data=1", inputs, "f32");
      REQUIRE(one.error == "");
      CHECK(compareArrays("1 rank vs reference", one.output, c.outShape, expected) == "");
      for (const char *mesh : {"data=2", "data=4"}) {
        INFO(mesh);
        TypedRun many = runTyped(text, mesh, inputs, "f32");
        REQUIRE(many.error == "");
        CHECK(compareArrays(std::string(mesh) + " vs 1 rank", many.output, c.outShape,
                            one.output.values) == "");
        CHECK(many.replicaDiff == 0.0);
      }
    }
  }
}

TEST_CASE("shape ops: dtypes f32, f64, f16, bf16, i32, i64, i1 on 4 ranks",
          "[exec][shape][dtype]") {
  uint32_t seed = 500;
  for (const char *t : {"f32", "f64", "f16", "bf16", "i32", "i64", "i1"}) {
    for (const Case &c : cases()) {
      std::string text = modelText(c, t, 0);
      auto inputs = randomInputs(c, t, ++seed);
      INFO(c.name << " in " << t << "\n" << text);
      TypedRun r = runTyped(text, "data=4", inputs, t);
      REQUIRE(r.error == "");
      CHECK(compareArrays("4 ranks vs reference", r.output, c.outShape,
                          c.reference(ordered(inputs, c.inShapes.size()))) == "");
    }
  }
}

TEST_CASE("reshape: a split or merged sharded dim stays sharded, with no all_gather",
          "[exec][shape][reshape]") {
  struct Expect {
    std::string name;
    std::vector<int64_t> in, out;
    int64_t dim;
    bool staysSharded;
  };
  const Expect expects[] = {
      {"merge, major dim sharded", {8, 4}, {32}, 0, true},
      {"split", {32}, {8, 4}, 0, true},
      {"regroup [8,4]->[4,8], dim 0", {8, 4}, {4, 8}, 0, true},
      {"3-D [4,4,8]->[16,2,4], dim 0", {4, 4, 8}, {16, 2, 4}, 0, true},
      {"split of a minor dim [8,16]->[8,4,4], dim 1", {8, 16}, {8, 4, 4}, 1, true},
      // Controls: a sharded minor dim is not a block of the merged dim.
      {"merge, minor dim sharded", {8, 4}, {32}, 1, false},
      {"3-D [4,4,8]->[16,2,4], dim 1 (minor of the merged 16)", {4, 4, 8}, {16, 2, 4}, 1, false},
  };
  uint32_t seed = 900;
  for (const Expect &e : expects) {
    Case c{e.name, {e.in}, e.out, "garray.reshape %x0 : ({X0}) -> {Y}",
           [](const std::vector<Array> &in) { return in[0].values; }};
    std::string text = modelText(c, "f32", e.dim);
    INFO(e.name << "\n" << text);
    Compiled p = compile(text, "data=4", "model.mlir", shardc::Phase::Partitioned);
    REQUIRE(p.ok);
    bool gathers = p.emitted.find("all_gather") != std::string::npos;
    INFO(p.emitted);
    CHECK(gathers == !e.staysSharded);
    // The result is sharded over "data" exactly when the dim stayed sharded.
    auto inputs = randomInputs(c, "f32", ++seed);
    Compiled full = compile(text, "data=4");
    REQUIRE(full.ok);
    REQUIRE(full.signature.outputs.size() == 1);
    CHECK((full.signature.outputs[0].spec.find("\"data\"") != std::string::npos) ==
          e.staysSharded);
    TypedRun r = runTyped(text, "data=4", inputs, "f32");
    REQUIRE(r.error == "");
    CHECK(compareArrays("4 ranks", r.output, e.out, inputs.at("x0").values) == "");
  }
}

// dot_general over a sharded contracting dim leaves a pending sum. Linear
// shape ops (transpose, reshape, slice, reverse, concatenate of two pending
// sums) may carry it; pad must not (each device would add the padding value
// once): the numbers show whether the rules got it right.
TEST_CASE("shape ops on pending partial sums", "[exec][shape][pending]") {
  const char *text = R"(garray.mesh @mesh ["data" = 4]
func.func @main(
    %a: tensor<8x8xf32> {garray.name = "a", garray.sharding = #garray.sharding<@mesh, P(None, "data")>},
    %b: tensor<8x4xf32> {garray.name = "b", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %one: tensor<f32> {garray.name = "one"})
    -> (tensor<16x8xf32> {garray.name = "y"}) {
  %h = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %t = garray.transpose %h, permutation = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %r = garray.reverse %t, dims = [1] : tensor<4x8xf32>
  %f = garray.reshape %r : (tensor<4x8xf32>) -> tensor<32xf32>
  %g = garray.reshape %f : (tensor<32xf32>) -> tensor<8x4xf32>
  %s = garray.slice %g, start = [0, 0], limit = [8, 4], strides = [2, 1] : (tensor<8x4xf32>) -> tensor<4x4xf32>
  %c = garray.concatenate %s, %s, dim = 1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  %p = garray.pad %c, %one, low = [4, 0], high = [8, 0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  return %p : tensor<16x8xf32>
}
)";
  Rng rng(77);
  std::map<std::string, Array> inputs = {{"a", randomArray(rng, "f32", {8, 8})},
                                         {"b", randomArray(rng, "f32", {8, 4})},
                                         {"one", Array{"f32", {}, {1.0}}}};
  // Reference in double.
  const Array &a = inputs["a"], &b = inputs["b"];
  std::vector<double> h(32, 0.0);
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t k = 0; k < 8; ++k)
        h[i * 4 + j] += at(a, {i, k}) * at(b, {k, j});
  // t = h^T (4x8); r reverses its columns; f/g re-read r row-major as 8x4.
  std::vector<double> r(32);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 8; ++j)
      r[i * 8 + j] = h[(7 - j) * 4 + i];
  std::vector<double> expected = generate({16, 8}, [&](auto i) {
    if (i[0] < 4 || i[0] >= 8)
      return 1.0;
    int64_t row = 2 * (i[0] - 4), col = i[1] % 4; // s = g[0:8:2, :], c = [s, s]
    return r[row * 4 + col];
  });
  Compiled p = compile(text, "data=4", "model.mlir", shardc::Phase::Partitioned);
  REQUIRE(p.ok);
  INFO(p.emitted);
  // One all-reduce, after the linear ops and before the pad.
  size_t first = p.emitted.find("garray.all_reduce");
  REQUIRE(first != std::string::npos);
  CHECK(p.emitted.find("garray.all_reduce", first + 1) == std::string::npos);
  CHECK(p.emitted.find("garray.concatenate") < first);
  CHECK(first < p.emitted.find("garray.pad"));
  for (const char *mesh : {"data=1", "data=2", "data=4"}) {
    INFO(mesh);
    TypedRun run = runTyped(text, mesh, inputs, "f32");
    REQUIRE(run.error == "");
    CHECK(compareArrays(mesh, run.output, {16, 8}, expected) == "");
  }
}
