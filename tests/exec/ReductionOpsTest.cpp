//===- ReductionOpsTest.cpp - reduce, (weighted) mean, argmax/argmin ------===//
//
// Each model is compiled for data = 1, 2 and 4, with its main operand placed
// P("data") on each dimension in turn (others None), run on that many ranks
// (threads) and checked against a double-precision C++ reference and against
// the 1-rank run (checkOnRanks in ReductionTestUtil.h):
//
//   reduce     every kind over dims [0], [1], [0, 1], with and without
//              keepdims, in f32, f64, f16, i32, i64 and bool (logical
//              kinds); bf16 too;
//   mean       weighted by a mask with a different number of valid elements
//              on every shard (divides by the *global* valid count), by real
//              weights, and unweighted, in f32, f64, f16; a masked mean whose
//              shards hold unequal valid counts (2, not the 2.5 that
//              averaging local means gives);
//   argmax/min ties inside a shard and across shards (first global index),
//              NaN (first NaN), every dtype, i32 and i64 results.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ReductionTestUtil.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

const char *kKinds[] = {"sum", "max", "min", "prod"};

struct DimSet {
  std::vector<int64_t> dims;
  std::string tag; // in output names
};
const DimSet kDimSets[] = {{{0}, "0"}, {{1}, "1"}, {{0, 1}, "01"}};

