//===- reshard_plan_test.cpp - the reshard planner: steps, order, bytes ---===//
#include "sharding/ReshardPlan.h"
#include "tests/sharding/TestUtil.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace shardc;
using namespace shardc::test;
using Catch::Matchers::Contains;

using Kind = CollectiveStep::Kind;
using Axes = std::vector<int>;

namespace {

bool has(const Axes &v, int a) { return std::find(v.begin(), v.end(), a) != v.end(); }

constexpr int64_t kF32 = 4;

/// Every device's local block as the global (flat, row-major) indices it
/// holds, with its local shape: a tiny model of the data each step moves.
struct Local {
  std::vector<int64_t> shape;
  std::vector<int64_t> data;
};

int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Block `j` of `n` along dim `d`.
Local blockOf(const Local &l, int d, int64_t n, int64_t j) {
  Local out{l.shape, {}};
  out.shape[d] /= n;
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < (int)l.shape.size(); ++i)
    (i < d ? outer : inner) *= (i == d ? out.shape[d] : l.shape[i]);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      out.data.push_back(l.data[(o * n + j) * inner + i]);
  return out;
}

/// Concatenation of `parts` along dim `d`.
Local concat(const std::vector<Local> &parts, int d) {
  Local out{parts[0].shape, {}};
  out.shape[d] *= static_cast<int64_t>(parts.size());
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < (int)out.shape.size(); ++i)
    (i < d ? outer : inner) *= (i == d ? parts[0].shape[d] : out.shape[i]);
  for (int64_t o = 0; o < outer; ++o)
    for (const Local &p : parts)
      for (int64_t i = 0; i < inner; ++i)
        out.data.push_back(p.data[o * inner + i]);
  return out;
}

/// What `device` holds of a global [shape] array (element = its flat index)
/// under layout `s` (divisible shapes).
Local expected(const TensorSharding &s, const Mesh &mesh, const std::vector<int64_t> &shape,
               int64_t device) {
  Local l{shape, {}};
  for (int64_t i = 0; i < numel(shape); ++i)
    l.data.push_back(i);
  for (int d = 0; d < (int)shape.size(); ++d) {
    int64_t n = mesh.product(s.dims[d].axes);
    l = blockOf(l, d, n, mesh.indexInGroup(device, s.dims[d].axes));
  }
  return l;
}

/// Runs the data-moving steps of `plan` on every device's block, with the
/// group order of Mesh::groups (the order the runtime's groups use), and
/// checks that every device ends with its block under the target.
void simulate(const ReshardPlan &plan, const TensorSharding &from, const TensorSharding &to,
              const Mesh &mesh, const std::vector<int64_t> &shape) {
  const int64_t devices = mesh.deviceCount();
  std::vector<Local> locals;
  for (int64_t dev = 0; dev < devices; ++dev)
    locals.push_back(expected(from, mesh, shape, dev));
  for (const CollectiveStep &s : plan.steps) {
    std::vector<Local> next = locals;
    if (s.kind == Kind::CollectivePermute) {
      for (auto [src, dst] : s.pairs)
        next[dst] = locals[src];
    } else if (s.kind != Kind::AllReduce) {
      for (const std::vector<int64_t> &group : mesh.groups(s.axes)) {
        const int64_t n = static_cast<int64_t>(group.size());
        for (int64_t p = 0; p < n; ++p) {
          const int64_t dev = group[p];
          switch (s.kind) {
          case Kind::AllGather: {
            std::vector<Local> parts;
            for (int64_t m : group)
              parts.push_back(locals[m]);
            next[dev] = concat(parts, s.dim);
            break;
          }
          case Kind::AllSlice:
          case Kind::ReduceScatter: // the data placement of the scatter half
            next[dev] = blockOf(locals[dev], s.dim, n, p);
            break;
          case Kind::AllToAll: {
            std::vector<Local> parts;
            for (int64_t m : group)
              parts.push_back(blockOf(locals[m], s.toDim, n, p));
            next[dev] = concat(parts, s.dim);
            break;
          }
          default:
            break;
          }
        }
      }
    }
    locals = std::move(next);
  }
  for (int64_t dev = 0; dev < devices; ++dev) {
    INFO("device " << dev);
    Local want = expected(to, mesh, shape, dev);
    CHECK(locals[dev].shape == want.shape);
    CHECK(locals[dev].data == want.data);
  }
}

