// A model with a helper function called twice (a two-layer MLP whose layer is
// one func.call'd helper), compiled without inlining before partitioning:
// propagation crosses the calls with one sharding per function signature
// (docs/propagation.md, "Calls"), insert-reshards makes each call site match
// it. Run on 1, 2 and 4 ranks against a double-precision reference and the
// 1-rank run.
#include "tests/exec/ExecHarness.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace shardc_test;

namespace {
constexpr int64_t kRows = 8, kIn = 16, kHidden = 16;

// The helper's argument shardings come from its call sites: x's rows
// ("data") at the first call; w1 and w2 disagree ("model" on different
// dims), so the second call site gets reshards.
constexpr const char *kModel = R"mlir(
garray.mesh @mesh ["data" = 2, "model" = 2]

func.func private @layer(%a: tensor<8x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %h = garray.dot_general %a, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %bb = garray.broadcast_in_dim %b, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
  %s = garray.add %h, %bb : tensor<8x16xf32>
  %t = garray.tanh %s : tensor<8x16xf32>
  return %t : tensor<8x16xf32>
}

func.func @main(
    %x: tensor<8x16xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %w1: tensor<16x16xf32> {garray.name = "w1", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
    %b1: tensor<16xf32> {garray.name = "b1", garray.sharding = #garray.sharding<@mesh, P("model")>},
    %w2: tensor<16x16xf32> {garray.name = "w2", garray.sharding = #garray.sharding<@mesh, P("model", None)>},
    %b2: tensor<16xf32> {garray.name = "b2"})
    -> (tensor<8x16xf32> {garray.name = "y"}, tensor<8x16xf32> {garray.name = "h"}) {
  %h = call @layer(%x, %w1, %b1) : (tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %y = call @layer(%h, %w2, %b2) : (tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %y, %h : tensor<8x16xf32>, tensor<8x16xf32>
}
)mlir";

std::vector<double> layer(const std::vector<double> &a, const F32Array &w, const F32Array &b) {
  std::vector<double> out(kRows * kHidden);
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t j = 0; j < kHidden; ++j) {
      double s = b.at(j);
      for (int64_t k = 0; k < kIn; ++k)
        s += a[i * kIn + k] * w.at(k, j);
      out[i * kHidden + j] = std::tanh(s);
    }
  return out;
}
} // namespace

TEST_CASE("helper called twice: one signature, reshards at the call sites", "[exec][calls]") {
  Rng rng(7);
  Inputs in;
  in["x"] = rng.array({kRows, kIn}, -1.0f, 1.0f);
  in["w1"] = rng.array({kIn, kHidden}, -0.5f, 0.5f);
  in["b1"] = rng.array({kHidden}, -0.5f, 0.5f);
  in["w2"] = rng.array({kHidden, kHidden}, -0.5f, 0.5f);
  in["b2"] = rng.array({kHidden}, -0.5f, 0.5f);
  std::vector<double> x(in["x"].values.begin(), in["x"].values.end());
  std::vector<double> h = layer(x, in["w1"], in["b1"]);
  std::vector<double> y = layer(h, in["w2"], in["b2"]);

  RunOutcome one = compileAndRun(kModel, "data=1,model=1", in, "calls.mlir");
  INFO(one.error);
  REQUIRE(one.ok);
  for (const char *mesh :
       {"data=1,model=1", "data=2,model=1", "data=1,model=2", "data=2,model=2", "data=4,model=1",
        "data=1,model=4"}) {
    INFO("mesh " << mesh);
    RunOutcome r = compileAndRun(kModel, mesh, in, "calls.mlir");
    INFO(r.error);
    REQUIRE(r.ok);
    CHECK(mismatch("h", r.outputs.at("h"), {kRows, kHidden}, h, {1e-4, 1e-5}) == "");
    CHECK(mismatch("y", r.outputs.at("y"), {kRows, kHidden}, y, {1e-4, 1e-5}) == "");
    CHECK(mismatchArrays("y vs 1 rank", r.outputs.at("y"), one.outputs.at("y"), {1e-4, 1e-5}) ==
          "");
    for (auto &[name, diff] : r.replicaDiffs)
      CHECK(diff == 0);
  }
}

TEST_CASE("helper called twice: the call sites keep their calls after partitioning",
          "[exec][calls]") {
  Compiled c = compile(kModel, "data=2,model=2", "calls.mlir", shardc::Phase::Local);
  INFO(c.diagnostics);
  REQUIRE(c.ok);
  CHECK(c.emitted.find("call @layer") != std::string::npos);
  CHECK(c.emitted.find("one sharding per function signature") != std::string::npos);
}
