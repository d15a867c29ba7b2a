//===- ElementwiseTest.cpp - the elementwise family on 1, 2 and 4 ranks ---===//
//
// Every elementwise op, compiled from a one-op model and run on a threads
// world:
//
//   [sweep]   its main operand split over "data" along dim 0, then dim 1
//             (the other operands replicated, so shardc slices them), on 1,
//             2 and 4 ranks; every output is checked against a double
//             reference and against the 1-rank run;
//   [dtypes]  every element type it admits (f32 f64 f16 bf16 i32 i64 i1),
//             on 4 ranks;
//   [convert] every (from, to) pair of those types;
//   [pending] integer division of a pending sum is reduced first;
//   [fusion]  a chain of elementwise ops leaves no intermediate buffer.
//
// Float operands start with NaN, ±inf and ±0, integer div/rem operands with
// the cases XLA defines (x / 0, INT_MIN / -1), so the references check the
// documented semantics at the edges, not only on tame random values.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ElementwiseCases.h"
#include "tests/exec/ExecHarness.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

const std::vector<int64_t> kShape = {8, 4}; // every dim divides over 1, 2, 4 ranks
const char *const kMeshes[] = {"data=1", "data=2", "data=4"};

/// A one-model test: operands (the first is the "main" one that gets split),
/// the op lines, and the expected outputs.
struct Application {
  std::string label; // "add on i32"
  std::vector<ModelArg> args;
  std::vector<TypedArray> inputs; // one per arg
  std::string body;
  std::vector<ModelResult> results;
  std::vector<TypedArray> expected; // one per result
};

std::map<std::string, TypedArray> inputMap(const Application &app) {
  std::map<std::string, TypedArray> m;
  for (size_t k = 0; k < app.args.size(); ++k)
    m[app.args[k].name] = app.inputs[k];
  return m;
}

/// Compiles `app` with its main operand split along `dim` for `mesh`, runs
/// it, and checks every output against the reference (and against `oneRank`
/// when given). Returns the outcome for later comparisons.
std::optional<TypedRunOutcome> runAndCheck(const Application &app, int64_t dim,
                                           const std::string &mesh,
                                           const TypedRunOutcome *oneRank = nullptr) {
  std::vector<ModelArg> args = app.args;
  args[0].spec = specOnDim(kShape.size(), dim);
  for (size_t k = 1; k < args.size(); ++k)
    args[k].spec = replicatedSpec(kShape.size());
  std::string text = elementwiseModel(args, app.results, app.body);
  INFO(app.label << ", " << args[0].name << " " << args[0].spec << ", mesh " << mesh);
  INFO("model:\n" << text);
  Compiled compiled = compile(text, mesh);
  INFO("diagnostics:\n" << compiled.diagnostics);
  CHECK(compiled.ok);
  if (!compiled.ok)
    return std::nullopt;
  TypedRunOutcome r = runTyped(compiled, inputMap(app));
  INFO(r.error);
  CHECK(r.ok);
  if (!r.ok)
    return std::nullopt;
  for (size_t k = 0; k < app.results.size(); ++k) {
    const std::string &name = app.results[k].name;
    Tolerance tol = toleranceFor(app.expected[k].dtype);
    CHECK(mismatchTyped(name + " vs reference", r.outputs[name], app.expected[k], tol) == "");
    if (oneRank)
      CHECK(mismatchTyped(name + " vs the 1-rank run", r.outputs[name],
                          oneRank->outputs.at(name), tol) == "");
  }
  return r;
}

/// The [sweep]: each dim of the main operand in turn, on 1, 2 and 4 ranks.
void sweep(const Application &app) {
  for (int64_t dim = 0; dim < static_cast<int64_t>(kShape.size()); ++dim) {
    std::optional<TypedRunOutcome> one;
    for (const char *mesh : kMeshes) {
      std::optional<TypedRunOutcome> r = runAndCheck(app, dim, mesh, one ? &*one : nullptr);
      if (std::string(mesh) == "data=1")
        one = r;
    }
  }
}