Axes minus(Axes a, const Axes &b) {
  a.erase(std::remove_if(a.begin(), a.end(), [&](int x) { return has(b, x); }), a.end());
  std::sort(a.begin(), a.end());
  return a;
}

Axes sorted(Axes a) {
  std::sort(a.begin(), a.end());
  return a;
}

Axes cat(Axes a, const Axes &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// The documented invariants every plan must satisfy, whatever the input:
/// every intermediate `after` is valid and closed and is what its step does
/// to the layout before it; the last layout equals the target's; the cost
/// model holds; the plan is never more bytes than gather-then-slice.
void checkInvariants(const ReshardPlan &plan, const TensorSharding &from,
                     const TensorSharding &to, const Mesh &mesh,
                     const std::vector<int64_t> &shape, int64_t elementBytes) {
  REQUIRE(plan.error == "");
  TensorSharding prev = from;
  auto bytes = [&](const TensorSharding &t) {
    int64_t b = elementBytes;
    for (int64_t d : localShape(shape, t, mesh))
      b *= d;
    return b;
  };
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const CollectiveStep &step = plan.steps[s];
    INFO("step " << s << ": " << collectiveName(step.kind) << " -> " << step.after.str(mesh));
    CHECK(step.after.validate(mesh) == "");
    CHECK(step.after.dims.size() == shape.size());
    for (const DimSharding &d : step.after.dims)
      CHECK_FALSE(d.open);
    if (step.kind != Kind::CollectivePermute)
      CHECK_FALSE(step.axes.empty());
    // Pending axes are only ever removed.
    for (int a : step.after.pending)
      CHECK(has(prev.pending, a));

    int64_t n = mesh.product(step.axes);
    auto dimsUnchangedBut = [&](std::initializer_list<int> except) {
      for (int d = 0; d < (int)shape.size(); ++d)
        if (std::find(except.begin(), except.end(), d) == except.end())
          CHECK(step.after.dims[d].axes == prev.dims[d].axes);
    };
    switch (step.kind) {
    case Kind::AllReduce:
      CHECK(step.bytesPerDevice == 2 * (n - 1) * bytes(prev) / n);
      CHECK(minus(prev.pending, step.axes) == sorted(step.after.pending));
      for (int a : step.axes)
        CHECK(has(prev.pending, a));
      dimsUnchangedBut({});
      break;
    case Kind::ReduceScatter:
      REQUIRE(step.dim >= 0);
      CHECK(step.bytesPerDevice == (n - 1) * bytes(prev) / n);
      for (int a : step.axes)
        CHECK(has(prev.pending, a));
      CHECK(minus(prev.pending, step.axes) == sorted(step.after.pending));
      CHECK(step.after.dims[step.dim].axes == cat(prev.dims[step.dim].axes, step.axes));
      dimsUnchangedBut({step.dim});
      break;
    case Kind::AllGather: {
      REQUIRE(step.dim >= 0);
      CHECK(step.bytesPerDevice == (n - 1) * bytes(step.after) / n);
      CHECK(prev.dims[step.dim].axes == cat(step.after.dims[step.dim].axes, step.axes));
      CHECK(sorted(prev.pending) == sorted(step.after.pending));
      dimsUnchangedBut({step.dim});
      break;
    }
    case Kind::AllSlice:
      REQUIRE(step.dim >= 0);
      CHECK(step.bytesPerDevice == 0);
      CHECK(step.after.dims[step.dim].axes == cat(prev.dims[step.dim].axes, step.axes));
      CHECK(sorted(prev.pending) == sorted(step.after.pending));
      dimsUnchangedBut({step.dim});
      break;
    case Kind::AllToAll:
      REQUIRE(step.dim >= 0);
      REQUIRE(step.toDim >= 0);
      CHECK(step.dim != step.toDim);
      CHECK(step.bytesPerDevice == (n - 1) * bytes(prev) / n);
      CHECK(prev.dims[step.dim].axes == cat(step.after.dims[step.dim].axes, step.axes));
      CHECK(step.after.dims[step.toDim].axes == cat(prev.dims[step.toDim].axes, step.axes));
      CHECK(sorted(prev.pending) == sorted(step.after.pending));
      dimsUnchangedBut({step.dim, step.toDim});
      break;
    case Kind::CollectivePermute: {
      CHECK(prev.pending.empty());
      CHECK(step.after.pending.empty());
      CHECK(step.bytesPerDevice == bytes(prev));
      // A bijection: every device sends once and receives once.
      std::vector<int> sends(mesh.deviceCount()), receives(mesh.deviceCount());
      REQUIRE(step.pairs.size() == (size_t)mesh.deviceCount());
      for (auto [src, dst] : step.pairs) {
        ++sends[src];
        ++receives[dst];
      }
      for (int64_t d = 0; d < mesh.deviceCount(); ++d) {
        CHECK(sends[d] == 1);
        CHECK(receives[d] == 1);
      }
      break;
    }
    }
    prev = step.after;
  }
  CHECK(prev.sameLayout(to));
  ReshardPlan baseline = planGatherThenSlice(from, to, mesh, shape, elementBytes);
  REQUIRE(baseline.error == "");
  CHECK(plan.totalBytes() <= baseline.totalBytes());
  bool divisible = true;
  for (size_t d = 0; d < shape.size(); ++d)
    divisible &= shape[d] % mesh.product(from.dims[d].axes) == 0 &&
                 shape[d] % mesh.product(to.dims[d].axes) == 0;
  if (divisible)
    simulate(plan, from, to, mesh, shape);
}

} // namespace

