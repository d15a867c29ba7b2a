//===- AutodiffFdTest.cpp - every adjoint against central differences -----===//
//
// For each differentiable op, a small f64 program
//
//   loss(a, b, ...) = sum(op(a, b, ...) * C)      (C: fixed, non-uniform weights)
//
// is differentiated with garray.value_and_grad (all arguments), compiled,
// and run; every gradient element must match the central difference
// (loss(x + h) - loss(x - h)) / 2h of the *compiled* loss, in f64. The same
// program compiled for two ranks, with the first argument split over "data"
// where its first dim allows, must give the same loss and gradients (the
// adjoint is partitioned like any other program). Ties of max/min follow
// JAX's rules, checked on exact values.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"

#include "compiler/pipeline/Pipeline.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

struct Arg {
  std::string name;
  std::vector<int64_t> shape;
  double lo = -2.0, hi = 2.0; // where the values are drawn from
};

struct OpCase {
  std::string what;
  std::vector<Arg> args;
  /// garray ops defining %r from the arguments (%a, %b, ...).
  std::string body;
  std::vector<int64_t> resultShape;
  /// Split the first argument's dim 0 over "data" in the 2-rank build.
  bool shardFirst = true;
  double tol = 1e-6;
  /// Differentiate with garray-autodiff alone, before the pipeline's
  /// garray-decompose: the adjoints of composites (mean) themselves, which
  /// the pipeline otherwise never reaches (it decomposes first).
  bool beforeDecompose = false;
};

/// `text` after garray-autodiff only, printed back.
std::string autodiffOnly(const std::string &text) {
  mlir::DialectRegistry registry;
  shardc::registerCompilerDialects(registry);
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  if (!module)
    return "";
  mlir::PassManager pm(&ctx);
  pm.addPass(shardc::createGArrayAutodiff());
  if (mlir::failed(pm.run(*module)))
    return "";
  std::string out;
  llvm::raw_string_ostream os(out);
  module->print(os);
  return out;
}

std::string tensorType(const std::vector<int64_t> &shape, const std::string &elem = "f64") {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + elem + ">";
}

int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// dense<...> text of row-major `values` with `shape`.
std::string denseLiteral(const std::vector<int64_t> &shape, const std::vector<double> &values) {
  if (shape.empty())
    return std::to_string(values[0]);
  std::function<std::string(size_t, size_t)> rec = [&](size_t dim, size_t offset) {
    size_t stride = 1;
    for (size_t d = dim + 1; d < shape.size(); ++d)
      stride *= shape[d];
    std::string s = "[";
    for (int64_t i = 0; i < shape[dim]; ++i) {
      if (i)
        s += ", ";
      if (dim + 1 == shape.size()) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", values[offset + i]);
        s += buf;
      } else {
        s += rec(dim + 1, offset + i * stride);
      }
    }
    return s + "]";
  };
  return rec(0, 0);
}

