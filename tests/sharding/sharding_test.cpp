//===- sharding_test.cpp - meshes, device groups, ceil layout, printing ---===//
#include "sharding/Sharding.h"
#include "tests/sharding/TestUtil.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

using namespace shardc;
using namespace shardc::test;

using Ids = std::vector<int64_t>;
using Groups = std::vector<std::vector<int64_t>>;

TEST_CASE("Mesh: axis lookup, device count, str", "[sharding][mesh]") {
  Mesh mesh = dataModelMesh();
  CHECK(mesh.indexOf("data") == 0);
  CHECK(mesh.indexOf("model") == 1);
  CHECK(mesh.indexOf("pipe") == -1);
  CHECK(mesh.deviceCount() == 8);
  CHECK(mesh.product({}) == 1);
  CHECK(mesh.product({kData}) == 2);
  CHECK(mesh.product({kModel}) == 4);
  CHECK(mesh.product({kData, kModel}) == 8);
  CHECK(mesh.str() == R"(["data"=2, "model"=4])");
}

TEST_CASE("Mesh: coords are row-major over the axes and round-trip with deviceId",
          "[sharding][mesh]") {
  Mesh mesh = dataModelMesh();
  // Explicit values: the last axis varies fastest.
  CHECK(mesh.coords(0) == Ids{0, 0});
  CHECK(mesh.coords(1) == Ids{0, 1});
  CHECK(mesh.coords(3) == Ids{0, 3});
  CHECK(mesh.coords(4) == Ids{1, 0});
  CHECK(mesh.coords(6) == Ids{1, 2});
  CHECK(mesh.coords(7) == Ids{1, 3});
  CHECK(mesh.deviceId({1, 2}) == 6);
  CHECK(mesh.deviceId({0, 3}) == 3);

  for (int64_t id = 0; id < mesh.deviceCount(); ++id) {
    Ids c = mesh.coords(id);
    REQUIRE(c.size() == 2);
    CHECK(c[0] == id / 4);
    CHECK(c[1] == id % 4);
    CHECK(mesh.deviceId(c) == id);
  }
  for (int64_t d = 0; d < 2; ++d)
    for (int64_t m = 0; m < 4; ++m)
      CHECK(mesh.coords(mesh.deviceId({d, m})) == Ids{d, m});
}

TEST_CASE("Mesh: groups over one axis", "[sharding][mesh][groups]") {
  Mesh mesh = dataModelMesh();
  // Varying only along "data": one group per model coordinate.
  CHECK(mesh.groups({kData}) == Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  // Varying only along "model": one group per data coordinate.
  CHECK(mesh.groups({kModel}) == Groups{{0, 1, 2, 3}, {4, 5, 6, 7}});
  // Over no axis: every device alone, in device order.
  CHECK(mesh.groups({}) == Groups{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}});
}

TEST_CASE("Mesh: groups over both axes follow the axis list order",
          "[sharding][mesh][groups]") {
  Mesh mesh = dataModelMesh();
  // ("data", "model"): data major, model minor -> plain device order.
  CHECK(mesh.groups({kData, kModel}) == Groups{{0, 1, 2, 3, 4, 5, 6, 7}});
  // ("model", "data"): model major, data minor -> position = model*2 + data.
  CHECK(mesh.groups({kModel, kData}) == Groups{{0, 4, 1, 5, 2, 6, 3, 7}});
}

