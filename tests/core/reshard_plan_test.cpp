//===- reshard_plan_test.cpp - the reshard planner: steps, order, bytes ---===//
#include "passes/core/ReshardPlan.h"
#include "tests/core/TestUtil.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace shardc;
using namespace shardc::test;
using Catch::Matchers::Contains;

using Kind = CollectiveStep::Kind;
using Axes = std::vector<int>;

namespace {

constexpr int64_t kF32 = 4;

/// The documented invariants every plan must satisfy, whatever the input:
/// reduce, then gathers, then slices; every intermediate `after` is valid and
/// closed; the last layout equals the target's; the cost model holds.
void checkInvariants(const ReshardPlan &plan, const TensorSharding &from,
                     const TensorSharding &to, const Mesh &mesh,
                     const std::vector<int64_t> &shape, int64_t elementBytes) {
  REQUIRE(plan.error == "");
  int phase = 0; // 0 reduce, 1 gather, 2 slice
  TensorSharding prev = from;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const CollectiveStep &step = plan.steps[s];
    INFO("step " << s << ": " << collectiveName(step.kind) << " -> " << step.after.str(mesh));
    int p = step.kind == Kind::AllReduce ? 0 : step.kind == Kind::AllGather ? 1 : 2;
    CHECK(p >= phase);
    if (p == 0)
      CHECK(phase == 0);
    phase = p == 0 ? 1 : p; // at most one all_reduce, first
    CHECK(step.after.validate(mesh) == "");
    CHECK(step.after.dims.size() == shape.size());
    CHECK_FALSE(step.axes.empty());

    int64_t n = mesh.product(step.axes);
    auto bytes = [&](const TensorSharding &t) {
      int64_t b = elementBytes;
      for (int64_t d : localShape(shape, t, mesh))
        b *= d;
      return b;
    };
    switch (step.kind) {
    case Kind::AllReduce:
      CHECK(step.bytesPerDevice == 2 * (n - 1) * bytes(prev) / n);
      CHECK(step.after.pending == to.pending);
      break;
    case Kind::AllGather: {
      REQUIRE(step.dim >= 0);
      CHECK(step.bytesPerDevice == (n - 1) * bytes(step.after) / n);
      // Gathers drop the trailing axes of one dim.
      const Axes &before = prev.dims[step.dim].axes, &afterAxes = step.after.dims[step.dim].axes;
      REQUIRE(before.size() == afterAxes.size() + step.axes.size());
      CHECK(Axes(before.begin(), before.begin() + afterAxes.size()) == afterAxes);
      CHECK(Axes(before.begin() + afterAxes.size(), before.end()) == step.axes);
      break;
    }
    case Kind::AllSlice: {
      REQUIRE(step.dim >= 0);
      CHECK(step.bytesPerDevice == 0);
      const Axes &before = prev.dims[step.dim].axes, &afterAxes = step.after.dims[step.dim].axes;
      REQUIRE(afterAxes.size() == before.size() + step.axes.size());
      CHECK(Axes(afterAxes.begin(), afterAxes.begin() + before.size()) == before);
      CHECK(Axes(afterAxes.begin() + before.size(), afterAxes.end()) == step.axes);
      break;
    }
    }
    prev = step.after;
  }
  CHECK(prev.sameLayout(to));
}

} // namespace

TEST_CASE("collectiveName", "[reshard]") {
  CHECK(std::string(collectiveName(Kind::AllReduce)) == "all_reduce");
  CHECK(std::string(collectiveName(Kind::AllGather)) == "all_gather");
  CHECK(std::string(collectiveName(Kind::AllSlice)) == "all_slice");
}

TEST_CASE("reshard: identical layouts need no steps", "[reshard]") {
  Mesh mesh = dataModelMesh();
  TensorSharding s = sharding({closedDim({kData}), closedDim({kModel})});
  ReshardPlan plan = planReshard(s, s, mesh, {8, 8}, kF32);
  CHECK(plan.error == "");
  CHECK(plan.steps.empty());
  // Openness is not layout.
  ReshardPlan open = planReshard(s, sharding({openDim({kData}), openDim({kModel})}), mesh,
                                 {8, 8}, kF32);
  CHECK(open.error == "");
  CHECK(open.steps.empty());
}