std::string modelText(const OpCase &c, bool shard) {
  // Weights 1, 2, ... (mod 7) minus 3: non-uniform, some negative.
  std::vector<double> w(numel(c.resultShape));
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<double>(i % 7) - 2.5;
  std::string rt = tensorType(c.resultShape), params, callArgs, argTypes, mainParams, results,
              resultTypes, wrt, names;
  for (size_t i = 0; i < c.args.size(); ++i) {
    const Arg &a = c.args[i];
    std::string t = tensorType(a.shape), sep = i ? ", " : "";
    params += sep + "%" + a.name + ": " + t;
    callArgs += sep + "%" + a.name;
    argTypes += sep + t;
    std::string attrs = "garray.name = \"" + a.name + "\"";
    if (shard && i == 0 && c.shardFirst) {
      std::string spec = "\"data\"";
      for (size_t d = 1; d < a.shape.size(); ++d)
        spec += ", None";
      attrs += ", garray.sharding = #garray.sharding<@mesh, P(" + spec + ")>";
    }
    mainParams += sep + "%" + a.name + ": " + t + " {" + attrs + "}";
    results += ", %g" + std::to_string(i);
    resultTypes += ", " + t;
    wrt += sep + std::to_string(i);
    names += ", " + t + " {garray.name = \"grad_" + a.name + "\"}";
  }
  std::string loss;
  if (c.resultShape.empty()) {
    loss = "  %loss = garray.mul %r, %cw : tensor<f64>\n";
  } else {
    std::string dims;
    for (size_t d = 0; d < c.resultShape.size(); ++d)
      dims += (d ? ", " : "") + std::to_string(d);
    loss = "  %rw = garray.mul %r, %cw : " + rt + "\n  %loss = garray.reduce <sum> %rw, dims = [" +
           dims + "] : (" + rt + ") -> tensor<f64>\n";
  }
  return "garray.mesh @mesh [\"data\" = 2]\n"
         "func.func private @f(" + params + ") -> tensor<f64> {\n" + c.body + "\n" +
         "  %cw = garray.constant dense<" + denseLiteral(c.resultShape, w) + "> : " + rt + "\n" +
         loss + "  return %loss : tensor<f64>\n}\n" +
         "func.func @main(" + mainParams + ") -> (tensor<f64> {garray.name = \"loss\"}" + names +
         ") {\n  %l" + results + " = garray.value_and_grad @f(" + callArgs + ") wrt [" + wrt +
         "] : (" + argTypes + ") -> (tensor<f64>" + resultTypes + ")\n  return %l" + results +
         " : tensor<f64>" + resultTypes + "\n}\n";
}

std::map<std::string, TypedArray> randomInputs(const OpCase &c, uint32_t seed) {
  Rng rng(seed);
  std::map<std::string, TypedArray> in;
  for (const Arg &a : c.args) {
    TypedArray t;
    t.dtype = "f64";
    t.shape = a.shape;
    for (int64_t i = 0; i < numel(a.shape); ++i)
      t.values.push_back(rng.uniform(static_cast<float>(a.lo), static_cast<float>(a.hi)));
    in[a.name] = t;
  }
  return in;
}

double lossOf(const Compiled &c, const std::map<std::string, TypedArray> &in) {
  TypedRunOutcome r = runTyped(c, in);
  if (!r.ok)
    FAIL(r.error);
  return r.outputs.at("loss").values.at(0);
}

void checkCase(const OpCase &c) {
  INFO(c.what);
  std::string one = modelText(c, false), two = modelText(c, true);
  if (c.beforeDecompose) {
    one = autodiffOnly(one);
    two = autodiffOnly(two);
    // Differentiated with the mean still whole: its own adjoint was used.
    REQUIRE(one.find("garray.mean") != std::string::npos);
    REQUIRE(one.find("value_and_grad") == std::string::npos);
    REQUIRE(two.find("value_and_grad") == std::string::npos);
  }
  Compiled c1 = compile(one, "data=1", c.what + ".mlir");
  INFO(one << "\n" << c1.diagnostics);
  REQUIRE(c1.ok);
  Compiled c2 = compile(two, "data=2", c.what + ".mlir");
  INFO(two << "\n" << c2.diagnostics);
  REQUIRE(c2.ok);
  for (uint32_t seed : {1u, 2u}) {
    INFO("seed " << seed);
    std::map<std::string, TypedArray> in = randomInputs(c, seed);
    TypedRunOutcome r1 = runTyped(c1, in), r2 = runTyped(c2, in);
    REQUIRE(r1.error == "");
    REQUIRE(r2.error == "");
    for (const auto &[name, diff] : r2.replicaDiffs) {
      INFO("replicas of " << name);
      CHECK(diff == 0.0);
    }
    CHECK(mismatchTyped("loss (2 ranks vs 1)", r2.outputs.at("loss"), r1.outputs.at("loss"),
                        {1e-12, 1e-12}) == "");
    for (const Arg &a : c.args) {
      const TypedArray &g1 = r1.outputs.at("grad_" + a.name);
      CHECK(mismatchTyped("grad_" + a.name + " (2 ranks vs 1)", r2.outputs.at("grad_" + a.name),
                          g1, {1e-12, 1e-12}) == "");
      TypedArray fd = g1;
      for (int64_t i = 0; i < numel(a.shape); ++i) {
        std::map<std::string, TypedArray> plus = in, minus = in;
        double x = in.at(a.name).values[i];
        double h = 1e-5 * std::max(1.0, std::fabs(x));
        plus[a.name].values[i] = x + h;
        minus[a.name].values[i] = x - h;
        fd.values[i] = (lossOf(c1, plus) - lossOf(c1, minus)) / (2 * h);
      }
      CHECK(mismatchTyped("grad_" + a.name + " vs central differences", g1, fd,
                          {c.tol, c.tol}) == "");
    }
  }
}

