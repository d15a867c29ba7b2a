//===- UnevenShardsTest.cpp - dims that do not divide over their mesh axes ===//
//
// Models whose sharded dims do not divide over their axes (ceil layout:
// blocks of ceil(n/k), trailing shards short or empty), compiled for 1, 2, 3,
// 4, 5 and 8 ranks and for 2x2 / 2x4 meshes where the model has two axes,
// run on a threads world and checked against a double-precision reference
// computed here and against the 1-rank run, replicas agreeing exactly.
//
// Each model is built so that padding that reached a result would change it:
// inputs are scattered with zero padding, so the models first turn the
// padding into something that is not a reduction's identity (exp(0) = 1,
// x + 1, log(0) = -inf, 0/0 = NaN, all-negative data for max, all-positive
// for min). The masks that make this pass are described in
// passes/local/UnevenShards.h.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ModelText.h"
#include "tests/exec/ReductionTestUtil.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

const std::vector<std::string> k1D = {"data=1", "data=2", "data=3",
                                      "data=4", "data=5", "data=8"};
const std::vector<std::string> k2D = {"data=1,model=1", "data=2,model=1", "data=1,model=2",
                                      "data=2,model=2", "data=2,model=4", "data=3,model=2"};

TypedArray f32(std::vector<int64_t> shape, std::vector<double> values) {
  return TypedArray{"f32", std::move(shape), std::move(values)};
}

const Tolerance kF32{1e-5, 1e-5};

//===----------------------------------------------------------------------===//
// Linear regression: the mean gradient with shards of unequal sizes
//===----------------------------------------------------------------------===//

// loss = mean((X w + b - y)^2), grad = (2/N) X^T (X w + b - y), with N rows
// split over "data" (and, on a 2-D mesh, the features over "model"). The
// intercept b makes the residual of a padded row b, not 0.
const char *kLinearRegression = R"(garray.mesh @mesh ["data" = 1, "model" = 1]
func.func @main(
    %X: tensor<{N}x{F}xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", {FSPEC})>},
    %y: tensor<{N}xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %w: tensor<{F}xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P({FSPEC})>},
    %b: tensor<f32> {garray.name = "b", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<f32> {garray.name = "loss"}, tensor<{F}xf32> {garray.name = "grad"}) {
  %pred = garray.dot_general %X, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<{N}x{F}xf32>, tensor<{F}xf32>) -> tensor<{N}xf32>
  %bb = garray.broadcast_in_dim %b, dims = [] : (tensor<f32>) -> tensor<{N}xf32>
  %pb = garray.add %pred, %bb : tensor<{N}xf32>
  %r = garray.sub %pb, %y : tensor<{N}xf32>
  %sq = garray.mul %r, %r : tensor<{N}xf32>
  %loss = garray.mean %sq, dims = [0] : (tensor<{N}xf32>) -> tensor<f32>
  %xtr = garray.dot_general %X, %r, batch = [] x [], contracting = [0] x [0]
      : (tensor<{N}x{F}xf32>, tensor<{N}xf32>) -> tensor<{F}xf32>
  %scale = garray.constant dense<{TWO_OVER_N}> : tensor<{F}xf32>
  %grad = garray.mul %xtr, %scale : tensor<{F}xf32>
  return %loss, %grad : tensor<f32>, tensor<{F}xf32>
}
)";

void checkLinearRegression(int64_t n, int64_t f, const std::string &featureSpec,
                           const std::vector<std::string> &meshes, uint32_t seed) {
  Rng rng(seed);
  TypedInputs in;
  in["X"] = randomReals(rng, "f32", {n, f}, -1.0f, 1.0f);
  in["y"] = randomReals(rng, "f32", {n}, -1.0f, 1.0f);
  in["w"] = randomReals(rng, "f32", {f}, -1.0f, 1.0f);
  in["b"] = f32({}, {0.75});
  std::vector<double> r(n), grad(f, 0.0);
  double loss = 0;
  for (int64_t i = 0; i < n; ++i) {
    double p = 0;
    for (int64_t j = 0; j < f; ++j)
      p += in["X"].at(i, j) * in["w"].values[j];
    r[i] = p + 0.75 - in["y"].values[i];
    loss += r[i] * r[i] / n;
  }
  for (int64_t j = 0; j < f; ++j) {
    for (int64_t i = 0; i < n; ++i)
      grad[j] += in["X"].at(i, j) * r[i];
    grad[j] *= 2.0 / n;
  }
  // 2/N as the model's f32 constant (N = 7 is not a dyadic fraction).
  float twoOverN = static_cast<float>(2.0 / n);
  std::string model = subst(kLinearRegression, {{"N", std::to_string(n)},
                                                {"F", std::to_string(f)},
                                                {"FSPEC", featureSpec},
                                                {"TWO_OVER_N", std::to_string(twoOverN)}});
  checkOnMeshes(model, in,
                {{"loss", {"f32", {}, {loss}, kF32}}, {"grad", {"f32", {f}, grad, kF32}}},
                meshes);
}

