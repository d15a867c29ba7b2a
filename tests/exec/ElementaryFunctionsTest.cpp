//===- ElementaryFunctionsTest.cpp - the importer's expansions, measured -===//
//
// atan2, the inverse trigonometric and hyperbolic functions, tan, cbrt,
// rounding away from zero, next_after, popcnt and count_leading_zeros
// have no garray op: the importer builds them from garray's elementwise
// ops (compiler/import/ElementaryFunctions.cpp). Here each runs on f32 (or
// integer) inputs from their edges (±0, ±inf, NaN, the ends of their
// domains, where the expansions switch formulas) through every binade,
// against the double-precision <cmath> function.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

struct Op {
  const char *name;    // the output's name
  const char *op;      // the StableHLO or CHLO op
  const char *operands; // "%x", or "%y, %x" (atan2(y, x)), "%x, %y"
};

/// A StableHLO module with arguments x and y of type `t` and one result per
/// op, named as the op.
std::string moduleOf(const std::vector<Op> &ops, const std::string &t) {
  std::string results, names, body, returned, types;
  for (size_t i = 0; i < ops.size(); ++i) {
    std::string sep = i ? ", " : "";
    results += sep + t;
    names += sep + "{jax.result_info = \"" + ops[i].name + "\"}";
    std::string v = "%r" + std::to_string(i);
    bool binary = std::string(ops[i].operands).find(',') != std::string::npos;
    body += "    " + v + " = \"" + ops[i].op + "\"(" + ops[i].operands + ") : (" +
            (binary ? t + ", " + t : t) + ") -> " + t + "\n";
    returned += sep + v;
  }
  return "\"builtin.module\"() ({\n  \"func.func\"() <{function_type = (" + t + ", " + t +
         ") -> (" + results + "), res_attrs = [" + names +
         "], sym_name = \"main\"}> ({\n  ^bb0(%x: " + t + " loc(\"x\"), %y: " + t +
         " loc(\"y\")):\n" + body + "    \"func.return\"(" + returned + ") : (" + results +
         ") -> ()\n  }) : () -> ()\n}) : () -> ()\n";
}

/// f32 inputs: edges, then every binade of both signs, then [-3, 3].
std::vector<double> f32Inputs(int64_t n) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> xs = {std::nan(""), inf, -inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5,
                            1e-30, -1e-30, 1e-8, -1e-8, 0.99999994, -0.99999994, 1.0000001,
                            88.0, 88.5, -88.5, 89.2, -89.2, 268435456.0, 536870912.0, 1e20, -1e20,
                            3e38, -3e38, 1e-45, -1e-45, 0.41421357, 0.41421354, 2.4142137};
  const int64_t binades = n / 2;
  for (int64_t k = 0; static_cast<int64_t>(xs.size()) < binades; ++k)
    xs.push_back((k % 2 ? -1.0 : 1.0) * std::exp2(-149.0 + 277.0 * static_cast<double>(k) / binades));
  while (static_cast<int64_t>(xs.size()) < n)
    xs.push_back(-3.0 + 6.0 * static_cast<double>(xs.size() - binades) / (n - binades));
  for (double &v : xs)
    v = static_cast<double>(static_cast<float>(v));
  return xs;
}

/// |got - want| in units of f32's last place at want (at least the
/// smallest subnormal's); 0 when both are the same NaN, infinity or zero
/// (sign included), infinite when only one is.
double ulpsOff(double got, double want) {
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) && std::isnan(got) ? 0 : INFINITY;
  if (std::fabs(want) > std::numeric_limits<float>::max())
    want = std::copysign(INFINITY, want); // f32 overflows where double does not
  if (std::isinf(want) || std::isinf(got) || want == 0.0 || got == 0.0)
    return got == want && std::signbit(got) == std::signbit(want) ? 0
           : std::fabs(got - want) <= std::ldexp(1.0, -149)       ? 1
                                                                  : INFINITY;
  int e;
  std::frexp(std::fabs(want), &e);
  double ulp = std::ldexp(1.0, std::max(e - 24, -149));
  return std::fabs(got - want) / ulp;
}

} // namespace