TEST_CASE("reshard: pending sum to reduced is one all_reduce", "[reshard]") {
  Mesh mesh = dataModelMesh();
  // [8,4] f32, replicated dims, pending over model (n = 4): B = 128 bytes.
  TensorSharding from = sharding({closedDim(), closedDim()}, {kModel});
  TensorSharding to = sharding({closedDim(), closedDim()});
  ReshardPlan plan = planReshard(from, to, mesh, {8, 4}, kF32);
  REQUIRE(plan.error == "");
  REQUIRE(plan.steps.size() == 1);
  const CollectiveStep &s = plan.steps[0];
  CHECK(s.kind == Kind::AllReduce);
  CHECK(s.axes == Axes{kModel});
  CHECK(s.reduction == Reduction::Sum);
  CHECK(s.bytesPerDevice == 2 * 3 * 128 / 4); // 2(n-1)/n * B = 192
  CHECK_FALSE(s.after.isPending());
  CHECK(s.after.sameLayout(to));
  checkInvariants(plan, from, to, mesh, {8, 4}, kF32);
}

TEST_CASE("reshard: all_reduce keeps the reduction kind and uses the local buffer",
          "[reshard]") {
  Mesh mesh = dataModelMesh();
  // Pending max over both axes of a value sharded... over nothing, [6] f64:
  // B = 48 bytes, n = 8.
  TensorSharding from = sharding({closedDim()}, {kData, kModel}, Reduction::Max);
  TensorSharding to = sharding({closedDim()});
  ReshardPlan plan = planReshard(from, to, mesh, {6}, 8);
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == Kind::AllReduce);
  CHECK(plan.steps[0].reduction == Reduction::Max);
  CHECK(plan.steps[0].axes == Axes{kData, kModel});
  CHECK(plan.steps[0].bytesPerDevice == 2 * 7 * 48 / 8); // 84

  // A sharded pending value: B is the local (sharded) buffer, [8,4] P("data",
  // None) -> 4*4*4 = 64 bytes.
  TensorSharding sharded = sharding({closedDim({kData}), closedDim()}, {kModel});
  ReshardPlan p2 = planReshard(sharded, sharding({closedDim({kData}), closedDim()}), mesh,
                               {8, 4}, kF32);
  REQUIRE(p2.steps.size() == 1);
  CHECK(p2.steps[0].bytesPerDevice == 2 * 3 * 64 / 4); // 96
  CHECK(p2.steps[0].after.str(mesh) == R"(P("data", None))");
}

TEST_CASE("reshard: reducing some pending axes keeps the others pending", "[reshard]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({closedDim()}, {kData, kModel});
  TensorSharding to = sharding({closedDim()}, {kModel});
  ReshardPlan plan = planReshard(from, to, mesh, {8}, kF32);
  REQUIRE(plan.error == "");
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == Kind::AllReduce);
  CHECK(plan.steps[0].axes == Axes{kData});
  CHECK(plan.steps[0].after.pending == Axes{kModel});
  CHECK(plan.steps[0].bytesPerDevice == 2 * 1 * 32 / 2); // 32
  checkInvariants(plan, from, to, mesh, {8}, kF32);
}

TEST_CASE("reshard: P(\"data\") -> P() is an all_gather on dim 0", "[reshard]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({closedDim({kData})});
  TensorSharding to = sharding({closedDim()});
  ReshardPlan plan = planReshard(from, to, mesh, {8}, kF32);
  REQUIRE(plan.error == "");
  REQUIRE(plan.steps.size() == 1);
  const CollectiveStep &s = plan.steps[0];
  CHECK(s.kind == Kind::AllGather);
  CHECK(s.dim == 0);
  CHECK(s.axes == Axes{kData});
  // (n-1)/n * B_out: B_out = 8 * 4 = 32 bytes, n = 2.
  CHECK(s.bytesPerDevice == 16);
  CHECK(s.after.str(mesh) == "P(None)");
  checkInvariants(plan, from, to, mesh, {8}, kF32);
}