const std::vector<int64_t> k43 = {4, 3};

OpCase unary(const std::string &op, double lo = -2.0, double hi = 2.0) {
  return {op, {{"a", k43, lo, hi}}, "  %r = garray." + op + " %a : tensor<4x3xf64>", k43};
}
OpCase binary(const std::string &op, double blo = -2.0, double bhi = 2.0, double alo = -2.0,
              double ahi = 2.0) {
  return {op, {{"a", k43, alo, ahi}, {"b", k43, blo, bhi}},
          "  %r = garray." + op + " %a, %b : tensor<4x3xf64>", k43};
}

} // namespace

TEST_CASE("adjoints of elementwise unary ops match central differences", "[exec][autodiff][fd]") {
  for (const OpCase &c :
       {unary("abs"), unary("cos"), unary("exp"), unary("expm1"), unary("log", 0.5, 2.0),
        unary("log1p", -0.5, 2.0), unary("logistic"), unary("neg"), unary("rsqrt", 0.5, 2.0),
        unary("sin"), unary("sqrt", 0.5, 2.0), unary("tanh")})
    checkCase(c);
}

TEST_CASE("adjoints of elementwise binary ops, clamp, select, convert", "[exec][autodiff][fd]") {
  std::vector<OpCase> cases = {binary("add"), binary("sub"), binary("mul"),
                               binary("div", 0.5, 2.0), binary("max"), binary("min"),
                               binary("pow", -1.0, 2.0, 0.5, 2.0),
                               binary("rem", 0.5, 2.0)};
  cases.push_back({"clamp",
                   {{"lo", k43, -1.0, 0.0}, {"a", k43}, {"hi", k43, 0.0, 1.0}},
                   "  %r = garray.clamp %lo, %a, %hi : tensor<4x3xf64>",
                   k43});
  cases.push_back({"clamp with lo > hi",
                   {{"lo", k43, 0.5, 1.0}, {"a", k43}, {"hi", k43, -1.0, 0.25}},
                   "  %r = garray.clamp %lo, %a, %hi : tensor<4x3xf64>",
                   k43});
  cases.push_back({"select",
                   {{"a", k43}, {"b", k43}},
                   "  %z = garray.constant dense<0.0> : tensor<4x3xf64>\n"
                   "  %p = garray.compare <gt> %a, %z : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<4x3xi1>\n"
                   "  %r = garray.select %p, %a, %b : (tensor<4x3xi1>, tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>",
                   k43});
  // Through f32 and back: the derivative is 1, the differences see f32
  // rounding of the loss (h = 1e-5 relative), hence the tolerance.
  OpCase convert{"convert",
                 {{"a", k43}},
                 "  %s = garray.convert %a lossy : (tensor<4x3xf64>) -> tensor<4x3xf32>\n"
                 "  %t = garray.exp %s : tensor<4x3xf32>\n"
                 "  %r = garray.convert %t : (tensor<4x3xf32>) -> tensor<4x3xf64>",
                 k43};
  convert.tol = 2e-2;
  cases.push_back(convert);
  for (const OpCase &c : cases)
    checkCase(c);
}

