//===- ShardMapTest.cpp - garray.shard_map bodies on many meshes ----------===//
//
// A shard_map's body is written for one mesh, so each case writes the model
// for its mesh: 1-D meshes of 1, 2, 3, 4 and 8 devices, and 2-D meshes of
// 2x2 and 2x3. The body uses every comm collective (psum, a ring permute,
// all_gather, reduce_scatter, all_to_all) and the device's id; each output
// is checked against a double-precision reference of what the body means
// on the whole array, and the replicated ones for agreeing replicas. A
// body that returns different values where its out sharding promises one
// copy is caught by the replica check.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"
#include "tests/exec/ModelText.h"

#include <catch2/catch.hpp>

#include <numeric>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

/// "[[0, 1, ..., n-1]]": one group of every device.
std::string allDevices(int64_t n) {
  std::string s = "[[";
  for (int64_t d = 0; d < n; ++d)
    s += (d ? ", " : "") + std::to_string(d);
  return s + "]]";
}

/// "[0, 1, ..., n-1]" as a device_value table of floats' ids.
std::string ids(int64_t n) {
  std::string s = "[";
  for (int64_t d = 0; d < n; ++d)
    s += (d ? ", " : "") + std::to_string(d);
  return s + "]";
}

/// (d, d + 1 mod n) for every device: a ring.
std::string ringPairs(int64_t n) {
  std::string s = "[";
  for (int64_t d = 0; d < n; ++d)
    s += (d ? ", [" : "[") + std::to_string(d) + ", " + std::to_string((d + 1) % n) + "]";
  return s + "]";
}

/// On a 1-D mesh of n devices, x: [2n, 3] split by rows; each device holds
/// a [2, 3] block. The body returns
///   total   = psum(sum of its block over rows)          P()       [3]
///   ring    = its block sent to the next device          P("data") [2n, 3]
///   whole   = all_gather of the blocks                   P()       [2n, 3]
///   plus_id = block + its device id                      P("data") [2n, 3]
///   rows    = reduce_scatter of (n copies of its row sums): row d of the
///             result is the sum over devices of their block's row sums,
///             so every row is `total`                   P("data") [n, 3]
///   swapped = all_to_all of the block's 3n-wide copy     P("data") [2n, 3n]
std::string ringModel(int64_t n) {
  const char *text = R"(
garray.mesh @mesh ["data" = {N}]
func.func @main(
    %x: tensor<{R}x3xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<3xf32>, tensor<{R}x3xf32>, tensor<{R}x3xf32>, tensor<{R}x3xf32>, tensor<{N}x3xf32>,
        tensor<{R}x{W}xf32>) {
  %t, %r, %w, %p, %s, %a = garray.shard_map @body(%x)
      in [#garray.sharding<@mesh, P("data", None)>]
      out [#garray.sharding<@mesh, P()>, #garray.sharding<@mesh, P("data", None)>,
           #garray.sharding<@mesh, P()>, #garray.sharding<@mesh, P("data", None)>,
           #garray.sharding<@mesh, P("data", None)>, #garray.sharding<@mesh, P("data", None)>]
      : (tensor<{R}x3xf32>) -> (tensor<3xf32>, tensor<{R}x3xf32>, tensor<{R}x3xf32>,
                                tensor<{R}x3xf32>, tensor<{N}x3xf32>, tensor<{R}x{W}xf32>)
  return %t, %r, %w, %p, %s, %a : tensor<3xf32>, tensor<{R}x3xf32>, tensor<{R}x3xf32>,
      tensor<{R}x3xf32>, tensor<{N}x3xf32>, tensor<{R}x{W}xf32>
}
func.func private @body(%b: tensor<2x3xf32>)
    -> (tensor<3xf32>, tensor<2x3xf32>, tensor<{R}x3xf32>, tensor<2x3xf32>, tensor<1x3xf32>,
        tensor<2x{W}xf32>) {
  %s = garray.reduce <sum> %b, dims = [0] : (tensor<2x3xf32>) -> tensor<3xf32>
  %t = comm.all_reduce <sum> %s groups = {ALL} : tensor<3xf32> -> tensor<3xf32>
  %r = comm.collective_permute %b pairs = {RING} : tensor<2x3xf32> -> tensor<2x3xf32>
  %w = comm.all_gather %b, dim = 0 groups = {ALL} : tensor<2x3xf32> -> tensor<{R}x3xf32>
  %id = comm.device_value {IDS} : tensor<f32>
  %idb = garray.broadcast_in_dim %id, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  %p = garray.add %b, %idb : tensor<2x3xf32>
  %copies = garray.broadcast_in_dim %s, dims = [1] : (tensor<3xf32>) -> tensor<{N}x3xf32>
  %rs = comm.reduce_scatter <sum> %copies, dim = 0 groups = {ALL}
      : tensor<{N}x3xf32> -> tensor<1x3xf32>
  %wide = garray.concatenate {CAT}, dim = 1 : {CATTYPES} -> tensor<2x{W}xf32>
  %a = comm.all_to_all %wide, split_dim = 1, concat_dim = 0 groups = {ALL}
      : tensor<2x{W}xf32> -> tensor<{R2}x3xf32>
  %a2 = garray.reshape %a : (tensor<{R2}x3xf32>) -> tensor<2x{W}xf32>
  return %t, %r, %w, %p, %rs, %a2 : tensor<3xf32>, tensor<2x3xf32>, tensor<{R}x3xf32>,
      tensor<2x3xf32>, tensor<1x3xf32>, tensor<2x{W}xf32>
}
)";
  std::string cat, catTypes = "(";
  for (int64_t k = 0; k < n; ++k) {
    cat += (k ? ", %b" : "%b");
    catTypes += (k ? ", tensor<2x3xf32>" : "tensor<2x3xf32>");
  }
  catTypes += ")";
  return subst(text, {{"N", std::to_string(n)},
                      {"R", std::to_string(2 * n)},
                      {"R2", std::to_string(2 * n)},
                      {"W", std::to_string(3 * n)},
                      {"ALL", allDevices(n)},
                      {"RING", ringPairs(n)},
                      {"IDS", ids(n)},
                      {"CAT", cat},
                      {"CATTYPES", catTypes}});
}

F32Array grid(std::vector<int64_t> shape) {
  int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = static_cast<float>((i * 37 % 23) - 11) / 8.0f;
  return F32Array(std::move(shape), std::move(v));
}

} // namespace

