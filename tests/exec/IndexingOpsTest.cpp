//===- IndexingOpsTest.cpp - gather, scatter_add, iota, compare/select ----===//
//
// As ReductionOpsTest.cpp: every model runs on data = 1, 2 and 4 with each
// dimension of its main operand placed P("data") in turn, checked against a
// C++ reference and the 1-rank run (checkOnRanks):
//
//   gather       f32 and i32 tables, i64/i32/i8 indices of rank 1 and 2 (4x4),
//                out-of-range indices clamped to [0, V - 1] (documented);
//                the table's row dim sharded is gathered first (its rule
//                keeps it whole), its other dims and the indices stay split;
//   scatter_add  duplicates accumulate, out-of-range indices clamp as in
//                gather; sharded index positions make a pending sum that is
//                all-reduced, with the base added exactly once;
//   scatter_reduce  max, min and prod, duplicates and base combined, f32 and i32,
//                NaN propagated; sharded index positions are gathered (no
//                all-reduce);
//   iota         i64, i32 and f32, sharded along and across `dim`: indices
//                stay global (per-device offsets);
//   compare/select  every direction, NaN (ordered except ne), ints, i1.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ReductionTestUtil.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

int64_t clampRow(double index, int64_t rows) {
  return std::min<int64_t>(std::max<int64_t>(static_cast<int64_t>(index), 0), rows - 1);
}

/// Indices with duplicates and out-of-range entries, over `rows` rows.
TypedArray someIndices(const std::string &dtype, std::vector<int64_t> shape, int64_t rows) {
  static const double kPool[] = {3, -3, 15, 3, 100, 0, 7, -1, 9, 3, 16, 12};
  TypedArray idx{dtype, std::move(shape), {}};
  for (int64_t i = 0; i < idx.numel(); ++i)
    idx.values.push_back(std::min<double>(kPool[i % 12], dtype == "i8" ? 127 : 1e9));
  (void)rows;
  return idx;
}

//===----------------------------------------------------------------------===//
// gather
//===----------------------------------------------------------------------===//

std::vector<double> gatherRef(const TypedArray &table, const TypedArray &idx) {
  int64_t rows = table.shape[0], width = table.numel() / rows;
  std::vector<double> out;
  for (double i : idx.values) {
    int64_t r = clampRow(i, rows);
    for (int64_t j = 0; j < width; ++j)
      out.push_back(table.values[r * width + j]);
  }
  return out;
}

struct Placement {
  int table = -1, indices = -1; // the dim placed P("data"), or -1
};

void checkGather(const std::string &dtype, const std::string &indexType,
                 const std::vector<int64_t> &indexShape, Placement where) {
  Rng rng(51);
  TypedArray table = dtype == "f32" ? randomReals(rng, dtype, {16, 8}, -2.0f, 2.0f)
                                   : randomInts(rng, dtype, {16, 8}, -100, 100);
  TypedArray idx = someIndices(indexType, indexShape, 16);
  std::vector<int64_t> outShape = indexShape;
  outShape.push_back(8);
  std::map<std::string, Expected> expected = {{"rows", {dtype, outShape, gatherRef(table, idx)}}};
  std::string body = "  %rows = garray.gather %table[%idx] : (" +
                     tensorType(table.shape, dtype) + ", " + tensorType(idx.shape, indexType) +
                     ") -> " + tensorType(outShape, dtype) + "\n";
  std::string model = mainFunction(
      {argument("table", table, where.table), argument("idx", idx, where.indices)}, expected, body);
  checkOnRanks(model, {{"table", table}, {"idx", idx}}, expected);
  // The rows dim of the table is whole on every device: gathered if it was split.
  Compiled c = compile(model, "data=4", "model.mlir", shardc::Phase::Partitioned);
  REQUIRE(c.ok);
  INFO(c.emitted);
  CHECK((c.emitted.find("garray.all_gather") != std::string::npos) == (where.table == 0));
}