TEST_CASE("collectiveName", "[reshard]") {
  CHECK(std::string(collectiveName(Kind::AllReduce)) == "all_reduce");
  CHECK(std::string(collectiveName(Kind::AllGather)) == "all_gather");
  CHECK(std::string(collectiveName(Kind::AllSlice)) == "all_slice");
  CHECK(std::string(collectiveName(Kind::ReduceScatter)) == "reduce_scatter");
  CHECK(std::string(collectiveName(Kind::AllToAll)) == "all_to_all");
  CHECK(std::string(collectiveName(Kind::CollectivePermute)) == "collective_permute");
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

TEST_CASE("reshard: P(\"data\", None) -> P(None, \"data\") is one all_to_all",
          "[reshard]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({closedDim({kData}), closedDim()});
  TensorSharding to = sharding({closedDim(), closedDim({kData})});
  ReshardPlan plan = planReshard(from, to, mesh, {8, 4}, kF32);
  REQUIRE(plan.error == "");
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == Kind::AllToAll);
  CHECK(plan.steps[0].dim == 0);
  CHECK(plan.steps[0].toDim == 1);
  CHECK(plan.steps[0].axes == Axes{kData});
  CHECK(plan.steps[0].after.str(mesh) == R"(P(None, "data"))");
  // (n-1)/n * B with B = 4*4*4 = 64 bytes: half of gather-then-slice's 64.
  CHECK(plan.steps[0].bytesPerDevice == 32);
  CHECK(planGatherThenSlice(from, to, mesh, {8, 4}, kF32).totalBytes() == 64);
  checkInvariants(plan, from, to, mesh, {8, 4}, kF32);
}

TEST_CASE("reshard: all_to_all moves the trailing axis of a two-axis dim", "[reshard]") {
  Mesh mesh = dataModelMesh();
  // P(("data","model"), None) -> P("data", "model"): "model" moves dim 0 -> 1.
  TensorSharding from = sharding({closedDim({kData, kModel}), closedDim()});
  TensorSharding to = sharding({closedDim({kData}), closedDim({kModel})});
  ReshardPlan plan = planReshard(from, to, mesh, {16, 8}, kF32);
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == Kind::AllToAll);
  CHECK(plan.steps[0].axes == Axes{kModel});
  CHECK(plan.steps[0].bytesPerDevice == 3 * (2 * 8 * 4) / 4); // B = 64, n = 4
  checkInvariants(plan, from, to, mesh, {16, 8}, kF32);
}

