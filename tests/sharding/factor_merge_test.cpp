//===- factor_merge_test.cpp - projection, merge policy, propagation step -===//
#include "sharding/FactorMerge.h"
#include "tests/sharding/TestUtil.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <sstream>

using namespace shardc;
using namespace shardc::test;

using Axes = std::vector<int>;
using Projection = std::vector<std::optional<std::vector<int>>>;

namespace {

/// ([i,k],[k])->([i]): the linear-regression prediction X·w, k a reduction.
FactorRule matVecRule(int64_t m, int64_t kSize) {
  FactorRuleBuilder b;
  int i = b.factor(m);
  int k = b.factor(kSize, FactorKind::Reduction);
  b.operand({{i}, {k}}).operand({{k}}).result({{i}});
  return b.build();
}

/// ([i,j])->([i j]): a reshape merging two dims (i major).
FactorRule mergeDimsRule(int64_t iSize, int64_t jSize) {
  FactorRuleBuilder b;
  int i = b.factor(iSize);
  int j = b.factor(jSize);
  b.operand({{i}, {j}}).result({{i, j}});
  return b.build();
}

FactorRule add2d(int64_t m, int64_t n) {
  PendingFlow flow;
  flow.mode = PendingFlow::Mode::AllSame;
  return FactorRuleBuilder::elementwise({m, n}, 2, flow);
}

/// Three axes of size 2, for prefix and conflict tests.
Mesh abcMesh() { return Mesh{{"a", "b", "c"}, {2, 2, 2}}; }

std::vector<bool> openFlags(const TensorSharding &t) {
  std::vector<bool> out;
  for (const DimSharding &d : t.dims)
    out.push_back(d.open);
  return out;
}

} // namespace

//===----------------------------------------------------------------------===//
// projectToFactors
//===----------------------------------------------------------------------===//

TEST_CASE("projectToFactors: one factor per dim", "[factor_merge][project]") {
  Mesh mesh = dataModelMesh();
  FactorRule rule = matVecRule(8, 2); // i = 0, k = 1
  // X: P("data", None) gives i={data}, k={} (k indexes X but is replicated).
  Projection x = projectToFactors(rule, 0, sharding({closedDim({kData}), closedDim()}), mesh);
  REQUIRE(x.size() == 2);
  REQUIRE(x[0]);
  CHECK(*x[0] == Axes{kData});
  REQUIRE(x[1]);
  CHECK(x[1]->empty());

  // w: P("model") gives k={model}; i does not index w.
  Projection w = projectToFactors(rule, 1, sharding({closedDim({kModel})}), mesh);
  CHECK_FALSE(w[0].has_value());
  REQUIRE(w[1]);
  CHECK(*w[1] == Axes{kModel});

  // Result (tensor index 2): P(("data","model")) puts both axes on i.
  Projection r = projectToFactors(rule, 2, sharding({closedDim({kData, kModel})}), mesh);
  REQUIRE(r[0]);
  CHECK(*r[0] == Axes{kData, kModel});
  CHECK_FALSE(r[1].has_value());
}

TEST_CASE("projectToFactors: compound dims split major to minor",
          "[factor_merge][project]") {
  Mesh mesh = dataModelMesh();
  const size_t merged = 1; // the result [i j]

  SECTION("major factor fully split, the minor takes the rest") {
    FactorRule rule = mergeDimsRule(2, 4);
    Projection p = projectToFactors(rule, merged, sharding({closedDim({kData, kModel})}), mesh);
    REQUIRE(p[0]);
    REQUIRE(p[1]);
    CHECK(*p[0] == Axes{kData});
    CHECK(*p[1] == Axes{kModel});
  }
  SECTION("axis order inside the dim is respected") {
    FactorRule rule = mergeDimsRule(4, 2);
    Projection p = projectToFactors(rule, merged, sharding({closedDim({kModel, kData})}), mesh);
    REQUIRE(p[0]);
    REQUIRE(p[1]);
    CHECK(*p[0] == Axes{kModel});
    CHECK(*p[1] == Axes{kData});
  }
  SECTION("a partial split of the major factor leaves the minor replicated") {
    FactorRule rule = mergeDimsRule(4, 2);
    Projection p = projectToFactors(rule, merged, sharding({closedDim({kData})}), mesh);
    REQUIRE(p[0]);
    REQUIRE(p[1]);
    CHECK(*p[0] == Axes{kData});
    CHECK(p[1]->empty());
  }
  SECTION("the major factor takes several axes") {
    Mesh abc = abcMesh();
    FactorRule rule = mergeDimsRule(4, 2);
    Projection p = projectToFactors(rule, merged, sharding({closedDim({0, 1, 2})}), abc);
    REQUIRE(p[0]);
    REQUIRE(p[1]);
    CHECK(*p[0] == Axes{0, 1});
    CHECK(*p[1] == Axes{2});
  }
  SECTION("an uneven minor factor of a compound dim takes no axis") {
    // [2 x 3] = 6 over data x model = 4 devices holds blocks of 2 elements
    // (ceil layout), while rows of 3 over "model" would split 2 + 1: the
    // blocks would not line up, so j stays whole and "model" is left over.
    FactorRule rule = mergeDimsRule(2, 3);
    Projection p = projectToFactors(rule, merged, sharding({closedDim({kData, kModel})}), mesh);
    REQUIRE(p[0]);
    REQUIRE(p[1]);
    CHECK(*p[0] == Axes{kData});
    CHECK(p[1]->empty());
  }
  SECTION("an uneven factor in a dim of its own keeps its axis (ceil layout)") {
    FactorRule rule = mergeDimsRule(2, 3);
    Projection p = projectToFactors(rule, 0, sharding({closedDim(), closedDim({kModel})}), mesh);
    REQUIRE(p[1]);
    CHECK(*p[1] == Axes{kModel});
  }
  SECTION("replicated compound dim") {
    FactorRule rule = mergeDimsRule(2, 4);
    Projection p = projectToFactors(rule, merged, sharding({closedDim()}), mesh);
    REQUIRE(p[0]);
    REQUIRE(p[1]);
    CHECK(p[0]->empty());
    CHECK(p[1]->empty());
  }
}

