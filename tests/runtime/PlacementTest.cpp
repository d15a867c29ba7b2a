// Placement under the ceil layout: local layouts for even, uneven and empty
// shards, dimensions split over two mesh axes in both orders, scatter/gather
// round trips, replica disagreement, and invalid placements.
#include "TestUtil.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <initializer_list>

using namespace shardrt_test;
using Catch::Contains;

namespace {

/// mesh: axis sizes; dims: per tensor dimension, the axes splitting it.
shardrt_placement placement(std::initializer_list<int64_t> mesh,
                            std::initializer_list<std::initializer_list<int32_t>> dims) {
  shardrt_placement p;
  std::memset(&p, 0, sizeof p);
  for (int64_t s : mesh)
    p.mesh_shape[p.mesh_rank++] = s;
  for (auto &axes : dims) {
    for (int32_t a : axes)
      p.dim_axes[p.rank][p.dim_num_axes[p.rank]++] = a;
    ++p.rank;
  }
  return p;
}

struct Layout {
  std::vector<int64_t> local, offset, valid;
};

Layout layout(const shardrt_placement &p, std::vector<int64_t> global, int64_t device) {
  Layout l{std::vector<int64_t>(p.rank), std::vector<int64_t>(p.rank), std::vector<int64_t>(p.rank)};
  shardrt_status s = shardrt_local_layout(&p, global.data(), device, l.local.data(),
                                          l.offset.data(), l.valid.data());
  INFO(shardrt_last_error());
  REQUIRE(s == SHARDRT_OK);
  return l;
}

using V = std::vector<int64_t>;

} // namespace

TEST_CASE("ceil layout of one dimension over one axis") {
  auto p = placement({4}, {{0}});
  CHECK(shardrt_mesh_size(&p) == 4);
  const V valid5[] = {{2}, {2}, {1}, {0}};
  const V offset5[] = {{0}, {2}, {4}, {5}}; // the empty shard sits at the end
  for (int d = 0; d < 4; ++d) {
    Layout l = layout(p, {5}, d);
    CHECK(l.local == V{2});
    CHECK(l.valid == valid5[d]);
    CHECK(l.offset == offset5[d]);
    Layout even = layout(p, {8}, d);
    CHECK(even.local == V{2});
    CHECK(even.valid == V{2});
    CHECK(even.offset == V{2 * d});
    Layout empty = layout(p, {0}, d);
    CHECK(empty.local == V{0});
    CHECK(empty.valid == V{0});
  }
  auto p2 = placement({2}, {{0}});
  CHECK(layout(p2, {3}, 0).valid == V{2});
  CHECK(layout(p2, {3}, 1).valid == V{1});
  CHECK(layout(p2, {3}, 1).local == V{2});
}

TEST_CASE("a dimension split over two axes, in both orders") {
  // Mesh 2x4, device = a * 4 + b.
  auto major0 = placement({2, 4}, {{0, 1}, {}});
  auto major1 = placement({2, 4}, {{1, 0}, {}});
  for (int64_t a = 0; a < 2; ++a) {
    for (int64_t b = 0; b < 4; ++b) {
      int64_t dev = a * 4 + b;
      Layout l0 = layout(major0, {16, 3}, dev);
      CHECK(l0.local == V{2, 3});
      CHECK(l0.offset == V{(a * 4 + b) * 2, 0});
      CHECK(l0.valid == V{2, 3});
      Layout l1 = layout(major1, {16, 3}, dev);
      CHECK(l1.offset == V{(b * 2 + a) * 2, 0});
      // 13 rows over 8 shards: size 2, shards 0..5 full, 6 has one row, 7 none.
      int64_t shard = b * 2 + a;
      Layout u = layout(major1, {13, 3}, dev);
      CHECK(u.local == V{2, 3});
      CHECK(u.valid[0] == (shard < 6 ? 2 : shard == 6 ? 1 : 0));
    }
  }
  // Each dimension on its own axis, transposed relative to the mesh.
  auto crossed = placement({2, 4}, {{1}, {0}});
  Layout l = layout(crossed, {7, 5}, 1 * 4 + 3); // a = 1, b = 3
  CHECK(l.local == V{2, 3});
  CHECK(l.offset == V{6, 3});
  CHECK(l.valid == V{1, 2});
}

namespace {

struct RoundTrip {
  shardrt_placement p;
  std::vector<int64_t> shape;
};

void fill(shardrt_array &a, int32_t dtype) {
  int64_t n = shardrt_array_numel(&a);
  for (int64_t i = 0; i < n; ++i)
    storeValue(a.data, i, dtype, dtype == SHARDRT_BOOL ? i % 3 == 0 : double(i % 100) - 40);
}

} // namespace

