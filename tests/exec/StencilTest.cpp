//===- StencilTest.cpp - shifts and stencils as halo exchanges -----------===//
//
// Stencils written with slice + pad (or concatenate) compile to shifts
// (garray-recognize-shifts) that keep the sharded dim sharded and exchange
// only boundary elements (comm.collective_permute). Checked here:
//   - samples/heat_stencil.mlir on 1..8 ranks against a double reference and
//     the 1-rank run; its partitioned IR has permutes and no all_gather;
//   - a single shift for offsets from -(n-1) to n-1 on every rank count that
//     divides the rows, which covers offsets inside one shard, across several
//     shards (|offset| > shard size, two permutes) and whole multiples of it;
//   - uneven shards (short and empty trailing shards);
//   - a shift along a dim split over two mesh axes, in both axis orders, and
//     along one axis of a 2-D mesh (groups of the other axis stay apart).
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"
#include "tests/exec/ModelText.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace shardc_test;

namespace {

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

std::vector<double> heatReference(const F32Array &u) {
  int64_t rows = u.shape[0], cols = u.shape[1];
  auto at = [&](int64_t i, int64_t j) -> double {
    return i < 0 || j < 0 || i >= rows || j >= cols ? 0.0 : u.at(i, j);
  };
  std::vector<double> next(rows * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      next[i * cols + j] =
          at(i, j) + 0.1 * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1) - 4 * at(i, j));
  return next;
}

/// result[i, j] = x[i - offset, j] along `dim` (dims of a rows x cols array),
/// `fill` outside, written as slice + pad so the recogniser must find it.
std::string shiftModel(int64_t rows, int64_t cols, int dim, int64_t offset, const std::string &spec,
                       const std::string &meshDecl) {
  int64_t n = dim == 0 ? rows : cols, k = offset < 0 ? -offset : offset;
  int64_t keptRows = dim == 0 ? rows - k : rows, keptCols = dim == 1 ? cols - k : cols;
  std::string start = dim == 0 ? (offset < 0 ? std::to_string(k) + ", 0" : "0, 0")
                               : (offset < 0 ? "0, " + std::to_string(k) : "0, 0");
  std::string limit = dim == 0 ? (offset < 0 ? std::to_string(n) : std::to_string(n - k)) + ", " +
                                     std::to_string(cols)
                               : std::to_string(rows) + ", " +
                                     (offset < 0 ? std::to_string(n) : std::to_string(n - k));
  std::string lowK = offset > 0 ? std::to_string(k) : "0", highK = offset < 0 ? std::to_string(k) : "0";
  std::string low = dim == 0 ? lowK + ", 0" : "0, " + lowK;
  std::string high = dim == 0 ? highK + ", 0" : "0, " + highK;
  return subst(R"({MESH}
func.func @main(%x: tensor<{R}x{C}xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, {SPEC}>})
    -> (tensor<{R}x{C}xf32> {garray.name = "y"}) {
  %fill = garray.constant dense<-3.5> : tensor<f32>
  %s = garray.slice %x, start = [{START}], limit = [{LIMIT}], strides = [1, 1] : (tensor<{R}x{C}xf32>) -> tensor<{KR}x{KC}xf32>
  %y = garray.pad %s, %fill, low = [{LOW}], high = [{HIGH}] : (tensor<{KR}x{KC}xf32>, tensor<f32>) -> tensor<{R}x{C}xf32>
  return %y : tensor<{R}x{C}xf32>
}
)",
               {{"MESH", meshDecl},
                {"R", std::to_string(rows)},
                {"C", std::to_string(cols)},
                {"KR", std::to_string(keptRows)},
                {"KC", std::to_string(keptCols)},
                {"SPEC", spec},
                {"START", start},
                {"LIMIT", limit},
                {"LOW", low},
                {"HIGH", high}});
}

std::vector<double> shiftReference(const F32Array &x, int dim, int64_t offset) {
  int64_t rows = x.shape[0], cols = x.shape[1];
  std::vector<double> y(rows * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      int64_t si = dim == 0 ? i - offset : i, sj = dim == 1 ? j - offset : j;
      bool inside = si >= 0 && si < rows && sj >= 0 && sj < cols;
      y[i * cols + j] = inside ? x.at(si, sj) : -3.5;
    }
  return y;
}

void checkShift(int64_t rows, int64_t cols, int dim, int64_t offset, const std::string &spec,
                const std::string &meshDecl, const std::string &mesh, uint32_t seed) {
  Rng rng(seed);
  Inputs in;
  in["x"] = rng.array({rows, cols}, -1.0f, 1.0f);
  std::string text = shiftModel(rows, cols, dim, offset, spec, meshDecl);
  INFO("offset " << offset << " dim " << dim << " spec " << spec << " mesh " << mesh << "\n"
                 << text);
  Compiled partitioned = compile(text, mesh, "shift.mlir", shardc::Phase::Partitioned);
  INFO(partitioned.diagnostics);
  REQUIRE(partitioned.ok);
  CHECK(count(partitioned.emitted, "all_gather") == 0);
  RunOutcome r = compileAndRun(text, mesh, in, "shift.mlir");
  INFO(r.error);
  REQUIRE(r.ok);
  CHECK(mismatch("y", r.outputs.at("y"), {rows, cols}, shiftReference(in.at("x"), dim, offset),
                 {0, 0}) == "");
  for (auto &[name, diff] : r.replicaDiffs)
    CHECK(diff == 0);
}

} // namespace