// projectToFactors hands no axes to a minor factor while the major factor of
// the same dim is not split completely. A dim [i j] (i=2, j=4, 8 elements)
// split 4 ways over "model" holds contiguous pairs: each device has half of i
// and half of j, which is *not* "j over model" (that would be the strided
// layout {m, 4+m}). projectFromFactors documents the rule ("a minor factor's
// axes only count once every major factor is split completely") and
// projectToFactors must agree with it, else the two do not round-trip and
// propagation proposes layouts the value does not have.
TEST_CASE("projectToFactors: a minor factor gets no axes unless the major is fully split",
          "[factor_merge][project][regression]") {
  Mesh mesh = dataModelMesh();
  const size_t merged = 1;

  SECTION("i=2, j=4, P(\"model\"): model does not fit i, so j may not take it") {
    FactorRule rule = mergeDimsRule(2, 4);
    TensorSharding s = sharding({closedDim({kModel})});
    Projection p = projectToFactors(rule, merged, s, mesh);
    REQUIRE(p[1]);
    INFO("j projected to " << p[1]->size() << " axes");
    CHECK(p[1]->empty());
  }
  SECTION("i=4, j=2, P((\"data\",\"model\")): i is only half split by data") {
    FactorRule rule = mergeDimsRule(4, 2);
    TensorSharding s = sharding({closedDim({kData, kModel})});
    Projection p = projectToFactors(rule, merged, s, mesh);
    REQUIRE(p[0]);
    REQUIRE(p[1]);
    CHECK(*p[0] == Axes{kData});
    CHECK(p[1]->empty());
  }
}

// The same rule inside propagateStep: were projecting an extended tensor back
// onto the factors to yield a *new* candidate, a second step on the same op
// would change the merge (one step would not be a fixed point), the axis
// would move from factor i to factor j, and a j-indexed tensor would be
// sharded in a layout that does not line up with the compound operand.
TEST_CASE("propagateStep: compound dims reach a fixed point in one step",
          "[factor_merge][propagate][regression]") {
  Mesh mesh = dataModelMesh();
  // ([i j],[i],[j])->([i]) with j=4 (factor 0) and i=2 (factor 1, the major of
  // the compound operand dim). Operand 1 shards i over "model" (size 4 > 2:
  // ceil layout, two shards empty); operands 0 and 2 are open.
  //   step 1: merge i={model}, j={}; operand 0 becomes P("model"?);
  //   step 2: must change nothing. (Were operand 0 to project to j={model},
  //           j, the lower factor, would take model from i, and operand 2
  //           become P("model"?).)
  FactorRuleBuilder b;
  int j = b.factor(4);
  int i = b.factor(2);
  b.operand({{i, j}}).operand({{i}}).operand({{j}}).result({{i}});
  FactorRule rule = b.build();
  REQUIRE(rule.validate() == "");
  std::vector<std::optional<TensorSharding>> tensors = {
      sharding({openDim()}), sharding({closedDim({kModel})}), sharding({openDim()}),
      std::nullopt};
  propagateStep(rule, tensors, mesh);
  std::vector<std::optional<TensorSharding>> once = tensors;
  std::vector<size_t> changed = propagateStep(rule, tensors, mesh);
  CHECK(changed.empty());
  for (size_t t = 0; t < tensors.size(); ++t) {
    INFO("tensor " << t << ": after one step " << once[t]->str(mesh) << ", after two "
                   << tensors[t]->str(mesh));
    CHECK(tensors[t]->dims == once[t]->dims);
  }
}

//===----------------------------------------------------------------------===//
// mergeFactors
//===----------------------------------------------------------------------===//

TEST_CASE("mergeFactors: compatible prefixes take the longest", "[factor_merge][merge]") {
  Mesh mesh = abcMesh();
  FactorRule add = FactorRuleBuilder::elementwise({8}, 2, PendingFlow{});
  TensorSharding a = sharding({closedDim({0})});
  TensorSharding ab = sharding({closedDim({0, 1})});
  TensorSharding abc = sharding({closedDim({0, 1, 2})});
  TensorSharding none = sharding({closedDim()});

  CHECK(mergeFactors(add, {&a, &ab, nullptr}, mesh) == FactorAxes{{0, 1}});
  CHECK(mergeFactors(add, {&ab, &a, nullptr}, mesh) == FactorAxes{{0, 1}});
  CHECK(mergeFactors(add, {&a, &ab, &abc}, mesh) == FactorAxes{{0, 1, 2}});
  CHECK(mergeFactors(add, {&abc, &a, &ab}, mesh) == FactorAxes{{0, 1, 2}});
  // A replicated dim is no candidate: it neither vetoes nor shortens.
  CHECK(mergeFactors(add, {&none, &ab, nullptr}, mesh) == FactorAxes{{0, 1}});
  // Unknown tensors are skipped.
  CHECK(mergeFactors(add, {nullptr, nullptr, &a}, mesh) == FactorAxes{{0}});
  CHECK(mergeFactors(add, {nullptr, nullptr, nullptr}, mesh) == FactorAxes{{}});
}