TEST_CASE("scatter then gather returns the original; padding is zero and never read") {
  const std::vector<RoundTrip> cases = {
      {placement({4}, {{0}, {}}), {5, 3}},
      {placement({2, 3}, {{0}, {1}}), {7, 5}},
      {placement({2, 2}, {{1, 0}}), {6}},
      {placement({2, 2}, {{}, {0, 1}, {}}), {3, 5, 2}},
      {placement({2, 3}, {{1}, {}}), {4, 2}}, // replicated over axis 0
      {placement({3}, {}), {}},               // a replicated scalar
      {placement({2, 4}, {{1}, {0}}), {3, 1}},
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    const RoundTrip &rt = cases[c];
    for (int32_t dtype : kAllDtypes) {
      INFO("case " << c << " dtype " << shardrt_dtype_name(dtype));
      shardrt_array global;
      REQUIRE(shardrt_array_alloc(&global, dtype, rt.p.rank, rt.shape.data()) == SHARDRT_OK);
      fill(global, dtype);
      const int64_t devices = shardrt_mesh_size(&rt.p);
      const size_t es = shardrt_dtype_size(dtype);
      std::vector<shardrt_array> locals(devices);
      for (int64_t d = 0; d < devices; ++d) {
        REQUIRE(shardrt_scatter(&global, &rt.p, d, &locals[d]) == SHARDRT_OK);
        Layout l = layout(rt.p, rt.shape, d);
        // Padding is zero: count non-zero bytes outside the valid box.
        int64_t n = shardrt_array_numel(&locals[d]);
        for (int64_t i = 0; i < n; ++i) {
          int64_t rem = i;
          bool inValid = true;
          for (int32_t k = rt.p.rank - 1; k >= 0; --k) {
            inValid = inValid && rem % l.local[k] < l.valid[k];
            rem /= l.local[k];
          }
          if (!inValid)
            for (size_t b = 0; b < es; ++b)
              REQUIRE(static_cast<char *>(locals[d].data)[i * es + b] == 0);
          else // then overwrite padding with garbage gather must not read
            continue;
          std::memset(static_cast<char *>(locals[d].data) + i * es, 0x7B, es);
        }
      }
      shardrt_array back;
      double diff = -1;
      REQUIRE(shardrt_gather(locals.data(), &rt.p, rt.shape.data(), dtype, &back, &diff) ==
              SHARDRT_OK);
      CHECK(diff == 0);
      REQUIRE(back.rank == rt.p.rank);
      CHECK(std::memcmp(back.data, global.data, shardrt_array_numel(&global) * es) == 0);
      shardrt_array_free(&back);
      for (auto &l : locals)
        shardrt_array_free(&l);
      shardrt_array_free(&global);
    }
  }
}

TEST_CASE("gather reports how far replicas disagree") {
  // Mesh 2x2, a 4-vector split over axis 1 and replicated over axis 0:
  // devices 0,1 hold the copies gather uses, devices 2,3 the replicas.
  auto p = placement({2, 2}, {{1}});
  const int64_t shape[] = {4};
  for (int32_t dtype : {SHARDRT_F32, SHARDRT_F64, SHARDRT_F16, SHARDRT_BF16, SHARDRT_I32}) {
    INFO(shardrt_dtype_name(dtype));
    shardrt_array global;
    REQUIRE(shardrt_array_alloc(&global, dtype, 1, shape) == SHARDRT_OK);
    for (int i = 0; i < 4; ++i)
      storeValue(global.data, i, dtype, i + 1);
    shardrt_array locals[4];
    for (int d = 0; d < 4; ++d)
      REQUIRE(shardrt_scatter(&global, &p, d, &locals[d]) == SHARDRT_OK);
    double delta = dtype == SHARDRT_I32 ? 3 : 0.5;
    storeValue(locals[3].data, 1, dtype, 4 + delta); // device 3 = (1,1), element 1 = global 3
    shardrt_array back;
    double diff = -1;
    REQUIRE(shardrt_gather(locals, &p, shape, dtype, &back, &diff) == SHARDRT_OK);
    CHECK(diff == delta);
    CHECK(loadValue(back.data, 3, dtype) == 4); // the primary copy wins
    shardrt_array_free(&back);
    // Now the primary (device 1) is the odd one out.
    storeValue(locals[3].data, 1, dtype, 4);
    storeValue(locals[1].data, 0, dtype, 3 - delta);
    REQUIRE(shardrt_gather(locals, &p, shape, dtype, &back, &diff) == SHARDRT_OK);
    CHECK(diff == delta);
    CHECK(loadValue(back.data, 2, dtype) == 3 - delta);
    shardrt_array_free(&back);
    REQUIRE(shardrt_gather(locals, &p, shape, dtype, &back, nullptr) == SHARDRT_OK);
    shardrt_array_free(&back);
    for (auto &l : locals)
      shardrt_array_free(&l);
    shardrt_array_free(&global);
  }

  // i64 beyond 2^53 and NaN.
  const int64_t one[] = {1};
  auto rep = placement({2}, {{}});
  shardrt_array big[2];
  for (auto &b : big)
    REQUIRE(shardrt_array_alloc(&b, SHARDRT_I64, 1, one) == SHARDRT_OK);
  static_cast<int64_t *>(big[0].data)[0] = (int64_t(1) << 62);
  static_cast<int64_t *>(big[1].data)[0] = (int64_t(1) << 62) + 1;
  shardrt_array back;
  double diff = -1;
  REQUIRE(shardrt_gather(big, &rep, one, SHARDRT_I64, &back, &diff) == SHARDRT_OK);
  CHECK(diff == 1);
  shardrt_array_free(&back);
  for (auto &b : big)
    shardrt_array_free(&b);
  shardrt_array nan[2];
  for (auto &b : nan)
    REQUIRE(shardrt_array_alloc(&b, SHARDRT_F32, 1, one) == SHARDRT_OK);
  static_cast<float *>(nan[0].data)[0] = NAN;
  static_cast<float *>(nan[1].data)[0] = NAN;
  REQUIRE(shardrt_gather(nan, &rep, one, SHARDRT_F32, &back, &diff) == SHARDRT_OK);
  CHECK(diff == 0);
  shardrt_array_free(&back);
  static_cast<float *>(nan[1].data)[0] = 1;
  REQUIRE(shardrt_gather(nan, &rep, one, SHARDRT_F32, &back, &diff) == SHARDRT_OK);
  CHECK(std::isinf(diff));
  shardrt_array_free(&back);
  for (auto &b : nan)
    shardrt_array_free(&b);
}