TEST_CASE("linear regression: mean gradient over 7 and 10 rows on uneven shards",
          "[uneven][linreg]") {
  SECTION("7 rows") { checkLinearRegression(7, 2, "None", k1D, 7); }
  SECTION("10 rows") { checkLinearRegression(10, 3, "None", k1D, 10); }
  // Features split over "model" too: 3 features over 2 or 4 devices puts the
  // contracting dim of X w on uneven (and empty) shards.
  SECTION("7x3 on 2-D meshes") { checkLinearRegression(7, 3, "\"model\"", k2D, 73); }
}

//===----------------------------------------------------------------------===//
// Masked token loss: a weighted mean with different valid counts per shard
//===----------------------------------------------------------------------===//

TEST_CASE("masked token loss: weighted mean over uneven shards", "[uneven][masked]") {
  const int64_t n = 10;
  // Valid tokens clustered at the front so that every shard count differs
  // (4 ranks: shards of 3,3,3,1 with 3,1,1,0 valid).
  std::vector<double> mask = {1, 1, 1, 0, 1, 0, 0, 0, 1, 0}, ignore;
  for (double m : mask)
    ignore.push_back(1 - m);
  Rng rng(11);
  TypedInputs in;
  in["logp"] = randomReals(rng, "f32", {n}, -4.0f, 0.0f);
  in["ignore"] = f32({n}, ignore);
  double num = 0, den = 0;
  for (int64_t i = 0; i < n; ++i) {
    num += (in["logp"].values[i] - 1) * mask[i];
    den += mask[i];
  }
  // The weights come in as an ignore flag, w = 1 - ignore: the zero padding
  // of `ignore` is a weight of 1, which an unmasked sum would count (and
  // logp - 1 makes the padding's value -1, not 0).
  std::string model = R"(garray.mesh @mesh ["data" = 1]
func.func @main(
    %logp: tensor<10xf32> {garray.name = "logp", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %ignore: tensor<10xf32> {garray.name = "ignore", garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<f32> {garray.name = "loss"}) {
  %one = garray.constant dense<1.0> : tensor<10xf32>
  %w = garray.sub %one, %ignore : tensor<10xf32>
  %lp = garray.sub %logp, %one : tensor<10xf32>
  %m = garray.mean %lp, dims = [0] weights %w : (tensor<10xf32>, tensor<10xf32>) -> tensor<f32>
  %loss = garray.neg %m : tensor<f32>
  return %loss : tensor<f32>
}
)";
  checkOnMeshes(model, in, {{"loss", {"f32", {}, {-num / den}, kF32}}}, k1D);
}

//===----------------------------------------------------------------------===//
// Mean and variance with a 3/2 split
//===----------------------------------------------------------------------===//

TEST_CASE("mean and variance of 5 rows (3/2 on 2 devices)", "[uneven][meanvar]") {
  Rng rng(5);
  TypedInputs in;
  in["x"] = randomReals(rng, "f32", {5, 3}, 1.0f, 3.0f);
  std::vector<double> mean(3, 0), var(3, 0);
  for (int64_t j = 0; j < 3; ++j) {
    for (int64_t i = 0; i < 5; ++i)
      mean[j] += in["x"].at(i, j) / 5;
    for (int64_t i = 0; i < 5; ++i)
      var[j] += (in["x"].at(i, j) - mean[j]) * (in["x"].at(i, j) - mean[j]) / 5;
  }
  // (x - mean)^2 is mean^2 on zero padding: unmasked, it would count.
  std::string model = R"(garray.mesh @mesh ["data" = 1]
func.func @main(%x: tensor<5x3xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<3xf32> {garray.name = "mean"}, tensor<3xf32> {garray.name = "var"}) {
  %mean = garray.mean %x, dims = [0] : (tensor<5x3xf32>) -> tensor<3xf32>
  %mb = garray.broadcast_in_dim %mean, dims = [1] : (tensor<3xf32>) -> tensor<5x3xf32>
  %d = garray.sub %x, %mb : tensor<5x3xf32>
  %d2 = garray.mul %d, %d : tensor<5x3xf32>
  %var = garray.mean %d2, dims = [0] : (tensor<5x3xf32>) -> tensor<3xf32>
  return %mean, %var : tensor<3xf32>, tensor<3xf32>
}
)";
  checkOnMeshes(model, in,
                {{"mean", {"f32", {3}, mean, kF32}}, {"var", {"f32", {3}, var, kF32}}}, k1D);
}

//===----------------------------------------------------------------------===//
// max / argmax / argmin with ties across shards
//===----------------------------------------------------------------------===//