TEST_CASE("a shard_map body's collectives and device ids on 1-D meshes", "[exec][shard_map]") {
  for (int64_t n : {1, 2, 3, 4, 8}) {
    INFO(n << " devices");
    F32Array x = grid({2 * n, 3});
    RunOutcome r = compileAndRun(ringModel(n), "", {{"arg0", x}});
    INFO(r.error);
    REQUIRE(r.ok);
    REQUIRE(r.ranks == n);
    std::vector<double> total(3, 0), ring(2 * n * 3), plusId(2 * n * 3), whole(2 * n * 3),
        rows(n * 3), swapped(2 * n * 3 * n);
    for (int64_t i = 0; i < 2 * n; ++i)
      for (int64_t j = 0; j < 3; ++j) {
        total[j] += x.at(i, j);
        whole[i * 3 + j] = x.at(i, j);
        plusId[i * 3 + j] = x.at(i, j) + i / 2;
        // Device d's block goes to device d + 1: row i comes from the block before.
        int64_t from = ((i / 2 + n - 1) % n) * 2 + i % 2;
        ring[i * 3 + j] = x.at(from, j);
      }
    for (int64_t d = 0; d < n; ++d)
      for (int64_t j = 0; j < 3; ++j)
        rows[d * 3 + j] = total[j];
    // all_to_all: device d's wide block is n copies of its block; piece k
    // (the k-th copy) goes to device k, which stacks the pieces it receives
    // by sender: device k holds [block 0; block 1; ...] (2n x 3), reshaped
    // to 2 x 3n.
    for (int64_t k = 0; k < n; ++k) {
      std::vector<double> stacked;
      for (int64_t s = 0; s < n; ++s)
        for (int64_t i = 0; i < 2; ++i)
          for (int64_t j = 0; j < 3; ++j)
            stacked.push_back(x.at(2 * s + i, j));
      std::copy(stacked.begin(), stacked.end(), swapped.begin() + k * 2 * 3 * n);
    }
    CHECK(mismatch("total", r.outputs.at("result0"), {3}, total) == "");
    CHECK(mismatch("ring", r.outputs.at("result1"), {2 * n, 3}, ring) == "");
    CHECK(mismatch("whole", r.outputs.at("result2"), {2 * n, 3}, whole) == "");
    CHECK(mismatch("plus_id", r.outputs.at("result3"), {2 * n, 3}, plusId) == "");
    CHECK(mismatch("rows", r.outputs.at("result4"), {n, 3}, rows) == "");
    CHECK(mismatch("swapped", r.outputs.at("result5"), {2 * n, 3 * n}, swapped) == "");
    for (const auto &[name, diff] : r.replicaDiffs)
      CHECK(diff == 0);
  }
}