/// Operand edges: float specials, or the integer cases div/rem define.
std::vector<double> edgesFor(const OpCase &c, const std::string &dtype, int operand) {
  if (isFloatDtype(dtype))
    return floatEdges(operand);
  if ((c.op == "div" || c.op == "rem") && dtype != "bool") {
    double m = intMin(dtype);
    if (operand == 0)
      return {m, m, 7, -7, 7, -7, 0};
    return {-1, 0, 2, 2, -2, -2, 0};
  }
  return {};
}

Application sameTypeOp(const OpCase &c, const std::string &dtype, uint32_t seed) {
  Rng rng(seed);
  Application app;
  app.label = c.op + " on " + dtype;
  std::string type = tensorType(kShape, dtype);
  const char *names[] = {"a", "b", "c"};
  for (int k = 0; k < c.arity; ++k) {
    app.args.push_back({names[k], type, ""});
    app.inputs.push_back(randomOperand(rng, dtype, kShape, k ? c.lo2 : c.lo, k ? c.hi2 : c.hi,
                                       edgesFor(c, dtype, k)));
  }
  const char *operands[] = {"", " %a : ", " %a, %b : ", " %a, %b, %c : "};
  app.body = "  %r = garray." + c.op + operands[c.arity] + type + "\n";
  app.results = {{"r", "r", type}};
  app.expected = {applyReference(c.reference, app.inputs, dtype)};
  return app;
}

const char *const kDirections[] = {"eq", "ne", "lt", "le", "gt", "ge"};

double compareReference(const std::string &dir, double a, double b) {
  if (dir == "eq") return a == b; // every comparison with NaN is false ...
  if (dir == "ne") return a != b; // ... except ne
  if (dir == "lt") return a < b;
  if (dir == "le") return a <= b;
  if (dir == "gt") return a > b;
  return a >= b;
}

/// All six directions on `dtype`, one output each. Operands are drawn from
/// a few values so that ties occur.
Application compareOp(const std::string &dtype, uint32_t seed) {
  Rng rng(seed);
  Application app;
  app.label = "compare on " + dtype;
  std::string type = tensorType(kShape, dtype), boolType = tensorType(kShape, "bool");
  bool isFloat = isFloatDtype(dtype);
  for (int k = 0; k < 2; ++k) {
    app.args.push_back({k ? "b" : "a", type, ""});
    std::vector<double> edges = isFloat ? floatEdges(k) : std::vector<double>{};
    app.inputs.push_back(randomOperand(rng, dtype, kShape, -3, 3, edges));
    if (isFloat) // on a grid of halves, so that many elements tie
      for (double &v : app.inputs.back().values)
        if (std::isfinite(v) && v != 0)
          v = std::floor(v * 2) / 2;
  }
  for (const char *dir : kDirections) {
    std::string d = dir;
    app.body += "  %" + d + " = garray.compare <" + d + "> %a, %b : (" + type + ", " + type +
                ") -> " + boolType + "\n";
    app.results.push_back({d, d, boolType});
    app.expected.push_back(applyReference(
        [d](const std::vector<double> &a, const std::string &) {
          return compareReference(d, a[0], a[1]);
        },
        app.inputs, "bool"));
  }
  return app;
}

/// select %p, %a, %b with the predicate as the main operand.
Application selectOp(const std::string &dtype, uint32_t seed) {
  Rng rng(seed);
  Application app;
  app.label = "select on " + dtype;
  std::string type = tensorType(kShape, dtype), boolType = tensorType(kShape, "bool");
  app.args = {{"p", boolType, ""}, {"a", type, ""}, {"b", type, ""}};
  std::vector<double> edges = isFloatDtype(dtype) ? floatEdges() : std::vector<double>{};
  app.inputs = {randomOperand(rng, "bool", kShape, 0, 1),
                randomOperand(rng, dtype, kShape, -50, 50, edges),
                randomOperand(rng, dtype, kShape, -50, 50, edges)};
  app.body = "  %r = garray.select %p, %a, %b : (" + boolType + ", " + type + ", " + type +
             ") -> " + type + "\n";
  app.results = {{"r", "r", type}};
  app.expected = {applyReference(
      [](const std::vector<double> &a, const std::string &) { return a[0] != 0 ? a[1] : a[2]; },
      app.inputs, dtype)};
  return app;
}