std::string dimList(const std::vector<int64_t> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

/// Shape of reducing a rank-2 `shape` over `dims`.
std::vector<int64_t> reducedShape(const std::vector<int64_t> &shape,
                                  const std::vector<int64_t> &dims, bool keepdims) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < 2; ++d) {
    bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced)
      out.push_back(shape[d]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

/// Reduces a rank-2 array over `dims` with `combine`, from `init`; the result
/// is row-major over the kept dims (keepdims does not change the order).
template <typename F>
std::vector<double> reduce2d(const TypedArray &a, const std::vector<int64_t> &dims, double init,
                             F combine) {
  bool r0 = std::find(dims.begin(), dims.end(), 0) != dims.end();
  bool r1 = std::find(dims.begin(), dims.end(), 1) != dims.end();
  int64_t n0 = r0 ? 1 : a.shape[0], n1 = r1 ? 1 : a.shape[1];
  std::vector<double> out(n0 * n1, init);
  for (int64_t i = 0; i < a.shape[0]; ++i)
    for (int64_t j = 0; j < a.shape[1]; ++j) {
      double &acc = out[(r0 ? 0 : i) * n1 + (r1 ? 0 : j)];
      acc = combine(acc, a.at(i, j));
    }
  return out;
}

std::vector<double> reference(const std::string &kind, const TypedArray &a,
                              const std::vector<int64_t> &dims) {
  bool isBool = a.dtype == "bool";
  const double inf = std::numeric_limits<double>::infinity();
  if (kind == "sum")
    return isBool ? reduce2d(a, dims, 0, [](double x, double y) { return double(x || y); })
                  : reduce2d(a, dims, 0, [](double x, double y) { return x + y; });
  if (kind == "prod")
    return isBool ? reduce2d(a, dims, 1, [](double x, double y) { return double(x && y); })
                  : reduce2d(a, dims, 1, [](double x, double y) { return x * y; });
  if (kind == "max")
    return reduce2d(a, dims, -inf, [](double x, double y) { return std::max(x, y); });
  return reduce2d(a, dims, inf, [](double x, double y) { return std::min(x, y); });
}

/// x for sum/max/min; p (entries +-1 and a few +-2, so every product is
/// exact and fits i32) for prod. A `shape` of more than 32 elements (the
/// long reductions) gets small integers in every dtype, so that every sum is
/// exact in any order and a lost or repeated element shows, and products of
/// +-1 only.
TypedInputs reduceInputs(const std::string &dtype, uint32_t seed,
                         const std::vector<int64_t> &shape = {8, 4}) {
  Rng rng(seed);
  TypedInputs in;
  const int64_t rows = shape[0], cols = shape[1];
  const bool long_ = rows * cols > 32;
  if (dtype == "bool") {
    in["x"] = randomInts(rng, dtype, shape, 0, 1);
    in["p"] = randomInts(rng, dtype, shape, 0, 1);
    // Make "all" true somewhere, so and-reductions are not trivially false.
    for (int64_t i = 0; i < rows; ++i)
      in["p"].values[i * cols + 2] = 1;
    for (int64_t j = 0; j < cols; ++j)
      in["p"].values[5 * cols + j] = 1;
    return in;
  }
  // f16/bf16 sums of small integers are exact (|partial sums| <= 256).
  bool isHalf = dtype == "f16" || dtype == "bf16", isFloat = dtype[0] == 'f' || dtype == "bf16";
  in["x"] = isHalf || long_ ? randomInts(rng, dtype, shape, -8, 8)
            : isFloat       ? randomReals(rng, dtype, shape, -1.0f, 1.0f)
                            : randomInts(rng, dtype, shape, -50, 50);
  TypedArray p = randomInts(rng, dtype, shape, 0, 1);
  for (size_t i = 0; i < p.values.size(); ++i)
    p.values[i] = (p.values[i] ? 1 : -1) * (i % 5 == 0 && !long_ ? 2 : 1);
  in["p"] = p;
  return in;
}

void checkReductions(const std::string &dtype, int sharded, uint32_t seed,
                     const std::vector<int64_t> &xShape = {8, 4}) {
  TypedInputs in = reduceInputs(dtype, seed, xShape);
  const bool long_ = xShape[0] * xShape[1] > 32;
  std::map<std::string, Expected> expected;
  std::string body;
  std::string xType = tensorType(xShape, dtype);
  for (const char *kind : kKinds)
    for (const DimSet &ds : kDimSets)
      for (bool keep : {false, true}) {
        std::string name = std::string(kind) + "_" + ds.tag + (keep ? "_k" : "");
        std::string operand = std::string(kind) == "prod" ? "p" : "x";
        std::vector<int64_t> shape = reducedShape(xShape, ds.dims, keep);
        std::string kindText(kind);
        Tolerance tol = kindText == "sum" && !long_ ? sumTolerance(dtype) : Tolerance{0, 0};
        expected[name] = {dtype, shape, reference(kind, in.at(operand), ds.dims), tol};
        body += "  %" + name + " = garray.reduce <" + kind + "> %" + operand +
                ", dims = " + dimList(ds.dims) + (keep ? " keepdims" : "") + " : (" + xType +
                ") -> " + tensorType(shape, dtype) + "\n";
      }
  std::string model = mainFunction({argument("x", in.at("x"), sharded),
                                    argument("p", in.at("p"), sharded)},
                                   expected, body);
  checkOnRanks(model, in, expected);
}

TEST_CASE("reduce: every kind, dims and keepdims, sharded on each dim", "[reduce]") {
  // i16: reduced across devices as i32 (comm-widen-narrow-reductions).
  for (std::string dtype : {"f32", "f64", "f16", "i32", "i64", "i16", "bool"})
    for (int sharded : {0, 1}) {
      INFO("dtype " << dtype << ", x and p sharded on dim " << sharded);
      checkReductions(dtype, sharded, 11 + sharded);
    }
}

// Long reductions with few outputs: the GPU target splits them into partial
// reductions (gpu-split-reductions), which the GPU-sequential copy of this
// test runs on the CPU. Every element must count once: the sums of small
// integers are exact, so the check is exact.
TEST_CASE("reduce: long reductions with few outputs", "[reduce]") {
  for (std::string dtype : {"f32", "i32", "i64", "bool"})
    for (const std::vector<int64_t> &shape : {std::vector<int64_t>{2048, 8}, {8, 4096}}) {
      const int sharded = shape[0] > shape[1] ? 0 : 1;
      INFO("dtype " << dtype << ", x " << shape[0] << "x" << shape[1] << " sharded on dim "
                    << sharded);
      checkReductions(dtype, sharded, 17, shape);
    }
}

// Row maxima and minima long enough to be vectorized (their loops run on
// vectors of partial extremes): a NaN anywhere in a row, first, in the
// middle, last or twice, makes that row's result NaN, as it does in JAX.
TEST_CASE("reduce: long rows' max and min, NaN anywhere wins", "[reduce]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int64_t rows = 8, cols = 300;
  for (int sharded : {0, 1}) {
    INFO("x sharded on dim " << sharded);
    Rng rng(43);
    TypedArray x = randomReals(rng, "f32", {rows, cols}, -1.0f, 1.0f);
    x.values[1 * cols + 0] = nan;
    x.values[3 * cols + 150] = nan;
    x.values[5 * cols + cols - 1] = nan;
    x.values[7 * cols + 17] = nan;
    x.values[7 * cols + 200] = nan;
    std::vector<double> maxima(rows), minima(rows);
    for (int64_t i = 0; i < rows; ++i) {
      bool hasNan = false;
      double hi = -std::numeric_limits<double>::infinity(), lo = -hi;
      for (int64_t j = 0; j < cols; ++j) {
        double v = x.values[i * cols + j];
        hasNan |= std::isnan(v);
        hi = std::max(hi, v);
        lo = std::min(lo, v);
      }
      maxima[i] = hasNan ? nan : hi;
      minima[i] = hasNan ? nan : lo;
    }
    std::map<std::string, Expected> expected = {{"max_1", {"f32", {rows}, maxima}},
                                                {"min_1", {"f32", {rows}, minima}}};
    std::string xType = tensorType({rows, cols}, "f32"), rType = tensorType({rows}, "f32");
    std::string body =
        "  %max_1 = garray.reduce <max> %x, dims = [1] : (" + xType + ") -> " + rType + "\n" +
        "  %min_1 = garray.reduce <min> %x, dims = [1] : (" + xType + ") -> " + rType + "\n";
    TypedInputs in;
    in["x"] = x;
    checkOnRanks(mainFunction({argument("x", x, sharded)}, expected, body), in, expected);
  }
}

// Column reductions large enough for the kernel threads: the CPU target
// splits their columns into chunks (cpu-parallelize-leading-reductions;
// 500 columns leave a short last chunk). Every element must count once in
// its own column whatever the thread count; the sums are exact.
TEST_CASE("reduce: column reductions shared out over kernel threads", "[reduce][threads]") {
  for (const char *threads : {"1", "2", "3"}) {
    setenv("SHARDRT_THREADS", threads, 1);
    for (std::string dtype : {"f32", "i32"}) {
      INFO(threads << " kernel threads, dtype " << dtype << ", x 2048x500 sharded on dim 1");
      checkReductions(dtype, 1, 23, {2048, 500});
    }
  }
  unsetenv("SHARDRT_THREADS");
}

// Rows whose length has no power-of-two split (2050 = 2 x 1025, 300 =
// 4 x 75): the GPU target reduces each long row, and the whole array, in
// a block tree of 256 threads (gpu-block-reductions: strided partials,
// then pairwise steps), and the 300-long rows eight to a block, 32
// threads each (20 rows: an edge block of 4, or of 2 on two ranks).
TEST_CASE("reduce: long rows and odd lengths", "[reduce]") {
  for (std::string dtype : {"f32", "f64", "i32", "i64", "bool"})
    for (const std::vector<int64_t> &shape : {std::vector<int64_t>{6, 2050}, {20, 300}}) {
      INFO("dtype " << dtype << ", x " << shape[0] << "x" << shape[1] << " sharded on dim 0");
      checkReductions(dtype, 0, 19, shape);
    }
}

// A sum of a million positive f32 values: added one after another into one
// accumulator it drifts by tens of units in the last place (5e-4 of a
// training step's loss, against XLA's 2e-8); the CPU target adds them as
// partial sums side by side and then those (cpu-split-long-reductions), so
// the sum, and the mean, stay within a few units in the last place of the
// exact value on every mesh.
TEST_CASE("reduce: a sum of a million f32 values is accurate to a few ulps", "[reduce]") {
  Rng rng(29);
  TypedInputs in;
  in["x"] = randomReals(rng, "f32", {1024, 1024}, 0.5f, 1.5f);
  double sum = 0;
  for (double v : in.at("x").values)
    sum += v;
  const Tolerance tol{2e-6, 0};
  std::map<std::string, Expected> expected = {
      {"sum", {"f32", {}, {sum}, tol}}, {"mean", {"f32", {}, {sum / (1024.0 * 1024.0)}, tol}}};
  std::string xType = tensorType({1024, 1024}, "f32");
  std::string body = "  %sum = garray.reduce <sum> %x, dims = [0, 1] : (" + xType +
                     ") -> tensor<f32>\n  %mean = garray.mean %x, dims = [0, 1] : (" + xType +
                     ") -> tensor<f32>\n";
  for (int sharded : {0, 1}) {
    INFO("x sharded on dim " << sharded);
    checkOnRanks(mainFunction({argument("x", in.at("x"), sharded)}, expected, body), in, expected);
  }
}

//===----------------------------------------------------------------------===//
// mean
//===----------------------------------------------------------------------===//

/// sum(x * w) / sum(w) over `dims` (w = 1 for the plain mean).
std::vector<double> weightedMean(const TypedArray &x, const TypedArray *w,
                                 const std::vector<int64_t> &dims) {
  TypedArray xw = x, ww = x;
  for (size_t i = 0; i < x.values.size(); ++i) {
    ww.values[i] = w ? w->values[i] : 1.0;
    xw.values[i] = x.values[i] * ww.values[i];
  }
  auto add = [](double a, double b) { return a + b; };
  std::vector<double> num = reduce2d(xw, dims, 0, add), den = reduce2d(ww, dims, 0, add);
  for (size_t i = 0; i < num.size(); ++i)
    num[i] /= den[i];
  return num;
}

void checkMeans(const std::string &dtype, int sharded, uint32_t seed) {
  Rng rng(seed);
  TypedInputs in;
  in["x"] = randomReals(rng, dtype, {8, 4}, -4.0f, 4.0f);
  // A mask whose valid counts differ per row, per column and per shard (over
  // 2 or 4 devices, on either dim); every row and column keeps one.
  TypedArray mask{dtype, {8, 4}, {}};
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 4; ++j)
      mask.values.push_back(j <= i % 4 && (i < 5 || j == 0) ? 1.0 : 0.0);
  in["mask"] = mask;
  in["w"] = randomReals(rng, dtype, {8, 4}, 0.25f, 2.0f);
  std::map<std::string, Expected> expected;
  std::string body, xType = tensorType({8, 4}, dtype);
  Tolerance tol = dtype == "f32"   ? Tolerance{1e-5, 1e-5}
                  : dtype == "f16" ? Tolerance{2e-2, 2e-2}
                                   : Tolerance{1e-12, 1e-12};
  for (const DimSet &ds : kDimSets)
    for (bool keep : {false, true}) {
      std::vector<int64_t> shape = reducedShape({8, 4}, ds.dims, keep);
      std::string suffix = ds.tag + (keep ? "_k" : ""), rType = tensorType(shape, dtype);
      std::string head = " = garray.mean %x, dims = " + dimList(ds.dims) + (keep ? " keepdims" : "");
      for (const char *weights : {"mask", "w"}) {
        std::string name = std::string(weights) + "_" + suffix;
        expected[name] = {dtype, shape, weightedMean(in.at("x"), &in.at(weights), ds.dims), tol};
        body += "  %" + name + head + " weights %" + weights + " : (" + xType + ", " + xType +
                ") -> " + rType + "\n";
      }
      expected["plain_" + suffix] = {dtype, shape, weightedMean(in.at("x"), nullptr, ds.dims), tol};
      body += "  %plain_" + suffix + head + " : (" + xType + ") -> " + rType + "\n";
    }
  std::string model = mainFunction({argument("x", in.at("x"), sharded),
                                    argument("mask", in.at("mask"), sharded),
                                    argument("w", in.at("w"), sharded)},
                                   expected, body);
  checkOnRanks(model, in, expected);
}