TEST_CASE("gather: rows at clamped indices, sharded on each dim", "[gather]") {
  for (std::string dtype : {"f32", "i32"})
    for (Placement where : {Placement{0, -1}, Placement{1, -1}, Placement{-1, 0}}) {
      INFO("table " << dtype << " sharded on dim " << where.table << ", indices on dim "
                    << where.indices);
      checkGather(dtype, "i64", {8}, where);
    }
  for (std::string indexType : {"i32", "i8"})
    for (int d : {0, 1}) {
      INFO(indexType << " indices of shape 4x4 sharded on dim " << d);
      checkGather("f32", indexType, {4, 4}, Placement{-1, d});
    }
}

//===----------------------------------------------------------------------===//
// scatter_add
//===----------------------------------------------------------------------===//

/// `kind` is "add", "max" or "min" (NaN wins, as garray.max's).
std::vector<double> scatterRef(const TypedArray &base, const TypedArray &idx,
                               const TypedArray &updates, const std::string &kind) {
  int64_t rows = base.shape[0], width = base.numel() / rows;
  std::vector<double> out = base.values;
  for (int64_t b = 0; b < idx.numel(); ++b) {
    int64_t r = clampRow(idx.values[b], rows);
    for (int64_t j = 0; j < width; ++j) {
      double &o = out[r * width + j];
      double u = updates.values[b * width + j];
      if (kind == "add")
        o += u;
      else if (kind == "prod")
        o *= u;
      else if (std::isnan(o) || std::isnan(u))
        o = std::numeric_limits<double>::quiet_NaN();
      else
        o = kind == "max" ? std::max(o, u) : std::min(o, u);
    }
  }
  return out;
}

struct ScatterPlacement {
  int base = -1, indices = -1, updates = -1;
};

void checkScatter(const std::string &dtype, const std::vector<int64_t> &indexShape,
                  ScatterPlacement where, bool zeroBase = false,
                  const std::string &kind = "add") {
  Rng rng(61);
  bool isFloat = dtype == "f32";
  TypedArray base = isFloat ? randomReals(rng, dtype, {16, 8}, -2.0f, 2.0f)
                           : randomInts(rng, dtype, {16, 8}, -100, 100);
  if (zeroBase)
    std::fill(base.values.begin(), base.values.end(), 0.0);
  TypedArray idx = someIndices("i64", indexShape, 16);
  std::vector<int64_t> updShape = indexShape;
  updShape.push_back(8);
  // Integer factors small enough that no row's product wraps.
  TypedArray upd = isFloat         ? randomReals(rng, dtype, updShape, -1.0f, 1.0f)
                   : kind == "prod" ? randomInts(rng, dtype, updShape, -3, 3)
                                    : randomInts(rng, dtype, updShape, -50, 50);
  if (isFloat && kind != "add" && kind != "prod") {
    upd.values[3] = std::numeric_limits<double>::quiet_NaN(); // into row 3 (an update)
    base.values[5 * 8 + 1] = std::numeric_limits<double>::quiet_NaN(); // row 5's base
  }
  std::string bType = tensorType(base.shape, dtype), iType = tensorType(idx.shape, "i64"),
              uType = tensorType(upd.shape, dtype);
  std::map<std::string, Expected> expected = {
      {"out", {dtype, base.shape, scatterRef(base, idx, upd, kind),
               kind == "add" || kind == "prod" ? sumTolerance(dtype) : Tolerance{0.0, 0.0}}}};
  std::vector<std::string> args = {argument("idx", idx, where.indices),
                                   argument("upd", upd, where.updates)};
  std::string body;
  TypedInputs inputs = {{"idx", idx}, {"upd", upd}};
  if (zeroBase) {
    // The op's identity: 0 for an add, 1 for a product, the type's lowest
    // value for a max, its highest for a min.
    std::string v = kind == "add"    ? (isFloat ? "0.0" : "0")
                    : kind == "prod" ? (isFloat ? "1.0" : "1")
                    : isFloat        ? (kind == "max" ? "0xFF800000" : "0x7F800000")
                                     : (kind == "max" ? "-2147483648" : "2147483647");
    double id = kind == "add"    ? 0.0
                : kind == "prod" ? 1.0
                : isFloat        ? (kind == "max" ? -HUGE_VAL : HUGE_VAL)
                                 : (kind == "max" ? -2147483648.0 : 2147483647.0);
    std::fill(base.values.begin(), base.values.end(), id);
    expected["out"].values = scatterRef(base, idx, upd, kind);
    body = "  %base = garray.constant dense<" + v + "> : " + bType + "\n";
  } else {
    args.insert(args.begin(), argument("base", base, where.base));
    inputs["base"] = base;
  }
  std::string op = kind == "add" ? "garray.scatter_add" : "garray.scatter_reduce <" + kind + ">";
  body += "  %out = " + op + " %base, %idx, %upd : (" + bType + ", " + iType + ", " + uType +
          ") -> " + bType + "\n";
  std::string model = mainFunction(args, expected, body);
  checkOnRanks(model, inputs, expected);
  // Index positions split over "data" leave a pending sum: one all-reduce.
  // (With the base added before it, 4 ranks would count it 4 times.)
  Compiled c = compile(model, "data=4", "model.mlir", shardc::Phase::Partitioned);
  REQUIRE(c.ok);
  INFO(c.emitted);
  bool positionsSplit = where.indices >= 0 || (where.updates >= 0 &&
                                               where.updates < static_cast<int>(indexShape.size()));
  // A max or min onto its identity leaves a pending max or min; onto any
  // other base it keeps the positions whole (they are gathered instead).
  std::string reduced = "garray.all_reduce <" + std::string(kind == "add" ? "sum" : kind) + ">";
  CHECK((c.emitted.find(reduced) != std::string::npos) ==
        (positionsSplit && (kind == "add" || zeroBase)));
}