/// convert from `from` to every covered dtype, one output each.
Application convertOp(const std::string &from, uint32_t seed) {
  Rng rng(seed);
  Application app;
  app.label = "convert from " + from;
  std::string type = tensorType(kShape, from);
  app.args = {{"x", type, ""}};
  TypedArray x = randomOperand(rng, from, kShape, -3, 3);
  if (isFloatDtype(from)) {
    // Fractions both ways, magnitudes beyond every integer and 16-bit float
    // range (they saturate / overflow), and the specials.
    const double scales[] = {1, 100, 4e4, 1e6, 3e9, 2e19};
    for (size_t k = 0; k < x.values.size(); ++k)
      x.values[k] = roundToDtype(from, x.values[k] * scales[k % 6]);
    std::vector<double> edges = floatEdges();
    std::copy(edges.begin(), edges.end(), x.values.begin());
    x.values[edges.size()] = roundToDtype(from, -2.75);
    x.values[edges.size() + 1] = roundToDtype(from, 2.75);
    // Just above a bf16 tie, by less than an f32 ulp: rounding through f32
    // first would land on the tie and round to even (down).
    x.values[edges.size() + 2] = roundToDtype(from, 1 + std::ldexp(1, -8) + std::ldexp(1, -30));
  } else if (from != "bool") {
    // 2^24 + 2^16 + 1 is the integer analogue for i32 -> bf16.
    const double big[] = {intMin(from), 70000, -300, 257, 3, -1, 0, 16842753};
    for (size_t k = 0; k < 8; ++k)
      x.values[k] = big[k];
  }
  app.inputs = {x};
  for (const std::string &to : kAllDtypes) {
    std::string toType = tensorType(kShape, to), name = "to_" + to;
    app.body += "  %" + name + " = garray.convert %x lossy : (" + type + ") -> " + toType + "\n";
    app.results.push_back({name, name, toType});
    app.expected.push_back(applyReference(
        [from, to](const std::vector<double> &a, const std::string &) {
          return convertReference(a[0], from, to);
        },
        app.inputs, to));
  }
  return app;
}

} // namespace

TEST_CASE("every same-typed elementwise op, each dim split, on 1, 2 and 4 ranks", "[sweep]") {
  uint32_t seed = 100;
  for (const OpCase &c : elementwiseCases()) {
    // The main dtypes: f32 and i32 wherever the op admits them (integer
    // ops lower to different bodies).
    if (c.admits("f32"))
      sweep(sameTypeOp(c, "f32", ++seed));
    if (c.admits("i32"))
      sweep(sameTypeOp(c, "i32", ++seed));
  }
}

TEST_CASE("compare, select and convert, each dim split, on 1, 2 and 4 ranks", "[sweep]") {
  sweep(compareOp("f32", 1));
  sweep(selectOp("f32", 2));
  uint32_t seed = 10;
  for (const std::string &from : kAllDtypes)
    sweep(convertOp(from, ++seed));
}

TEST_CASE("every elementwise op on every element type it admits", "[dtypes]") {
  uint32_t seed = 300;
  for (const OpCase &c : elementwiseCases())
    for (const std::string &dtype : kAllDtypes)
      if (c.admits(dtype))
        runAndCheck(sameTypeOp(c, dtype, ++seed), 0, "data=4");
  for (const std::string &dtype : kAllDtypes) {
    runAndCheck(compareOp(dtype, ++seed), 0, "data=4");
    runAndCheck(selectOp(dtype, ++seed), 0, "data=4");
  }
}