TEST_CASE("mean: masked, weighted and plain, by global counts", "[mean]") {
  for (std::string dtype : {"f32", "f64", "f16"})
    for (int sharded : {0, 1}) {
      INFO("dtype " << dtype << ", x and weights sharded on dim " << sharded);
      checkMeans(dtype, sharded, 21 + sharded);
    }
}

// On 2 ranks, shard 0 holds two valid examples with mean 1, shard 1 one with
// 4. The global mean is 2; averaging local means would give 2.5.
TEST_CASE("mean: a masked mean divides by the global valid count", "[mean]") {
  TypedInputs in;
  in["g"] = TypedArray{"f32", {8}, {1, 1, 0, 0, 4, 0, 0, 0}};
  in["valid"] = TypedArray{"f32", {8}, {1, 1, 0, 0, 1, 0, 0, 0}};
  std::map<std::string, Expected> expected = {{"m", {"f32", {}, {2.0}, {1e-6, 1e-6}}}};
  std::string model = mainFunction(
      {argument("g", in.at("g"), 0), argument("valid", in.at("valid"), 0)}, expected,
      "  %m = garray.mean %g, dims = [0] weights %valid : (tensor<8xf32>, tensor<8xf32>) -> "
      "tensor<f32>\n");
  checkOnRanks(model, in, expected);
  // Both sums are partials over "data": the denominator is all-reduced before
  // the division and the quotient after it.
  Compiled c = compile(model, "data=2", "model.mlir", shardc::Phase::Partitioned);
  REQUIRE(c.ok);
  INFO(c.emitted);
  size_t n = 0;
  for (size_t at = c.emitted.find("garray.all_reduce <sum>"); at != std::string::npos;
       at = c.emitted.find("garray.all_reduce <sum>", at + 1))
    ++n;
  CHECK(n == 2);
}