TEST_CASE("scatter_add: duplicates accumulate, sharded on each dim", "[scatter_add]") {
  for (std::string dtype : {"f32", "i32"}) {
    for (ScatterPlacement where :
         {ScatterPlacement{-1, -1, 0}, ScatterPlacement{-1, -1, 1}, ScatterPlacement{-1, 0, -1},
          ScatterPlacement{0, -1, -1}, ScatterPlacement{1, -1, -1}, ScatterPlacement{-1, 0, 0}}) {
      INFO(dtype << ": base on dim " << where.base << ", indices on dim " << where.indices
                 << ", updates on dim " << where.updates);
      checkScatter(dtype, {8}, where);
    }
    for (int d : {0, 1, 2}) {
      INFO(dtype << ": 4x4 indices, updates 4x4x8 sharded on dim " << d);
      checkScatter(dtype, {4, 4}, ScatterPlacement{-1, -1, d});
    }
  }
  INFO("a zero constant base (no decomposition needed)");
  checkScatter("f32", {8}, ScatterPlacement{-1, -1, 0}, /*zeroBase=*/true);
}

TEST_CASE("scatter_reduce: max, min and product of duplicates and base, sharded on each dim",
          "[scatter_reduce]") {
  for (std::string kind : {"max", "min", "prod"})
    for (std::string dtype : {"f32", "i32"}) {
      for (ScatterPlacement where :
           {ScatterPlacement{-1, -1, 0}, ScatterPlacement{-1, -1, 1}, ScatterPlacement{-1, 0, -1},
            ScatterPlacement{0, -1, -1}, ScatterPlacement{1, -1, -1},
            ScatterPlacement{1, 0, 1}}) {
        INFO(kind << " " << dtype << ": base on dim " << where.base << ", indices on dim "
                  << where.indices << ", updates on dim " << where.updates);
        checkScatter(dtype, {8}, where, /*zeroBase=*/false, kind);
      }
      INFO(kind << " " << dtype << ": 4x4 indices, updates sharded on dim 2");
      checkScatter(dtype, {4, 4}, ScatterPlacement{-1, -1, 2}, /*zeroBase=*/false, kind);
      for (ScatterPlacement where : {ScatterPlacement{-1, -1, 0}, ScatterPlacement{-1, 0, -1},
                                     ScatterPlacement{-1, -1, 1}}) {
        INFO(kind << " " << dtype << " onto its identity (segment_max): indices on dim "
                  << where.indices << ", updates on dim " << where.updates);
        checkScatter(dtype, {8}, where, /*zeroBase=*/true, kind);
      }
      INFO(kind << " " << dtype << " onto its identity, 3x2 positions over 4 ranks (uneven)");
      checkScatter(dtype, {3, 2}, ScatterPlacement{-1, -1, 0}, /*zeroBase=*/true, kind);
    }
}

//===----------------------------------------------------------------------===//
// iota
//===----------------------------------------------------------------------===//