TEST_CASE("reshard: pending sum -> sharded is one reduce_scatter", "[reshard]") {
  Mesh mesh = dataModelMesh();
  // [8,4] f32 pending sum over "model" -> P("model", None): B = 128, n = 4.
  TensorSharding from = sharding({closedDim(), closedDim()}, {kModel});
  TensorSharding to = sharding({closedDim({kModel}), closedDim()});
  ReshardPlan plan = planReshard(from, to, mesh, {8, 4}, kF32);
  REQUIRE(plan.error == "");
  REQUIRE(plan.steps.size() == 1);
  const CollectiveStep &s = plan.steps[0];
  CHECK(s.kind == Kind::ReduceScatter);
  CHECK(s.dim == 0);
  CHECK(s.axes == Axes{kModel});
  CHECK(s.reduction == Reduction::Sum);
  CHECK(s.bytesPerDevice == 3 * 128 / 4); // 96, where all_reduce + slice is 192
  CHECK(s.after.str(mesh) == R"(P("model", None))");
  checkInvariants(plan, from, to, mesh, {8, 4}, kF32);

  SECTION("a max reduces-scatters with max") {
    TensorSharding fromMax = sharding({closedDim(), closedDim()}, {kModel}, Reduction::Max);
    ReshardPlan p = planReshard(fromMax, to, mesh, {8, 4}, kF32);
    REQUIRE(p.steps.size() == 1);
    CHECK(p.steps[0].kind == Kind::ReduceScatter);
    CHECK(p.steps[0].reduction == Reduction::Max);
  }
  SECTION("pending over both axes, scattered over both on one dim") {
    TensorSharding both = sharding({closedDim(), closedDim()}, {kData, kModel});
    TensorSharding dst = sharding({closedDim({kData, kModel}), closedDim()});
    ReshardPlan p = planReshard(both, dst, mesh, {8, 4}, kF32);
    REQUIRE(p.steps.size() == 1);
    CHECK(p.steps[0].kind == Kind::ReduceScatter);
    CHECK(p.steps[0].axes == (Axes{kData, kModel}));
    CHECK(p.steps[0].bytesPerDevice == 7 * 128 / 8);
    checkInvariants(p, both, dst, mesh, {8, 4}, kF32);
  }
  SECTION("pending over both axes, one scattered, the other reduced on the smaller buffer") {
    TensorSharding both = sharding({closedDim(), closedDim()}, {kData, kModel});
    TensorSharding dst = sharding({closedDim(), closedDim({kModel})});
    ReshardPlan p = planReshard(both, dst, mesh, {8, 4}, kF32);
    REQUIRE(p.steps.size() == 2);
    CHECK(p.steps[0].kind == Kind::ReduceScatter);
    CHECK(p.steps[0].axes == Axes{kModel});
    CHECK(p.steps[1].kind == Kind::AllReduce);
    CHECK(p.steps[1].axes == Axes{kData});
    CHECK(p.steps[1].bytesPerDevice == 2 * 1 * 32 / 2); // on the [8,1] shard
    checkInvariants(p, both, dst, mesh, {8, 4}, kF32);
  }
}