TEST_CASE("mergeFactors: conflicts keep the common prefix", "[factor_merge][merge]") {
  Mesh mesh = abcMesh();
  FactorRule add = FactorRuleBuilder::elementwise({8}, 2, PendingFlow{});
  TensorSharding ab = sharding({closedDim({0, 1})});
  TensorSharding ac = sharding({closedDim({0, 2})});
  TensorSharding a = sharding({closedDim({0})});
  TensorSharding b = sharding({closedDim({1})});
  TensorSharding ba = sharding({closedDim({1, 0})});

  CHECK(mergeFactors(add, {&ab, &ac, nullptr}, mesh) == FactorAxes{{0}});
  CHECK(mergeFactors(add, {&ac, &ab, nullptr}, mesh) == FactorAxes{{0}});
  CHECK(mergeFactors(add, {&a, &b, nullptr}, mesh) == FactorAxes{{}});
  CHECK(mergeFactors(add, {&b, &a, nullptr}, mesh) == FactorAxes{{}});
  // Same axes in another order is a conflict too.
  CHECK(mergeFactors(add, {&ab, &ba, nullptr}, mesh) == FactorAxes{{}});
  // A conflict is independent of which side is longer.
  CHECK(mergeFactors(add, {&ac, &b, nullptr}, mesh) == FactorAxes{{}});
  CHECK(mergeFactors(add, {&b, &ac, &a}, mesh) == FactorAxes{{}});
}

TEST_CASE("mergeFactors: a NeedReplication factor is never sharded", "[factor_merge][merge]") {
  Mesh mesh = dataModelMesh();
  FactorRuleBuilder bld;
  int i = bld.factor(8), j = bld.factor(4, FactorKind::NeedReplication);
  bld.operand({{i}, {j}}).result({{i}, {j}});
  FactorRule rule = bld.build();
  TensorSharding x = sharding({closedDim({kData}), closedDim({kModel})});
  TensorSharding y = sharding({openDim(), openDim({kModel})});
  FactorAxes merged = mergeFactors(rule, {&x, &y}, mesh);
  CHECK(merged[i] == Axes{kData});
  CHECK(merged[j].empty());

  // And propagation does not extend an open dim along it.
  std::vector<std::optional<TensorSharding>> tensors = {x, std::nullopt};
  propagateStep(rule, tensors, mesh);
  REQUIRE(tensors[1]);
  CHECK(tensors[1]->dims[0].axes == Axes{kData});
  CHECK(tensors[1]->dims[1].axes.empty());
}

TEST_CASE("mergeFactors: an axis claimed by two factors stays with the lower factor",
          "[factor_merge][merge]") {
  Mesh mesh = dataModelMesh();
  FactorRule add = add2d(8, 8); // i = 0 (dim 0), j = 1 (dim 1)
  TensorSharding rowsModel = sharding({closedDim({kModel}), closedDim()});
  TensorSharding colsModel = sharding({closedDim(), closedDim({kModel})});
  TensorSharding colsDataModel = sharding({closedDim(), closedDim({kData, kModel})});
  TensorSharding colsModelData = sharding({closedDim(), closedDim({kModel, kData})});

  CHECK(mergeFactors(add, {&rowsModel, &colsModel, nullptr}, mesh) ==
        FactorAxes{{kModel}, {}});
  // Which tensor claims it first does not matter: the factor number does.
  CHECK(mergeFactors(add, {&colsModel, &rowsModel, nullptr}, mesh) ==
        FactorAxes{{kModel}, {}});
  // j keeps what it can as a prefix: (data, model) -> (data).
  CHECK(mergeFactors(add, {&rowsModel, &colsDataModel, nullptr}, mesh) ==
        FactorAxes{{kModel}, {kData}});
  // (model, data) -> nothing: dropping model would leave a non-prefix.
  CHECK(mergeFactors(add, {&rowsModel, &colsModelData, nullptr}, mesh) ==
        FactorAxes{{kModel}, {}});

  SECTION("the lower factor wins even when it indexes a later dim") {
    // Transpose ([i,j])->([j,i]): operand dim 1 is factor j = 1, result dim 0
    // is j too; factor i = 0 indexes operand dim 0 / result dim 1.
    FactorRuleBuilder b;
    int i = b.factor(8), j = b.factor(8);
    b.operand({{i}, {j}}).result({{j}, {i}});
    FactorRule transpose = b.build();
    TensorSharding in = sharding({closedDim(), closedDim({kModel})});  // j = {model}
    TensorSharding out = sharding({closedDim(), closedDim({kModel})}); // i = {model}
    FactorAxes merged = mergeFactors(transpose, {&in, &out}, mesh);
    CHECK(merged[i] == Axes{kModel});
    CHECK(merged[j].empty());
  }
}

TEST_CASE("mergeAxisLists: the policy on bare axis lists, of no order", "[factor_merge][merge]") {
  Axes a{0}, ab{0, 1}, ac{0, 2}, none{};
  CHECK(mergeAxisLists({}) == Axes{});
  CHECK(mergeAxisLists({&none, &a}) == Axes{0}); // empty agrees with everything
  CHECK(mergeAxisLists({&a, &ab}) == Axes{0, 1});
  CHECK(mergeAxisLists({&ab, &a}) == Axes{0, 1});
  CHECK(mergeAxisLists({&ab, &ac}) == Axes{0}); // a conflict: the common prefix
  CHECK(mergeAxisLists({&ac, &a, &ab}) == Axes{0});
}

TEST_CASE("executionAxes: results fix their factors, operands merge the rest",
          "[factor_merge][merge]") {
  Mesh mesh = abcMesh();
  FactorRule rule = matVecRule(8, 8); // factors: i = 0, k = 1 (reduction)
  SECTION("operands that agree by prefix: the contracted factor takes the longer") {
    std::vector<TensorSharding> operands = {sharding({closedDim(), closedDim({0, 1})}),
                                            sharding({closedDim({0})})};
    FactorAxes axes = executionAxes(rule, operands, {sharding({closedDim()})}, mesh);
    CHECK(axes[0] == Axes{});
    CHECK(axes[1] == Axes{0, 1});
  }
  SECTION("the result's layout wins over the operands' for its factors") {
    std::vector<TensorSharding> operands = {sharding({closedDim({1}), closedDim({0})}),
                                            sharding({closedDim({0})})};
    FactorAxes axes = executionAxes(rule, operands, {sharding({closedDim({0})})}, mesh);
    CHECK(axes[0] == Axes{0});
    CHECK(axes[1] == Axes{}); // "a" is the result's: k cannot take it too
  }
}

