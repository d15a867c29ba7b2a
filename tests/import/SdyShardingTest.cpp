//===- SdyShardingTest.cpp - Shardy sharding text -> garray placement -----===//
//
// parseSdySharding on the forms JAX prints (replicated scalars, several
// axes on a dim, open dims, priorities, replicated=/unreduced= lists) and
// garraySpec's `P(...)` for each; then malformed text and sub-axes, which
// must be errors naming what was expected.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/SdySharding.h"

#include <catch2/catch.hpp>

#include <string>

using namespace shardc;

namespace {

std::string spec(const std::string &text) {
  std::string error;
  std::optional<SdySharding> s = parseSdySharding(text, error);
  INFO(text << " -> " << error);
  REQUIRE(s);
  return garraySpec(*s);
}

std::string errorOf(const std::string &text) {
  std::string error;
  std::optional<SdySharding> s = parseSdySharding(text, error);
  CHECK_FALSE(s);
  return error;
}

} // namespace

TEST_CASE("Shardy shardings become garray placements", "[import][sdy]") {
  CHECK(spec(R"(#sdy.sharding<@mesh, [{"data"}, {}]>)") == R"(P("data", None))");
  CHECK(spec(R"(@mesh, [{"data"}, {}])") == R"(P("data", None))"); // the body alone
  CHECK(spec(R"(#sdy.sharding<@mesh, []>)") == "P()");
  CHECK(spec(R"(#sdy.sharding<@mesh, [{"data", "model"}, {?}]>)") ==
        R"(P(("data", "model"), ?))");
  CHECK(spec(R"(#sdy.sharding<@mesh, [{"a", ?}p1, {"b"}p0]>)") == R"(P("a"? p1, "b" p0))");
  CHECK(spec(R"(#sdy.sharding<@mesh, [{?}p2, {}p0]>)") == "P(? p2, None p0)");
  CHECK(spec(" #sdy.sharding< @m_1 , [ { \"x\" , \"y\" , ? } ] > ") == R"(P(("x", "y")?))");
}

TEST_CASE("Shardy shardings: every part is read", "[import][sdy]") {
  std::string error;
  std::optional<SdySharding> s = parseSdySharding(
      R"(#sdy.sharding<@mesh, [{"a"}, {?}], replicated={"b"}, unreduced={"c", "d"}>)", error);
  REQUIRE(s);
  CHECK(s->mesh == "mesh");
  REQUIRE(s->dims.size() == 2);
  CHECK(s->dims[0].axes == std::vector<std::string>{"a"});
  CHECK_FALSE(s->dims[0].open);
  CHECK(s->dims[0].priority == -1);
  CHECK(s->dims[1].axes.empty());
  CHECK(s->dims[1].open);
  CHECK(s->replicated == std::vector<std::string>{"b"});
  CHECK(s->unreduced == std::vector<std::string>{"c", "d"});
}

TEST_CASE("Shardy shardings: malformed text and sub-axes are errors", "[import][sdy]") {
  CHECK(errorOf(R"(#sdy.sharding<@mesh, [{"z":(4)2}]>)").find("sub-axis \"z\"") !=
        std::string::npos);
  CHECK(errorOf(R"(#sdy.sharding<@mesh, [{"a"}, {}], replicated={"z":(1)2}>)")
            .find("sub-axis") != std::string::npos);
  CHECK(errorOf(R"(#sdy.sharding<mesh, [{}]>)").find("'@'") != std::string::npos);
  CHECK(errorOf(R"(#sdy.sharding<@mesh, [{"a"} {}]>)").find("expected ','") !=
        std::string::npos);
  CHECK(errorOf(R"(#sdy.sharding<@mesh, [{a}]>)").find("quoted axis name") !=
        std::string::npos);
  CHECK(errorOf(R"(#sdy.sharding<@mesh, [{""}]>)").find("non-empty axis name") !=
        std::string::npos);
  CHECK(errorOf(R"(#sdy.sharding<@mesh, [{"a"}p]>)").find("priority number") !=
        std::string::npos);
  CHECK(errorOf(R"(#sdy.sharding<@mesh, [{"a"}]> trailing)").find("end of the sharding") !=
        std::string::npos);
  CHECK(errorOf(R"(#sdy.sharding<@mesh, [{"a"}], other={"b"}>)").find("replicated=") !=
        std::string::npos);
  CHECK(errorOf(R"(#sdy.sharding<@mesh, [{"a", ?, "b"}]>)").find("'}'") != std::string::npos);
  CHECK(errorOf("").find("'@'") != std::string::npos);
  CHECK(errorOf(R"(#sdy.sharding<@mesh, [{"a"}])").find("'>'") != std::string::npos);
}