//===----------------------------------------------------------------------===//
// argmax / argmin
//===----------------------------------------------------------------------===//

/// First index of the max (min) along `dim` of a rank-2 array; NaN is the
/// extreme, so the first NaN wins (jnp semantics).
std::vector<double> argRef(const TypedArray &a, int64_t dim, bool isMax) {
  int64_t n = a.shape[dim], other = a.shape[1 - dim];
  std::vector<double> out;
  for (int64_t o = 0; o < other; ++o) {
    int64_t best = 0;
    auto v = [&](int64_t k) { return dim == 0 ? a.at(k, o) : a.at(o, k); };
    for (int64_t k = 1; k < n; ++k) {
      double x = v(k), b = v(best);
      bool better = std::isnan(x) ? !std::isnan(b) : (isMax ? x > b : x < b);
      if (better)
        best = k;
    }
    out.push_back(static_cast<double>(best));
  }
  return out;
}

void checkArgReductions(const TypedArray &x, int sharded) {
  std::map<std::string, Expected> expected;
  std::string body, xType = tensorType(x.shape, x.dtype);
  for (int64_t dim : {0, 1})
    for (bool isMax : {true, false}) {
      std::string op = isMax ? "argmax" : "argmin";
      for (std::string index : {"i64", "i32"}) {
        std::string name = op + "_" + std::to_string(dim) + "_" + index;
        std::vector<int64_t> shape = {x.shape[1 - dim]};
        expected[name] = {index, shape, argRef(x, dim, isMax)};
        body += "  %" + name + " = garray." + op + " %x, dim = " + std::to_string(dim) + " : (" +
                xType + ") -> " + tensorType(shape, index) + "\n";
      }
    }
  checkOnRanks(mainFunction({argument("x", x, sharded)}, expected, body), {{"x", x}}, expected);
}