TEST_CASE("reshard: all_gather bytes use the padded (ceil) output buffer", "[reshard]") {
  Mesh mesh = dataModelMesh();
  // [5] over model (4 shards of 2, padded) -> replicated: B_out = 20, n = 4.
  ReshardPlan plan =
      planReshard(sharding({closedDim({kModel})}), sharding({closedDim()}), mesh, {5}, kF32);
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].bytesPerDevice == 3 * 20 / 4); // 15
  // [8, 6] P(("data","model"), None) -> P("data", None): B_out = 4*6*4 = 96.
  ReshardPlan two = planReshard(sharding({closedDim({kData, kModel}), closedDim()}),
                                sharding({closedDim({kData}), closedDim()}), mesh, {8, 6}, kF32);
  REQUIRE(two.steps.size() == 1);
  CHECK(two.steps[0].bytesPerDevice == 3 * 96 / 4); // 72
}

TEST_CASE("reshard: P() -> P(\"data\") is a free all_slice", "[reshard]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({closedDim()});
  TensorSharding to = sharding({closedDim({kData})});
  ReshardPlan plan = planReshard(from, to, mesh, {8}, kF32);
  REQUIRE(plan.error == "");
  REQUIRE(plan.steps.size() == 1);
  const CollectiveStep &s = plan.steps[0];
  CHECK(s.kind == Kind::AllSlice);
  CHECK(s.dim == 0);
  CHECK(s.axes == Axes{kData});
  CHECK(s.bytesPerDevice == 0);
  CHECK(s.after.str(mesh) == R"(P("data"))");
  checkInvariants(plan, from, to, mesh, {8}, kF32);
}

TEST_CASE("reshard: P(\"data\", None) -> P(None, \"data\") gathers before it slices",
          "[reshard]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({closedDim({kData}), closedDim()});
  TensorSharding to = sharding({closedDim(), closedDim({kData})});
  ReshardPlan plan = planReshard(from, to, mesh, {8, 4}, kF32);
  REQUIRE(plan.error == "");
  REQUIRE(plan.steps.size() == 2);
  CHECK(plan.steps[0].kind == Kind::AllGather);
  CHECK(plan.steps[0].dim == 0);
  CHECK(plan.steps[0].axes == Axes{kData});
  CHECK(plan.steps[0].after.str(mesh) == "P(None, None)");
  CHECK(plan.steps[0].bytesPerDevice == 1 * 128 / 2); // B_out = 8*4*4
  CHECK(plan.steps[1].kind == Kind::AllSlice);
  CHECK(plan.steps[1].dim == 1);
  CHECK(plan.steps[1].axes == Axes{kData});
  CHECK(plan.steps[1].after.str(mesh) == R"(P(None, "data"))");
  CHECK(plan.steps[1].bytesPerDevice == 0);
  checkInvariants(plan, from, to, mesh, {8, 4}, kF32);
}

TEST_CASE("reshard: P((\"data\",\"model\")) -> P(\"data\") gathers only \"model\"",
          "[reshard]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({closedDim({kData, kModel})});
  TensorSharding to = sharding({closedDim({kData})});
  ReshardPlan plan = planReshard(from, to, mesh, {16}, kF32);
  REQUIRE(plan.error == "");
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == Kind::AllGather);
  CHECK(plan.steps[0].dim == 0);
  CHECK(plan.steps[0].axes == Axes{kModel});
  CHECK(plan.steps[0].after.str(mesh) == R"(P("data"))");
  // B_out = 16/2 * 4 = 32 bytes, n = 4.
  CHECK(plan.steps[0].bytesPerDevice == 3 * 32 / 4);
  checkInvariants(plan, from, to, mesh, {16}, kF32);

  SECTION("and the reverse is a slice over \"model\" only") {
    ReshardPlan back = planReshard(to, from, mesh, {16}, kF32);
    REQUIRE(back.steps.size() == 1);
    CHECK(back.steps[0].kind == Kind::AllSlice);
    CHECK(back.steps[0].axes == Axes{kModel});
    CHECK(back.steps[0].after.str(mesh) == R"(P(("data", "model")))");
  }
  SECTION("a different major axis gathers everything, then slices") {
    TensorSharding modelFirst = sharding({closedDim({kModel, kData})});
    ReshardPlan p = planReshard(from, modelFirst, mesh, {16}, kF32);
    REQUIRE(p.steps.size() == 2);
    CHECK(p.steps[0].kind == Kind::AllGather);
    CHECK(p.steps[0].axes == Axes{kData, kModel});
    CHECK(p.steps[1].kind == Kind::AllSlice);
    CHECK(p.steps[1].axes == Axes{kModel, kData});
    checkInvariants(p, from, modelFirst, mesh, {16}, kF32);
  }
}

