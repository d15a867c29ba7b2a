//===- GemmEpilogueTest.cpp - elementwise consumers computed in GEMM tiles --===//
//
// A GEMM whose result only one elementwise kernel reads computes that kernel
// in its register tiles, in the last K block, and on C's edges separately
// (compiler/targets/GemmEpilogue.h). These models put such a consumer after
// dot_generals whose sizes give every case: partial rows and columns of
// tiles (37 x 45), several K blocks (K = 300 and 600), one K block (K = 32),
// one M block with parallel columns, several M blocks; consumers reading a
// row vector (a bias), a column vector, another matrix, with two results,
// and a bool result (which stays unfused: a vector of i1 is packed bits in
// memory). Each runs on 1 and 2 ranks (A's rows split) against a
// double-precision reference.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ReductionTestUtil.h"

#include <cmath>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

struct Sizes {
  int64_t m, k, n;
};

void checkEpilogues(const Sizes &z, uint32_t seed) {
  Rng rng(seed);
  TypedInputs in;
  in["a"] = randomReals(rng, "f32", {z.m, z.k}, -1.0f, 1.0f);
  // One weight per consumer: identical dot_generals would be one GEMM
  // with four consumers, which no tile can take.
  for (const char *w : {"w1", "w2", "w3", "w4"})
    in[w] = randomReals(rng, "f32", {z.k, z.n}, -1.0f, 1.0f);
  in["bias"] = randomReals(rng, "f32", {z.n}, -0.5f, 0.5f);
  in["scale"] = randomReals(rng, "f32", {z.m}, 0.5f, 2.0f);
  in["d"] = randomReals(rng, "f32", {z.m, z.n}, -1.0f, 1.0f);
  auto product = [&](const TypedArray &w) {
    const TypedArray &a = in.at("a");
    std::vector<double> c(z.m * z.n, 0.0);
    for (int64_t i = 0; i < z.m; ++i)
      for (int64_t p = 0; p < z.k; ++p)
        for (int64_t j = 0; j < z.n; ++j)
          c[i * z.n + j] += a.values[i * z.k + p] * w.values[p * z.n + j];
    return c;
  };
  std::vector<double> c1 = product(in.at("w1")), c2 = product(in.at("w2")),
                      c3 = product(in.at("w3")), c4 = product(in.at("w4"));
  // f32 sums of K terms: the tolerance is far below any consumer's effect
  // (a sign flip of relu, a wrong row's scale, a missed bias).
  Tolerance tol{1e-5, 1e-5 * z.k};
  std::vector<double> relu, mask, tanhScaled, masked, pre;
  std::vector<double> bools;
  for (int64_t i = 0; i < z.m; ++i)
    for (int64_t j = 0; j < z.n; ++j) {
      int64_t e = i * z.n + j;
      double b = in.at("bias").values[j];
      relu.push_back(std::max(c1[e] + b, 0.0));
      mask.push_back(c1[e] + b > 0 ? 1.0 : 0.0);
      tanhScaled.push_back(std::tanh(c2[e]) * in.at("scale").values[i]);
      masked.push_back(c3[e] > 0 ? in.at("d").values[e] : 0.0);
      bools.push_back(c4[e] < 0 ? 1.0 : 0.0);
    }
  // Outputs whose value sits within the sums' error of a decision (relu's
  // or a mask's threshold) could flip: none do for these seeds, and a flip
  // would show as a mismatch far above the tolerance.
  std::map<std::string, Expected> expected = {
      {"relu", {"f32", {z.m, z.n}, relu, tol}},
      {"mask", {"f32", {z.m, z.n}, mask, tol}},
      {"tanh_scaled", {"f32", {z.m, z.n}, tanhScaled, tol}},
      {"masked", {"f32", {z.m, z.n}, masked, tol}},
      {"negative", {"bool", {z.m, z.n}, bools, Tolerance{0, 0}}},
  };
  std::string mn = tensorType({z.m, z.n}, "f32"), mnb = tensorType({z.m, z.n}, "bool");
  auto dot = [&](const std::string &w) {
    return " = garray.dot_general %a, %" + w + ", batch = [] x [], contracting = [1] x [0] : (" +
           tensorType({z.m, z.k}, "f32") + ", " + tensorType({z.k, z.n}, "f32") + ") -> " + mn +
           "\n";
  };
  std::string body =
      // bias and relu, and a 0/1 mask of the same test: two results.
      "  %c1" + dot("w1") + "  %bb = garray.broadcast_in_dim %bias, dims = [1] : (tensor<" +
      std::to_string(z.n) + "xf32>) -> " + mn + "\n  %pre = garray.add %c1, %bb : " + mn +
      "\n  %zero = garray.constant dense<0.0> : " + mn + "\n  %one = garray.constant dense<1.0> : " +
      mn + "\n  %relu = garray.max %pre, %zero : " + mn +
      "\n  %pos = garray.compare <gt> %pre, %zero : (" + mn + ", " + mn + ") -> " + mnb +
      "\n  %mask = garray.select %pos, %one, %zero : (" + mnb + ", " + mn + ", " + mn + ") -> " +
      mn + "\n"
      // tanh scaled by a per-row factor.
      "  %c2" + dot("w2") + "  %t = garray.tanh %c2 : " + mn +
      "\n  %sb = garray.broadcast_in_dim %scale, dims = [0] : (tensor<" + std::to_string(z.m) +
      "xf32>) -> " + mn + "\n  %tanh_scaled = garray.mul %t, %sb : " + mn +
      "\n"
      // another matrix, selected by C's sign.
      "  %c3" + dot("w3") + "  %p3 = garray.compare <gt> %c3, %zero : (" + mn + ", " + mn + ") -> " + mnb +
      "\n  %masked = garray.select %p3, %d, %zero : (" + mnb + ", " + mn + ", " + mn + ") -> " + mn +
      "\n"
      // a bool result.
      "  %c4" + dot("w4") + "  %negative = garray.compare <lt> %c4, %zero : (" + mn + ", " + mn +
      ") -> " + mnb + "\n";
  std::string model = mainFunction({argument("a", in.at("a"), 0), argument("w1", in.at("w1"), -1),
                                    argument("w2", in.at("w2"), -1), argument("w3", in.at("w3"), -1),
                                    argument("w4", in.at("w4"), -1),
                                    argument("bias", in.at("bias"), -1),
                                    argument("scale", in.at("scale"), 0),
                                    argument("d", in.at("d"), 0)},
                                   expected, body);
  checkOnMeshes(model, in, expected, {"data=1", "data=2"});
}

} // namespace

TEST_CASE("GEMM epilogues: partial tiles in rows and columns, two K blocks", "[gemm_epilogue]") {
  checkEpilogues({37, 300, 45}, 41);
}

TEST_CASE("GEMM epilogues: one K block, full tiles only", "[gemm_epilogue]") {
  checkEpilogues({64, 32, 256}, 43);
}

TEST_CASE("GEMM epilogues: several M blocks and K blocks, partial last row", "[gemm_epilogue]") {
  checkEpilogues({330, 600, 130}, 47);
}

TEST_CASE("GEMM epilogues: one M block with parallel columns, on 1 to 3 threads",
          "[gemm_epilogue][threads]") {
  for (const char *threads : {"1", "2", "3"}) {
    setenv("SHARDRT_THREADS", threads, 1);
    INFO(threads << " kernel threads");
    checkEpilogues({36, 2000, 600}, 53);
  }
  unsetenv("SHARDRT_THREADS");
}
