//===- Mesh2DTest.cpp - models on a 2-D mesh ["data", "model"] ------------===//
//
// Models written inline (garray, in the style of the seed) on a 2-D mesh,
// compiled for data×model = 1×1, 2×1, 1×2, 2×2, 4×2 and the uneven counts
// 3×2 (6 ranks) and 3×3 (9 ranks), run on a threads world and checked against
// a double-precision C++ reference and against the 1×1 run:
//
//   A  h = X @ W,  X P("data", None), W P(None, "model")   → h, mean(h)
//   B  the contracting dim sharded: X P("data", "model"), W P("model", None)
//      h = X @ W (pending sum over "model"), t = tanh h, rowmax = max_j t,
//      m = mean(t)                                         → h, rowmax, m
//   C  a softmax over "model"-sharded classes, with a bias b P("model")
//                                                          → p, lse
//   D  the mean over rows of a "model"-split h            → colmean
//   E  nothing on "model" (an idle axis): X P("data", None), W P() as
//      state, one gradient step                           → h, W, m
//
// At the end, sharded constants: a constant that propagation splits must
// get its local shape and its local values from global-to-local.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"
#include "tests/exec/ModelText.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

// Sizes every mesh below divides: data ∈ {1, 2, 3, 4}, model ∈ {1, 2, 3}.
constexpr int64_t kRows = 12, kK = 4, kN = 6;

const char *kModelA = R"(// A: data parallel over rows, model parallel over the columns of W.
garray.mesh @mesh ["data" = 2, "model" = 2]