TEST_CASE("pendingThrough: which pending operands an op keeps, and what its results are "
          "pending over", "[factor_merge][pending]") {
  Mesh mesh = dataModelMesh();
  PendingFlow allSame{PendingFlow::Mode::AllSame, Reduction::Sum, {}};
  FactorRule add = FactorRuleBuilder::elementwise({8}, 2, allSame);
  FactorAxes none(1);
  SECTION("an add of two partial sums over the same axes stays one") {
    PendingThrough t = pendingThrough(add, {sharding({closedDim()}, {kData}),
                                            sharding({closedDim()}, {kData})},
                                      none, {false, false}, mesh);
    CHECK(t.keep == std::vector<bool>{true, true});
    CHECK(t.pending == Axes{kData});
  }
  SECTION("an add of a partial sum and a whole value reduces it first") {
    PendingThrough t = pendingThrough(add, {sharding({closedDim()}, {kData}),
                                            sharding({closedDim()})},
                                      none, {false, false}, mesh);
    CHECK(t.keep == std::vector<bool>{false, false});
    CHECK(t.pending.empty());
    CHECK(t.why[0].reason == PendingThrough::Reduced::NotAllSame);
    CHECK(t.why[0].other == 1); // the whole operand is why
    CHECK(t.why[1].reason == PendingThrough::Reduced::Kept); // not pending: nothing to say
    CHECK_FALSE(mayStayPending(PendingFlow{}, 0)); // mode None: never
    CHECK(mayStayPending(allSame, 1));
  }
  SECTION("a dot keeps its one pending operand and adds its own reduction axes") {
    PendingFlow oneOf{PendingFlow::Mode::OneOf, Reduction::Sum, {0}};
    FactorRuleBuilder b;
    int i = b.factor(8), k = b.factor(4, FactorKind::Reduction);
    b.operand({{i}, {k}}).operand({{k}}).result({{i}}).pending(oneOf);
    FactorRule dot = b.build();
    FactorAxes axes(2);
    axes[k] = {kModel};
    PendingThrough t = pendingThrough(
        dot, {sharding({closedDim(), closedDim({kModel})}, {kData}), sharding({closedDim({kModel})})},
        axes, {false, false}, mesh);
    CHECK(t.keep == std::vector<bool>{true, false});
    CHECK(t.pending == Axes{kData, kModel});
    CHECK(mayStayPending(oneOf, 0));
    CHECK_FALSE(mayStayPending(oneOf, 1));
    // The same value in both slots is reduced for the other slot anyway.
    PendingThrough twice = pendingThrough(
        dot, {sharding({closedDim(), closedDim({kModel})}, {kData}), sharding({closedDim({kModel})})},
        axes, {true, true}, mesh);
    CHECK(twice.keep == std::vector<bool>{false, false});
    CHECK(twice.pending == Axes{kModel});
    CHECK(twice.why[0].reason == PendingThrough::Reduced::Repeated);
  }
}

//===----------------------------------------------------------------------===//
// projectFromFactors
//===----------------------------------------------------------------------===//

TEST_CASE("projectFromFactors: one factor per dim, all dims closed", "[factor_merge][project]") {
  Mesh mesh = dataModelMesh();
  FactorRuleBuilder b;
  int i = b.factor(8), j = b.factor(16), k = b.factor(4, FactorKind::Reduction);
  b.operand({{i}, {k}}).operand({{k}, {j}}).result({{i}, {j}});
  FactorRule dot = b.build();
  FactorAxes axes(3);
  axes[i] = {kData};
  axes[k] = {kModel};
  TensorSharding lhs = projectFromFactors(dot, 0, axes, mesh);
  TensorSharding rhs = projectFromFactors(dot, 1, axes, mesh);
  TensorSharding res = projectFromFactors(dot, 2, axes, mesh);
  CHECK(lhs.str(mesh) == R"(P("data", "model"))");
  CHECK(rhs.str(mesh) == R"(P("model", None))");
  CHECK(res.str(mesh) == R"(P("data", None))");
  // Dims only: the result is not marked pending by projection.
  CHECK_FALSE(res.isPending());
  for (const TensorSharding *t : {&lhs, &rhs, &res})
    CHECK(openFlags(*t) == std::vector<bool>(t->dims.size(), false));
}