TEST_CASE("reshard: reduce, then gather, then slice, each with its `after`", "[reshard]") {
  Mesh mesh = dataModelMesh();
  // P("data", None) unreduced=sum("model") -> P(None, "data") on [8,4] f32.
  TensorSharding from = sharding({closedDim({kData}), closedDim()}, {kModel});
  TensorSharding to = sharding({closedDim(), closedDim({kData})});
  ReshardPlan plan = planReshard(from, to, mesh, {8, 4}, kF32);
  REQUIRE(plan.error == "");
  REQUIRE(plan.steps.size() == 3);
  CHECK(plan.steps[0].kind == Kind::AllReduce);
  CHECK(plan.steps[0].axes == Axes{kModel});
  CHECK(plan.steps[0].after.str(mesh) == R"(P("data", None))");
  CHECK(plan.steps[0].bytesPerDevice == 2 * 3 * 64 / 4);
  CHECK(plan.steps[1].kind == Kind::AllGather);
  CHECK(plan.steps[1].after.str(mesh) == "P(None, None)");
  CHECK(plan.steps[1].bytesPerDevice == 128 / 2);
  CHECK(plan.steps[2].kind == Kind::AllSlice);
  CHECK(plan.steps[2].after.str(mesh) == R"(P(None, "data"))");
  CHECK(plan.steps.back().after.sameLayout(to));
  checkInvariants(plan, from, to, mesh, {8, 4}, kF32);
}

TEST_CASE("reshard: a pending value kept pending is gathered, and stays pending",
          "[reshard]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({closedDim({kData})}, {kModel});
  TensorSharding to = sharding({closedDim()}, {kModel});
  ReshardPlan plan = planReshard(from, to, mesh, {8}, kF32);
  REQUIRE(plan.error == "");
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == Kind::AllGather);
  CHECK(plan.steps[0].after.str(mesh) == R"(P(None) unreduced=sum("model"))");
  checkInvariants(plan, from, to, mesh, {8}, kF32);
}

TEST_CASE("reshard: a pending axis freed by the reduce can be sliced on", "[reshard]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({closedDim(), closedDim()}, {kModel});
  TensorSharding to = sharding({closedDim({kModel}), closedDim()});
  ReshardPlan plan = planReshard(from, to, mesh, {8, 2}, kF32);
  REQUIRE(plan.error == "");
  REQUIRE(plan.steps.size() == 2);
  CHECK(plan.steps[0].kind == Kind::AllReduce);
  CHECK(plan.steps[1].kind == Kind::AllSlice);
  CHECK(plan.steps[1].after.str(mesh) == R"(P("model", None))");
  checkInvariants(plan, from, to, mesh, {8, 2}, kF32);
}

TEST_CASE("reshard: swapping axes between dims", "[reshard]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({closedDim({kData}), closedDim({kModel})});
  TensorSharding to = sharding({closedDim({kModel}), closedDim({kData})});
  ReshardPlan plan = planReshard(from, to, mesh, {8, 8}, kF32);
  REQUIRE(plan.steps.size() == 4);
  CHECK(plan.steps[0].kind == Kind::AllGather);
  CHECK(plan.steps[1].kind == Kind::AllGather);
  CHECK(plan.steps[2].kind == Kind::AllSlice);
  CHECK(plan.steps[3].kind == Kind::AllSlice);
  checkInvariants(plan, from, to, mesh, {8, 8}, kF32);
}