func.func @main(
    %X: tensor<{R}x{K}xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %W: tensor<{K}x{N}xf32> {garray.name = "W", garray.sharding = #garray.sharding<@mesh, P(None, "model")>})
    -> (tensor<{R}x{N}xf32> {garray.name = "h"},
        tensor<f32> {garray.name = "m"}) {
  %h = garray.dot_general %X, %W, batch = [] x [], contracting = [1] x [0]
      : (tensor<{R}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{R}x{N}xf32>
  %m = garray.mean %h, dims = [0, 1] : (tensor<{R}x{N}xf32>) -> tensor<f32>
  return %h, %m : tensor<{R}x{N}xf32>, tensor<f32>
}
)";

const char *kModelB = R"(// B: the contracting dimension split over "model".
garray.mesh @mesh ["data" = 2, "model" = 2]

func.func @main(
    %X: tensor<{R}x{K}xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
    %W: tensor<{K}x{N}xf32> {garray.name = "W", garray.sharding = #garray.sharding<@mesh, P("model", None)>})
    -> (tensor<{R}x{N}xf32> {garray.name = "h"},
        tensor<{R}xf32> {garray.name = "rowmax"},
        tensor<f32> {garray.name = "m"}) {
  %h = garray.dot_general %X, %W, batch = [] x [], contracting = [1] x [0]
      : (tensor<{R}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{R}x{N}xf32>
  %t = garray.tanh %h : tensor<{R}x{N}xf32>
  %rowmax = garray.reduce <max> %t, dims = [1] : (tensor<{R}x{N}xf32>) -> tensor<{R}xf32>
  %m = garray.mean %t, dims = [0, 1] : (tensor<{R}x{N}xf32>) -> tensor<f32>
  return %h, %rowmax, %m : tensor<{R}x{N}xf32>, tensor<{R}xf32>, tensor<f32>
}
)";

const char *kModelC = R"(// C: softmax over classes split over "model", with a bias.
garray.mesh @mesh ["data" = 2, "model" = 2]

func.func @main(
    %X: tensor<{R}x{K}xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %W: tensor<{K}x{N}xf32> {garray.name = "W", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
    %b: tensor<{N}xf32> {garray.name = "b", garray.sharding = #garray.sharding<@mesh, P("model")>})
    -> (tensor<{R}x{N}xf32> {garray.name = "p"},
        tensor<{R}xf32> {garray.name = "lse"}) {
  %h0 = garray.dot_general %X, %W, batch = [] x [], contracting = [1] x [0]
      : (tensor<{R}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{R}x{N}xf32>
  %bb = garray.broadcast_in_dim %b, dims = [1] : (tensor<{N}xf32>) -> tensor<{R}x{N}xf32>
  %h = garray.add %h0, %bb : tensor<{R}x{N}xf32>
  %mx = garray.reduce <max> %h, dims = [1] : (tensor<{R}x{N}xf32>) -> tensor<{R}xf32>
  %mxb = garray.broadcast_in_dim %mx, dims = [0] : (tensor<{R}xf32>) -> tensor<{R}x{N}xf32>
  %z = garray.sub %h, %mxb : tensor<{R}x{N}xf32>
  %e = garray.exp %z : tensor<{R}x{N}xf32>
  %s = garray.reduce <sum> %e, dims = [1] : (tensor<{R}x{N}xf32>) -> tensor<{R}xf32>
  %sb = garray.broadcast_in_dim %s, dims = [0] : (tensor<{R}xf32>) -> tensor<{R}x{N}xf32>
  %p = garray.div %e, %sb : tensor<{R}x{N}xf32>
  %ls = garray.log %s : tensor<{R}xf32>
  %lse = garray.add %ls, %mx : tensor<{R}xf32>
  return %p, %lse : tensor<{R}x{N}xf32>, tensor<{R}xf32>
}
)";

std::string sized(const char *text, int64_t rows = kRows, int64_t k = kK, int64_t n = kN) {
  return subst(text, {{"R", std::to_string(rows)}, {"K", std::to_string(k)}, {"N", std::to_string(n)}});
}

double mean(const std::vector<double> &v) {
  double s = 0;
  for (double x : v)
    s += x;
  return s / static_cast<double>(v.size());
}

Inputs randomInputs(uint32_t seed, bool withBias = false) {
  Rng rng(seed);
  Inputs in;
  in["X"] = rng.array({kRows, kK}, -1.0f, 1.0f);
  in["W"] = rng.array({kK, kN}, -1.0f, 1.0f);
  if (withBias)
    in["b"] = rng.array({kN}, -1.0f, 1.0f);
  return in;
}

struct Mesh2D {
  int64_t data, model;
  std::string str() const {
    return "data=" + std::to_string(data) + ",model=" + std::to_string(model);
  }
};

const std::vector<Mesh2D> kMeshes = {{1, 1}, {2, 1}, {1, 2}, {2, 2}, {4, 2}, {3, 2}, {3, 3}};

void checkReplicas(const RunOutcome &r) {
  for (const auto &[name, diff] : r.replicaDiffs) {
    INFO("replicas of output " << name);
    CHECK(diff == 0.0);
  }
}

/// Runs `model` on every mesh in `meshes` for several draws; `check` compares
/// one run with the reference, and every run is compared with the 1x1 run.
template <typename Check>
void runEverywhere(const std::string &model, const std::string &name,
                   const std::vector<Mesh2D> &meshes, bool withBias, Check check) {
  std::vector<Compiled> compiled;
  for (const Mesh2D &m : meshes) {
    compiled.push_back(compile(model, m.str(), name));
    INFO(name << " --mesh " << m.str() << "\n" << compiled.back().diagnostics);
    REQUIRE(compiled.back().ok);
    CHECK(compiled.back().signature.mesh.deviceCount() == m.data * m.model);
  }
  for (uint32_t seed : {51u, 52u, 53u}) {
    Inputs in = randomInputs(seed, withBias);
    RunOutcome one;
    for (size_t i = 0; i < meshes.size(); ++i) {
      INFO(name << " --mesh " << meshes[i].str() << ", seed " << seed);
      RunOutcome r = run(compiled[i], in);
      REQUIRE(r.error == "");
      check(r, in);
      checkReplicas(r);
      if (i == 0) {
        one = std::move(r);
        continue;
      }
      for (const auto &[out, array] : one.outputs) {
        INFO("vs the 1x1 run");
        CHECK(mismatchArrays(out, r.outputs.at(out), array) == "");
      }
    }
  }
}

} // namespace

TEST_CASE("2-D mesh, model A: X P(data, None) @ W P(None, model), then mean over both dims",
          "[exec][mesh2d]") {
  runEverywhere(sized(kModelA), "model_a.mlir", kMeshes, false,
                [](const RunOutcome &r, const Inputs &in) {
                  std::vector<double> h = matmulReference(in.at("X"), in.at("W"));
                  CHECK(mismatch("h", r.outputs.at("h"), {kRows, kN}, h) == "");
                  CHECK(mismatch("m", r.outputs.at("m"), {}, {mean(h)}) == "");
                });
}

TEST_CASE("2-D mesh, model A: h is split over both axes, m is replicated, one all-reduce",
          "[exec][mesh2d]") {
  Compiled c = compile(sized(kModelA), "data=2,model=2", "model_a.mlir");
  INFO(c.diagnostics);
  REQUIRE(c.ok);
  REQUIRE(c.signature.outputs.size() == 2);
  CHECK(c.signature.outputs[0].name == "h");
  CHECK(c.signature.outputs[0].localShape == std::vector<int64_t>{kRows / 2, kN / 2});
  CHECK(c.signature.outputs[1].name == "m");
  // The scalar mean: local sums, one all-reduce over both axes, divided once
  // by the global count.
  REQUIRE(c.signature.collectives.size() == 1);
  CHECK(c.signature.collectives[0].kind == "all_reduce");
  CHECK(c.signature.collectives[0].groupSize == 4);
}

TEST_CASE("2-D mesh, model B: contracting dim split over model; tanh, row max, mean",
          "[exec][mesh2d]") {
  // K = 4 splits over model ∈ {1, 2}; 3×2 is the uneven count here.
  std::vector<Mesh2D> meshes = {{1, 1}, {2, 1}, {1, 2}, {2, 2}, {4, 2}, {3, 2}, {3, 1}};
  runEverywhere(sized(kModelB), "model_b.mlir", meshes, false,
                [](const RunOutcome &r, const Inputs &in) {
                  std::vector<double> h = matmulReference(in.at("X"), in.at("W"));
                  std::vector<double> t(h.size()), rowmax(kRows, -INFINITY);
                  for (size_t i = 0; i < h.size(); ++i)
                    t[i] = std::tanh(h[i]);
                  for (int64_t i = 0; i < kRows; ++i)
                    for (int64_t j = 0; j < kN; ++j)
                      rowmax[i] = std::max(rowmax[i], t[i * kN + j]);
                  CHECK(mismatch("h", r.outputs.at("h"), {kRows, kN}, h) == "");
                  CHECK(mismatch("rowmax", r.outputs.at("rowmax"), {kRows}, rowmax) == "");
                  CHECK(mismatch("m", r.outputs.at("m"), {}, {mean(t)}) == "");
                });
}

TEST_CASE("2-D mesh, model C: softmax and log-sum-exp over model-split classes",
          "[exec][mesh2d]") {
  runEverywhere(sized(kModelC), "model_c.mlir", kMeshes, true,
                [](const RunOutcome &r, const Inputs &in) {
                  std::vector<double> h = matmulReference(in.at("X"), in.at("W"));
                  std::vector<double> p(h.size()), lse(kRows);
                  for (int64_t i = 0; i < kRows; ++i) {
                    double mx = -INFINITY, s = 0;
                    for (int64_t j = 0; j < kN; ++j) {
                      h[i * kN + j] += in.at("b").at(j);
                      mx = std::max(mx, h[i * kN + j]);
                    }
                    for (int64_t j = 0; j < kN; ++j)
                      s += std::exp(h[i * kN + j] - mx);
                    for (int64_t j = 0; j < kN; ++j)
                      p[i * kN + j] = std::exp(h[i * kN + j] - mx) / s;
                    lse[i] = std::log(s) + mx;
                  }
                  CHECK(mismatch("p", r.outputs.at("p"), {kRows, kN}, p) == "");
                  CHECK(mismatch("lse", r.outputs.at("lse"), {kRows}, lse) == "");
                });
}

// E: nothing is placed on "model". The axis is idle, so the rows split over
// "data" are split over "model" too (garray-split-idle-axes) where they
// divide: the two "model" devices each take half a "data" block instead of
// both doing all of it. The weight is state (an output of the same name):
// it stays replicated, and its gradient is reduced over both axes.
const char *kModelE = R"(// E: a data-parallel step on a mesh with an idle "model" axis.
garray.mesh @mesh ["data" = 2, "model" = 2]

func.func @main(
    %X: tensor<{R}x{K}xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %W: tensor<{K}x{N}xf32> {garray.name = "W", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<{R}x{N}xf32> {garray.name = "h", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
        tensor<{K}x{N}xf32> {garray.name = "W", garray.sharding = #garray.sharding<@mesh, P()>},
        tensor<f32> {garray.name = "m"}) {
  %h = garray.dot_general %X, %W, batch = [] x [], contracting = [1] x [0]
      : (tensor<{R}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{R}x{N}xf32>
  %g = garray.dot_general %X, %h, batch = [] x [], contracting = [0] x [0]
      : (tensor<{R}x{K}xf32>, tensor<{R}x{N}xf32>) -> tensor<{K}x{N}xf32>
  %lr = garray.constant dense<0.1> : tensor<{K}x{N}xf32>
  %step = garray.mul %g, %lr : tensor<{K}x{N}xf32>
  %W1 = garray.sub %W, %step : tensor<{K}x{N}xf32>
  %m = garray.mean %h, dims = [0, 1] : (tensor<{R}x{N}xf32>) -> tensor<f32>
  return %h, %W1, %m : tensor<{R}x{N}xf32>, tensor<{K}x{N}xf32>, tensor<f32>
}
)";

TEST_CASE("2-D mesh, model E: an idle model axis splits the data-split rows",
          "[exec][mesh2d]") {
  runEverywhere(sized(kModelE), "model_e.mlir", kMeshes, false,
                [](const RunOutcome &r, const Inputs &in) {
                  std::vector<double> h = matmulReference(in.at("X"), in.at("W"));
                  std::vector<double> w1(kK * kN);
                  for (int64_t k = 0; k < kK; ++k)
                    for (int64_t n = 0; n < kN; ++n) {
                      double g = 0;
                      for (int64_t i = 0; i < kRows; ++i)
                        g += double(in.at("X").at(i * kK + k)) * h[i * kN + n];
                      w1[k * kN + n] = in.at("W").at(k * kN + n) - 0.1 * g;
                    }
                  CHECK(mismatch("h", r.outputs.at("h"), {kRows, kN}, h) == "");
                  CHECK(mismatch("W", r.outputs.at("W"), {kK, kN}, w1) == "");
                  CHECK(mismatch("m", r.outputs.at("m"), {}, {mean(h)}) == "");
                });
  // Where the rows divide into data x model blocks, the input is sliced
  // over "model" (no bytes move) and the result gathered back over it;
  // where they do not (4x2: 12 rows in 8 blocks), nothing is split further.
  for (const Mesh2D &m : {Mesh2D{2, 2}, Mesh2D{3, 2}, Mesh2D{1, 3}, Mesh2D{4, 2}}) {
    Compiled c = compile(sized(kModelE), m.str(), "model_e.mlir");
    INFO("--mesh " << m.str() << "\n" << c.diagnostics);
    REQUIRE(c.ok);
    int slices = 0, gathers = 0;
    for (const shardc::CollectiveRecord &col : c.signature.collectives) {
      INFO(col.kind << " at " << col.location << ": " << col.reason);
      if (col.kind == "all_slice") {
        ++slices;
        CHECK(col.axes == std::vector<std::string>{"model"});
        CHECK(col.bytesPerDevice == 0);
        CHECK(col.reason.find("\"model\" is idle") != std::string::npos);
      }
      if (col.kind == "all_gather")
        ++gathers;
      if (col.kind == "all_reduce" && kRows % (m.data * m.model) == 0)
        CHECK(col.groupSize == m.data * m.model);
    }
    bool divides = kRows % (m.data * m.model) == 0;
    CHECK(slices == (divides ? 1 : 0));
    CHECK(gathers == (divides ? 1 : 0));
  }
}

//===----------------------------------------------------------------------===//
// Sharded constants: a garray.constant whose propagated sharding splits it
// must be localised by global-to-local (local value and local result type
// agree, so the verifier accepts it, and each device holds its own slice).
//===----------------------------------------------------------------------===//

// The constant is the global count (dense<12.0> : tensor<6xf32>) that
// garray-decompose makes for `mean dims = [0]`; it inherits "model" from the
// mean's result, so on every mesh with model > 1 it is split. Checks the
// column mean against the reference on every mesh.
TEST_CASE("2-D mesh, column mean of h (result split over model)", "[exec][mesh2d]") {
  const char *kModelD = R"(// D: the mean over rows keeps the model-split columns.
garray.mesh @mesh ["data" = 2, "model" = 2]

func.func @main(
    %X: tensor<{R}x{K}xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %W: tensor<{K}x{N}xf32> {garray.name = "W", garray.sharding = #garray.sharding<@mesh, P(None, "model")>})
    -> (tensor<{N}xf32> {garray.name = "colmean"}) {
  %h = garray.dot_general %X, %W, batch = [] x [], contracting = [1] x [0]
      : (tensor<{R}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{R}x{N}xf32>
  %colmean = garray.mean %h, dims = [0] : (tensor<{R}x{N}xf32>) -> tensor<{N}xf32>
  return %colmean : tensor<{N}xf32>
}
)";
  runEverywhere(sized(kModelD), "model_d.mlir", kMeshes, false,
                [](const RunOutcome &r, const Inputs &in) {
                  std::vector<double> h = matmulReference(in.at("X"), in.at("W"));
                  std::vector<double> colmean(kN, 0.0);
                  for (int64_t i = 0; i < kRows; ++i)
                    for (int64_t j = 0; j < kN; ++j)
                      colmean[j] += h[i * kN + j] / kRows;
                  CHECK(mismatch("colmean", r.outputs.at("colmean"), {kN}, colmean) == "");
                });
}

// The smallest form: an elementwise product of a sharded value with a
// constant. Propagation gives the constant P("data"), so on data=2 its local
// form is a tensor<4xf32> holding that device's half. Checked with a splat
// and a non-splat constant (whose slices differ per device) on 1, 2, 4 and 8
// ranks.
TEST_CASE("sharded value times a constant (splat and non-splat)", "[exec]") {
  const char *kScale = R"(garray.mesh @mesh ["data" = 2]

func.func @main(
    %y: tensor<8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<8xf32> {garray.name = "z"}) {
  %c = garray.constant {CONST} : tensor<8xf32>
  %z = garray.mul %y, %c : tensor<8xf32>
  return %z : tensor<8xf32>
}
)";
  Rng rng(61);
  Inputs in;
  in["y"] = rng.array({8}, -1.0f, 1.0f);
  struct Case {
    const char *constant;
    std::vector<double> values;
  };
  for (const Case &k :
       {Case{"dense<0.5>", std::vector<double>(8, 0.5)},
        Case{"dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]>", {1, 2, 3, 4, 5, 6, 7, 8}}}) {
    std::string model = subst(kScale, {{"CONST", k.constant}});
    for (int64_t ranks : {1, 2, 4, 8}) {
      INFO("constant " << k.constant << ", --mesh data=" << ranks);
      RunOutcome r = compileAndRun(model, "data=" + std::to_string(ranks), in, "scale.mlir");
      INFO(r.error);
      REQUIRE(r.ok);
      std::vector<double> z(8);
      for (int i = 0; i < 8; ++i)
        z[i] = in["y"].at(i) * k.values[i];
      CHECK(mismatch("z", r.outputs.at("z"), {8}, z) == "");
    }
  }
}