TEST_CASE("projectFromFactors: a minor factor counts only when the major is fully split",
          "[factor_merge][project]") {
  Mesh mesh = dataModelMesh();
  const size_t merged = 1;

  SECTION("major fully split: both factors' axes, major first") {
    FactorRule rule = mergeDimsRule(2, 4);
    FactorAxes axes{{kData}, {kModel}};
    CHECK(projectFromFactors(rule, merged, axes, mesh).dims[0].axes == Axes{kData, kModel});
    // The operand keeps one factor per dim.
    CHECK(projectFromFactors(rule, 0, axes, mesh).str(mesh) == R"(P("data", "model"))");
  }
  SECTION("major replicated: the minor does not count") {
    FactorRule rule = mergeDimsRule(2, 4);
    FactorAxes axes{{}, {kModel}};
    CHECK(projectFromFactors(rule, merged, axes, mesh).dims[0].axes.empty());
    CHECK(projectFromFactors(rule, 0, axes, mesh).str(mesh) == R"(P(None, "model"))");
  }
  SECTION("major only half split: the minor does not count") {
    FactorRule rule = mergeDimsRule(4, 2);
    FactorAxes axes{{kData}, {kModel}};
    CHECK(projectFromFactors(rule, merged, axes, mesh).dims[0].axes == Axes{kData});
  }
  SECTION("major over-split: not expressible on the merged dim, so replicated") {
    // i (size 2) over "model" (4) is a ceil layout of i with shards 1,1,0,0;
    // the merged dim split 4 ways would hold blocks of 2 instead: different
    // data, so the merged dim must not claim "model".
    FactorRule rule = mergeDimsRule(2, 4);
    FactorAxes axes{{kModel}, {kData}};
    CHECK(projectFromFactors(rule, merged, axes, mesh).dims[0].axes.empty());
  }
  SECTION("a size-1 major is trivially fully split") {
    FactorRule rule = mergeDimsRule(1, 4);
    FactorAxes axes{{}, {kModel}};
    CHECK(projectFromFactors(rule, merged, axes, mesh).dims[0].axes == Axes{kModel});
  }
  SECTION("round trip through projectToFactors for representable layouts") {
    FactorRule rule = mergeDimsRule(2, 4);
    for (const Axes &dim : {Axes{}, Axes{kData}, Axes{kData, kModel}}) {
      CAPTURE(dim);
      TensorSharding s = sharding({closedDim(dim)});
      Projection p = projectToFactors(rule, merged, s, mesh);
      FactorAxes axes{*p[0], *p[1]};
      CHECK(projectFromFactors(rule, merged, axes, mesh).dims[0].axes == dim);
    }
  }
}

//===----------------------------------------------------------------------===//
// extendOpenDims
//===----------------------------------------------------------------------===//

TEST_CASE("extendOpenDims: closed dims are never changed", "[factor_merge][extend]") {
  TensorSharding cur = sharding({closedDim(), closedDim({kData})});
  TensorSharding proposed = sharding({closedDim({kModel}), closedDim({kData, kModel})});
  CHECK_FALSE(extendOpenDims(cur, proposed));
  CHECK(cur.dims[0] == closedDim());
  CHECK(cur.dims[1] == closedDim({kData}));
}

TEST_CASE("extendOpenDims: open dims only extend their prefix", "[factor_merge][extend]") {
  SECTION("empty open dim takes the proposal and stays open") {
    TensorSharding cur = sharding({openDim()});
    CHECK(extendOpenDims(cur, sharding({closedDim({kData})})));
    CHECK(cur.dims[0] == openDim({kData}));
  }
  SECTION("a prefix is extended") {
    TensorSharding cur = sharding({openDim({kData})});
    CHECK(extendOpenDims(cur, sharding({closedDim({kData, kModel})})));
    CHECK(cur.dims[0] == openDim({kData, kModel}));
  }
  SECTION("a non-prefix proposal is ignored") {
    TensorSharding cur = sharding({openDim({kData})});
    CHECK_FALSE(extendOpenDims(cur, sharding({closedDim({kModel, kData})})));
    CHECK(cur.dims[0] == openDim({kData}));
  }
  SECTION("a shorter proposal never shrinks a dim") {
    TensorSharding cur = sharding({openDim({kData, kModel})});
    CHECK_FALSE(extendOpenDims(cur, sharding({closedDim({kData})})));
    CHECK_FALSE(extendOpenDims(cur, sharding({closedDim()})));
    CHECK(cur.dims[0] == openDim({kData, kModel}));
  }
  SECTION("an equal proposal is no change") {
    TensorSharding cur = sharding({openDim({kData})});
    CHECK_FALSE(extendOpenDims(cur, sharding({closedDim({kData})})));
  }
  SECTION("mixed dims: only the open one moves") {
    TensorSharding cur = sharding({closedDim(), openDim()}, {}, Reduction::Sum);
    CHECK(extendOpenDims(cur, sharding({closedDim({kData}), closedDim({kModel})})));
    CHECK(cur.dims[0] == closedDim());
    CHECK(cur.dims[1] == openDim({kModel}));
  }
}

// When an extension collides with an axis the value already uses,
// extendOpenDims drops the new extension, never truncating a *closed* dim (or
// an open dim's existing axes) that happens to come later. Header: "closed
// dims are never changed"; FactorMerge.h: "a dim only ever grows by appending
// axes".
TEST_CASE("extendOpenDims: a colliding extension never changes a closed dim",
          "[factor_merge][extend][regression]") {
  Mesh mesh = dataModelMesh();
  SECTION("direct") {
    TensorSharding cur = sharding({openDim(), closedDim({kData})});
    TensorSharding proposed = sharding({closedDim({kData}), closedDim()});
    extendOpenDims(cur, proposed);
    INFO("after: " << cur.str(mesh));
    CHECK(cur.dims[1] == closedDim({kData}));
    CHECK(cur.dims[0] == openDim());
    CHECK(cur.validate(mesh) == "");
  }
  SECTION("an open dim's existing axes are not taken away either") {
    TensorSharding cur = sharding({openDim(), openDim({kData})});
    TensorSharding proposed = sharding({closedDim({kData}), closedDim()});
    extendOpenDims(cur, proposed);
    INFO("after: " << cur.str(mesh));
    CHECK(cur.dims[1].axes == Axes{kData});
  }
  SECTION("through propagateStep on an elementwise add") {
    // A: P("data", None) closed; B: P(?, "data") with dim 1 closed. Merge puts
    // data on factor i (dim 0), so B's proposal is P("data", None).
    FactorRule add = add2d(8, 8);
    std::vector<std::optional<TensorSharding>> tensors = {
        sharding({closedDim({kData}), closedDim()}),
        sharding({openDim(), closedDim({kData})}), std::nullopt};
    propagateStep(add, tensors, mesh);
    INFO("B after: " << tensors[1]->str(mesh));
    CHECK(tensors[1]->dims[1] == closedDim({kData}));
  }
}

