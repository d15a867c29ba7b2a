//===- ConvolutionTest.cpp - imported convolutions against a direct sum ---===//
//
// stablehlo.convolution is imported as one dot_general of stacked slices
// (compiler/import/ConvolutionImport.cpp). Here hand-written convolutions
// (NHWC input, HWIO kernel) run on several meshes, their input channels
// sharded, and are compared with the convolution summed directly in double
// precision: strides, padding, kernel dilation, and stacks too large for
// one piece (over 64 MiB), which are multiplied in chunks and summed, in
// both the per-tap and the per-output-position forms.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

using namespace shardc_test;

namespace {

struct Conv {
  std::vector<int64_t> input;  // [N, H, W, C]
  std::vector<int64_t> kernel; // [KH, KW, C, F]
  int64_t stride = 1, dilation = 1, pad = 0;

  int64_t out(int d) const {
    int64_t span = (kernel[d] - 1) * dilation + 1;
    return (input[d + 1] + 2 * pad - span) / stride + 1;
  }
  std::vector<int64_t> output() const { return {input[0], out(0), out(1), kernel[3]}; }
};

std::string tensor(const std::vector<int64_t> &shape) {
  std::ostringstream os;
  os << "tensor<";
  for (int64_t d : shape)
    os << d << "x";
  os << "f32>";
  return os.str();
}

/// The convolution as JAX would export it, on a 1-D mesh "data" of `ranks`
/// that shards the input channels (of the input and the kernel).
std::string module(const Conv &c, int64_t ranks) {
  std::ostringstream os;
  std::string x = tensor(c.input), k = tensor(c.kernel), y = tensor(c.output());
  os << "\"builtin.module\"() ({\n"
     << "  \"sdy.mesh\"() <{mesh = #sdy.mesh<[\"data\"=" << ranks
     << "]>, sym_name = \"mesh\"}> : () -> ()\n"
     << "  \"func.func\"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, "
        "{\"data\"}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {\"data\"}, {}]>}], "
     << "function_type = (" << x << ", " << k << ") -> " << y
     << ", sym_name = \"main\"}> ({\n"
     << "  ^bb0(%x: " << x << " loc(\"x\"), %k: " << k << " loc(\"k\")):\n"
     << "    %0 = \"stablehlo.convolution\"(%x, %k) <{batch_group_count = 1 : i64, "
        "dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, "
        "feature_group_count = 1 : i64, padding = dense<"
     << c.pad << "> : tensor<2x2xi64>, rhs_dilation = array<i64: " << c.dilation << ", "
     << c.dilation << ">, window_strides = array<i64: " << c.stride << ", " << c.stride
     << ">}> : (" << x << ", " << k << ") -> " << y << "\n"
     << "    \"func.return\"(%0) : (" << y << ") -> ()\n"
     << "  }) : () -> ()\n"
     << "}) : () -> ()\n";
  return os.str();
}

/// The convolution summed directly, in double precision.
TypedArray reference(const Conv &c, const TypedArray &x, const TypedArray &k) {
  TypedArray y;
  y.shape = c.output();
  y.values.assign(y.numel(), 0.0);
  const int64_t H = c.input[1], W = c.input[2], C = c.input[3];
  const int64_t KH = c.kernel[0], KW = c.kernel[1], F = c.kernel[3];
  const int64_t OH = y.shape[1], OW = y.shape[2];
  for (int64_t n = 0; n < c.input[0]; ++n)
    for (int64_t i = 0; i < OH; ++i)
      for (int64_t j = 0; j < OW; ++j)
        for (int64_t a = 0; a < KH; ++a)
          for (int64_t b = 0; b < KW; ++b) {
            int64_t h = i * c.stride + a * c.dilation - c.pad;
            int64_t w = j * c.stride + b * c.dilation - c.pad;
            if (h < 0 || h >= H || w < 0 || w >= W)
              continue;
            const double *in = &x.values[((n * H + h) * W + w) * C];
            const double *kk = &k.values[(a * KW + b) * C * F];
            double *out = &y.values[((n * OH + i) * OW + j) * F];
            for (int64_t ch = 0; ch < C; ++ch)
              for (int64_t f = 0; f < F; ++f)
                out[f] += in[ch] * kk[ch * F + f];
          }
  return y;
}

/// Runs `c` on 1-D meshes of each size in `meshes`; the relative error
/// (2-norm) must be within `tolerance`: f32 sums of K terms drift by about
/// sqrt(K) units in the last place.
void check(const Conv &c, std::initializer_list<int64_t> meshes, double tolerance = 1e-5) {
  Rng rng(7);
  TypedInputs inputs;
  inputs["x"] = randomReals(rng, "f32", c.input, -1, 1);
  inputs["k"] = randomReals(rng, "f32", c.kernel, -1, 1);
  TypedArray want = reference(c, inputs["x"], inputs["k"]);
  for (int64_t ranks : meshes) {
    INFO("input " << inputs["x"].shapeString() << ", kernel " << inputs["k"].shapeString()
                  << " on " << ranks << " ranks");
    TypedRunOutcome r = compileAndRunTyped(module(c, ranks), "", inputs);
    INFO(r.error);
    REQUIRE(r.ok);
    REQUIRE(r.outputs.size() == 1);
    const TypedArray &got = r.outputs.begin()->second;
    REQUIRE(got.shape == want.shape);
    double diff = 0, norm = 0;
    for (size_t i = 0; i < got.values.size(); ++i) {
      diff += (got.values[i] - want.values[i]) * (got.values[i] - want.values[i]);
      norm += want.values[i] * want.values[i];
    }
    CHECK(std::sqrt(diff / norm) <= tolerance);
    CHECK(r.replicaDiffs.begin()->second == 0);
  }
}

} // namespace

TEST_CASE("a 3x3 convolution, padded, matches the direct sum", "[import][exec]") {
  check({{2, 9, 7, 6}, {3, 3, 6, 5}, 1, 1, 1}, {1, 2, 3});
}

TEST_CASE("a strided convolution with a dilated kernel matches the direct sum",
          "[import][exec]") {
  check({{3, 13, 11, 4}, {3, 2, 4, 3}, 2, 2, 1}, {1, 2, 4});
}

TEST_CASE("a kernel-gradient-like convolution (window near the whole image) matches",
          "[import][exec]") {
  check({{2, 12, 12, 4}, {10, 11, 4, 3}, 1, 1, 0}, {1, 2});
}

// 9 taps of a 1x800x800x4 f32 input are 92 MB stacked: two chunks.
TEST_CASE("a convolution stacking more than 64 MiB of taps is summed in chunks",
          "[import][exec]") {
  check({{1, 800, 800, 4}, {3, 3, 4, 2}, 1, 1, 1}, {1, 2});
}

// 9 output positions of an 800x800 window over 4 channels: 92 MB stacked.
// Each output sums 2.56M products in f32.
TEST_CASE("a convolution stacking more than 64 MiB of positions is joined from chunks",
          "[import][exec]") {
  check({{1, 802, 802, 4}, {800, 800, 4, 2}, 1, 1, 0}, {1, 2}, 1e-4);
}