TEST_CASE("reshard: uneven blocks that do not nest take the reduce/gather + slice path",
          "[reshard]") {
  Mesh mesh = dataModelMesh(); // data = 2, model = 4
  auto kinds = [](const ReshardPlan &p) {
    std::vector<Kind> k;
    for (const CollectiveStep &s : p.steps)
      k.push_back(s.kind);
    return k;
  };
  // 6 rows over "model" (4): blocks of 2 from a whole dim of 6, 4·2 != 6.
  TensorSharding pending = sharding({closedDim(), closedDim()}, {kModel});
  TensorSharding rows = sharding({closedDim({kModel}), closedDim()});
  ReshardPlan rs = planReshard(pending, rows, mesh, {6, 4}, kF32);
  REQUIRE(rs.error == "");
  CHECK(kinds(rs) == std::vector<Kind>{Kind::AllReduce, Kind::AllSlice});
  // 5 rows over "data" (2): P("data", None) -> P(None, "data") cannot be an
  // all_to_all (dim 0's blocks of 3 do not make the whole 5).
  TensorSharding a = sharding({closedDim({kData}), closedDim()});
  TensorSharding b = sharding({closedDim(), closedDim({kData})});
  ReshardPlan t = planReshard(a, b, mesh, {5, 4}, kF32);
  REQUIRE(t.error == "");
  CHECK(kinds(t) == std::vector<Kind>{Kind::AllGather, Kind::AllSlice});
  // Blocks that nest stay fused: 8 rows over "model" from 16 over "data"
  // then "model" ... and a plain divisible case keeps the reduce_scatter.
  CHECK(kinds(planReshard(pending, rows, mesh, {8, 4}, kF32)) ==
        std::vector<Kind>{Kind::ReduceScatter});
  // Uneven but nesting: 7 rows over "data" then "model": ceil(7/2) = 4 =
  // 4 · ceil(7/8) = 4 · 1, so the reduce_scatter is exact.
  TensorSharding pendingData = sharding({closedDim({kData}), closedDim()}, {kModel});
  TensorSharding rows2 = sharding({closedDim({kData, kModel}), closedDim()});
  CHECK(kinds(planReshard(pendingData, rows2, mesh, {7, 4}, kF32)) ==
        std::vector<Kind>{Kind::ReduceScatter});
}

TEST_CASE("reshard: a reordered multi-axis dim is one collective_permute", "[reshard]") {
  Mesh mesh = dataModelMesh();
  // P(("data","model")) -> P(("model","data")) on [16]: 8 blocks of 2 both
  // ways, but device d holds a different block. Permute moves B = 8 bytes;
  // gathering both axes and slicing would move 7/8 * 64 = 56.
  TensorSharding from = sharding({closedDim({kData, kModel})});
  TensorSharding to = sharding({closedDim({kModel, kData})});
  ReshardPlan plan = planReshard(from, to, mesh, {16}, kF32);
  REQUIRE(plan.steps.size() == 1);
  const CollectiveStep &s = plan.steps[0];
  CHECK(s.kind == Kind::CollectivePermute);
  CHECK(s.bytesPerDevice == 8);
  CHECK(s.axes == (Axes{kData, kModel}));
  // Device (data=0, model=1) = 1 needs block 2 (model-major: 1*2+0); block 2
  // is held by device (0, 2) = 2 under data-major.
  CHECK(std::find(s.pairs.begin(), s.pairs.end(), std::make_pair(int64_t(2), int64_t(1))) !=
        s.pairs.end());
  // Devices 0 and 7 hold the same block both ways and keep it.
  CHECK(std::find(s.pairs.begin(), s.pairs.end(), std::make_pair(int64_t(0), int64_t(0))) !=
        s.pairs.end());
  CHECK(std::find(s.pairs.begin(), s.pairs.end(), std::make_pair(int64_t(7), int64_t(7))) !=
        s.pairs.end());
  checkInvariants(plan, from, to, mesh, {16}, kF32);
}

TEST_CASE("reshard: a dim moved from one mesh axis to another is a permute", "[reshard]") {
  Mesh mesh{{"x", "y"}, {2, 2}};
  TensorSharding from = sharding({closedDim({0}), closedDim()});
  TensorSharding to = sharding({closedDim({1}), closedDim()});
  ReshardPlan plan = planReshard(from, to, mesh, {4, 6}, kF32);
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == Kind::CollectivePermute);
  CHECK(plan.steps[0].bytesPerDevice == 2 * 6 * 4);
  checkInvariants(plan, from, to, mesh, {4, 6}, kF32);
}