// Lossy conversions round once, whatever path the lowering takes (bf16 has
// no x86 instructions; shardc goes through f32 rounding to odd).
TEST_CASE("conversions to bf16 round once", "[dtypes]") {
  const char *text = R"(garray.mesh @mesh ["data" = 4]
func.func @main(%x: tensor<4xf64> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data")>},
                %i: tensor<4xi32> {garray.name = "i", garray.sharding = #garray.sharding<@mesh, P("data")>},
                %f: tensor<12xf32> {garray.name = "f", garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<4xbf16> {garray.name = "xb"}, tensor<4xbf16> {garray.name = "ib"},
        tensor<12xbf16> {garray.name = "fb"}) {
  %xb = garray.convert %x lossy : (tensor<4xf64>) -> tensor<4xbf16>
  %ib = garray.convert %i lossy : (tensor<4xi32>) -> tensor<4xbf16>
  %fb = garray.convert %f lossy : (tensor<12xf32>) -> tensor<12xbf16>
  return %xb, %ib, %fb : tensor<4xbf16>, tensor<4xbf16>, tensor<12xbf16>
}
)";
  const double t = std::ldexp(1, -8), e = std::ldexp(1, -30);
  // bf16 keeps 8 significand bits: its ulp is 2^-7 at 1 and 2^17 at 2^24.
  TypedArray x{"f64", {4}, {1 + t + e, 1 + t, 1 + 3 * t, -(1 + t + e)}};
  TypedArray xb{"bf16", {4}, {1 + 2 * t, 1, 1 + 4 * t, -(1 + 2 * t)}};
  const double p24 = std::ldexp(1, 24), p16 = std::ldexp(1, 16);
  TypedArray i{"i32", {4}, {p24 + p16 + 1, p24 + p16, -(p24 + p16 + 1), 257}};
  TypedArray ib{"bf16", {4}, {p24 + 2 * p16, p24, -(p24 + 2 * p16), 256}};
  // f32 -> bf16 is integer code on the f32's bits (cpu-round-to-bf16): ties
  // go to even, the largest f32 and the tie above bf16's largest round to
  // infinity, what lies below that tie does not, a tiny f32 rounds to zero,
  // and NaN stays NaN (its payload must not carry into the exponent).
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Every payload bit set: rounded like a number, it would carry into the
  // sign and come out as -0.
  const uint64_t fullNanBits = 0x7fffffffffffffff;
  double fullNan;
  std::memcpy(&fullNan, &fullNanBits, sizeof fullNan);
  const double bf16Max = std::ldexp(255, 120), bf16Tie = std::ldexp(511, 119);
  TypedArray f{"f32", {12}, {1 + t, 1 + 3 * t, -(1 + 3 * t), std::numeric_limits<float>::max(),
                             bf16Tie, bf16Tie - std::ldexp(1, 104), std::ldexp(1, -149), -inf,
                             fullNan, -nan, 1 + t + std::ldexp(1, -23), 0}};
  TypedArray fb{"bf16", {12}, {1, 1 + 4 * t, -(1 + 4 * t), inf, inf, bf16Max, 0, -inf, nan, nan,
                               1 + 2 * t, 0}};
  for (const char *mesh : kMeshes) {
    INFO("mesh " << mesh);
    Compiled c = compile(text, mesh);
    INFO(c.diagnostics);
    REQUIRE(c.ok);
    TypedRunOutcome r = runTyped(c, {{"x", x}, {"i", i}, {"f", f}});
    INFO(r.error);
    REQUIRE(r.ok);
    CHECK(mismatchTyped("xb", r.outputs["xb"], xb, Tolerance{0, 0}) == "");
    CHECK(mismatchTyped("ib", r.outputs["ib"], ib, Tolerance{0, 0}) == "");
    CHECK(mismatchTyped("fb", r.outputs["fb"], fb, Tolerance{0, 0}) == "");
  }
}

// Results declared replicated while their operands are split: shardc
// all-gathers i1 and bf16 arrays through the runtime (one byte per i1).
TEST_CASE("i1 and bf16 results are gathered by collectives", "[dtypes]") {
  const char *text = R"(garray.mesh @mesh ["data" = 4]
func.func @main(%a: tensor<8x4xf32> {garray.name = "a", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                %h: tensor<8x4xbf16> {garray.name = "h", garray.sharding = #garray.sharding<@mesh, P(None, "data")>})
    -> (tensor<8x4xi1> {garray.name = "m", garray.sharding = #garray.sharding<@mesh, P()>},
        tensor<8x4xbf16> {garray.name = "e", garray.sharding = #garray.sharding<@mesh, P()>}) {
  %z = garray.constant dense<0.0> : tensor<8x4xf32>
  %m = garray.compare <gt> %a, %z : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xi1>
  %e = garray.exp %h : tensor<8x4xbf16>
  return %m, %e : tensor<8x4xi1>, tensor<8x4xbf16>
}
)";
  Rng rng(11);
  TypedArray a = randomOperand(rng, "f32", kShape, -1, 1, floatEdges());
  TypedArray h = randomOperand(rng, "bf16", kShape, -4, 4, floatEdges(3));
  TypedArray m = applyReference(
      [](const std::vector<double> &x, const std::string &) { return x[0] > 0; }, {a}, "bool");
  TypedArray e = applyReference(caseFor("exp").reference, {h}, "bf16");
  for (const char *mesh : kMeshes) {
    INFO("mesh " << mesh);
    Compiled c = compile(text, mesh);
    INFO(c.diagnostics);
    REQUIRE(c.ok);
    if (std::string(mesh) != "data=1")
      CHECK(c.signature.collectives.size() == 2);
    TypedRunOutcome r = runTyped(c, {{"a", a}, {"h", h}});
    INFO(r.error);
    REQUIRE(r.ok);
    CHECK(mismatchTyped("m", r.outputs["m"], m, toleranceFor("bool")) == "");
    CHECK(mismatchTyped("e", r.outputs["e"], e, toleranceFor("bf16")) == "");
    CHECK(r.replicaDiffs["m"] == 0);
  }
}

// reduce <sum> over the split rows leaves each device a partial sum. Integer
// division truncates, so (Σ p_i) / 5 != Σ (p_i / 5): the partials must be
// combined before the division (a float division may stay pending).
TEST_CASE("an integer division of a pending sum reduces it first", "[pending]") {
  const char *text = R"(garray.mesh @mesh ["data" = 4]
func.func @main(%x: tensor<8x4xi32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<4xi32> {garray.name = "q"}) {
  %s = garray.reduce <sum> %x, dims = [0] : (tensor<8x4xi32>) -> tensor<4xi32>
  %five = garray.constant dense<5> : tensor<4xi32>
  %q = garray.div %s, %five : tensor<4xi32>
  return %q : tensor<4xi32>
}
)";
  TypedArray x{"i32", {8, 4}, {}};
  for (int k = 0; k < 32; ++k) // every row contributes 1 to its column: sums are 8
    x.values.push_back(1);
  for (const char *mesh : kMeshes) {
    INFO("mesh " << mesh);
    Compiled c = compile(text, mesh);
    INFO(c.diagnostics);
    REQUIRE(c.ok);
    TypedRunOutcome r = runTyped(c, {{"x", x}});
    INFO(r.error);
    REQUIRE(r.ok);
    // 8 / 5 = 1; dividing the partials first would give 0 on 2 or 4 ranks.
    CHECK(mismatchTyped("q", r.outputs["q"], TypedArray{"i32", {4}, {1, 1, 1, 1}}) == "");
  }
}

// A chain over a split operand (compare, select, convert, arithmetic) must
// become one loop nest per device: no intermediate array is allocated.
TEST_CASE("a chain of elementwise ops fuses into one loop nest", "[fusion]") {
  const char *text = R"(garray.mesh @mesh ["data" = 4]
func.func @main(%x: tensor<8x4xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                %y: tensor<8x4xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<8x4xi32> {garray.name = "r"}) {
  %m = garray.compare <gt> %x, %y : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xi1>
  %e = garray.exp %x : tensor<8x4xf32>
  %s = garray.select %m, %e, %y : (tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %t = garray.mul %s, %x : tensor<8x4xf32>
  %i = garray.convert %t lossy : (tensor<8x4xf32>) -> tensor<8x4xi32>
  %r = garray.abs %i : tensor<8x4xi32>
  return %r : tensor<8x4xi32>
}
)";
  Compiled c = compile(text, "data=4", "chain.mlir", shardc::Phase::LLVM);
  INFO(c.diagnostics);
  REQUIRE(c.ok);
  INFO(c.emitted);
  CHECK(c.emitted.find("@shardrt_buffer_alloc") == std::string::npos);
  CHECK(c.emitted.find("shardrt_") == std::string::npos); // no runtime call per element

  Rng rng(7);
  TypedArray x = randomOperand(rng, "f32", kShape, -4, 4);
  TypedArray y = randomOperand(rng, "f32", kShape, -4, 4);
  TypedArray expected{"i32", kShape, {}};
  for (size_t k = 0; k < x.values.size(); ++k) {
    float xf = static_cast<float>(x.values[k]), yf = static_cast<float>(y.values[k]);
    float s = xf > yf ? std::exp(xf) : yf;
    expected.values.push_back(std::fabs(std::trunc(s * xf)));
  }
  Compiled run4 = compile(text, "data=4");
  TypedRunOutcome r = runTyped(run4, {{"x", x}, {"y", y}});
  INFO(r.error);
  REQUIRE(r.ok);
  // exp's last bit may differ from the host's, which can move a product
  // across an integer before the truncation: allow 1.
  CHECK(mismatchTyped("r", r.outputs["r"], expected, Tolerance{0, 1}) == "");
}

namespace {

// A model of two unary f32 ops on one 4096-element input "x", with outputs
// "a" and "b"; its LLVM IR must call none of `libm`'s functions.
std::string twoUnaryOps(const char *a, const char *b, std::initializer_list<const char *> libm) {
  const std::string t = "tensor<4096xf32>";
  const std::string text = "func.func @main(%x: " + t + " {garray.name = \"x\"}) -> (" + t +
                           " {garray.name = \"a\"}, " + t + " {garray.name = \"b\"}) {\n" +
                           "  %a = garray." + a + " %x : " + t + "\n  %b = garray." + b + " %x : " +
                           t + "\n  return %a, %b : " + t + ", " + t + "\n}\n";
  Compiled llvm = compile(text, "", "math.mlir", shardc::Phase::LLVM);
  INFO(llvm.diagnostics);
  REQUIRE(llvm.ok);
  for (const char *name : libm) {
    INFO(name);
    CHECK(llvm.emitted.find(name) == std::string::npos);
  }
  return text;
}

/// Runs `text` with `xs`, rounded to f32, as its input "x" (kept in `x`).
TypedRunOutcome runOnF32(const std::string &text, const std::vector<double> &xs, TypedArray &x) {
  x = TypedArray{"f32", {static_cast<int64_t>(xs.size())}, {}};
  for (double v : xs)
    x.values.push_back(static_cast<double>(static_cast<float>(v)));
  return runTyped(compile(text, ""), {{"x", x}});
}

} // namespace

// f32 exp and tanh are polynomial approximations (cpu-approximate-math), so
// that their loops vectorize: no libm call is left, and over their whole
// range they stay within a few ulp of the double-precision value, with
// libm's NaN, infinities and signed zeros.
TEST_CASE("f32 exp and tanh vectorize and stay within 3 ulp over their range", "[math]") {
  const int64_t n = 4096;
  const std::string text =
      twoUnaryOps("exp", "tanh", {"@expf", "@tanhf", "@llvm.exp.", "@llvm.tanh."});

  // Edges first, then [-104, 89] (exp from below the subnormals to near
  // the largest float), then [-10, 10] densely.
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> xs = {std::nan(""), inf, -inf, 0.0, -0.0, 88.72, -87.3, 1e-30, -1e-30};
  while (static_cast<int64_t>(xs.size()) < n / 2)
    xs.push_back(-104.0 + 193.0 * static_cast<double>(xs.size()) / (n / 2));
  while (static_cast<int64_t>(xs.size()) < n)
    xs.push_back(-10.0 + 20.0 * static_cast<double>(xs.size() - n / 2) / (n / 2));
  TypedArray x;
  TypedRunOutcome r = runOnF32(text, xs, x);
  INFO(r.error);
  REQUIRE(r.ok);
  const double ulp = std::ldexp(1.0, -23), smallestNormal = std::ldexp(1.0, -126);
  int bad = 0;
  for (int64_t k = 0; k < n; ++k) {
    double v = x.values[k], e = r.outputs["a"].values[k], th = r.outputs["b"].values[k];
    double re = std::exp(v), rt = std::tanh(v);
    auto wrong = [&](double got, double want, bool flushOk) {
      if (std::isnan(want))
        return !std::isnan(got);
      if (std::isinf(want) || want == 0.0)
        return got != want || std::signbit(got) != std::signbit(want);
      if (std::fabs(want) > std::numeric_limits<float>::max())
        return !std::isinf(got);
      if (flushOk && std::fabs(want) < smallestNormal)
        return std::fabs(got - want) > smallestNormal;
      return std::fabs(got - want) > 3 * ulp * std::fabs(want);
    };
    if ((wrong(e, re, true) || wrong(th, rt, false)) && bad++ < 10)
      FAIL_CHECK("x = " << v << ": exp " << e << " (want " << re << "), tanh " << th
                        << " (want " << rt << ")");
  }
  CHECK(bad == 0);
}

// f32 log and log1p are polynomial approximations too: no libm call is
// left, and from the smallest subnormal to the largest float (log) and
// from just above -1 to the largest float (log1p) they stay within a few
// ulp of the double-precision value, with libm's results at the edges
// (log of a negative is NaN, of ±0 is -inf; log1p(-1) is -inf).
TEST_CASE("f32 log and log1p vectorize and stay within 3 ulp over their range", "[math]") {
  const int64_t n = 4096;
  const std::string text = twoUnaryOps("log", "log1p", {"@logf", "@log1pf", "@llvm.log."});

  // Edges first; then every binade from the smallest subnormal to the
  // largest float, a few points each; then [-1, 4] densely, where log1p
  // cancels and log crosses zero.
  const double inf = std::numeric_limits<double>::infinity();
  const double smallest = std::ldexp(1.0, -149), largest = std::numeric_limits<float>::max();
  std::vector<double> xs = {std::nan(""), inf,  -inf,    0.0,   -0.0,    -1.0,     -2.0,
                            smallest,     1e-40, 1e-30, -1e-30, 1e-8,    -1e-8,    largest,
                            1.0,          -0.999999940395, 0.999999940395, 1.00000011921};
  const int64_t binadesEnd = n / 2;
  for (int64_t k = 0; static_cast<int64_t>(xs.size()) < binadesEnd; ++k)
    xs.push_back(std::exp2(-149.0 + 277.9 * static_cast<double>(k) / (binadesEnd - 19)));
  while (static_cast<int64_t>(xs.size()) < n)
    xs.push_back(-1.0 + 5.0 * static_cast<double>(xs.size() - binadesEnd + 1) / (n - binadesEnd));
  TypedArray x;
  TypedRunOutcome r = runOnF32(text, xs, x);
  INFO(r.error);
  REQUIRE(r.ok);
  const double ulp = std::ldexp(1.0, -23);
  int bad = 0;
  double worstLog = 0, worstLog1p = 0;
  for (int64_t k = 0; k < n; ++k) {
    double v = x.values[k], l = r.outputs["a"].values[k], p = r.outputs["b"].values[k];
    auto wrong = [&](double got, double want, double &worst) {
      if (std::isnan(want))
        return !std::isnan(got);
      if (std::isinf(want) || want == 0.0)
        return got != want || std::signbit(got) != std::signbit(want);
      double err = std::fabs(got - want) / std::fabs(want);
      worst = std::max(worst, err);
      return err > 3 * ulp;
    };
    if ((wrong(l, std::log(v), worstLog) || wrong(p, std::log1p(v), worstLog1p)) && bad++ < 10)
      FAIL_CHECK("x = " << v << ": log " << l << " (want " << std::log(v) << "), log1p " << p
                        << " (want " << std::log1p(v) << ")");
  }
  INFO("worst relative error: log " << worstLog << ", log1p " << worstLog1p);
  CHECK(bad == 0);
}

// expm1 is not exp(x) - 1, which cancels near 0 (convert-math-to-llvm's
// lowering gave 0 for |x| < 6e-8 and 4 % off at 1e-5): in f32 it is MLIR's
// approximation, in f64 Kahan's correction with libm's exp and log. Both
// stay within a few ulp of the double-precision (long double) value from
// tiny arguments to overflow.
TEST_CASE("expm1 is accurate near zero in f32 and f64", "[math]") {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> xs = {std::nan(""), inf, -inf, 0.0, -0.0, 1e-30, -1e-30, 1e-10,
                            -1e-10, 6e-8, -6e-8, 1e-5, -1e-5, 88.7, -100.0, 700.0};
  while (xs.size() < 1024)
    xs.push_back(std::ldexp(xs.size() % 2 ? 1.0 : -1.0, -40 + static_cast<int>(xs.size() % 48)) *
                 (1.0 + static_cast<double>(xs.size()) / 1024));
  for (const char *type : {"f32", "f64"}) {
    INFO(type);
    bool f32 = std::string(type) == "f32";
    const std::string t = "tensor<1024x" + std::string(type) + ">";
    const std::string text = "func.func @main(%x: " + t + " {garray.name = \"x\"}) -> (" + t +
                             " {garray.name = \"y\"}) {\n  %y = garray.expm1 %x : " + t +
                             "\n  return %y : " + t + "\n}\n";
    TypedArray x{type, {1024}, {}};
    for (double v : xs)
      x.values.push_back(f32 ? static_cast<double>(static_cast<float>(v)) : v);
    TypedRunOutcome r = runTyped(compile(text, ""), {{"x", x}});
    INFO(r.error);
    REQUIRE(r.ok);
    const double ulp = f32 ? std::ldexp(1.0, -23) : std::ldexp(1.0, -52);
    const double largest = f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
    int bad = 0;
    for (size_t k = 0; k < xs.size(); ++k) {
      double v = x.values[k], got = r.outputs["y"].values[k];
      long double want = std::expm1(static_cast<long double>(v));
      bool wrong;
      if (std::isnan(v))
        wrong = !std::isnan(got);
      else if (want == 0 || std::fabs(static_cast<double>(want)) > largest)
        wrong = static_cast<long double>(got) != (want == 0 ? want : inf) ||
                std::signbit(got) != std::signbit(static_cast<double>(want));
      else
        wrong = std::fabs(static_cast<long double>(got) - want) > 4 * ulp * std::fabs(want);
      if (wrong && bad++ < 10)
        FAIL_CHECK("x = " << v << ": expm1 " << got << " (want " << static_cast<double>(want) << ")");
    }
    CHECK(bad == 0);
  }
}