TEST_CASE("adjoints of shape ops match central differences", "[exec][autodiff][fd]") {
  std::vector<OpCase> cases = {
      {"broadcast_in_dim (new dim)", {{"a", {3}}},
       "  %r = garray.broadcast_in_dim %a, dims = [1] : (tensor<3xf64>) -> tensor<4x3xf64>", k43,
       false},
      {"broadcast_in_dim (stretched dim)", {{"a", {4, 1}}},
       "  %r = garray.broadcast_in_dim %a, dims = [0, 1] : (tensor<4x1xf64>) -> tensor<4x3xf64>",
       k43},
      {"reshape", {{"a", k43}},
       "  %r = garray.reshape %a : (tensor<4x3xf64>) -> tensor<2x6xf64>", {2, 6}},
      {"transpose", {{"a", {4, 3, 2}}},
       "  %r = garray.transpose %a, permutation = [2, 0, 1] : (tensor<4x3x2xf64>) -> tensor<2x4x3xf64>",
       {2, 4, 3}},
      {"slice", {{"a", k43}},
       "  %r = garray.slice %a, start = [1, 1], limit = [3, 3], strides = [1, 1] : (tensor<4x3xf64>) -> tensor<2x2xf64>",
       {2, 2}},
      {"slice with strides 2 and 3", {{"a", {7, 8}}},
       "  %r = garray.slice %a, start = [1, 0], limit = [7, 8], strides = [2, 3] : (tensor<7x8xf64>) -> tensor<3x3xf64>",
       {3, 3}, false},
      {"slice with stride 2 ending before the last element", {{"a", {4, 9}}},
       "  %r = garray.slice %a, start = [0, 2], limit = [4, 7], strides = [1, 2] : (tensor<4x9xf64>) -> tensor<4x3xf64>",
       {4, 3}},
      {"pad (operand and padding value)", {{"a", k43}, {"v", {}}},
       "  %r = garray.pad %a, %v, low = [1, 0], high = [0, 2] : (tensor<4x3xf64>, tensor<f64>) -> tensor<5x5xf64>",
       {5, 5}},
      {"concatenate", {{"a", k43}, {"b", {2, 3}}},
       "  %r = garray.concatenate %a, %b, dim = 0 : (tensor<4x3xf64>, tensor<2x3xf64>) -> tensor<6x3xf64>",
       {6, 3}},
      {"reverse", {{"a", k43}},
       "  %r = garray.reverse %a, dims = [0, 1] : tensor<4x3xf64>", k43},
      {"shift (operand and fill), right along dim 0", {{"a", k43}, {"v", {}}},
       "  %r = garray.shift %a, %v, dim = 0, offset = 1 : (tensor<4x3xf64>, tensor<f64>) -> tensor<4x3xf64>",
       k43},
      {"shift (operand and fill), left along dim 1", {{"a", k43}, {"v", {}}},
       "  %r = garray.shift %a, %v, dim = 1, offset = -2 : (tensor<4x3xf64>, tensor<f64>) -> tensor<4x3xf64>",
       k43},
  };
  for (const OpCase &c : cases)
    checkCase(c);
}