TEST_CASE("iota: global indices along and across a sharded dim", "[iota]") {
  for (std::string dtype : {"i64", "i32", "f32"})
    for (int sharded : {0, 1}) {
      INFO(dtype << ", x sharded on dim " << sharded);
      Rng rng(71);
      TypedArray x = randomInts(rng, dtype, {8, 4}, -10, 10);
      std::map<std::string, Expected> expected;
      std::string body, type = tensorType({8, 4}, dtype);
      for (int dim : {0, 1}) {
        std::string d = std::to_string(dim);
        // Alone (its sharding comes from the function result, open) and
        // added to x (its sharding comes from x).
        Expected plain{dtype, {8, 4}, {}}, shifted{dtype, {8, 4}, {}};
        for (int64_t i = 0; i < 8; ++i)
          for (int64_t j = 0; j < 4; ++j) {
            plain.values.push_back(dim == 0 ? i : j);
            shifted.values.push_back((dim == 0 ? i : j) + x.at(i, j));
          }
        expected["iota" + d] = plain;
        expected["plus" + d] = shifted;
        body += "  %iota" + d + " = garray.iota dim = " + d + " : " + type + "\n";
        body += "  %plus" + d + " = garray.add %iota" + d + ", %x : " + type + "\n";
      }
      std::string model = mainFunction({argument("x", x, sharded)}, expected, body);
      checkOnRanks(model, {{"x", x}}, expected);
      // Along the sharded dim the local iota is offset by the shard start.
      Compiled c = compile(model, "data=4", "model.mlir", shardc::Phase::Local);
      REQUIRE(c.ok);
      INFO(c.emitted);
      CHECK(c.emitted.find(sharded == 0 ? "comm.device_value [0, 2, 4, 6]"
                                        : "comm.device_value [0, 1, 2, 3]") != std::string::npos);
    }
}

//===----------------------------------------------------------------------===//
// compare / select
//===----------------------------------------------------------------------===//

TEST_CASE("compare/select: every direction, NaN, ints and i1", "[compare]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const char *dirs[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  auto relate = [](const std::string &d, double a, double b) -> double {
    if (d == "eq") return a == b;
    if (d == "ne") return a != b; // true when either is NaN
    if (d == "lt") return a < b;
    if (d == "le") return a <= b;
    if (d == "gt") return a > b;
    return a >= b;
  };
  for (std::string dtype : {"f32", "i32", "bool"})
    for (int sharded : {0, 1}) {
      INFO(dtype << ", a and b sharded on dim " << sharded);
      Rng rng(81);
      TypedArray a = randomInts(rng, dtype, {8, 4}, dtype == "bool" ? 0 : -2, dtype == "bool" ? 1 : 2);
      TypedArray b = randomInts(rng, dtype, {8, 4}, dtype == "bool" ? 0 : -2, dtype == "bool" ? 1 : 2);
      if (dtype == "f32") {
        a.values[5] = nan;
        b.values[9] = nan;
        a.values[17] = b.values[17] = nan;
      }
      std::map<std::string, Expected> expected;
      std::string body, type = tensorType({8, 4}, dtype), mask = tensorType({8, 4}, "bool");
      for (const char *d : dirs) {
        Expected e{"bool", {8, 4}, {}};
        for (size_t i = 0; i < a.values.size(); ++i)
          e.values.push_back(relate(d, a.values[i], b.values[i]));
        expected[d] = e;
        body += "  %" + std::string(d) + " = garray.compare <" + d + "> %a, %b : (" + type + ", " +
                type + ") -> " + mask + "\n";
      }
      Expected pick{dtype, {8, 4}, {}};
      for (size_t i = 0; i < a.values.size(); ++i)
        pick.values.push_back(relate("lt", a.values[i], b.values[i]) ? a.values[i] : b.values[i]);
      expected["pick"] = pick;
      body += "  %pick = garray.select %lt, %a, %b : (" + mask + ", " + type + ", " + type +
              ") -> " + type + "\n";
      std::string model =
          mainFunction({argument("a", a, sharded), argument("b", b, sharded)}, expected, body);
      checkOnRanks(model, {{"a", a}, {"b", b}}, expected);
    }
}

} // namespace
