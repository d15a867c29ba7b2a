//===- factor_rule_test.cpp - rule builder, printing, validation ----------===//
#include "sharding/FactorRule.h"

#include <catch2/catch.hpp>

using namespace shardc;
using Catch::Matchers::Contains;

namespace {
/// dot_general ([i,k],[k,j])->([i,j]) with k a reduction factor. Factors are
/// created in the order i, j, k so that they print as those letters.
FactorRule dotRule(int64_t m, int64_t n, int64_t kSize, int *iOut = nullptr,
                   int *jOut = nullptr, int *kOut = nullptr) {
  FactorRuleBuilder b;
  int i = b.factor(m);
  int j = b.factor(n);
  int k = b.factor(kSize, FactorKind::Reduction);
  b.operand({{i}, {k}}).operand({{k}, {j}}).result({{i}, {j}});
  if (iOut)
    *iOut = i;
  if (jOut)
    *jOut = j;
  if (kOut)
    *kOut = k;
  return b.build();
}
} // namespace

TEST_CASE("FactorRuleBuilder builds dot_general", "[factor_rule]") {
  int i, j, k;
  FactorRule dot = dotRule(8, 16, 4, &i, &j, &k);
  CHECK(i == 0);
  CHECK(j == 1);
  CHECK(k == 2);
  CHECK(dot.numFactors() == 3);
  CHECK(dot.factorSizes == std::vector<int64_t>{8, 16, 4});
  CHECK(dot.kinds == std::vector<FactorKind>{FactorKind::Parallel, FactorKind::Parallel,
                                             FactorKind::Reduction});
  CHECK(dot.operands.size() == 2);
  CHECK(dot.results.size() == 1);
  CHECK(dot.numTensors() == 3);
  CHECK(dot.tensor(0) == FactorRule::TensorFactors{{i}, {k}});
  CHECK(dot.tensor(1) == FactorRule::TensorFactors{{k}, {j}});
  CHECK(dot.tensor(2) == FactorRule::TensorFactors{{i}, {j}});
  CHECK_FALSE(dot.isResult(0));
  CHECK_FALSE(dot.isResult(1));
  CHECK(dot.isResult(2));
  CHECK(dot.reduction == Reduction::Sum);
  CHECK(dot.validate() == "");
}

TEST_CASE("FactorRule::str prints einsum-style rules", "[factor_rule][str]") {
  SECTION("dot_general") {
    CHECK(dotRule(8, 16, 4).str() == "([i,k],[k,j])->([i,j]) sum={k}");
  }
  SECTION("reduce-max names its reduction kind") {
    FactorRuleBuilder b;
    int i = b.factor(4), j = b.factor(6, FactorKind::Reduction);
    b.operand({{i}, {j}}).result({{i}}).reduction(Reduction::Max);
    CHECK(b.build().str() == "([i,j])->([i]) max={j}");
  }
  SECTION("elementwise add") {
    FactorRule add = FactorRuleBuilder::elementwise({4, 6}, 2, PendingFlow{});
    CHECK(add.str() == "([i,j],[i,j])->([i,j])");
    CHECK(add.validate() == "");
  }
  SECTION("broadcast: a factor only the result has") {
    FactorRuleBuilder b;
    int i = b.factor(3), j = b.factor(5);
    b.operand({{j}}).result({{i}, {j}});
    CHECK(b.build().str() == "([j])->([i,j])");
  }
  SECTION("reshape merging two dims prints a compound dim") {
    FactorRuleBuilder b;
    int i = b.factor(2), j = b.factor(4);
    b.operand({{i}, {j}}).result({{i, j}});
    FactorRule r = b.build();
    CHECK(r.str() == "([i,j])->([i j])");
    CHECK(r.validate() == "");
  }
  SECTION("need-replication factors are listed") {
    FactorRuleBuilder b;
    int i = b.factor(4), j = b.factor(8, FactorKind::NeedReplication);
    b.operand({{i}, {j}}).result({{i}, {j}});
    CHECK(b.build().str() == "([i,j])->([i,j]) replicated={j}");
  }
  SECTION("a scalar operand prints as []") {
    FactorRuleBuilder b;
    int i = b.factor(4);
    b.operand({{i}}).operand({}).result({{i}});
    CHECK(b.build().str() == "([i],[])->([i])");
  }
}

TEST_CASE("FactorRuleBuilder::elementwise shares one factor per dim", "[factor_rule]") {
  PendingFlow flow;
  flow.mode = PendingFlow::Mode::AllSame;
  flow.kind = Reduction::Sum;
  FactorRule add = FactorRuleBuilder::elementwise({8, 2, 3}, 3, flow);
  CHECK(add.factorSizes == std::vector<int64_t>{8, 2, 3});
  CHECK(add.kinds == std::vector<FactorKind>(3, FactorKind::Parallel));
  REQUIRE(add.operands.size() == 3);
  REQUIRE(add.results.size() == 1);
  FactorRule::TensorFactors expected{{0}, {1}, {2}};
  for (size_t t = 0; t < add.numTensors(); ++t)
    CHECK(add.tensor(t) == expected);
  CHECK(add.pending.mode == PendingFlow::Mode::AllSame);
  CHECK(add.pending.kind == Reduction::Sum);
}

TEST_CASE("FactorRule::validate reports malformed rules", "[factor_rule][validate]") {
  SECTION("kinds and sizes disagree") {
    FactorRule r = dotRule(8, 16, 4);
    r.kinds.pop_back();
    CHECK_FALSE(r.validate().empty());
  }
  SECTION("an operand uses an unknown factor") {
    FactorRule r = dotRule(8, 16, 4);
    r.operands[1][1] = {7};
    std::string e = r.validate();
    CHECK_THAT(e, Contains("tensor #1"));
    CHECK_THAT(e, Contains("#7"));
  }
  SECTION("a result uses a negative factor") {
    FactorRule r = dotRule(8, 16, 4);
    r.results[0][0] = {-1};
    std::string e = r.validate();
    CHECK_THAT(e, Contains("tensor #2"));
    CHECK_THAT(e, Contains("#-1"));
  }
  SECTION("a reduction factor indexes a result") {
    FactorRule r = dotRule(8, 16, 4);
    r.results[0][1] = {2}; // k
    std::string e = r.validate();
    CHECK_THAT(e, Contains("reduction factor k"));
    CHECK_THAT(e, Contains("result #0"));
  }
  SECTION("the pending flow names an operand that does not exist") {
    FactorRuleBuilder b;
    int i = b.factor(4);
    PendingFlow flow;
    flow.mode = PendingFlow::Mode::OneOf;
    flow.operands = {0, 2};
    b.operand({{i}}).operand({{i}}).result({{i}}).pending(flow);
    std::string e = b.build().validate();
    CHECK_THAT(e, Contains("operand #2"));
  }
  SECTION("a well-formed OneOf flow is accepted") {
    FactorRuleBuilder b;
    int i = b.factor(4);
    PendingFlow flow;
    flow.mode = PendingFlow::Mode::OneOf;
    flow.operands = {1};
    b.operand({{i}}).operand({{i}}).result({{i}}).pending(flow);
    CHECK(b.build().validate() == "");
  }
}
