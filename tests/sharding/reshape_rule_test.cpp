//===- reshape_rule_test.cpp - a reshape's common factors -----------------===//
//
// reshapeRule (sharding/ReshapeRule.h) on worked examples, then a property
// over random shapes: every factor shared by the operand and the result has
// the same coordinate on both sides for every element, which is what makes
// keeping a shared factor's sharding across the reshape correct.
//
//===----------------------------------------------------------------------===//
#include "sharding/FactorMerge.h"
#include "sharding/ReshapeRule.h"
#include "tests/sharding/TestUtil.h"

#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>

using namespace shardc;
using namespace shardc::test;

TEST_CASE("reshapeRule: merge, split and regroup", "[reshape_rule]") {
  CHECK(reshapeRule({8, 4}, {32}).str() == "([i,j])->([i j])");
  CHECK(reshapeRule({32}, {8, 4}).str() == "([i j])->([i,j])");
  CHECK(reshapeRule({8, 4}, {4, 8}).str() == "([i j,k])->([i,j k])");
  CHECK(reshapeRule({2, 3, 4}, {6, 4}).str() == "([i,j,k])->([i j,k])");
  CHECK(reshapeRule({8, 4}, {8, 4}).str() == "([i,j])->([i,j])");
  // Size-1 dims index no factor.
  CHECK(reshapeRule({8, 1, 4}, {1, 32}).str() == "([i,,j])->([,i j])");
  CHECK(reshapeRule({}, {1, 1}).str() == "([])->([,])");
  for (const FactorRule &r : {reshapeRule({8, 4}, {32}), reshapeRule({8, 4}, {4, 8})})
    CHECK(r.validate() == "");
}

TEST_CASE("reshapeRule: no common factorisation needs replication", "[reshape_rule]") {
  // Only the major 2 is common to 4 and 6; the rest must stay whole.
  FactorRule r = reshapeRule({4, 6}, {6, 4});
  CHECK(r.str() == "([i j,l])->([i k,m]) replicated={j,k,l,m}");
  CHECK(r.kinds[0] == FactorKind::Parallel);
  // 3 and 2 are coprime: nothing is common.
  CHECK(reshapeRule({3, 2}, {2, 3}).str() == "([i,l])->([j,k]) replicated={i,j,k,l}");
  // After a coprime stretch the shapes line up again: the trailing 5 is shared.
  CHECK(reshapeRule({3, 2, 5}, {2, 3, 5}).str() ==
        "([i,l,m])->([j,k,m]) replicated={i,j,k,l}");
  // Invalid reshapes (the verifier rejects them) never share a factor.
  CHECK(reshapeRule({4}, {6}).str() == "([i])->([j]) replicated={i,j}");
  CHECK(reshapeRule({0, 4}, {4, 0}).str() == "([i,j])->([k,l]) replicated={i,j,k,l}");
}

TEST_CASE("reshapeRule: a split or merged dim keeps its sharding", "[reshape_rule]") {
  Mesh mesh = dataModelMesh(); // data=2, model=4
  auto step = [&](const FactorRule &rule, TensorSharding in) {
    std::vector<std::optional<TensorSharding>> t = {in, std::nullopt};
    propagateStep(rule, t, mesh);
    return t[1]->str(mesh);
  };
  // [8,4] -> [32], rows over model: the merged dim is split by model.
  CHECK(step(reshapeRule({8, 4}, {32}), sharding({closedDim({kModel}), closedDim()})) ==
        "P(\"model\"?)");
  // [32] -> [8,4] over (data, model): all 8 shards are whole rows.
  CHECK(step(reshapeRule({32}, {8, 4}), sharding({closedDim({kData, kModel})})) ==
        "P((\"data\", \"model\")?, ?)");
  // [8,4] -> [32] with the minor dim sharded: not a contiguous block of the
  // merged dim, so the result is replicated (the operand will be gathered).
  CHECK(step(reshapeRule({8, 4}, {32}), sharding({closedDim(), closedDim({kData})})) ==
        "P(?)");
  // [4,6] -> [6,4]: the common major 2 keeps "data"; "model" (4) does not fit.
  CHECK(step(reshapeRule({4, 6}, {6, 4}), sharding({closedDim({kData}), closedDim()})) ==
        "P(\"data\"?, ?)");
  CHECK(step(reshapeRule({4, 6}, {6, 4}), sharding({closedDim({kModel}), closedDim()})) ==
        "P(?, ?)");
}

namespace {

/// Coordinates of every factor of `dims` for the element at row-major
/// position `linear` of `shape`.
std::map<int, int64_t> factorCoords(const FactorRule &rule, const FactorRule::TensorFactors &dims,
                                    const std::vector<int64_t> &shape, int64_t linear) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
  std::map<int, int64_t> coords;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t x = index[d];
    for (size_t k = dims[d].size(); k-- > 0;) {
      int64_t s = rule.factorSizes[dims[d][k]];
      coords[dims[d][k]] = x % s;
      x /= s;
    }
  }
  return coords;
}

std::vector<int64_t> randomShape(std::mt19937 &rng, int64_t total) {
  static const int64_t primes[] = {2, 3, 5};
  std::vector<int64_t> shape;
  // Split `total` into random dims (products of its prime factors) and 1s.
  std::vector<int64_t> factors;
  for (int64_t p : primes)
    while (total % p == 0) {
      factors.push_back(p);
      total /= p;
    }
  std::shuffle(factors.begin(), factors.end(), rng);
  int64_t cur = 1;
  for (int64_t f : factors) {
    cur *= f;
    if (rng() % 2) {
      shape.push_back(cur);
      cur = 1;
    }
    if (rng() % 5 == 0)
      shape.push_back(1);
  }
  if (cur != 1 || shape.empty())
    shape.push_back(cur);
  return shape;
}

} // namespace

TEST_CASE("property: shared factors index the same elements on both sides",
          "[reshape_rule][property]") {
  std::mt19937 rng(2024);
  const int64_t totals[] = {1, 12, 24, 36, 60, 64, 72, 90, 120};
  for (int iter = 0; iter < 400; ++iter) {
    int64_t total = totals[rng() % std::size(totals)];
    std::vector<int64_t> in = randomShape(rng, total), out = randomShape(rng, total);
    FactorRule rule = reshapeRule(in, out);
    INFO("rule " << rule.str());
    REQUIRE(rule.validate() == "");
    // Every dim is exactly the product of its factors.
    for (size_t t = 0; t < 2; ++t) {
      const std::vector<int64_t> &shape = t ? out : in;
      for (size_t d = 0; d < shape.size(); ++d) {
        int64_t p = 1;
        for (int f : rule.tensor(t)[d])
          p *= rule.factorSizes[f];
        REQUIRE(p == shape[d]);
      }
    }
    std::set<int> shared;
    for (const auto &dim : rule.operands[0])
      for (int f : dim)
        for (const auto &od : rule.results[0])
          if (std::find(od.begin(), od.end(), f) != od.end())
            shared.insert(f);
    for (int f : shared)
      REQUIRE(rule.kinds[f] == FactorKind::Parallel);
    for (int64_t e = 0; e < total; ++e) {
      auto a = factorCoords(rule, rule.operands[0], in, e);
      auto b = factorCoords(rule, rule.results[0], out, e);
      for (int f : shared)
        REQUIRE(a[f] == b[f]);
    }
  }
}