TEST_CASE("a shard_map on a 2-D mesh reduces over one axis's groups", "[exec][shard_map]") {
  // x: [4, 2m] split over data (rows) and model (columns); each device sums
  // its [2, 2] block's rows and psums over its model group: every row's
  // sum, the same on the model group, returned P("data"). Device ids are
  // row-major: d = model_size * data + model.
  for (int64_t m : {2, 3}) {
    INFO("data=2, model=" << m);
    std::string groups = "[", idTable = ids(2 * m);
    for (int64_t g = 0; g < 2; ++g) {
      groups += g ? ", [" : "[";
      for (int64_t k = 0; k < m; ++k)
        groups += (k ? ", " : "") + std::to_string(g * m + k);
      groups += "]";
    }
    groups += "]";
    const char *text = R"(
garray.mesh @mesh ["data" = 2, "model" = {M}]
func.func @main(
    %x: tensor<4x{C}xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>})
    -> (tensor<4xf32>, tensor<4x{C}xf32>) {
  %s, %i = garray.shard_map @rowsum(%x)
      in [#garray.sharding<@mesh, P("data", "model")>]
      out [#garray.sharding<@mesh, P("data")>, #garray.sharding<@mesh, P("data", "model")>]
      : (tensor<4x{C}xf32>) -> (tensor<4xf32>, tensor<4x{C}xf32>)
  return %s, %i : tensor<4xf32>, tensor<4x{C}xf32>
}
func.func private @rowsum(%b: tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2x2xf32>) {
  %s = garray.reduce <sum> %b, dims = [1] : (tensor<2x2xf32>) -> tensor<2xf32>
  %t = comm.all_reduce <sum> %s groups = {G} : tensor<2xf32> -> tensor<2xf32>
  %id = comm.device_value {IDS} : tensor<f32>
  %i = garray.broadcast_in_dim %id, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
  return %t, %i : tensor<2xf32>, tensor<2x2xf32>
}
)";
    F32Array x = grid({4, 2 * m});
    RunOutcome r = compileAndRun(
        subst(text, {{"M", std::to_string(m)}, {"C", std::to_string(2 * m)}, {"G", groups},
                     {"IDS", idTable}}),
        "", {{"arg0", x}});
    INFO(r.error);
    REQUIRE(r.ok);
    REQUIRE(r.ranks == 2 * m);
    std::vector<double> sums(4, 0), id(4 * 2 * m);
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 2 * m; ++j) {
        sums[i] += x.at(i, j);
        id[i * 2 * m + j] = static_cast<double>((i / 2) * m + j / 2);
      }
    CHECK(mismatch("row sums", r.outputs.at("result0"), {4}, sums) == "");
    CHECK(mismatch("device ids", r.outputs.at("result1"), {4, 2 * m}, id) == "");
    CHECK(r.replicaDiffs.at("result0") == 0);
  }
}

TEST_CASE("a shard_map result that is not the same on the devices its sharding replicates "
          "it on is caught",
          "[exec][shard_map]") {
  // The block's sum without the psum differs from device to device, but the
  // out sharding P() promises one copy.
  const char *text = R"(
garray.mesh @mesh ["data" = 4]
func.func @main(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> tensor<f32> {
  %s = garray.shard_map @partial(%x) in [#garray.sharding<@mesh, P("data")>]
      out [#garray.sharding<@mesh, P()>] : (tensor<8xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @partial(%b: tensor<2xf32>) -> tensor<f32> {
  %s = garray.reduce <sum> %b, dims = [0] : (tensor<2xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
)";
  RunOutcome r = compileAndRun(text, "", {{"arg0", grid({8})}});
  INFO(r.error);
  REQUIRE(r.ok);
  CHECK(r.replicaDiffs.at("result0") > 0);
}