// Collisions and change reports: when the collision pass undoes the whole
// extension, extendOpenDims returns false ("Returns true if anything
// changed"), and propagateStep does not report the tensor as changed; a
// worklist that re-enqueues changed values would otherwise never reach its
// fixed point.
TEST_CASE("extendOpenDims/propagateStep: report a change only when one happened",
          "[factor_merge][extend][regression]") {
  Mesh mesh = dataModelMesh();
  SECTION("extendOpenDims") {
    TensorSharding cur = sharding({closedDim({kData}), openDim()});
    TensorSharding before = cur;
    bool changed = extendOpenDims(cur, sharding({closedDim(), closedDim({kData})}));
    INFO("after: " << cur.str(mesh));
    REQUIRE(cur.dims == before.dims); // nothing changed
    CHECK_FALSE(changed);
  }
  SECTION("propagateStep on an elementwise add") {
    // A: P("model", "data") closed; B: P("data", ?). Factor i conflicts
    // ({model} vs {data}) -> none; j = {data}. B's proposal P(None, "data")
    // collides with B's own closed dim 0 and is undone: B is not changed.
    FactorRule add = add2d(8, 8);
    std::vector<std::optional<TensorSharding>> tensors = {
        sharding({closedDim({kModel}), closedDim({kData})}),
        sharding({closedDim({kData}), openDim()}), std::nullopt};
    propagateStep(add, tensors, mesh);
    auto once = tensors;
    std::vector<size_t> changed = propagateStep(add, tensors, mesh);
    for (size_t t = 0; t < tensors.size(); ++t)
      REQUIRE(tensors[t]->dims == once[t]->dims);
    INFO("B: " << tensors[1]->str(mesh));
    CHECK(changed.empty());
  }
}

// Collisions with pending axes: an extension never makes a value sharded and
// pending over the same axis (invalid).
TEST_CASE("extendOpenDims: keeps the sharding valid when the value is pending",
          "[factor_merge][extend][regression]") {
  Mesh mesh = dataModelMesh();
  TensorSharding cur = sharding({openDim()}, {kModel});
  REQUIRE(cur.validate(mesh) == "");
  extendOpenDims(cur, sharding({closedDim({kModel})}));
  INFO("after: " << cur.str(mesh));
  CHECK(cur.validate(mesh) == "");
}

//===----------------------------------------------------------------------===//
// propagateStep
//===----------------------------------------------------------------------===//

TEST_CASE("propagateStep: linear regression X·w", "[factor_merge][propagate]") {
  Mesh mesh{{"data"}, {4}};
  FactorRule rule = matVecRule(8, 2); // X [8,2], w [2], y [8]
  TensorSharding x = sharding({closedDim({0}), closedDim()});

  SECTION("w and the result unknown") {
    std::vector<std::optional<TensorSharding>> tensors = {x, std::nullopt, std::nullopt};
    std::vector<size_t> changed = propagateStep(rule, tensors, mesh);
    CHECK(changed == std::vector<size_t>{1, 2});
    // X is closed: untouched.
    CHECK(tensors[0]->dims == x.dims);
    // Nothing shards k: w stays replicated, but open for later steps.
    REQUIRE(tensors[1]);
    CHECK(tensors[1]->dims.size() == 1);
    CHECK(tensors[1]->dims[0] == openDim());
    CHECK(tensors[1]->str(mesh) == "P(?)");
    // The result follows X's rows.
    REQUIRE(tensors[2]);
    CHECK(tensors[2]->sameLayout(sharding({closedDim({0})})));
    CHECK(tensors[2]->str(mesh) == R"(P("data"?))");
    CHECK(tensors[2]->validate(mesh) == "");

    SECTION("a second step is a fixed point") {
      auto before = tensors;
      CHECK(propagateStep(rule, tensors, mesh).empty());
      for (size_t t = 0; t < 3; ++t)
        CHECK(tensors[t]->dims == before[t]->dims);
    }
  }
  SECTION("a closed replicated w stays replicated") {
    std::vector<std::optional<TensorSharding>> tensors = {x, sharding({closedDim()}),
                                                          std::nullopt};
    CHECK(propagateStep(rule, tensors, mesh) == std::vector<size_t>{2});
    CHECK(tensors[1]->dims[0] == closedDim());
    CHECK(tensors[2]->str(mesh) == R"(P("data"?))");
  }
  SECTION("a sharded w does not change X's closed k dim") {
    Mesh two{{"data", "model"}, {2, 2}};
    TensorSharding xd = sharding({closedDim({0}), closedDim()});
    std::vector<std::optional<TensorSharding>> tensors = {xd, sharding({closedDim({1})}),
                                                          std::nullopt};
    propagateStep(rule, tensors, two);
    CHECK(tensors[0]->dims == xd.dims);
    CHECK(tensors[1]->dims[0] == closedDim({1}));
    CHECK(tensors[2]->str(two) == R"(P("data"?))");
  }
  SECTION("an open k dim on X is extended by w's sharding") {
    Mesh two{{"data", "model"}, {2, 2}};
    std::vector<std::optional<TensorSharding>> tensors = {
        sharding({closedDim({0}), openDim()}), sharding({closedDim({1})}), std::nullopt};
    std::vector<size_t> changed = propagateStep(rule, tensors, two);
    CHECK(changed == std::vector<size_t>{0, 2});
    CHECK(tensors[0]->str(two) == R"(P("data", "model"?))");
    CHECK(tensors[2]->str(two) == R"(P("data"?))");
  }
}