TEST_CASE("adjoints of dot_general, reductions, mean, gather, scatter_add, scatter_reduce",
          "[exec][autodiff][fd]") {
  std::vector<OpCase> cases = {
      {"dot_general matmul", {{"a", k43}, {"b", {3, 5}}},
       "  %r = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0] : (tensor<4x3xf64>, tensor<3x5xf64>) -> tensor<4x5xf64>",
       {4, 5}},
      {"dot_general transposed operands", {{"a", {3, 4}}, {"b", {5, 3}}},
       "  %r = garray.dot_general %a, %b, batch = [] x [], contracting = [0] x [1] : (tensor<3x4xf64>, tensor<5x3xf64>) -> tensor<4x5xf64>",
       {4, 5}, false},
      {"dot_general batched", {{"a", {2, 4, 3}}, {"b", {2, 3, 5}}},
       "  %r = garray.dot_general %a, %b, batch = [0] x [0], contracting = [2] x [1] : (tensor<2x4x3xf64>, tensor<2x3x5xf64>) -> tensor<2x4x5xf64>",
       {2, 4, 5}},
      {"dot_general batch last, two contracting dims", {{"a", {4, 3, 2}}, {"b", {2, 3, 4, 5}}},
       "  %r = garray.dot_general %a, %b, batch = [2] x [0], contracting = [0, 1] x [2, 1] : (tensor<4x3x2xf64>, tensor<2x3x4x5xf64>) -> tensor<2x5xf64>",
       {2, 5}},
      {"reduce sum", {{"a", k43}},
       "  %r = garray.reduce <sum> %a, dims = [1] : (tensor<4x3xf64>) -> tensor<4xf64>", {4}},
      {"reduce sum over a sharded dim, keepdims", {{"a", k43}},
       "  %r = garray.reduce <sum> %a, dims = [0] keepdims : (tensor<4x3xf64>) -> tensor<1x3xf64>",
       {1, 3}},
      {"reduce max", {{"a", k43}},
       "  %r = garray.reduce <max> %a, dims = [1] : (tensor<4x3xf64>) -> tensor<4xf64>", {4}},
      {"reduce min over a sharded dim", {{"a", k43}},
       "  %r = garray.reduce <min> %a, dims = [0] : (tensor<4x3xf64>) -> tensor<3xf64>", {3}},
      {"mean", {{"a", k43}},
       "  %r = garray.mean %a, dims = [0] : (tensor<4x3xf64>) -> tensor<3xf64>", {3}},
      {"weighted mean (values and weights)", {{"a", k43}, {"w", k43, 0.25, 2.0}},
       "  %r = garray.mean %a, dims = [0, 1] weights %w : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<f64>",
       {}},
      {"gather (a repeated row)", {{"a", k43}},
       "  %i = garray.constant dense<[2, 0, 2, 3, 2]> : tensor<5xi64>\n"
       "  %r = garray.gather %a[%i] : (tensor<4x3xf64>, tensor<5xi64>) -> tensor<5x3xf64>",
       {5, 3}},
      {"scatter_add (base and updates)", {{"a", k43}, {"u", {4, 3}}},
       "  %i = garray.constant dense<[1, 3, 1, 0]> : tensor<4xi64>\n"
       "  %r = garray.scatter_add %a, %i, %u : (tensor<4x3xf64>, tensor<4xi64>, tensor<4x3xf64>) -> tensor<4x3xf64>",
       k43},
      {"scatter_reduce max (base and updates)", {{"a", k43}, {"u", {4, 3}}},
       "  %i = garray.constant dense<[1, 3, 1, 0]> : tensor<4xi64>\n"
       "  %r = garray.scatter_reduce <max> %a, %i, %u : (tensor<4x3xf64>, tensor<4xi64>, tensor<4x3xf64>) -> tensor<4x3xf64>",
       k43},
      {"scatter_reduce min (base and updates)", {{"a", k43}, {"u", {4, 3}}},
       "  %i = garray.constant dense<[2, 2, 0, 2]> : tensor<4xi64>\n"
       "  %r = garray.scatter_reduce <min> %a, %i, %u : (tensor<4x3xf64>, tensor<4xi64>, tensor<4x3xf64>) -> tensor<4x3xf64>",
       k43},
      {"scatter_reduce prod (base and updates)", {{"a", k43}, {"u", {4, 3}}},
       "  %i = garray.constant dense<[1, 3, 1, 1]> : tensor<4xi64>\n"
       "  %r = garray.scatter_reduce <prod> %a, %i, %u : (tensor<4x3xf64>, tensor<4xi64>, tensor<4x3xf64>) -> tensor<4x3xf64>",
       k43},
      // Zero factors: row 1's column 0 has one (the other factors' adjoints
      // are 0 there, and the base's), column 1 two; row 3's column 2 one.
      {"scatter_reduce prod with zero updates", {{"a", k43}, {"u", {4, 3}}},
       "  %i = garray.constant dense<[1, 3, 1, 1]> : tensor<4xi64>\n"
       "  %m = garray.constant dense<[[0.0, 0.0, 1.0], [1.0, 1.0, 0.0], [1.0, 0.0, 1.0], "
       "[1.0, 1.0, 1.0]]> : tensor<4x3xf64>\n"
       "  %z = garray.mul %u, %m : tensor<4x3xf64>\n"
       "  %r = garray.scatter_reduce <prod> %a, %i, %z : (tensor<4x3xf64>, tensor<4xi64>, tensor<4x3xf64>) -> tensor<4x3xf64>",
       k43},
  };
  for (const OpCase &c : cases)
    checkCase(c);
}