TEST_CASE("invalid placements are rejected with a message") {
  int64_t shape[9] = {4, 4, 4, 4, 4, 4, 4, 4, 4};
  int64_t local[9], offset[9], valid[9];
  struct Case {
    const char *name;
    shardrt_placement p;
    const char *message;
  };
  shardrt_placement tooDeep = placement({2}, {});
  tooDeep.rank = 9;
  shardrt_placement tooManyAxes = placement({2}, {{0}});
  tooManyAxes.mesh_rank = 9;
  const std::vector<Case> cases = {
      {"axis out of range", placement({2, 2}, {{2}}), "dim 0 names mesh axis 2 but the mesh has 2 axes (0..1)"},
      {"negative axis", placement({2, 2}, {{}, {-1}}), "dim 1 names mesh axis -1"},
      {"axis twice in a dim", placement({2, 2}, {{1, 1}}), "mesh axis 1 appears twice in dim 0"},
      {"axis in two dims", placement({2, 2}, {{0}, {1, 0}}), "mesh axis 0 splits both dim 0 and dim 1"},
      {"tensor rank 9", tooDeep, "tensor rank 9 is outside 0..8"},
      {"mesh rank 9", tooManyAxes, "mesh rank 9 is outside 0..8"},
      {"empty mesh axis", placement({2, 0}, {{0}}), "mesh axis 1 has size 0"},
  };
  for (const Case &c : cases) {
    INFO(c.name);
    CHECK(shardrt_local_layout(&c.p, shape, 0, local, offset, valid) == SHARDRT_ERR_ARGUMENT);
    CHECK_THAT(shardrt_last_error(), Contains(c.message));
    CHECK(shardrt_mesh_size(&c.p) == 0);
  }

  auto p = placement({4}, {{0}});
  CHECK(shardrt_local_layout(&p, shape, 4, local, offset, valid) == SHARDRT_ERR_ARGUMENT);
  CHECK_THAT(shardrt_last_error(), Contains("device 4 is outside the mesh (0..3)"));

  shardrt_array g2;
  int64_t s2[] = {4, 4};
  REQUIRE(shardrt_array_alloc(&g2, SHARDRT_F32, 2, s2) == SHARDRT_OK);
  shardrt_array out;
  CHECK(shardrt_scatter(&g2, &p, 0, &out) == SHARDRT_ERR_ARGUMENT);
  CHECK_THAT(shardrt_last_error(), Contains("the global array has rank 2 but the placement is for rank 1"));
  CHECK(out.data == nullptr);

  shardrt_array locals[4];
  shardrt_array g1;
  REQUIRE(shardrt_array_alloc(&g1, SHARDRT_F32, 1, s2) == SHARDRT_OK);
  for (int d = 0; d < 4; ++d)
    REQUIRE(shardrt_scatter(&g1, &p, d, &locals[d]) == SHARDRT_OK);
  CHECK(shardrt_gather(locals, &p, s2, SHARDRT_F64, &out, nullptr) == SHARDRT_ERR_ARGUMENT);
  CHECK_THAT(shardrt_last_error(), Contains("locals[0] has dtype f32, expected f64"));
  locals[2].shape[0] = 3;
  CHECK(shardrt_gather(locals, &p, s2, SHARDRT_F32, &out, nullptr) == SHARDRT_ERR_ARGUMENT);
  CHECK_THAT(shardrt_last_error(),
             Contains("locals[2] has shape [3] but device 2's padded local shape is [1]"));
  CHECK(out.data == nullptr);
  for (auto &l : locals)
    shardrt_array_free(&l);
  shardrt_array_free(&g1);
  shardrt_array_free(&g2);
}