TEST_CASE("propagateStep: elementwise add with one sharded and one unknown operand",
          "[factor_merge][propagate]") {
  Mesh mesh = dataModelMesh();
  FactorRule add = add2d(8, 4);
  TensorSharding a = sharding({closedDim({kData}), closedDim()});

  SECTION("unknown operand and result follow the sharded operand") {
    std::vector<std::optional<TensorSharding>> tensors = {a, std::nullopt, std::nullopt};
    CHECK(propagateStep(add, tensors, mesh) == std::vector<size_t>{1, 2});
    CHECK(tensors[0]->dims == a.dims);
    for (size_t t : {1, 2}) {
      REQUIRE(tensors[t]);
      CHECK(tensors[t]->dims[0] == openDim({kData}));
      CHECK(tensors[t]->dims[1] == openDim());
      CHECK(tensors[t]->str(mesh) == R"(P("data"?, ?))");
    }
    CHECK(propagateStep(add, tensors, mesh).empty());
  }
  SECTION("an open operand contributes its own sharding to the others") {
    std::vector<std::optional<TensorSharding>> tensors = {
        a, sharding({openDim(), openDim({kModel})}), std::nullopt};
    CHECK(propagateStep(add, tensors, mesh) == std::vector<size_t>{1, 2});
    CHECK(tensors[0]->dims == a.dims); // closed None stays None
    CHECK(tensors[1]->str(mesh) == R"(P("data"?, "model"?))");
    CHECK(tensors[2]->str(mesh) == R"(P("data"?, "model"?))");
  }
  SECTION("conflicting closed operands leave the result at the common prefix") {
    std::vector<std::optional<TensorSharding>> tensors = {
        a, sharding({closedDim({kModel}), closedDim()}), std::nullopt};
    CHECK(propagateStep(add, tensors, mesh) == std::vector<size_t>{2});
    CHECK(tensors[2]->str(mesh) == "P(?, ?)");
  }
}

//===----------------------------------------------------------------------===//
// Property tests over random small rules and shardings
//===----------------------------------------------------------------------===//

namespace {

struct RandomCase {
  Mesh mesh;
  FactorRule rule;
  std::vector<std::optional<TensorSharding>> tensors;
};

std::string describe(const RandomCase &c,
                     const std::vector<std::optional<TensorSharding>> &tensors) {
  std::ostringstream os;
  os << "mesh " << c.mesh.str() << ", rule " << c.rule.str() << ", sizes {";
  for (size_t f = 0; f < c.rule.numFactors(); ++f)
    os << (f ? "," : "") << c.rule.factorSizes[f];
  os << "}, tensors [";
  for (size_t t = 0; t < tensors.size(); ++t)
    os << (t ? "; " : "") << (tensors[t] ? tensors[t]->str(c.mesh) : std::string("unknown"));
  os << "]";
  return os.str();
}

/// A random valid rule with 1-4 factors, 1-3 operands and one result, and a
/// random valid (possibly unknown) sharding per tensor. `compound` allows
/// dims with two factors; `closedOnly` makes every known sharding closed (so
/// only unknown tensors can be extended).
RandomCase randomCase(std::mt19937 &rng, bool compound, bool closedOnly = false) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  static const Mesh meshes[] = {Mesh{{"a", "b", "c"}, {2, 2, 2}},
                                Mesh{{"data", "model"}, {2, 4}},
                                Mesh{{"x", "y"}, {2, 3}}};
  static const int64_t sizes[] = {1, 2, 3, 4, 6, 8, 12};
  RandomCase c;
  c.mesh = meshes[pick(3)];

  FactorRuleBuilder b;
  int numFactors = 1 + pick(4);
  std::vector<FactorKind> kinds;
  for (int f = 0; f < numFactors; ++f) {
    int r = pick(10);
    FactorKind kind = r < 7 ? FactorKind::Parallel
                            : r < 9 ? FactorKind::Reduction : FactorKind::NeedReplication;
    kinds.push_back(kind);
    b.factor(sizes[pick(7)], kind);
  }
  auto randomTensor = [&](bool isResult) {
    std::vector<int> pool;
    for (int f = 0; f < numFactors; ++f)
      if (!isResult || kinds[f] != FactorKind::Reduction)
        pool.push_back(f);
    std::shuffle(pool.begin(), pool.end(), rng);
    FactorRule::TensorFactors dims;
    int rank = pick(4);
    size_t next = 0;
    for (int d = 0; d < rank && next < pool.size(); ++d) {
      FactorRule::DimFactors dim{pool[next++]};
      if (compound && next < pool.size() && pick(3) == 0)
        dim.push_back(pool[next++]);
      dims.push_back(dim);
    }
    return dims;
  };
  int numOperands = 1 + pick(3);
  for (int o = 0; o < numOperands; ++o)
    b.operand(randomTensor(false));
  b.result(randomTensor(true));
  c.rule = b.build();

  for (size_t t = 0; t < c.rule.numTensors(); ++t) {
    if (pick(4) == 0) {
      c.tensors.push_back(std::nullopt);
      continue;
    }
    std::vector<int> free(c.mesh.axes.size());
    std::iota(free.begin(), free.end(), 0);
    std::shuffle(free.begin(), free.end(), rng);
    TensorSharding s;
    for (size_t d = 0; d < c.rule.tensor(t).size(); ++d) {
      DimSharding dim;
      dim.open = !closedOnly && pick(2) == 0;
      int n = pick(3);
      for (int k = 0; k < n && !free.empty(); ++k) {
        dim.axes.push_back(free.back());
        free.pop_back();
      }
      s.dims.push_back(dim);
    }
    c.tensors.push_back(s);
  }
  return c;
}

bool sameTensors(const std::vector<std::optional<TensorSharding>> &x,
                 const std::vector<std::optional<TensorSharding>> &y) {
  if (x.size() != y.size())
    return false;
  for (size_t t = 0; t < x.size(); ++t) {
    if (x[t].has_value() != y[t].has_value())
      return false;
    if (x[t] && (x[t]->dims != y[t]->dims || x[t]->pending != y[t]->pending))
      return false;
  }
  return true;
}

constexpr int kCases = 3000;

} // namespace