TEST_CASE("adjoints of mean and weighted mean themselves (before garray-decompose)",
          "[exec][autodiff][fd]") {
  std::vector<OpCase> cases = {
      {"mean (its own adjoint)", {{"a", k43}},
       "  %r = garray.mean %a, dims = [0] : (tensor<4x3xf64>) -> tensor<3xf64>", {3}},
      {"mean keepdims (its own adjoint)", {{"a", k43}},
       "  %r = garray.mean %a, dims = [1] keepdims : (tensor<4x3xf64>) -> tensor<4x1xf64>", {4, 1}},
      {"weighted mean (its own adjoint)", {{"a", k43}, {"w", k43, 0.25, 2.0}},
       "  %r = garray.mean %a, dims = [0] weights %w : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<3xf64>",
       {3}},
  };
  for (OpCase &c : cases) {
    c.beforeDecompose = true;
    checkCase(c);
  }
}

TEST_CASE("a value used twice gets the sum of both uses' cotangents; chains of ops",
          "[exec][autodiff][fd]") {
  checkCase({"x * exp(x) then tanh, broadcast and sum", {{"a", k43}, {"b", {3}}},
             "  %e = garray.exp %a : tensor<4x3xf64>\n"
             "  %m = garray.mul %a, %e : tensor<4x3xf64>\n"
             "  %bb = garray.broadcast_in_dim %b, dims = [1] : (tensor<3xf64>) -> tensor<4x3xf64>\n"
             "  %s = garray.add %m, %bb : tensor<4x3xf64>\n"
             "  %t = garray.tanh %s : tensor<4x3xf64>\n"
             "  %r = garray.mul %t, %a : tensor<4x3xf64>",
             k43});
}

TEST_CASE("ties: max/min split the cotangent evenly, as JAX", "[exec][autodiff][ties]") {
  // loss = sum(reduce_max(a, dims=[1])) + sum(max(a, 0)):
  //   row [1, 1, 0]: reduce max tie -> 0.5, 0.5, 0;  relu: 1, 1, and 0 ties -> 0.5
  //   row [2, -1, 2]: 0.5, 0, 0.5;                   relu: 1, 0, 1
  const char *text = R"(
garray.mesh @mesh ["data" = 2]
func.func private @f(%a: tensor<2x3xf64>) -> tensor<f64> {
  %m = garray.reduce <max> %a, dims = [1] : (tensor<2x3xf64>) -> tensor<2xf64>
  %s1 = garray.reduce <sum> %m, dims = [0] : (tensor<2xf64>) -> tensor<f64>
  %z = garray.constant dense<0.0> : tensor<2x3xf64>
  %relu = garray.max %a, %z : tensor<2x3xf64>
  %s2 = garray.reduce <sum> %relu, dims = [0, 1] : (tensor<2x3xf64>) -> tensor<f64>
  %l = garray.add %s1, %s2 : tensor<f64>
  return %l : tensor<f64>
}
func.func @main(%a: tensor<2x3xf64> {garray.name = "a", garray.sharding = #garray.sharding<@mesh, P(None, "data")>})
    -> (tensor<f64> {garray.name = "loss"}, tensor<2x3xf64> {garray.name = "grad"}) {
  %l, %g = garray.value_and_grad @f(%a) wrt [0] : (tensor<2x3xf64>) -> (tensor<f64>, tensor<2x3xf64>)
  return %l, %g : tensor<f64>, tensor<2x3xf64>
}
)";
  TypedArray a{"f64", {2, 3}, {1, 1, 0, 2, -1, 2}};
  TypedArray expected{"f64", {2, 3}, {1.5, 1.5, 0.5, 1.5, 0, 1.5}};
  for (const char *mesh : {"data=1", "data=3"}) {
    INFO(mesh);
    Compiled c = compile(text, mesh, "ties.mlir");
    INFO(c.diagnostics);
    REQUIRE(c.ok);
    TypedRunOutcome r = runTyped(c, {{"a", a}});
    REQUIRE(r.error == "");
    CHECK(r.outputs.at("loss").values.at(0) == 3 + 6);
    CHECK(mismatchTyped("grad", r.outputs.at("grad"), expected, {0, 0}) == "");
  }
}