TEST_CASE("reshard: 2-D mesh, collectives over one axis only", "[reshard]") {
  Mesh mesh = dataModelMesh();
  // P("data", None) -> P("data", "model"): a free slice over "model" only.
  TensorSharding from = sharding({closedDim({kData}), closedDim()});
  TensorSharding to = sharding({closedDim({kData}), closedDim({kModel})});
  ReshardPlan plan = planReshard(from, to, mesh, {8, 8}, kF32);
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == Kind::AllSlice);
  CHECK(plan.steps[0].axes == Axes{kModel});
  // P("data", "model") -> P("model", "data"): a swap of axes between dims.
  TensorSharding swapped = sharding({closedDim({kModel}), closedDim({kData})});
  ReshardPlan swap = planReshard(to, swapped, mesh, {8, 8}, kF32);
  checkInvariants(swap, to, swapped, mesh, {8, 8}, kF32);
  for (const CollectiveStep &s : swap.steps)
    CHECK(s.axes.size() == 1); // each step over one axis's groups
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
  SECTION("a different major axis is a permute, not gather-everything-then-slice") {
    TensorSharding modelFirst = sharding({closedDim({kModel, kData})});
    ReshardPlan p = planReshard(from, modelFirst, mesh, {16}, kF32);
    REQUIRE(p.steps.size() == 1);
    CHECK(p.steps[0].kind == Kind::CollectivePermute);
    ReshardPlan fallback = planGatherThenSlice(from, modelFirst, mesh, {16}, kF32);
    REQUIRE(fallback.steps.size() == 2);
    CHECK(fallback.steps[0].axes == Axes{kData, kModel});
    CHECK(p.totalBytes() < fallback.totalBytes());
    checkInvariants(p, from, modelFirst, mesh, {16}, kF32);
  }
}

TEST_CASE("reshard: reduce and all_to_all, each with its `after`", "[reshard]") {
  Mesh mesh = dataModelMesh();
  // P("data", None) unreduced=sum("model") -> P(None, "data") on [8,4] f32.
  TensorSharding from = sharding({closedDim({kData}), closedDim()}, {kModel});
  TensorSharding to = sharding({closedDim(), closedDim({kData})});
  ReshardPlan plan = planReshard(from, to, mesh, {8, 4}, kF32);
  REQUIRE(plan.error == "");
  REQUIRE(plan.steps.size() == 2);
  // all_reduce (96) + all_to_all (32), in either order: 128 bytes.
  CHECK(plan.totalBytes() == 2 * 3 * 64 / 4 + 64 / 2);
  bool reduceFirst = plan.steps[0].kind == Kind::AllReduce;
  CHECK(plan.steps[reduceFirst ? 1 : 0].kind == Kind::AllToAll);
  CHECK(plan.steps[reduceFirst ? 0 : 1].kind == Kind::AllReduce);
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

TEST_CASE("reshard: a pending axis freed by the reduce is scattered on", "[reshard]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({closedDim(), closedDim()}, {kModel});
  TensorSharding to = sharding({closedDim({kModel}), closedDim()});
  ReshardPlan plan = planReshard(from, to, mesh, {8, 2}, kF32);
  REQUIRE(plan.error == "");
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == Kind::ReduceScatter);
  CHECK(plan.steps[0].after.str(mesh) == R"(P("model", None))");
  checkInvariants(plan, from, to, mesh, {8, 2}, kF32);
}

TEST_CASE("reshard: swapping axes between dims", "[reshard]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({closedDim({kData}), closedDim({kModel})});
  TensorSharding to = sharding({closedDim({kModel}), closedDim({kData})});
  ReshardPlan plan = planReshard(from, to, mesh, {8, 8}, kF32);
  checkInvariants(plan, from, to, mesh, {8, 8}, kF32);
  // Cheaper than gathering both dims and slicing both.
  CHECK(plan.totalBytes() < planGatherThenSlice(from, to, mesh, {8, 8}, kF32).totalBytes());
}