TEST_CASE("Mesh: groups partition the devices and agree with indexInGroup",
          "[sharding][mesh][groups]") {
  Mesh mesh{{"x", "y", "z"}, {2, 3, 2}};
  const std::vector<std::vector<int>> lists = {{}, {0}, {1}, {2}, {0, 1}, {1, 0},
                                               {0, 2}, {2, 0}, {1, 2}, {2, 1}, {0, 1, 2},
                                               {2, 1, 0}, {1, 2, 0}};
  for (const auto &axes : lists) {
    CAPTURE(axes);
    Groups groups = mesh.groups(axes);
    REQUIRE(static_cast<int64_t>(groups.size()) == mesh.deviceCount() / mesh.product(axes));
    std::set<int64_t> seen;
    int64_t previousFirst = -1;
    for (const auto &g : groups) {
      REQUIRE(static_cast<int64_t>(g.size()) == mesh.product(axes));
      // Groups come in increasing device order (by their first member).
      CHECK(*std::min_element(g.begin(), g.end()) > previousFirst);
      previousFirst = *std::min_element(g.begin(), g.end());
      for (size_t i = 0; i < g.size(); ++i) {
        CHECK(seen.insert(g[i]).second);
        CHECK(mesh.indexInGroup(g[i], axes) == static_cast<int64_t>(i));
        // Members differ only along `axes`.
        Ids a = mesh.coords(g[0]), b = mesh.coords(g[i]);
        for (int k = 0; k < 3; ++k)
          if (std::find(axes.begin(), axes.end(), k) == axes.end())
            CHECK(a[k] == b[k]);
      }
    }
    CHECK(static_cast<int64_t>(seen.size()) == mesh.deviceCount());
  }
}

TEST_CASE("Mesh: indexInGroup is row-major over the axis list as given",
          "[sharding][mesh][groups]") {
  Mesh mesh = dataModelMesh();
  // Device 6 = (data 1, model 2).
  CHECK(mesh.indexInGroup(6, {kData}) == 1);
  CHECK(mesh.indexInGroup(6, {kModel}) == 2);
  CHECK(mesh.indexInGroup(6, {kData, kModel}) == 1 * 4 + 2);
  CHECK(mesh.indexInGroup(6, {kModel, kData}) == 2 * 2 + 1);
  CHECK(mesh.indexInGroup(6, {}) == 0);
  // Device 3 = (data 0, model 3).
  CHECK(mesh.indexInGroup(3, {kData}) == 0);
  CHECK(mesh.indexInGroup(3, {kModel}) == 3);
  CHECK(mesh.indexInGroup(3, {kModel, kData}) == 6);
}

static Ids validCounts(int64_t n, int64_t k) {
  Ids out;
  for (int64_t i = 0; i < k; ++i)
    out.push_back(validInShard(n, k, i));
  return out;
}

TEST_CASE("Ceil layout: shard size and valid elements per shard", "[sharding][layout]") {
  SECTION("even split 8/4") {
    CHECK(shardSize(8, 4) == 2);
    CHECK(validCounts(8, 4) == Ids{2, 2, 2, 2});
  }
  SECTION("uneven 5/4 leaves a short shard and an empty one") {
    CHECK(shardSize(5, 4) == 2);
    CHECK(validCounts(5, 4) == Ids{2, 2, 1, 0});
  }
  SECTION("uneven 3/2") {
    CHECK(shardSize(3, 2) == 2);
    CHECK(validCounts(3, 2) == Ids{2, 1});
  }
  SECTION("1/4: one element, three empty shards") {
    CHECK(shardSize(1, 4) == 1);
    CHECK(validCounts(1, 4) == Ids{1, 0, 0, 0});
  }
  SECTION("an empty dim has empty shards") {
    CHECK(shardSize(0, 4) == 0);
    CHECK(validCounts(0, 4) == Ids{0, 0, 0, 0});
  }
  SECTION("one shard holds everything") {
    CHECK(shardSize(7, 1) == 7);
    CHECK(validCounts(7, 1) == Ids{7});
  }
  SECTION("valid counts always sum to the global size and never exceed the shard size") {
    for (int64_t n = 0; n <= 20; ++n)
      for (int64_t k = 1; k <= 8; ++k) {
        CAPTURE(n, k);
        int64_t s = shardSize(n, k);
        CHECK(s == (n + k - 1) / k);
        int64_t total = 0;
        bool sawShort = false;
        for (int64_t i = 0; i < k; ++i) {
          int64_t v = validInShard(n, k, i);
          CHECK(v >= 0);
          CHECK(v <= s);
          // Only trailing shards are short: once one is short, no later one is full.
          if (sawShort)
            CHECK(v == 0);
          sawShort = sawShort || v < s;
          total += v;
        }
        CHECK(total == n);
      }
  }
}