TEST_CASE("max, argmax, argmin: ties across uneven shards, padding loses",
          "[uneven][argmax]") {
  // All values negative: a zero from the padding would win an unmasked max.
  // The maximum -1 sits at 2 and 5 (different shards on 2, 3, 4, 5 ranks),
  // the minimum -9 at 1 and 6: the first global index must win.
  std::vector<double> x = {-3, -9, -1, -4, -2, -1, -9};
  // All positive for the min of y: a zero from the padding would win.
  std::vector<double> y = {5, 2, 7, 2, 3, 9, 4};
  TypedInputs in{{"x", f32({7}, x)}, {"y", f32({7}, y)}};
  std::string model = R"(garray.mesh @mesh ["data" = 1]
func.func @main(
    %x: tensor<7xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %y: tensor<7xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<f32> {garray.name = "max"}, tensor<i64> {garray.name = "amax"},
        tensor<i64> {garray.name = "amin"}, tensor<f32> {garray.name = "ymin"},
        tensor<i64> {garray.name = "yamin"}) {
  %max = garray.reduce <max> %x, dims = [0] : (tensor<7xf32>) -> tensor<f32>
  %amax = garray.argmax %x, dim = 0 : (tensor<7xf32>) -> tensor<i64>
  %amin = garray.argmin %x, dim = 0 : (tensor<7xf32>) -> tensor<i64>
  %ymin = garray.reduce <min> %y, dims = [0] : (tensor<7xf32>) -> tensor<f32>
  %yamin = garray.argmin %y, dim = 0 : (tensor<7xf32>) -> tensor<i64>
  return %max, %amax, %amin, %ymin, %yamin : tensor<f32>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<i64>
}
)";
  checkOnMeshes(model, in,
                {{"max", {"f32", {}, {-1}}},
                 {"amax", {"i64", {}, {2}}},
                 {"amin", {"i64", {}, {1}}},
                 {"ymin", {"f32", {}, {2}}},
                 {"yamin", {"i64", {}, {1}}}},
                k1D);
}

TEST_CASE("argmax over the sharded columns of a 2-D array", "[uneven][argmax]") {
  // 3 rows x 5 columns, columns split; row r's maximum is tied at columns
  // r and 4 (so the later tie is on the last, short shard).
  std::vector<double> x(15, -5);
  for (int64_t r = 0; r < 3; ++r) {
    x[r * 5 + r] = -0.5;
    x[r * 5 + 4] = -0.5;
  }
  TypedInputs in{{"x", f32({3, 5}, x)}};
  std::string model = R"(garray.mesh @mesh ["data" = 1, "model" = 1]
func.func @main(%x: tensor<3x5xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", "model")>})
    -> (tensor<3xi64> {garray.name = "amax"}) {
  %amax = garray.argmax %x, dim = 1 : (tensor<3x5xf32>) -> tensor<3xi64>
  return %amax : tensor<3xi64>
}
)";
  checkOnMeshes(model, in, {{"amax", {"i64", {3}, {0, 1, 2}}}}, k2D);
}

//===----------------------------------------------------------------------===//
// An empty shard: a length-5 vector over 4 (2,2,1,0) and 8 (1,1,1,1,1,0,0,0)
//===----------------------------------------------------------------------===//

TEST_CASE("length-5 vector with empty shards: elementwise, sum, outputs, gathers",
          "[uneven][empty]") {
  std::vector<double> x = {0.5, 1.5, -2, 3, 0.25};
  TypedInputs in{{"x", f32({5}, x)}};
  std::vector<double> y, yy;
  double sum = 0, sumRep = 0;
  for (double v : x) {
    y.push_back(2 * v + 1);
    sum += 2 * v + 1;
    sumRep += v * v;
  }
  // A non-splat constant placed like x is materialised whole, padded to
  // k*ceil(5/k) and sliced (its padding 0, plus 1, must not be summed).
  std::vector<double> plusConst;
  double sumConst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    plusConst.push_back(x[i] + 10.0 * (i + 1));
    sumConst += plusConst.back() + 1;
  }
  // y is an output both sharded (gathered by the runtime) and replicated
  // (an all_gather of padded blocks in the program, cropped to 5); `r` is a
  // replicated value sliced back onto shards (padded to k*ceil(5/k), then
  // comm.all_slice) before its sum.
  std::string model = R"(garray.mesh @mesh ["data" = 1]