TEST_CASE("atan2, inverse trig and hyperbolic functions, tan and cbrt stay within 4 ulp",
          "[math]") {
  const std::vector<Op> ops = {
      {"atan2", "stablehlo.atan2", "%y, %x"}, {"atan", "chlo.atan", "%x"},
      {"asin", "chlo.asin", "%x"},             {"acos", "chlo.acos", "%x"},
      {"tan", "stablehlo.tan", "%x"},          {"sinh", "chlo.sinh", "%x"},
      {"cosh", "chlo.cosh", "%x"},             {"asinh", "chlo.asinh", "%x"},
      {"acosh", "chlo.acosh", "%x"},           {"atanh", "chlo.atanh", "%x"},
      {"cbrt", "stablehlo.cbrt", "%x"},        {"round", "stablehlo.round_nearest_afz", "%x"},
      {"next", "chlo.next_after", "%x, %y"}};
  const int64_t n = 4096;
  std::vector<double> xs = f32Inputs(n), ys(xs.rbegin(), xs.rend());
  for (int64_t k = 0; k < n; k += 3)
    ys[k] = xs[(k * 7 + 1) % n]; // quadrants and equal operands mixed in
  TypedArray x{"f32", {n}, xs}, y{"f32", {n}, ys};
  const std::string t = "tensor<" + std::to_string(n) + "xf32>";
  TypedRunOutcome r = runTyped(compile(moduleOf(ops, t), "", "functions.mlir"), {{"x", x}, {"y", y}});
  INFO(r.error);
  REQUIRE(r.ok);
  auto reference = [](const std::string &name, double a, double b) -> double {
    if (name == "atan2") return std::atan2(b, a);
    if (name == "atan") return std::atan(a);
    if (name == "asin") return std::asin(a);
    if (name == "acos") return std::acos(a);
    if (name == "tan") return std::tan(a);
    if (name == "sinh") return std::sinh(a);
    if (name == "cosh") return std::cosh(a);
    if (name == "asinh") return std::asinh(a);
    if (name == "acosh") return std::acosh(a);
    if (name == "atanh") return std::atanh(a);
    if (name == "cbrt") return std::cbrt(a);
    if (name == "round") return std::round(a);
    return std::nextafter(static_cast<float>(a), static_cast<float>(b));
  };
  for (const Op &op : ops) {
    std::string name = op.name;
    // Exact ones; tan within 4 ulp where its argument is reduced exactly
    // (|x| <= 10: sin and cos of larger floats are out of this test's scope).
    double bound = name == "round" || name == "next" ? 0 : 4;
    double worst = 0;
    int bad = 0;
    for (int64_t k = 0; k < n; ++k) {
      if (name == "tan" && !(std::fabs(xs[k]) <= 10))
        continue;
      double want = reference(name, xs[k], ys[k]), got = r.outputs[name].values[k];
      double off = ulpsOff(got, want);
      worst = std::max(worst, off);
      if (off > bound && bad++ < 5)
        FAIL_CHECK(name << "(" << xs[k] << ", " << ys[k]
                        << ") = " << got << ", want " << want << " (" << off << " ulp)");
    }
    INFO(name << ": worst " << worst << " ulp");
    CHECK(bad == 0);
  }
}

TEST_CASE("popcnt and count_leading_zeros on i32 and i64", "[math]") {
  for (const char *type : {"i32", "i64"}) {
    INFO(type);
    bool wide = std::string(type) == "i64";
    const std::vector<Op> ops = {{"popcnt", "stablehlo.popcnt", "%x"},
                                 {"clz", "stablehlo.count_leading_zeros", "%x"}};
    const int64_t n = 256;
    std::vector<double> xs;
    for (int64_t k = 0; k < n; ++k) {
      // 0, -1, powers of two and their neighbours, mixed bit patterns; all
      // exact as doubles (|v| < 2^53).
      int64_t v = k < 2 ? -k : k % 3 == 0 ? (int64_t{1} << (k % (wide ? 52 : 31)))
                                          : (k * 2654435761LL) % (int64_t{1} << (wide ? 50 : 30));
      xs.push_back(static_cast<double>(k % 5 == 4 ? -v : v));
    }
    TypedArray x{type, {n}, xs}, y{type, {n}, xs};
    const std::string t = "tensor<" + std::to_string(n) + "x" + type + ">";
    TypedRunOutcome r =
        runTyped(compile(moduleOf(ops, t), "", "bits.mlir"), {{"x", x}, {"y", y}});
    INFO(r.error);
    REQUIRE(r.ok);
    for (int64_t k = 0; k < n; ++k) {
      int64_t v = static_cast<int64_t>(xs[k]);
      uint64_t bits = wide ? static_cast<uint64_t>(v) : static_cast<uint32_t>(v);
      int width = wide ? 64 : 32;
      double pop = __builtin_popcountll(bits);
      double clz = bits == 0 ? width : __builtin_clzll(bits) - (64 - width);
      INFO(v);
      CHECK(r.outputs["popcnt"].values[k] == pop);
      CHECK(r.outputs["clz"].values[k] == clz);
    }
  }
}