TEST_CASE("reshard: open source dims do not leak into the plan", "[reshard]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({openDim({kData}), openDim()});
  TensorSharding to = sharding({closedDim(), closedDim({kData})});
  ReshardPlan plan = planReshard(from, to, mesh, {8, 4}, kF32);
  REQUIRE(plan.steps.size() == 1);
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

// The planner compares the pending *kind* as well as the pending axes: a value
// pending sum over "model" and a target pending max over "model" get an error
// or steps that reach the target, never an empty plan without an error ("after
// the last step the layout equals the target's" must hold).
TEST_CASE("reshard: a change of pending kind is not silently a no-op",
          "[reshard][regression]") {
  Mesh mesh = dataModelMesh();
  TensorSharding from = sharding({closedDim()}, {kModel}, Reduction::Sum);
  TensorSharding to = sharding({closedDim()}, {kModel}, Reduction::Max);
  REQUIRE_FALSE(from.sameLayout(to));
  ReshardPlan plan = planReshard(from, to, mesh, {8}, kF32);
  bool reachesTarget = !plan.steps.empty() && plan.steps.back().after.sameLayout(to);
  CHECK((!plan.error.empty() || reachesTarget));
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

TEST_CASE("property: plans on a 3-axis mesh reach the target, move the data right, and "
          "never cost more than gather-then-slice",
          "[reshard][property]") {
  Mesh mesh{{"x", "y", "z"}, {2, 2, 2}};
  std::vector<Axes> dimChoices = {{},     {0},    {1},    {2},    {0, 1}, {1, 0},
                                  {0, 2}, {2, 1}, {0, 1, 2}, {2, 1, 0}};
  std::vector<TensorSharding> layouts;
  for (const Axes &d0 : dimChoices)
    for (const Axes &d1 : dimChoices) {
      TensorSharding s = sharding({closedDim(d0), closedDim(d1)});
      if (s.validate(mesh).empty())
        layouts.push_back(s);
    }
  const std::vector<int64_t> shape = {8, 8};
  int strictlyCheaper = 0, kinds[6] = {0, 0, 0, 0, 0, 0};
  for (const TensorSharding &from : layouts)
    for (const TensorSharding &to : layouts) {
      INFO(from.str(mesh) << " -> " << to.str(mesh));
      ReshardPlan plan = planReshard(from, to, mesh, shape, kF32);
      checkInvariants(plan, from, to, mesh, shape, kF32);
      strictlyCheaper +=
          plan.totalBytes() < planGatherThenSlice(from, to, mesh, shape, kF32).totalBytes();
      for (const CollectiveStep &s : plan.steps)
        ++kinds[static_cast<int>(s.kind)];
    }
  CHECK(strictlyCheaper > 100);
  // The search uses every data-moving kind somewhere (reductions need pending).
  CHECK(kinds[static_cast<int>(Kind::AllGather)] > 0);
  CHECK(kinds[static_cast<int>(Kind::AllSlice)] > 0);
  CHECK(kinds[static_cast<int>(Kind::AllToAll)] > 0);
  CHECK(kinds[static_cast<int>(Kind::CollectivePermute)] > 0);
}

TEST_CASE("reshard: uneven dims gather and slice instead of cutting padded blocks",
          "[reshard]") {
  Mesh mesh{{"x"}, {2}};
  // [5, 4] P("x", None) -> P(None, "x"): dim 0 pads to 2 x 3, so an all_to_all
  // would make a [6, 2] block where the target's is [5, 2].
  TensorSharding from = sharding({closedDim({0}), closedDim()});
  TensorSharding to = sharding({closedDim(), closedDim({0})});
  ReshardPlan plan = planReshard(from, to, mesh, {5, 4}, kF32);
  REQUIRE(plan.error == "");
  for (const CollectiveStep &s : plan.steps)
    CHECK(s.kind != Kind::AllToAll);
  checkInvariants(plan, from, to, mesh, {5, 4}, kF32);
  // Divisible, the same reshard is one all_to_all.
  ReshardPlan even = planReshard(from, to, mesh, {6, 4}, kF32);
  REQUIRE(even.steps.size() == 1);
  CHECK(even.steps[0].kind == Kind::AllToAll);
  // A pending [5, 4] value scattered over dim 0 would pad: all_reduce + slice.
  TensorSharding pending = sharding({closedDim(), closedDim()}, {0});
  TensorSharding rows = sharding({closedDim({0}), closedDim()});
  ReshardPlan rs = planReshard(pending, rows, mesh, {5, 4}, kF32);
  for (const CollectiveStep &s : rs.steps)
    CHECK(s.kind != Kind::ReduceScatter);
  checkInvariants(rs, pending, rows, mesh, {5, 4}, kF32);
}