TEST_CASE("localShape uses the product of each dim's axes and ignores pending",
          "[sharding][layout]") {
  Mesh mesh = dataModelMesh();
  CHECK(localShape({8, 6}, sharding({closedDim({kData}), closedDim()}), mesh) == Ids{4, 6});
  CHECK(localShape({8, 6}, sharding({closedDim(), closedDim({kModel})}), mesh) == Ids{8, 2});
  CHECK(localShape({16}, sharding({closedDim({kData, kModel})}), mesh) == Ids{2});
  CHECK(localShape({5, 3}, sharding({closedDim({kModel}), closedDim({kData})}), mesh) ==
        Ids{2, 2});
  CHECK(localShape({8, 6}, sharding({openDim({kData}), openDim()}), mesh) == Ids{4, 6});
  // A pending value keeps its full local extent.
  CHECK(localShape({8}, sharding({closedDim()}, {kModel}), mesh) == Ids{8});
  CHECK(localShape({}, sharding({}), mesh).empty());
}

TEST_CASE("TensorSharding: replicated, isFullyReplicated, usedAxes, sameLayout",
          "[sharding]") {
  TensorSharding r = TensorSharding::replicated(3);
  REQUIRE(r.dims.size() == 3);
  for (const DimSharding &d : r.dims) {
    CHECK(d.axes.empty());
    CHECK_FALSE(d.open);
  }
  CHECK(r.isFullyReplicated());
  CHECK_FALSE(r.isPending());
  TensorSharding o = TensorSharding::replicated(2, /*open=*/true);
  CHECK(o.dims[0].open);
  CHECK(o.dims[1].open);
  CHECK(o.isFullyReplicated());

  TensorSharding pending = sharding({closedDim()}, {kModel});
  CHECK(pending.isPending());
  CHECK_FALSE(pending.isFullyReplicated());
  CHECK_FALSE(sharding({closedDim({kData})}).isFullyReplicated());

  TensorSharding s = sharding({closedDim({kModel}), closedDim()}, {kData});
  CHECK(s.usedAxes() == std::vector<int>{kModel, kData});

  // Openness is ignored; axes, their order, and pending sets are not.
  CHECK(sharding({openDim({kData})}).sameLayout(sharding({closedDim({kData})})));
  CHECK_FALSE(sharding({closedDim({kData, kModel})})
                  .sameLayout(sharding({closedDim({kModel, kData})})));
  CHECK_FALSE(sharding({closedDim()}).sameLayout(sharding({closedDim(), closedDim()})));
  CHECK(sharding({closedDim()}, {kData, kModel}).sameLayout(sharding({closedDim()}, {kModel, kData})));
  CHECK_FALSE(sharding({closedDim()}, {kData}).sameLayout(sharding({closedDim()})));
  CHECK_FALSE(sharding({closedDim()}, {kData}, Reduction::Sum)
                  .sameLayout(sharding({closedDim()}, {kData}, Reduction::Max)));
}

TEST_CASE("TensorSharding::validate accepts valid shardings", "[sharding][validate]") {
  Mesh mesh = dataModelMesh();
  CHECK(sharding({}).validate(mesh) == "");
  CHECK(sharding({closedDim({kData}), closedDim({kModel})}).validate(mesh) == "");
  CHECK(sharding({closedDim({kModel, kData})}).validate(mesh) == "");
  CHECK(sharding({openDim({kData}), closedDim()}, {kModel}).validate(mesh) == "");
}

