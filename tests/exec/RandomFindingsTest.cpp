//===- RandomFindingsTest.cpp - what the random-program tester found ------===//
//
// Each case is a program the differential tester (tests/random) reduced to
// its core, kept here at full size as a regression test, checked against a
// double-precision reference computed here and against the 1-device run.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

const Tolerance kExact{0, 0};

// A reshape merging [4 x 5] -> 20 where dim 1 (5) is split over "x" = 2:
// rows of 5 split 3 + 2, while 20 over 8 devices would be blocks of 3, so
// the split cannot pass through the merge. Propagation used to carry "x"
// onto the merged dim anyway and compiling failed in global-to-local; the
// operand is now gathered along dim 1 first.
const char *kReshapeUnevenMinor = R"(garray.mesh @mesh ["x" = 1, "y" = 1]
func.func @main(%a: tensor<4x5xi32> {garray.name = "a", garray.sharding = #garray.sharding<@mesh, P("y"?, "x")>})
    -> (tensor<i32> {garray.name = "max"}, tensor<4x5xi32> {garray.name = "back"}) {
  %flat = garray.reshape %a : (tensor<4x5xi32>) -> tensor<20xi32>
  %m = garray.reduce <max> %flat, dims = [0] : (tensor<20xi32>) -> tensor<i32>
  %back = garray.reshape %flat : (tensor<20xi32>) -> tensor<4x5xi32>
  return %m, %back : tensor<i32>, tensor<4x5xi32>
}
)";

TEST_CASE("reshape merging a dim split unevenly: gathered first", "[random][reshape]") {
  Rng rng(35);
  TypedInputs in;
  in["a"] = randomInts(rng, "i32", {4, 5}, -50, 50);
  double mx = *std::max_element(in["a"].values.begin(), in["a"].values.end());
  for (const char *mesh : {"x=1,y=1", "x=2,y=4", "x=2,y=2", "x=3,y=1"}) {
    INFO("mesh " << mesh);
    TypedRunOutcome r = compileAndRunTyped(kReshapeUnevenMinor, mesh, in);
    REQUIRE(r.ok);
    INFO(r.error);
    CHECK(mismatchTyped("max", r.outputs["max"], "i32", {}, {mx}, kExact) == "");
    CHECK(mismatchTyped("back", r.outputs["back"], in["a"], kExact) == "");
  }
}

// scatter_add with a non-zero base and index rows split unevenly (5 over
// "x" = 3: 2 + 2 + 1). Decompose writes base + scatter_add(zeros, ...); the
// zero base reached the op through an all_slice, the op's rule was then read
// as "index dims whole", and the padding row of the short shard (index 0,
// update 0.75) was added into row 0 once per padded index.
const char *kScatterUnevenIndices = R"(garray.mesh @mesh ["x" = 1, "y" = 1]
func.func @main(
    %base: tensor<7x3x2xf32> {garray.name = "base", garray.sharding = #garray.sharding<@mesh, P(None, "x", None)>},
    %idx: tensor<5x2xi64> {garray.name = "idx", garray.sharding = #garray.sharding<@mesh, P("x", "y")>})
    -> (tensor<7x3x2xf32> {garray.name = "out"}) {
  %b = garray.sharding_constraint %base : tensor<7x3x2xf32> to #garray.sharding<@mesh, P("x", None, "y")>
  %u = garray.constant dense<0.75> : tensor<5x2x3x2xf32>
  %r = garray.scatter_add %b, %idx, %u : (tensor<7x3x2xf32>, tensor<5x2xi64>, tensor<5x2x3x2xf32>) -> tensor<7x3x2xf32>
  return %r : tensor<7x3x2xf32>
}
)";

TEST_CASE("scatter_add with a base, index rows split unevenly", "[random][scatter_add]") {
  Rng rng(76);
  TypedInputs in;
  in["base"] = randomReals(rng, "f32", {7, 3, 2}, -2, 2);
  in["idx"] = randomInts(rng, "i64", {5, 2}, -2, 8); // out of range clamps
  std::vector<double> expected = in["base"].values;
  for (double i : in["idx"].values) {
    int64_t row = std::clamp<int64_t>(static_cast<int64_t>(i), 0, 6);
    for (int64_t t = 0; t < 6; ++t)
      expected[row * 6 + t] += 0.75;
  }
  for (const char *mesh : {"x=1,y=1", "x=3,y=1", "x=2,y=2", "x=3,y=2"}) {
    INFO("mesh " << mesh);
    TypedRunOutcome r = compileAndRunTyped(kScatterUnevenIndices, mesh, in);
    REQUIRE(r.ok);
    CHECK(mismatchTyped("out", r.outputs["out"], "f32", {7, 3, 2}, expected, {1e-6, 1e-6}) == "");
  }
}

} // namespace