func.func @main(%x: tensor<5xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<5xf32> {garray.name = "y"},
        tensor<5xf32> {garray.name = "y_replicated", garray.sharding = #garray.sharding<@mesh, P()>},
        tensor<f32> {garray.name = "sum"}, tensor<f32> {garray.name = "sum_sq"},
        tensor<5xf32> {garray.name = "plus_const"}, tensor<f32> {garray.name = "sum_const"}) {
  %two = garray.constant dense<2.0> : tensor<5xf32>
  %one = garray.constant dense<1.0> : tensor<5xf32>
  %tx = garray.mul %x, %two : tensor<5xf32>
  %y = garray.add %tx, %one : tensor<5xf32>
  %sum = garray.reduce <sum> %y, dims = [0] : (tensor<5xf32>) -> tensor<f32>
  %rep = garray.sharding_constraint %x : tensor<5xf32> to #garray.sharding<@mesh, P()>
  %sq = garray.mul %rep, %rep : tensor<5xf32>
  %sqs = garray.sharding_constraint %sq : tensor<5xf32> to #garray.sharding<@mesh, P("data")>
  %e = garray.exp %sqs : tensor<5xf32>
  %l = garray.log %e : tensor<5xf32>
  %sum_sq = garray.reduce <sum> %l, dims = [0] : (tensor<5xf32>) -> tensor<f32>
  %c = garray.constant dense<[10.0, 20.0, 30.0, 40.0, 50.0]> : tensor<5xf32>
  %xc = garray.add %x, %c : tensor<5xf32>
  %c1 = garray.constant dense<1.0> : tensor<5xf32>
  %xc1 = garray.add %xc, %c1 : tensor<5xf32>
  %sum_c = garray.reduce <sum> %xc1, dims = [0] : (tensor<5xf32>) -> tensor<f32>
  return %y, %y, %sum, %sum_sq, %xc, %sum_c : tensor<5xf32>, tensor<5xf32>, tensor<f32>, tensor<f32>, tensor<5xf32>, tensor<f32>
}
)";
  checkOnMeshes(model, in,
                {{"y", {"f32", {5}, y, kF32}},
                 {"y_replicated", {"f32", {5}, y, kF32}},
                 {"sum", {"f32", {}, {sum}, kF32}},
                 {"sum_sq", {"f32", {}, {sumRep}, kF32}},
                 {"plus_const", {"f32", {5}, plusConst, kF32}},
                 {"sum_const", {"f32", {}, {sumConst}, kF32}}},
                k1D);
}

// Arrays with a dim of size 0 split unevenly (5 rows over 3 devices: blocks
// of 2, 2, 1 and padding) hold no data: every collective of them, planned
// for a reshard or written, is an empty constant in the local program, and
// what they reduce to is the reduction's identity, whatever the mesh.
TEST_CASE("zero-element arrays split unevenly: reshards, reductions, a dot", "[uneven][zero]") {
  TypedInputs in{{"x", f32({5, 0}, {})}, {"w", f32({0, 3}, {})}};
  std::string model = R"(garray.mesh @mesh ["data" = 1]
func.func @main(%x: tensor<5x0xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                %w: tensor<0x3xf32> {garray.name = "w"})
    -> (tensor<5x0xf32> {garray.name = "y"},
        tensor<5x0xf32> {garray.name = "y_whole", garray.sharding = #garray.sharding<@mesh, P()>},
        tensor<5xf32> {garray.name = "row_sum"}, tensor<f32> {garray.name = "total"},
        tensor<5x3xf32> {garray.name = "xw"}, tensor<0x3xf32> {garray.name = "w_split"},
        tensor<5x0xf32> {garray.name = "round_trip"}) {
  %one = garray.constant dense<1.0> : tensor<5x0xf32>
  %y = garray.add %x, %one : tensor<5x0xf32>
  %whole = garray.sharding_constraint %y : tensor<5x0xf32> to #garray.sharding<@mesh, P(None, None)>
  %e = garray.exp %whole : tensor<5x0xf32>
  %row_sum = garray.reduce <sum> %y, dims = [1] : (tensor<5x0xf32>) -> tensor<5xf32>
  %total = garray.reduce <sum> %y, dims = [0, 1] : (tensor<5x0xf32>) -> tensor<f32>
  %xw = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<5x0xf32>, tensor<0x3xf32>) -> tensor<5x3xf32>
  %w_split = garray.sharding_constraint %w : tensor<0x3xf32> to #garray.sharding<@mesh, P(None, "data")>
  %s = garray.all_slice %e, dim = 0 on @mesh ["data"]
      {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<5x0xf32>
  %g = garray.all_gather %s, dim = 0 on @mesh ["data"]
      {garray.sharding = #garray.sharding<@mesh, P(None, None)>} : tensor<5x0xf32>
  return %y, %e, %row_sum, %total, %xw, %w_split, %g
      : tensor<5x0xf32>, tensor<5x0xf32>, tensor<5xf32>, tensor<f32>, tensor<5x3xf32>, tensor<0x3xf32>,
        tensor<5x0xf32>
}
)";
  checkOnMeshes(model, in,
                {{"y", {"f32", {5, 0}, {}, kF32}},
                 {"y_whole", {"f32", {5, 0}, {}, kF32}},
                 {"row_sum", {"f32", {5}, std::vector<double>(5, 0.0), kF32}},
                 {"total", {"f32", {}, {0.0}, kF32}},
                 {"xw", {"f32", {5, 3}, std::vector<double>(15, 0.0), kF32}},
                 {"w_split", {"f32", {0, 3}, {}, kF32}},
                 {"round_trip", {"f32", {5, 0}, {}, kF32}}},
                k1D);
}

TEST_CASE("reshards between uneven blocks that do not nest (2-D meshes)", "[uneven][reshard]") {
  // 5 rows over ("data", "model") are blocks of ceil(5/4) = 2 on 2x2, over
  // "data" alone blocks of 3: a partial gather over "model" would misplace
  // rows, so the dim goes through its whole form.
  Rng rng(55);
  TypedInputs in;
  in["x"] = randomReals(rng, "f32", {5, 3}, -1.0f, 1.0f);
  std::vector<double> y(15), colsum(3, 0);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      y[i * 3 + j] = std::exp(in["x"].at(i, j));
      colsum[j] += y[i * 3 + j];
    }
  std::string model = R"(garray.mesh @mesh ["data" = 1, "model" = 1]
func.func @main(%x: tensor<5x3xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P(("data", "model"), None)>})
    -> (tensor<5x3xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
        tensor<5x3xf32> {garray.name = "z", garray.sharding = #garray.sharding<@mesh, P(("data", "model"), None)>},
        tensor<3xf32> {garray.name = "colsum"}) {
  %e = garray.exp %x : tensor<5x3xf32>
  %y = garray.sharding_constraint %e : tensor<5x3xf32> to #garray.sharding<@mesh, P("data", None)>
  %z = garray.sharding_constraint %y : tensor<5x3xf32> to #garray.sharding<@mesh, P(("data", "model"), None)>
  %colsum = garray.reduce <sum> %z, dims = [0] : (tensor<5x3xf32>) -> tensor<3xf32>
  return %y, %z, %colsum : tensor<5x3xf32>, tensor<5x3xf32>, tensor<3xf32>
}
)";
  checkOnMeshes(model, in,
                {{"y", {"f32", {5, 3}, y, kF32}},
                 {"z", {"f32", {5, 3}, y, kF32}},
                 {"colsum", {"f32", {3}, colsum, kF32}}},
                k2D);
}