TEST_CASE("property: propagateStep does not depend on the order of the operands",
          "[factor_merge][propagate][property]") {
  for (bool compound : {false, true}) {
    std::mt19937 rng(compound ? 1234 : 42);
    for (int n = 0; n < kCases; ++n) {
      RandomCase c = randomCase(rng, compound);
      REQUIRE(c.rule.validate() == "");
      size_t numOps = c.rule.operands.size();
      // Reverse the operands (rule and tensors alike); results stay last.
      std::vector<size_t> perm(numOps);
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      RandomCase p = c;
      for (size_t o = 0; o < numOps; ++o) {
        p.rule.operands[o] = c.rule.operands[perm[o]];
        p.tensors[o] = c.tensors[perm[o]];
      }
      std::vector<size_t> changedC = propagateStep(c.rule, c.tensors, c.mesh);
      std::vector<size_t> changedP = propagateStep(p.rule, p.tensors, p.mesh);
      // Map p's results back to c's positions.
      std::vector<std::optional<TensorSharding>> back = p.tensors;
      for (size_t o = 0; o < numOps; ++o)
        back[perm[o]] = p.tensors[o];
      std::vector<size_t> changedBack;
      for (size_t t : changedP)
        changedBack.push_back(t < numOps ? perm[t] : t);
      std::sort(changedBack.begin(), changedBack.end());
      bool ok = sameTensors(c.tensors, back) && changedC == changedBack;
      if (!ok) {
        INFO("case " << n << ": " << describe(c, c.tensors) << " vs permuted "
                     << describe(p, p.tensors));
        CHECK(ok);
        break;
      }
    }
  }
}

namespace {
/// Runs two steps; "" if the second left every sharding as the first did
/// (and, with `checkReported`, also reported no change), else a description.
std::string secondStepViolation(RandomCase c, bool checkReported) {
  RandomCase input = c;
  propagateStep(c.rule, c.tensors, c.mesh);
  auto once = c.tensors;
  std::vector<size_t> changed = propagateStep(c.rule, c.tensors, c.mesh);
  bool same = sameTensors(once, c.tensors);
  if (same && (!checkReported || changed.empty()))
    return "";
  std::ostringstream os;
  os << (same ? "second step reported changes to unchanged tensors"
              : "second step changed shardings")
     << "; input " << describe(input, input.tensors) << "; after one step "
     << describe(c, once) << "; after two " << describe(c, c.tensors);
  return os.str();
}
} // namespace

TEST_CASE("property: with closed or unknown inputs, one step reaches a fixed point",
          "[factor_merge][propagate][property]") {
  // Step two sees step one's projections as extra candidates; the merge must
  // be stable under them: same shardings, nothing reported as changed.
  std::mt19937 rng(7);
  for (int n = 0; n < kCases; ++n) {
    std::string v = secondStepViolation(randomCase(rng, /*compound=*/false, /*closedOnly=*/true),
                                        /*checkReported=*/true);
    if (!v.empty()) {
      INFO("case " << n << ": " << v);
      CHECK(v.empty());
      break;
    }
  }
}

TEST_CASE("property: with closed or unknown inputs and compound dims, one step reaches "
          "a fixed point",
          "[factor_merge][propagate][property][regression]") {
  // The projectToFactors rule (see the deterministic case above), on random
  // cases.
  std::mt19937 rng(99);
  for (int n = 0; n < kCases; ++n) {
    std::string v = secondStepViolation(randomCase(rng, /*compound=*/true, /*closedOnly=*/true),
                                        /*checkReported=*/true);
    if (!v.empty()) {
      INFO("case " << n << ": " << v);
      CHECK(v.empty());
      break;
    }
  }
}

TEST_CASE("property: with open inputs, one step reaches a fixed point",
          "[factor_merge][propagate][property][regression]") {
  // The extendOpenDims collision rules (deterministic cases above), on random
  // cases: undone extensions must not be reported as changes, nor closed dims
  // lose axes and change the next merge.
  std::mt19937 rng(7);
  for (int n = 0; n < kCases; ++n) {
    std::string v = secondStepViolation(randomCase(rng, /*compound=*/false), true);
    if (!v.empty()) {
      INFO("case " << n << ": " << v);
      CHECK(v.empty());
      break;
    }
  }
}

TEST_CASE("property: propagateStep keeps closed dims, only grows open ones, stays valid",
          "[factor_merge][propagate][property][regression]") {
  // The extendOpenDims collision rules above, on random cases.
  std::mt19937 rng(2024);
  for (int n = 0; n < kCases; ++n) {
    RandomCase c = randomCase(rng, /*compound=*/false);
    auto before = c.tensors;
    propagateStep(c.rule, c.tensors, c.mesh);
    std::string violation;
    for (size_t t = 0; t < c.tensors.size() && violation.empty(); ++t) {
      REQUIRE(c.tensors[t]);
      if (std::string e = c.tensors[t]->validate(c.mesh); !e.empty())
        violation = "tensor " + std::to_string(t) + " invalid: " + e;
      if (!before[t])
        continue;
      for (size_t d = 0; d < before[t]->dims.size() && violation.empty(); ++d) {
        const DimSharding &was = before[t]->dims[d], &now = c.tensors[t]->dims[d];
        if (now.open != was.open)
          violation = "tensor " + std::to_string(t) + " dim " + std::to_string(d) +
                      " changed openness";
        else if (!was.open && now.axes != was.axes)
          violation = "tensor " + std::to_string(t) + " closed dim " + std::to_string(d) +
                      " changed";
        else if (now.axes.size() < was.axes.size() ||
                 !std::equal(was.axes.begin(), was.axes.end(), now.axes.begin()))
          violation = "tensor " + std::to_string(t) + " open dim " + std::to_string(d) +
                      " lost axes";
      }
    }
    if (!violation.empty()) {
      RandomCase in = c;
      INFO("case " << n << ": " << violation << "; input " << describe(in, before)
                   << "; after " << describe(c, c.tensors));
      CHECK(violation.empty());
      break;
    }
  }
}