TEST_CASE("argmax/argmin: ties within and across shards, every dtype", "[argmax]") {
  for (std::string dtype : {"f32", "f64", "f16", "i32", "i64"})
    for (int sharded : {0, 1}) {
      INFO("dtype " << dtype << ", x sharded on dim " << sharded);
      Rng rng(31 + sharded);
      // Values in 0..3 over 8 or 4 positions: many ties, some across shards.
      checkArgReductions(randomInts(rng, dtype, {8, 4}, 0, 3), sharded);
    }
}

// Ties across devices: 8 elements over 4 devices (2 each), the max at 1 and
// 5 (devices 0 and 2), the min at 2 and 7: the answers are 1 and 2.
TEST_CASE("argmax/argmin: first global index on ties across devices", "[argmax]") {
  TypedArray x{"f32", {8}, {0, 9, -3, 2, 1, 9, 0, -3}};
  std::map<std::string, Expected> expected = {{"amax", {"i64", {}, {1}}},
                                              {"amin", {"i64", {}, {2}}}};
  std::string body =
      "  %amax = garray.argmax %x, dim = 0 : (tensor<8xf32>) -> tensor<i64>\n"
      "  %amin = garray.argmin %x, dim = 0 : (tensor<8xf32>) -> tensor<i64>\n";
  std::string model = mainFunction({argument("x", x, 0)}, expected, body);
  checkOnRanks(model, {{"x", x}}, expected);
  // Over a sharded dim: one max (min) all-reduce of values, one min
  // all-reduce of global indices; never a sum or max of indices.
  Compiled c = compile(model, "data=4", "model.mlir", shardc::Phase::Partitioned);
  REQUIRE(c.ok);
  INFO(c.emitted);
  CHECK(c.emitted.find("garray.all_reduce <max>") != std::string::npos);
  CHECK(c.emitted.find("garray.all_reduce <min>") != std::string::npos);
  CHECK(c.emitted.find("<sum>") == std::string::npos);
}

TEST_CASE("argmax/argmin: the first NaN wins, on any shard", "[argmax]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int sharded : {0, 1}) {
    TypedArray x{"f32", {8, 4}, {}};
    Rng rng(41);
    x = randomReals(rng, "f32", {8, 4}, -1.0f, 1.0f);
    x.values[6 * 4 + 1] = nan; // column 1: NaN at rows 6 and 3
    x.values[3 * 4 + 1] = nan;
    x.values[2 * 4 + 3] = nan; // row 2: NaN at column 3 only
    INFO("x sharded on dim " << sharded);
    checkArgReductions(x, sharded);
  }
}

// bf16: LLVM lowers f32 -> bf16 truncation to a call to __truncsfbf2, which
// the object gets from the runtime's soft-float helpers (shardrt_symbols()).
TEST_CASE("reduce and argmax in bf16", "[reduce][argmax]") {
  for (int sharded : {0, 1}) {
    INFO("x and p sharded on dim " << sharded);
    checkReductions("bf16", sharded, 11 + sharded);
    Rng rng(31 + sharded);
    checkArgReductions(randomInts(rng, "bf16", {8, 4}, 0, 3), sharded);
  }
}

} // namespace