TEST_CASE("Shardy meshes", "[import][sdy]") {
  std::string error;
  std::optional<SdyMesh> m = parseSdyMesh(R"(#sdy.mesh<["data"=2, "model"=4]>)", error);
  REQUIRE(m);
  CHECK(m->axes == std::vector<std::string>{"data", "model"});
  CHECK(m->sizes == std::vector<int64_t>{2, 4});
  m = parseSdyMesh(R"(<["x"=2], device_ids=[0, 1]>)", error);
  CHECK_FALSE(m); // angle brackets without the attribute name: not a form MLIR prints
  m = parseSdyMesh(R"(["x"=2], device_ids=[0, 1])", error);
  REQUIRE(m);
  CHECK(m->sizes == std::vector<int64_t>{2});
  m = parseSdyMesh("#sdy.mesh<[]>", error);
  REQUIRE(m);
  CHECK(m->axes.empty());

  CHECK_FALSE(parseSdyMesh(R"(#sdy.mesh<["x"=2], device_ids=[1, 0]>)", error));
  CHECK(error.find("row-major") != std::string::npos);
  CHECK_FALSE(parseSdyMesh(R"(#sdy.mesh<["x"=]>)", error));
  CHECK(error.find("axis size") != std::string::npos);
  CHECK_FALSE(parseSdyMesh(R"(#sdy.mesh<["x"=2] trailing>)", error));
  CHECK(error.find("'>'") != std::string::npos);
}

TEST_CASE("Shardy per-value shardings and manual axes (shard_map)", "[import][sdy]") {
  std::string error;
  std::optional<std::vector<SdySharding>> all = parseSdyShardingPerValue(
      R"(#sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>, <@mesh, []>, <@mesh, [{"data", "model"}]>]>)",
      error);
  INFO(error);
  REQUIRE(all);
  REQUIRE(all->size() == 3);
  CHECK(garraySpec((*all)[0]) == R"(P("data", None))");
  CHECK(garraySpec((*all)[1]) == "P()");
  CHECK(garraySpec((*all)[2]) == R"(P(("data", "model")))");
  all = parseSdyShardingPerValue("#sdy.sharding_per_value<[]>", error);
  REQUIRE(all);
  CHECK(all->empty());
  CHECK_FALSE(parseSdyShardingPerValue(R"(#sdy.sharding_per_value<[<@mesh, [{"a"}]>)", error));
  CHECK(error.find("expected") != std::string::npos);
  CHECK_FALSE(parseSdyShardingPerValue(R"(#sdy.sharding_per_value<[@mesh, [{"a"}]]>)", error));
  CHECK(error.find("'<'") != std::string::npos);

  std::optional<std::vector<std::string>> axes =
      parseSdyManualAxes(R"(#sdy<manual_axes{"data", "model"}>)", error);
  REQUIRE(axes);
  CHECK(*axes == std::vector<std::string>{"data", "model"});
  axes = parseSdyManualAxes("#sdy<manual_axes{}>", error);
  REQUIRE(axes);
  CHECK(axes->empty());
  CHECK_FALSE(parseSdyManualAxes(R"(#sdy<manual_axes{"data"})", error));
  CHECK_FALSE(parseSdyManualAxes(R"(#sdy<manual_axes{"z":(1)2}>)", error));
  CHECK(error.find("sub-axis") != std::string::npos);
}
