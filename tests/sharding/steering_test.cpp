//===- steering_test.cpp - priorities, op classes, the conflict policy ----===//
//
// The steering data of garray-propagate (sharding/Steering.h) and the
// conflict policy of docs/propagation.md, run on the IR-free merge core: a
// round is simulated as propagateStep over the sources active in it.
#include "sharding/FactorMerge.h"
#include "sharding/Steering.h"
#include "tests/sharding/TestUtil.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace shardc;
using namespace shardc::test;

namespace {

FactorRule addRule() { return FactorRuleBuilder::elementwise({8, 8}, 2, {}); }

/// Rounds over `annotated` (each with per-dim priorities) and one unknown
/// result, as garray-propagate runs them; returns the result's sharding.
TensorSharding runRounds(const std::vector<TensorSharding> &annotated,
                         const std::vector<std::vector<int64_t>> &priorities) {
  FactorRule rule = FactorRuleBuilder::elementwise({8, 8}, annotated.size(), {});
  Mesh mesh = dataModelMesh();
  std::vector<int64_t> rounds = {kLastRound};
  for (const auto &p : priorities)
    rounds.insert(rounds.end(), p.begin(), p.end());
  std::sort(rounds.begin(), rounds.end());
  rounds.erase(std::unique(rounds.begin(), rounds.end()), rounds.end());
  std::optional<TensorSharding> result;
  for (int64_t round : rounds) {
    std::vector<std::optional<TensorSharding>> tensors;
    for (size_t i = 0; i < annotated.size(); ++i)
      tensors.push_back(activeInRound(annotated[i], priorities[i], round));
    tensors.push_back(result);
    propagateStep(rule, tensors, mesh);
    result = tensors.back();
  }
  return *result;
}

} // namespace

TEST_CASE("activeInRound: dims whose round has not come are closed and empty",
          "[steering]") {
  TensorSharding full = sharding({closedDim({kData}), openDim({kModel})});
  TensorSharding r0 = activeInRound(full, {0, 1}, 0);
  CHECK(r0.dims[0] == closedDim({kData}));
  CHECK(r0.dims[1] == closedDim());
  TensorSharding r1 = activeInRound(full, {0, 1}, 1);
  CHECK(r1.dims[1] == openDim({kModel}));
  TensorSharding last = activeInRound(full, {kLastRound, kLastRound}, 5);
  CHECK(last.dims[0] == closedDim());
  CHECK(activeInRound(full, {kLastRound, kLastRound}, kLastRound).dims == full.dims);
}

TEST_CASE("activeInRound: an open dim written without axes is open in every round",
          "[steering]") {
  TensorSharding full = sharding({openDim(), closedDim({kData})});
  TensorSharding r0 = activeInRound(full, {kLastRound, 1}, 0);
  CHECK(r0.dims[0] == openDim()); // `?` takes what round 0 brings
  CHECK(r0.dims[1] == closedDim());
  CHECK(isOpenEmpty(openDim()));
  CHECK_FALSE(isOpenEmpty(openDim({kModel})));
  CHECK_FALSE(isOpenEmpty(closedDim()));
}

TEST_CASE("isPassThrough: elementwise yes; reductions and dropped factors no", "[steering]") {
  CHECK(isPassThrough(addRule()));
  FactorRuleBuilder dot;
  int i = dot.factor(8), k = dot.factor(4, FactorKind::Reduction), j = dot.factor(8);
  dot.operand({{i}, {k}}).operand({{k}, {j}}).result({{i}, {j}});
  CHECK_FALSE(isPassThrough(dot.build()));
  FactorRuleBuilder slice; // a factor that indexes only the operand
  int a = slice.factor(8), b = slice.factor(8);
  slice.operand({{a}, {b}}).result({{a}});
  CHECK_FALSE(isPassThrough(slice.build()));
  CHECK(kSubRounds[0] == OpClass::PassThrough);
}

TEST_CASE("conflict policy: same priority keeps the common prefix, either order",
          "[steering][conflict]") {
  TensorSharding x = sharding({closedDim({kData}), closedDim()});
  TensorSharding y = sharding({closedDim({kModel}), closedDim()});
  std::vector<int64_t> none = {kLastRound, kLastRound};
  CHECK(runRounds({x, y}, {none, none}).dims[0].axes.empty());
  CHECK(runRounds({y, x}, {none, none}).dims[0].axes.empty());
}

TEST_CASE("conflict policy: the stronger priority wins, either order",
          "[steering][conflict]") {
  TensorSharding x = sharding({closedDim({kData}), closedDim()});
  TensorSharding y = sharding({closedDim({kModel}), closedDim()});
  std::vector<int64_t> p0 = {0, kLastRound}, p1 = {1, kLastRound}, none = {kLastRound, kLastRound};
  CHECK(runRounds({x, y}, {p0, p1}).dims[0].axes == std::vector<int>{kData});
  CHECK(runRounds({y, x}, {p1, p0}).dims[0].axes == std::vector<int>{kData});
  CHECK(runRounds({x, y}, {p1, p0}).dims[0].axes == std::vector<int>{kModel});
  // Numbered before unprioritised.
  CHECK(runRounds({x, y}, {none, {7, kLastRound}}).dims[0].axes == std::vector<int>{kModel});
}

TEST_CASE("conflict policy: priorities are per dimension", "[steering][conflict]") {
  TensorSharding x = sharding({closedDim({kModel}), closedDim({kData})});
  TensorSharding y = sharding({closedDim({kData}), closedDim({kModel})});
  TensorSharding r = runRounds({x, y}, {{1, 0}, {0, 1}});
  CHECK(r.dims[0].axes == std::vector<int>{kData});
  CHECK(r.dims[1].axes.empty()); // "data" is taken by dim 0; dim 1's "data" cannot be used
  TensorSharding s = runRounds({x, y}, {{1, 0}, {1, 1}});
  CHECK(s.dims[1].axes == std::vector<int>{kData});
  CHECK(s.dims[0].axes.empty()); // round 1: "model" vs "data" on dim 0, "data" in use
}