TEST_CASE("reshard: open source dims do not leak into the plan", "[reshard]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({openDim({kData}), openDim()});
  TensorSharding to = sharding({closedDim(), closedDim({kData})});
  ReshardPlan plan = planReshard(from, to, mesh, {8, 4}, kF32);
  REQUIRE(plan.steps.size() == 2);
  for (const CollectiveStep &s : plan.steps)
    for (const DimSharding &d : s.after.dims)
      CHECK_FALSE(d.open);
}

TEST_CASE("reshard: errors", "[reshard]") {
  Mesh mesh = dataModelMesh();
  SECTION("the target is pending over an axis the source is not") {
    ReshardPlan plan = planReshard(sharding({closedDim()}), sharding({closedDim()}, {kModel}),
                                   mesh, {8}, kF32);
    CHECK_THAT(plan.error, Contains("\"model\""));
    CHECK(plan.steps.empty());
  }
  SECTION("a partial overlap of pending axes is still an error") {
    ReshardPlan plan = planReshard(sharding({closedDim()}, {kData}),
                                   sharding({closedDim()}, {kData, kModel}), mesh, {8}, kF32);
    CHECK_THAT(plan.error, Contains("\"model\""));
    CHECK(plan.steps.empty());
  }
  SECTION("ranks differ") {
    ReshardPlan plan = planReshard(sharding({closedDim()}), sharding({closedDim(), closedDim()}),
                                   mesh, {8}, kF32);
    CHECK_FALSE(plan.error.empty());
    CHECK(plan.steps.empty());
  }
}

// BUG (reported, lower severity): the planner compares pending axes but not
// the pending *kind*. A value pending sum over "model" and a target pending
// max over "model" get an empty plan with no error, so "after the last step
// the layout equals the target's" does not hold (sameLayout is false).
TEST_CASE("reshard: a change of pending kind is not silently a no-op",
          "[reshard][regression]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({closedDim()}, {kModel}, Reduction::Sum);
  TensorSharding to = sharding({closedDim()}, {kModel}, Reduction::Max);
  REQUIRE_FALSE(from.sameLayout(to));
  ReshardPlan plan = planReshard(from, to, mesh, {8}, kF32);
  bool reachesTarget = !plan.steps.empty() && plan.steps.back().after.sameLayout(to);
  CHECK((!plan.error.empty() || reachesTarget)); // actual: no error, no steps
}

TEST_CASE("property: every plan between valid layouts satisfies the invariants",
          "[reshard][property]") {
  // Exhaustive over rank-2 layouts on ["data"=2, "model"=4] with optional
  // pending axes on the source (the target pends a subset of them).
  Mesh mesh = dataModelMesh();
  std::vector<Axes> dimChoices = {{}, {kData}, {kModel}, {kData, kModel}, {kModel, kData}};
  std::vector<TensorSharding> layouts;
  for (const Axes &d0 : dimChoices)
    for (const Axes &d1 : dimChoices)
      for (const Axes &pend : std::vector<Axes>{{}, {kData}, {kModel}, {kData, kModel}}) {
        TensorSharding s = sharding({closedDim(d0), closedDim(d1)}, pend);
        if (s.validate(mesh).empty())
          layouts.push_back(s);
      }
  REQUIRE(layouts.size() == 18); // 11 unpending + 3 + 3 + 1
  const std::vector<int64_t> shape = {12, 5};
  int planned = 0;
  for (const TensorSharding &from : layouts)
    for (const TensorSharding &to : layouts) {
      bool subset = true;
      for (int a : to.pending)
        subset = subset && std::find(from.pending.begin(), from.pending.end(), a) !=
                               from.pending.end();
      ReshardPlan plan = planReshard(from, to, mesh, shape, kF32);
      INFO(from.str(mesh) << " -> " << to.str(mesh));
      if (!subset) {
        CHECK_FALSE(plan.error.empty());
        continue;
      }
      checkInvariants(plan, from, to, mesh, shape, kF32);
      if (from.sameLayout(to))
        CHECK(plan.steps.empty());
      ++planned;
    }
  CHECK(planned > 100);
}