TEST_CASE("TensorSharding::validate names the dim and axis that are wrong",
          "[sharding][validate]") {
  Mesh mesh = dataModelMesh();
  using Catch::Matchers::Contains;

  SECTION("an axis used by two dims") {
    std::string e = sharding({closedDim({kData}), closedDim({kData})}).validate(mesh);
    CHECK_THAT(e, Contains("dim 1"));
    CHECK_THAT(e, Contains("\"data\""));
  }
  SECTION("an axis used twice in one dim") {
    std::string e = sharding({closedDim(), closedDim({kModel, kModel})}).validate(mesh);
    CHECK_THAT(e, Contains("dim 1"));
    CHECK_THAT(e, Contains("\"model\""));
  }
  SECTION("an axis in a dim and in pending") {
    std::string e = sharding({closedDim({kModel})}, {kModel}).validate(mesh);
    CHECK_FALSE(e.empty());
    CHECK_THAT(e, Contains("unreduced"));
    CHECK_THAT(e, Contains("\"model\""));
  }
  SECTION("an axis twice in pending") {
    std::string e = sharding({closedDim()}, {kData, kData}).validate(mesh);
    CHECK_THAT(e, Contains("unreduced"));
    CHECK_THAT(e, Contains("\"data\""));
  }
  SECTION("an axis index out of range") {
    std::string e = sharding({closedDim(), closedDim({2})}).validate(mesh);
    CHECK_THAT(e, Contains("dim 1"));
    CHECK_THAT(e, Contains("#2"));
    std::string neg = sharding({closedDim({-1})}).validate(mesh);
    CHECK_THAT(neg, Contains("dim 0"));
    CHECK_THAT(neg, Contains("#-1"));
    std::string pend = sharding({closedDim()}, {5}).validate(mesh);
    CHECK_THAT(pend, Contains("unreduced"));
    CHECK_THAT(pend, Contains("#5"));
  }
}

TEST_CASE("TensorSharding::str prints JAX-style placement specs", "[sharding][str]") {
  Mesh mesh = dataModelMesh();
  CHECK(sharding({closedDim({kData}), closedDim()}).str(mesh) == R"(P("data", None))");
  CHECK(sharding({closedDim(), closedDim({kModel})}).str(mesh) == R"(P(None, "model"))");
  CHECK(sharding({closedDim({kData, kModel})}).str(mesh) == R"(P(("data", "model")))");
  CHECK(sharding({closedDim({kModel, kData})}).str(mesh) == R"(P(("model", "data")))");
  CHECK(sharding({}).str(mesh) == "P()");
  CHECK(TensorSharding::replicated(2).str(mesh) == "P(None, None)");
  // Open dims: "?" alone when empty, a "?" suffix when sharded.
  CHECK(sharding({openDim(), closedDim({kData})}).str(mesh) == R"(P(?, "data"))");
  CHECK(sharding({openDim({kData}), openDim({kData, kModel})}).str(mesh) ==
        R"(P("data"?, ("data", "model")?))");
  // Pending (unreduced) axes with their reduction kind.
  CHECK(sharding({closedDim({kData}), closedDim()}, {kModel}).str(mesh) ==
        R"(P("data", None) unreduced=sum("model"))");
  CHECK(sharding({closedDim()}, {kData, kModel}, Reduction::Max).str(mesh) ==
        R"(P(None) unreduced=max("data", "model"))");
  CHECK(sharding({}, {kModel}, Reduction::Min).str(mesh) == R"(P() unreduced=min("model"))");
  // Out-of-range axes are printed by index, not crashed on.
  CHECK(sharding({closedDim({7})}).str(mesh) == "P(#7)");
}

TEST_CASE("reductionName", "[sharding]") {
  CHECK(std::string(reductionName(Reduction::Sum)) == "sum");
  CHECK(std::string(reductionName(Reduction::Max)) == "max");
  CHECK(std::string(reductionName(Reduction::Min)) == "min");
  CHECK(std::string(reductionName(Reduction::Prod)) == "prod");
}