TEST_CASE("heat stencil sample: halo exchanges, same numbers on every rank count",
          "[exec][stencil]") {
  std::string error;
  std::string text = readFile(runfile("samples/heat_stencil.mlir"), error);
  REQUIRE(error.empty());
  Rng rng(7);
  Inputs in;
  in["u"] = rng.array({16, 8}, 0.0f, 1.0f);
  std::vector<double> next = heatReference(in.at("u"));
  double heat = 0;
  for (double v : next)
    heat += v;
  RunOutcome one = compileAndRun(text, "data=1", in, "heat_stencil.mlir");
  INFO(one.error);
  REQUIRE(one.ok);
  for (const char *mesh : {"data=1", "data=2", "data=4", "data=8"}) {
    INFO("mesh " << mesh);
    RunOutcome r = compileAndRun(text, mesh, in, "heat_stencil.mlir");
    INFO(r.error);
    REQUIRE(r.ok);
    CHECK(mismatch("u_next", r.outputs.at("u_next"), {16, 8}, next, {1e-5, 1e-6}) == "");
    CHECK(mismatch("heat", r.outputs.at("heat"), {}, {heat}, {1e-5, 1e-4}) == "");
    CHECK(mismatchArrays("u_next vs 1 rank", r.outputs.at("u_next"), one.outputs.at("u_next"),
                         {1e-6, 1e-6}) == "");
    for (auto &[name, diff] : r.replicaDiffs)
      CHECK(diff == 0);
  }
  // Two halo exchanges of one row each (north, south), nothing gathered.
  Compiled local = compile(text, "data=4", "heat_stencil.mlir", shardc::Phase::Local);
  INFO(local.diagnostics);
  REQUIRE(local.ok);
  CHECK(count(local.emitted, "comm.collective_permute") == 2);
  CHECK(count(local.emitted, "comm.all_gather") == 0);
  CHECK(count(local.emitted, "tensor<1x8xf32>") >= 2);
  // The report lists them before they exist, with the bytes of one row.
  // Their reasons say which neighbour each device reads from.
  int permutes = 0, fromPrevious = 0, fromNext = 0;
  for (const shardc::CollectiveRecord &c : local.signature.collectives)
    if (c.kind == "collective_permute") {
      ++permutes;
      CHECK(c.bytesPerDevice == 8 * 4);
      CHECK(c.localInType == "tensor<1x8xf32>");
      CHECK(c.groupSize == 4);
      INFO(c.reason);
      CHECK(c.reason.find("halo exchange: a shift by ") == 0);
      fromPrevious += c.reason.find("makes each device read 1 element(s) of dim 0 from the "
                                "previous shard") != std::string::npos;
      fromNext += c.reason.find("makes each device read 1 element(s) of dim 0 from the next "
                            "shard") != std::string::npos;
    }
  CHECK(permutes == 2);
  CHECK(fromPrevious == 1);
  CHECK(fromNext == 1);
}

TEST_CASE("a shift along a sharded dim matches the reference for every offset",
          "[exec][stencil]") {
  // 12 rows: shard sizes 12, 6, 4, 3 on 1, 2, 3, 4 ranks; 2 on 6 ranks.
  for (int64_t ranks : {1, 2, 3, 4, 6})
    for (int64_t offset : {1, -1, 2, -2, 3, -3, 5, -5, 7, -7, 11, -11}) {
      std::string decl = "garray.mesh @mesh [\"data\" = " + std::to_string(ranks) + "]";
      checkShift(12, 3, 0, offset, "P(\"data\", None)", decl, "data=" + std::to_string(ranks),
                 static_cast<uint32_t>(ranks * 100 + offset + 50));
    }
}

TEST_CASE("a shift along an unevenly sharded dim (short and empty shards)", "[exec][stencil]") {
  // 10 rows: shards of 4,4,2 on 3 ranks; 3,3,3,1 on 4; 2,2,2,2,2 on 5;
  // 2,2,2,2,2,0,0,0 on 8. The padding of a short shard must never be read
  // as a neighbour's row, and empty shards must neither send nor break.
  for (int64_t ranks : {3, 4, 5, 8})
    for (int64_t offset : {1, -1, 2, -2, 3, -3, 4, -4, 9, -9}) {
      std::string decl = "garray.mesh @mesh [\"data\" = " + std::to_string(ranks) + "]";
      checkShift(10, 3, 0, offset, "P(\"data\", None)", decl, "data=" + std::to_string(ranks),
                 static_cast<uint32_t>(ranks * 1000 + offset + 50));
    }
}

TEST_CASE("shifts on 2-D meshes and along a dim split over two axes", "[exec][stencil]") {
  const std::string decl = "garray.mesh @mesh [\"data\" = 2, \"model\" = 2]";
  for (const char *mesh : {"data=2,model=2", "data=2,model=4", "data=4,model=2"})
    for (int64_t offset : {1, -1, 3, -5}) {
      // Rows over "data", columns over "model": the permutes stay inside
      // each "model" group.
      checkShift(8, 8, 0, offset, "P(\"data\", \"model\")", decl, mesh, 1);
      checkShift(8, 8, 1, offset, "P(\"data\", \"model\")", decl, mesh, 2);
      // Rows over both axes, in both orders.
      checkShift(16, 2, 0, offset, "P((\"data\", \"model\"), None)", decl, mesh, 3);
      checkShift(16, 2, 0, offset, "P((\"model\", \"data\"), None)", decl, mesh, 4);
    }
}