TEST_CASE("embedding lookup and its gradient over 7 unevenly split tokens",
          "[uneven][scatter]") {
  // rows = table[idx]; grad = scatter_add(zeros, idx, exp(g)): the token
  // positions (7) are split, a sum over them. exp of the zero padding is 1
  // and the padded index 0 would add it to row 0 if unmasked.
  Rng rng(17);
  TypedInputs in;
  in["table"] = randomReals(rng, "f32", {4, 2}, -1.0f, 1.0f);
  in["idx"] = TypedArray{"i64", {7}, {3, 1, 0, 3, 2, 1, 3}};
  in["g"] = randomReals(rng, "f32", {7, 2}, -1.0f, 1.0f);
  std::vector<double> rows(14), grad(8, 0);
  for (int64_t t = 0; t < 7; ++t)
    for (int64_t j = 0; j < 2; ++j) {
      int64_t r = static_cast<int64_t>(in["idx"].values[t]);
      rows[t * 2 + j] = in["table"].at(r, j);
      grad[r * 2 + j] += std::exp(in["g"].at(t, j));
    }
  std::string model = R"(garray.mesh @mesh ["data" = 1]
func.func @main(
    %table: tensor<4x2xf32> {garray.name = "table", garray.sharding = #garray.sharding<@mesh, P()>},
    %idx: tensor<7xi64> {garray.name = "idx", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %g: tensor<7x2xf32> {garray.name = "g", garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<7x2xf32> {garray.name = "rows"}, tensor<4x2xf32> {garray.name = "grad"}) {
  %rows = garray.gather %table[%idx] : (tensor<4x2xf32>, tensor<7xi64>) -> tensor<7x2xf32>
  %zeros = garray.constant dense<0.0> : tensor<4x2xf32>
  %eg = garray.exp %g : tensor<7x2xf32>
  %grad = garray.scatter_add %zeros, %idx, %eg : (tensor<4x2xf32>, tensor<7xi64>, tensor<7x2xf32>) -> tensor<4x2xf32>
  return %rows, %grad : tensor<7x2xf32>, tensor<4x2xf32>
}
)";
  checkOnMeshes(model, in,
                {{"rows", {"f32", {7, 2}, rows, kF32}}, {"grad", {"f32", {4, 2}, grad, kF32}}},
                k1D);
}

//===----------------------------------------------------------------------===//
// A matmul whose contracting dim (7) is split, then bias and relu
//===----------------------------------------------------------------------===//

TEST_CASE("matmul with an odd sharded contracting dim, bias, relu", "[uneven][matmul]") {
  Rng rng(77);
  TypedInputs in;
  in["A"] = randomReals(rng, "f32", {3, 7}, -1.0f, 1.0f);
  in["W"] = randomReals(rng, "f32", {7, 4}, -1.0f, 1.0f);
  in["b"] = randomReals(rng, "f32", {4}, -1.0f, 1.0f);
  // out = relu(exp(A) @ (W + 1) + b): the padding of exp(A) is 1 and that of
  // W + 1 is 1, so every unmasked padded k would add 1.
  std::vector<double> out(12);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      double acc = in["b"].values[j];
      for (int64_t k = 0; k < 7; ++k)
        acc += std::exp(in["A"].at(i, k)) * (in["W"].at(k, j) + 1);
      // Shift so that about half the outputs are clipped by relu.
      acc -= 7.5;
      out[i * 4 + j] = std::max(acc, 0.0);
    }
  std::string model = R"(garray.mesh @mesh ["data" = 1]
func.func @main(
    %A: tensor<3x7xf32> {garray.name = "A", garray.sharding = #garray.sharding<@mesh, P(None, "data")>},
    %W: tensor<7x4xf32> {garray.name = "W", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %b: tensor<4xf32> {garray.name = "b", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<3x4xf32> {garray.name = "out"}) {
  %ea = garray.exp %A : tensor<3x7xf32>
  %one = garray.constant dense<1.0> : tensor<7x4xf32>
  %w1 = garray.add %W, %one : tensor<7x4xf32>
  %p = garray.dot_general %ea, %w1, batch = [] x [], contracting = [1] x [0]
      : (tensor<3x7xf32>, tensor<7x4xf32>) -> tensor<3x4xf32>
  %bb = garray.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>
  %shift = garray.constant dense<7.5> : tensor<3x4xf32>
  %pb = garray.add %p, %bb : tensor<3x4xf32>
  %pre = garray.sub %pb, %shift : tensor<3x4xf32>
  %zero = garray.constant dense<0.0> : tensor<3x4xf32>
  %out = garray.max %pre, %zero : tensor<3x4xf32>
  return %out : tensor<3x4xf32>
}
)";
  checkOnMeshes(model, in, {{"out", {"f32", {3, 4}, out, {1e-5, 1e-4}}}}, k1D);
}

//===----------------------------------------------------------------------===//
// Softmax cross-entropy, batch or vocabulary split unevenly
//===----------------------------------------------------------------------===//

// loss = -mean_i log_softmax(logits)[i, labels[i]], log-sum-exp stabilised
// by the row max (a max all-reduce, then a sum all-reduce of the exps when
// the vocabulary is split).
const char *kCrossEntropy = R"(garray.mesh @mesh ["data" = 1, "model" = 1]
func.func @main(
    %logits: tensor<{B}x{V}xf32> {garray.name = "logits", garray.sharding = #garray.sharding<@mesh, {SPEC}>},
    %labels: tensor<{B}xi64> {garray.name = "labels", garray.sharding = #garray.sharding<@mesh, {LSPEC}>})
    -> (tensor<f32> {garray.name = "loss"}, tensor<{B}x{V}xf32> {garray.name = "logp"}) {
  %mx = garray.reduce <max> %logits, dims = [1] keepdims : (tensor<{B}x{V}xf32>) -> tensor<{B}x1xf32>
  %mxb = garray.broadcast_in_dim %mx, dims = [0, 1] : (tensor<{B}x1xf32>) -> tensor<{B}x{V}xf32>
  %z = garray.sub %logits, %mxb : tensor<{B}x{V}xf32>
  %ez = garray.exp %z : tensor<{B}x{V}xf32>
  %se = garray.reduce <sum> %ez, dims = [1] keepdims : (tensor<{B}x{V}xf32>) -> tensor<{B}x1xf32>
  %lse = garray.log %se : tensor<{B}x1xf32>
  %lseb = garray.broadcast_in_dim %lse, dims = [0, 1] : (tensor<{B}x1xf32>) -> tensor<{B}x{V}xf32>
  %logp = garray.sub %z, %lseb : tensor<{B}x{V}xf32>
  %cls = garray.iota dim = 1 : tensor<{B}x{V}xi64>
  %lab = garray.broadcast_in_dim %labels, dims = [0] : (tensor<{B}xi64>) -> tensor<{B}x{V}xi64>
  %onehot = garray.compare <eq> %cls, %lab : (tensor<{B}x{V}xi64>, tensor<{B}x{V}xi64>) -> tensor<{B}x{V}xi1>
  %zero = garray.constant dense<0.0> : tensor<{B}x{V}xf32>
  %picked = garray.select %onehot, %logp, %zero
      : (tensor<{B}x{V}xi1>, tensor<{B}x{V}xf32>, tensor<{B}x{V}xf32>) -> tensor<{B}x{V}xf32>
  %rowlp = garray.reduce <sum> %picked, dims = [1] : (tensor<{B}x{V}xf32>) -> tensor<{B}xf32>
  %m = garray.mean %rowlp, dims = [0] : (tensor<{B}xf32>) -> tensor<f32>
  %loss = garray.neg %m : tensor<f32>
  return %loss, %logp : tensor<f32>, tensor<{B}x{V}xf32>
}
)";

void checkCrossEntropy(int64_t b, int64_t v, const std::string &spec, const std::string &lspec,
                       const std::vector<std::string> &meshes, uint32_t seed) {
  Rng rng(seed);
  TypedInputs in;
  // All logits negative: a zero from the padding would win an unmasked max.
  in["logits"] = randomReals(rng, "f32", {b, v}, -8.0f, -1.0f);
  in["labels"] = randomInts(rng, "i64", {b}, 0, v - 1);
  std::vector<double> logp(b * v);
  double loss = 0;
  for (int64_t i = 0; i < b; ++i) {
    double mx = -std::numeric_limits<double>::infinity(), se = 0;
    for (int64_t j = 0; j < v; ++j)
      mx = std::max(mx, in["logits"].at(i, j));
    for (int64_t j = 0; j < v; ++j)
      se += std::exp(in["logits"].at(i, j) - mx);
    for (int64_t j = 0; j < v; ++j)
      logp[i * v + j] = in["logits"].at(i, j) - mx - std::log(se);
    loss -= logp[i * v + static_cast<int64_t>(in["labels"].values[i])] / b;
  }
  std::string model = subst(kCrossEntropy, {{"B", std::to_string(b)},
                                           {"V", std::to_string(v)},
                                           {"SPEC", spec},
                                           {"LSPEC", lspec}});
  checkOnMeshes(model, in,
                {{"loss", {"f32", {}, {loss}, kF32}}, {"logp", {"f32", {b, v}, logp, kF32}}},
                meshes);
}

TEST_CASE("softmax cross-entropy, batch split unevenly", "[uneven][xent]") {
  checkCrossEntropy(5, 4, "P(\"data\", None)", "P(\"data\")", k1D, 21);
}

TEST_CASE("softmax cross-entropy, vocabulary split unevenly", "[uneven][xent]") {
  checkCrossEntropy(3, 7, "P(None, \"data\")", "P()", k1D, 22);
}

TEST_CASE("softmax cross-entropy, batch and vocabulary split on a 2-D mesh", "[uneven][xent]") {
  std::string d = "\"data\"", m = "\"model\"";
  checkCrossEntropy(5, 7, "P(" + d + ", " + m + ")", "P(" + d + ")", k2D, 23);
}

//===----------------------------------------------------------------------===//
// NaN and inf in the padding never reach a result
//===----------------------------------------------------------------------===//

TEST_CASE("log(0) and 0/0 in the padding never reach a reduction or an output",
          "[uneven][nan]") {
  std::vector<double> x = {0.5, 2, 1, 4, 8};
  TypedInputs in{{"x", f32({5}, x)}};
  double sumLog = 0, maxLog = -std::numeric_limits<double>::infinity();
  double minLog = std::numeric_limits<double>::infinity(), prod = 1;
  std::vector<double> logs;
  for (double v : x) {
    logs.push_back(std::log(v));
    sumLog += std::log(v);
    maxLog = std::max(maxLog, std::log(v));
    minLog = std::min(minLog, std::log(v));
    prod *= v / v;
  }
  // The zero padding becomes log(0) = -inf and 0/0 = NaN; each of them
  // would poison the sum, min, prod or dot below if it were read.
  std::string model = R"(garray.mesh @mesh ["data" = 1]
func.func @main(%x: tensor<5xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<5xf32> {garray.name = "log"}, tensor<5xf32> {garray.name = "ratio"},
        tensor<f32> {garray.name = "sum"}, tensor<f32> {garray.name = "max"},
        tensor<f32> {garray.name = "min"}, tensor<f32> {garray.name = "prod"},
        tensor<f32> {garray.name = "dot"}, tensor<f32> {garray.name = "mean"}) {
  %log = garray.log %x : tensor<5xf32>
  %ratio = garray.div %x, %x : tensor<5xf32>
  %sum = garray.reduce <sum> %log, dims = [0] : (tensor<5xf32>) -> tensor<f32>
  %max = garray.reduce <max> %log, dims = [0] : (tensor<5xf32>) -> tensor<f32>
  %min = garray.reduce <min> %log, dims = [0] : (tensor<5xf32>) -> tensor<f32>
  %prod = garray.reduce <prod> %ratio, dims = [0] : (tensor<5xf32>) -> tensor<f32>
  %dot = garray.dot_general %ratio, %log, batch = [] x [], contracting = [0] x [0]
      : (tensor<5xf32>, tensor<5xf32>) -> tensor<f32>
  %mean = garray.mean %log, dims = [0] : (tensor<5xf32>) -> tensor<f32>
  return %log, %ratio, %sum, %max, %min, %prod, %dot, %mean
      : tensor<5xf32>, tensor<5xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
)";
  checkOnMeshes(model, in,
                {{"log", {"f32", {5}, logs, kF32}},
                 {"ratio", {"f32", {5}, {1, 1, 1, 1, 1}, kF32}},
                 {"sum", {"f32", {}, {sumLog}, kF32}},
                 {"max", {"f32", {}, {maxLog}, kF32}},
                 {"min", {"f32", {}, {minLog}, kF32}},
                 {"prod", {"f32", {}, {prod}, kF32}},
                 {"dot", {"f32", {}, {sumLog}, kF32}},
                 {"mean", {"f32", {}, {sumLog / 5}, kF32}}},
                k1D);
}

} // namespace

//===----------------------------------------------------------------------===//
// A replicated regulariser added to a sharded loss, and its gradient
//===----------------------------------------------------------------------===//

// loss = mean((X w - y)^2) + lam * sum(w^2) with w replicated and X split
// over "data": the data term is a pending sum, the regulariser a replicated
// value computed on every device. It must enter the loss once, not once per
// device, and its gradient 2 lam w must join the all-reduced data gradient
// once. `spread` adds the regulariser to every row before a sum over the
// sharded rows: N·reg, again whatever the shards.
const char *kRegularised = R"(garray.mesh @mesh ["data" = 1]
func.func private @loss_fn(%X: tensor<{N}x3xf32>, %y: tensor<{N}xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %pred = garray.dot_general %X, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<{N}x3xf32>, tensor<3xf32>) -> tensor<{N}xf32>
  %r = garray.sub %pred, %y : tensor<{N}xf32>
  %sq = garray.mul %r, %r : tensor<{N}xf32>
  %data = garray.mean %sq, dims = [0] : (tensor<{N}xf32>) -> tensor<f32>
  %w2 = garray.mul %w, %w : tensor<3xf32>
  %s = garray.reduce <sum> %w2, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  %lam = garray.constant dense<0.25> : tensor<f32>
  %reg = garray.mul %lam, %s : tensor<f32>
  %loss = garray.add %data, %reg : tensor<f32>
  return %loss : tensor<f32>
}
func.func @main(
    %X: tensor<{N}x3xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %y: tensor<{N}xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %w: tensor<3xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<f32> {garray.name = "loss"}, tensor<3xf32> {garray.name = "grad"},
        tensor<f32> {garray.name = "spread"}) {
  %loss, %grad = garray.value_and_grad @loss_fn(%X, %y, %w) wrt [2]
      : (tensor<{N}x3xf32>, tensor<{N}xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  %w2 = garray.mul %w, %w : tensor<3xf32>
  %s = garray.reduce <sum> %w2, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  %rows = garray.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<{N}xf32>
  %ry = garray.add %rows, %y : tensor<{N}xf32>
  %spread = garray.reduce <sum> %ry, dims = [0] : (tensor<{N}xf32>) -> tensor<f32>
  return %loss, %grad, %spread : tensor<f32>, tensor<3xf32>, tensor<f32>
}
)";

TEST_CASE("a replicated regulariser added to a sharded loss counts once", "[uneven][reg]") {
  for (int64_t n : {8, 10}) {
    Rng rng(static_cast<uint32_t>(n));
    TypedInputs in;
    in["X"] = randomReals(rng, "f32", {n, 3}, -1.0f, 1.0f);
    in["y"] = randomReals(rng, "f32", {n}, -1.0f, 1.0f);
    in["w"] = randomReals(rng, "f32", {3}, -1.0f, 1.0f);
    double data = 0, s = 0, ysum = 0;
    std::vector<double> grad(3, 0.0), r(n);
    for (int64_t j = 0; j < 3; ++j)
      s += in["w"].values[j] * in["w"].values[j];
    for (int64_t i = 0; i < n; ++i) {
      double p = 0;
      for (int64_t j = 0; j < 3; ++j)
        p += in["X"].at(i, j) * in["w"].values[j];
      r[i] = p - in["y"].values[i];
      data += r[i] * r[i] / n;
      ysum += in["y"].values[i];
    }
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t i = 0; i < n; ++i)
        grad[j] += 2.0 / n * in["X"].at(i, j) * r[i];
      grad[j] += 2 * 0.25 * in["w"].values[j];
    }
    std::string model = subst(kRegularised, {{"N", std::to_string(n)}});
    checkOnMeshes(model, in,
                  {{"loss", {"f32", {}, {data + 0.25 * s}, kF32}},
                   {"grad", {"f32", {3}, grad, kF32}},
                   {"spread", {"f32", {}, {n * s + ysum}, {1e-5, 1e-4}}}},
                  k1D);
  }
}
