//===- ReshardTest.cpp - reshards through the planner's collectives -------===//
//
// Models whose sharding_constraints force a reshard that the planner turns
// into all_to_all, collective_permute or reduce_scatter (not gather-then-
// slice), compiled for 1, 2, 4, 8 ranks and for 2x2 / 2x4 / 4x2 meshes, run
// on a threads world and checked against a double-precision reference and
// against the 1-rank run. Each case also pins which collectives the
// partitioned program holds (from the compiled signature, which is what the
// report and manifest print), so a regression to all_gather shows up here.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

constexpr int64_t kN = 8; // every mesh below divides it

// A: one axis moves from dim 0 to dim 1.
const char *kAllToAll = R"(garray.mesh @mesh ["x" = 2]
func.func @main(%X: tensor<8x8xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("x", None)>})
    -> (tensor<8x8xf32> {garray.name = "Y"}) {
  %e = garray.exp %X : tensor<8x8xf32>
  %t = garray.sharding_constraint %e : tensor<8x8xf32> to #garray.sharding<@mesh, P(None, "x")>
  %y = garray.tanh %t : tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
)";

// B: one dimension over two axes, in both orders, and both axes moved to
// the other dim.
const char *kMultiAxis = R"(garray.mesh @mesh ["x" = 2, "y" = 2]
func.func @main(%X: tensor<8x8xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P(("x", "y"), None)>})
    -> (tensor<8x8xf32> {garray.name = "Y"}, tensor<8x8xf32> {garray.name = "Z"}) {
  %e = garray.exp %X : tensor<8x8xf32>
  %t = garray.sharding_constraint %e : tensor<8x8xf32> to #garray.sharding<@mesh, P(("y", "x"), None)>
  %y = garray.tanh %t : tensor<8x8xf32>
  %u = garray.sharding_constraint %e : tensor<8x8xf32> to #garray.sharding<@mesh, P(None, ("x", "y"))>
  %z = garray.neg %u : tensor<8x8xf32>
  return %y, %z : tensor<8x8xf32>, tensor<8x8xf32>
}
)";

// C: a dot contracting over a sharded dim (a pending sum), constrained to be
// sharded: all_reduce + all_slice fused into one reduce_scatter. The first
// constraint keeps propagation from pulling P("x", None) back into the dot
// (which would rather reshard X and W, see docs/decisions.md); the pending
// value is reduced for it and then sliced, two reshards that
// reshard-to-collectives plans as one.
const char *kReduceScatter = R"(garray.mesh @mesh ["x" = 2]
func.func @main(%X: tensor<8x8xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P(None, "x")>},
                %W: tensor<8x8xf32> {garray.name = "W", garray.sharding = #garray.sharding<@mesh, P("x", None)>})
    -> (tensor<8x8xf32> {garray.name = "h"}) {
  %h0 = garray.dot_general %X, %W, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = garray.sharding_constraint %h0 : tensor<8x8xf32> to #garray.sharding<@mesh, P(None, None)>
  %h = garray.sharding_constraint %r : tensor<8x8xf32> to #garray.sharding<@mesh, P("x", None)>
  return %h : tensor<8x8xf32>
}
)";

// C on a 2-D mesh: rows over "data", the contraction over "model", the
// result's columns scattered over "model".
const char *kReduceScatter2D = R"(garray.mesh @mesh ["data" = 2, "model" = 2]
func.func @main(%X: tensor<8x8xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
                %W: tensor<8x8xf32> {garray.name = "W", garray.sharding = #garray.sharding<@mesh, P("model", None)>})
    -> (tensor<8x8xf32> {garray.name = "h"}) {
  %h0 = garray.dot_general %X, %W, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = garray.sharding_constraint %h0 : tensor<8x8xf32> to #garray.sharding<@mesh, P("data", None)>
  %h = garray.sharding_constraint %r : tensor<8x8xf32> to #garray.sharding<@mesh, P("data", "model")>
  return %h : tensor<8x8xf32>
}
)";

// D: a dim moved from one mesh axis to the other (same block size).
const char *kMoveAxis = R"(garray.mesh @mesh ["x" = 2, "y" = 2]
func.func @main(%X: tensor<8x8xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("x", None)>})
    -> (tensor<8x8xf32> {garray.name = "Y"}) {
  %e = garray.exp %X : tensor<8x8xf32>
  %t = garray.sharding_constraint %e : tensor<8x8xf32> to #garray.sharding<@mesh, P("y", None)>
  %y = garray.tanh %t : tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
)";

using Reference = std::function<std::map<std::string, std::vector<double>>(const Inputs &)>;

std::vector<double> map(const F32Array &a, double (*f)(double)) {
  std::vector<double> v;
  for (float x : a.values)
    v.push_back(f(static_cast<double>(x)));
  return v;
}

/// Compiles `model` for every mesh (the first must be the 1-rank one), runs
/// two draws of inputs named `inputNames`, and compares every output with
/// the reference and with the 1-rank run; replicas must agree.
void runEverywhere(const std::string &model, const std::vector<std::string> &meshes,
                   const std::vector<std::string> &inputNames, const Reference &reference,
                   int64_t rows = kN, int64_t cols = -1) {
  if (cols < 0)
    cols = rows; // square
  std::vector<Compiled> compiled;
  for (const std::string &m : meshes) {
    compiled.push_back(compile(model, m, "reshard.mlir"));
    INFO("--mesh " << m << "\n" << compiled.back().diagnostics);
    REQUIRE(compiled.back().ok);
  }
  for (uint32_t seed : {7u, 8u}) {
    Rng rng(seed);
    Inputs in;
    for (const std::string &name : inputNames)
      in[name] = rng.array({rows, cols}, -1.0f, 1.0f);
    auto want = reference(in);
    RunOutcome one;
    for (size_t i = 0; i < meshes.size(); ++i) {
      INFO("--mesh " << meshes[i] << ", seed " << seed);
      RunOutcome r = run(compiled[i], in);
      REQUIRE(r.error == "");
      for (const auto &[name, values] : want)
        CHECK(mismatch(name, r.outputs.at(name), {rows, cols}, values, {1e-5, 1e-5}) == "");
      for (const auto &[name, diff] : r.replicaDiffs) {
        INFO("replicas of " << name);
        CHECK(diff == 0.0);
      }
      if (i == 0) {
        one = std::move(r);
        continue;
      }
      for (const auto &[name, array] : one.outputs) {
        INFO("vs the 1-rank run");
        CHECK(mismatchArrays(name, r.outputs.at(name), array) == "");
      }
    }
  }
}

std::vector<std::string> kinds(const Compiled &c) {
  std::vector<std::string> k;
  for (const shardc::CollectiveRecord &r : c.signature.collectives)
    k.push_back(r.kind);
  return k;
}

/// `model` with every 8x8 tensor made rows x cols (square models only use
/// elementwise ops and one square dot, so a rows x rows dot stays valid).
std::string resized(std::string model, int64_t rows, int64_t cols) {
  const std::string from = "tensor<8x8xf32>",
                    to = "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "xf32>";
  for (size_t at = model.find(from); at != std::string::npos; at = model.find(from, at + to.size()))
    model.replace(at, from.size(), to);
  return model;
}

int count(const std::vector<std::string> &v, const std::string &what) {
  return static_cast<int>(std::count(v.begin(), v.end(), what));
}

} // namespace

TEST_CASE("reshard: P(x, None) -> P(None, x) is one all_to_all on 1, 2, 4, 8 ranks",
          "[exec][reshard]") {
  runEverywhere(kAllToAll, {"x=1", "x=2", "x=4", "x=8"}, {"X"}, [](const Inputs &in) {
    std::vector<double> y = map(in.at("X"), [](double x) { return std::tanh(std::exp(x)); });
    return std::map<std::string, std::vector<double>>{{"Y", y}};
  });
  for (int64_t n : {2, 4, 8}) {
    Compiled c = compile(kAllToAll, "x=" + std::to_string(n), "a2a.mlir");
    INFO(n << " ranks\n" << c.diagnostics);
    REQUIRE(c.ok);
    REQUIRE(kinds(c) == std::vector<std::string>{"all_to_all"});
    const shardc::CollectiveRecord &r = c.signature.collectives[0];
    CHECK(r.axes == std::vector<std::string>{"x"});
    CHECK(r.groupSize == n);
    // (n-1)/n of the local [8/n, 8] f32 block.
    CHECK(r.bytesPerDevice == (n - 1) * (kN / n * kN * 4) / n);
    CHECK(r.reason.rfind("garray.sharding_constraint at a2a.mlir:", 0) == 0);
    CHECK(r.reason.find(": has P(\"x\", None), needs P(None, \"x\")") != std::string::npos);
  }
}

TEST_CASE("reshard: all_to_all and reduce_scatter on 3 and 6 ranks ([12, 12])",
          "[exec][reshard]") {
  auto resized = [](std::string text) {
    for (size_t at; (at = text.find("8x8")) != std::string::npos;)
      text.replace(at, 3, "12x12");
    return text;
  };
  runEverywhere(resized(kAllToAll), {"x=1", "x=3", "x=6"}, {"X"}, [](const Inputs &in) {
    return std::map<std::string, std::vector<double>>{
        {"Y", map(in.at("X"), [](double x) { return std::tanh(std::exp(x)); })}};
  }, 12);
  runEverywhere(resized(kReduceScatter), {"x=1", "x=3", "x=6"}, {"X", "W"},
                [](const Inputs &in) {
                  return std::map<std::string, std::vector<double>>{
                      {"h", matmulReference(in.at("X"), in.at("W"))}};
                },
                12);
  for (const char *mesh : {"x=3", "x=6"}) {
    INFO(mesh);
    CHECK(kinds(compile(resized(kAllToAll), mesh, "a2a12.mlir")) ==
          std::vector<std::string>{"all_to_all"});
    CHECK(kinds(compile(resized(kReduceScatter), mesh, "rs12.mlir")) ==
          std::vector<std::string>{"reduce_scatter"});
  }
}

TEST_CASE("reshard: uneven dims ([10, 10] on 2x2 and 2x4): permutes of padded blocks, "
          "all_to_all only where the blocks divide exactly",
          "[exec][reshard][uneven]") {
  std::string text = kMultiAxis;
  for (size_t at; (at = text.find("8x8")) != std::string::npos;)
    text.replace(at, 3, "10x10");
  runEverywhere(text, {"x=1,y=1", "x=2,y=2", "x=2,y=4", "x=4,y=2"}, {"X"},
                [](const Inputs &in) {
                  return std::map<std::string, std::vector<double>>{
                      {"Y", map(in.at("X"), [](double x) { return std::tanh(std::exp(x)); })},
                      {"Z", map(in.at("X"), [](double x) { return -std::exp(x); })}};
                },
                10);
  Compiled c = compile(text, "x=2,y=2", "uneven.mlir");
  INFO(c.diagnostics);
  REQUIRE(c.ok);
  std::vector<std::string> k = kinds(c);
  CHECK(count(k, "collective_permute") == 1); // 10 rows in 4 blocks of 3 both ways
  // dim 0 -> dim 1 over both axes would cut 4 x 3 padded rows into 10:
  // instead gather "y" (blocks 3 -> 5), all_to_all "x" (5 x 2 = 10 exactly),
  // slice "y". Blocks of 5 do not split into 2 x 3, so global-to-local
  // takes that slice through the whole dim (gather "x", then slice), and the
  // report lists that gather too.
  CHECK(k == std::vector<std::string>{"collective_permute", "all_gather", "all_to_all",
                                      "all_gather", "all_slice"});
  for (const shardc::CollectiveRecord &r : c.signature.collectives)
    if (r.kind == "all_to_all")
      CHECK(r.localInType == "tensor<5x10xf32>");
}

TEST_CASE("reshard: one dim over two axes, in both orders, on 2x2, 2x4 and 4x2 meshes",
          "[exec][reshard]") {
  runEverywhere(kMultiAxis, {"x=1,y=1", "x=2,y=2", "x=2,y=4", "x=4,y=2"}, {"X"},
                [](const Inputs &in) {
                  return std::map<std::string, std::vector<double>>{
                      {"Y", map(in.at("X"), [](double x) { return std::tanh(std::exp(x)); })},
                      {"Z", map(in.at("X"), [](double x) { return -std::exp(x); })}};
                });
  for (const std::string &mesh : {"x=2,y=2", "x=2,y=4"}) {
    Compiled c = compile(kMultiAxis, mesh, "multi_axis.mlir");
    INFO(mesh << "\n" << c.diagnostics);
    REQUIRE(c.ok);
    std::vector<std::string> k = kinds(c);
    // ("x","y") -> ("y","x"): a permute; dim 0 -> dim 1 over both: an
    // all_to_all. Nothing is gathered.
    CHECK(count(k, "collective_permute") == 1);
    CHECK(count(k, "all_to_all") == 1);
    CHECK(count(k, "all_gather") == 0);
    for (const shardc::CollectiveRecord &r : c.signature.collectives)
      if (r.kind == "collective_permute") {
        CHECK(r.bytesPerDevice == kN * kN * 4 / c.signature.mesh.deviceCount());
        CHECK(r.groupSize == c.signature.mesh.deviceCount());
      }
  }
}

TEST_CASE("reshard: a sharded-contraction dot constrained to be sharded is a reduce_scatter",
          "[exec][reshard]") {
  runEverywhere(kReduceScatter, {"x=1", "x=2", "x=4", "x=8"}, {"X", "W"}, [](const Inputs &in) {
    return std::map<std::string, std::vector<double>>{{"h", matmulReference(in.at("X"), in.at("W"))}};
  });
  for (int64_t n : {2, 4, 8}) {
    Compiled c = compile(kReduceScatter, "x=" + std::to_string(n), "rs.mlir");
    INFO(n << " ranks\n" << c.diagnostics);
    REQUIRE(c.ok);
    REQUIRE(kinds(c) == std::vector<std::string>{"reduce_scatter"});
    // (n-1)/n of the local [8, 8] f32 partial, half of all_reduce's bytes.
    CHECK(c.signature.collectives[0].bytesPerDevice == (n - 1) * (kN * kN * 4) / n);
    CHECK(c.signature.collectives[0].groupSize == n);
  }
}

TEST_CASE("reshard: reduce_scatter over one axis of a 2-D mesh", "[exec][reshard]") {
  runEverywhere(kReduceScatter2D, {"data=1,model=1", "data=2,model=2", "data=2,model=4",
                                   "data=4,model=2"},
                {"X", "W"}, [](const Inputs &in) {
                  return std::map<std::string, std::vector<double>>{
                      {"h", matmulReference(in.at("X"), in.at("W"))}};
                });
  Compiled c = compile(kReduceScatter2D, "data=2,model=4", "rs2d.mlir");
  INFO(c.diagnostics);
  REQUIRE(c.ok);
  REQUIRE(kinds(c) == std::vector<std::string>{"reduce_scatter"});
  CHECK(c.signature.collectives[0].axes == std::vector<std::string>{"model"});
  CHECK(c.signature.collectives[0].groupSize == 4);
}

TEST_CASE("reshard: a dim moved from mesh axis x to y is a collective_permute",
          "[exec][reshard]") {
  runEverywhere(kMoveAxis, {"x=1,y=1", "x=2,y=2", "x=2,y=4", "x=4,y=2"}, {"X"},
                [](const Inputs &in) {
                  return std::map<std::string, std::vector<double>>{
                      {"Y", map(in.at("X"), [](double x) { return std::tanh(std::exp(x)); })}};
                });
  Compiled c = compile(kMoveAxis, "x=2,y=2", "move.mlir");
  INFO(c.diagnostics);
  REQUIRE(c.ok);
  CHECK(kinds(c) == std::vector<std::string>{"collective_permute"});
}

TEST_CASE("reshard: the report's and manifest's bytes follow from the comm ops' local types",
          "[exec][reshard][report]") {
  struct Case {
    const char *model;
    std::string mesh;
  };
  const std::vector<Case> cases = {
      {kAllToAll, "x=4"},          {kMultiAxis, "x=2,y=2"},        {kMultiAxis, "x=2,y=4"},
      {kReduceScatter, "x=8"},     {kReduceScatter2D, "data=2,model=4"},
      {kMoveAxis, "x=2,y=2"},      {kMoveAxis, "x=2,y=4"},
  };
  for (const Case &c : cases) {
    Compiled compiled = compile(c.model, c.mesh, "report.mlir");
    INFO("--mesh " << c.mesh << "\n" << compiled.diagnostics);
    REQUIRE(compiled.ok);
    REQUIRE_FALSE(compiled.signature.collectives.empty());
    for (const shardc::CollectiveRecord &r : compiled.signature.collectives) {
      INFO(r.kind << " " << r.localInType << " -> " << r.localOutType);
      REQUIRE(r.localInBytes > 0);
      REQUIRE(r.localOutBytes > 0);
      const int64_t n = r.groupSize, in = r.localInBytes, out = r.localOutBytes;
      int64_t want = -1;
      if (r.kind == "all_reduce")
        want = 2 * (n - 1) * in / n;
      else if (r.kind == "all_gather")
        want = (n - 1) * out / n;
      else if (r.kind == "reduce_scatter" || r.kind == "all_to_all")
        want = (n - 1) * in / n;
      else if (r.kind == "collective_permute")
        want = in;
      else if (r.kind == "all_slice")
        want = 0;
      CHECK(r.bytesPerDevice == want);
      // The local shapes are what the op does: a scatter divides by the
      // group, an all_to_all and a permute keep the byte count.
      if (r.kind == "reduce_scatter")
        CHECK(in == out * n);
      if (r.kind == "all_to_all" || r.kind == "collective_permute")
        CHECK(in == out);
      CHECK_FALSE(r.location.empty());
      CHECK_FALSE(r.reason.empty());
      CHECK_FALSE(r.axes.empty());
    }
    // The manifest keeps the schedule, in program order, with every field.
    std::string text = shardc::writeManifest(compiled.signature, "model.o", compiled.object);
    shardc::Signature back;
    shardc::ManifestObject object;
    std::string error;
    REQUIRE(shardc::readManifest(text, back, object, error));
    REQUIRE(back.collectives.size() == compiled.signature.collectives.size());
    for (size_t i = 0; i < back.collectives.size(); ++i) {
      const shardc::CollectiveRecord &a = compiled.signature.collectives[i], &b = back.collectives[i];
      CHECK(a.kind == b.kind);
      CHECK(a.location == b.location);
      CHECK(a.axes == b.axes);
      CHECK(a.groupSize == b.groupSize);
      CHECK(a.bytesPerDevice == b.bytesPerDevice);
      CHECK(a.localInType == b.localInType);
      CHECK(a.localOutBytes == b.localOutBytes);
      CHECK(a.reason == b.reason);
    }
    std::string report = shardc::formatReport(compiled.signature);
    for (const shardc::CollectiveRecord &r : compiled.signature.collectives)
      CHECK(report.find("local: " + r.localInType + " -> " + r.localOutType) != std::string::npos);
  }
}

TEST_CASE("reshard: uneven shapes, where blocks do not nest, stay exact", "[exec][reshard]") {
  // 5x7 and 7x5 over 2, 3, 4 devices: the planner must not use an
  // all_to_all or reduce_scatter whose blocks do not nest
  // (sharding/ReshardPlan.h); global-to-local pads and crops the rest.
  auto expTanh = [](const Inputs &in) {
    std::vector<double> v = map(in.at("X"), [](double x) { return std::exp(x); });
    for (double &x : v)
      x = std::tanh(x);
    return std::map<std::string, std::vector<double>>{{"Y", v}};
  };
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{5, 7}, {7, 5}}) {
    INFO(rows << "x" << cols);
    runEverywhere(resized(kAllToAll, rows, cols), {"x=1", "x=2", "x=3", "x=4"}, {"X"}, expTanh,
                  rows, cols);
    runEverywhere(resized(kMoveAxis, rows, cols), {"x=1,y=1", "x=2,y=2", "x=3,y=3"}, {"X"},
                  expTanh, rows, cols);
  }
  auto dot = [](const Inputs &in) {
    return std::map<std::string, std::vector<double>>{{"h", matmulReference(in.at("X"), in.at("W"))}};
  };
  for (int64_t n : {5, 7})
    runEverywhere(resized(kReduceScatter, n, n), {"x=1", "x=2", "x=3", "x=4"}, {"X", "W"}, dot,
                  n, n);
}

namespace {
// Two pending scalar sums that one op needs whole (max is not linear): one
// all_reduce of both, packed, instead of two.
const char *kPackedScalars = R"(garray.mesh @mesh ["x" = 2]
func.func @main(%X: tensor<8x8xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("x", None)>},
                %M: tensor<8x8xf32> {garray.name = "M", garray.sharding = #garray.sharding<@mesh, P("x", None)>})
    -> (tensor<f32> {garray.name = "m"}) {
  %xm = garray.mul %X, %M : tensor<8x8xf32>
  %s = garray.reduce <sum> %xm, dims = [0, 1] : (tensor<8x8xf32>) -> tensor<f32>
  %c = garray.reduce <sum> %M, dims = [0, 1] : (tensor<8x8xf32>) -> tensor<f32>
  %m = garray.max %s, %c : tensor<f32>
  return %m : tensor<f32>
}
)";
} // namespace

TEST_CASE("pending scalars meeting at one op share one all_reduce, on 1, 2, 4, 8 ranks",
          "[exec][reshard][pack]") {
  std::vector<Compiled> compiled;
  for (int64_t n : {1, 2, 4, 8}) {
    compiled.push_back(compile(kPackedScalars, "x=" + std::to_string(n), "packed.mlir"));
    INFO(n << " ranks\n" << compiled.back().diagnostics);
    REQUIRE(compiled.back().ok);
    if (n > 1) {
      REQUIRE(kinds(compiled.back()) == std::vector<std::string>{"all_reduce"});
      const shardc::CollectiveRecord &r = compiled.back().signature.collectives[0];
      CHECK(r.valueType == "tensor<2xf32>");
      CHECK(r.bytesPerDevice == 2 * (n - 1) * 8 / n);
    }
  }
  for (uint32_t seed : {3u, 4u, 5u}) {
    Rng rng(seed);
    Inputs in{{"X", rng.array({kN, kN}, -1.0f, 1.0f)}, {"M", rng.array({kN, kN}, 0.0f, 1.0f)}};
    // A sum of the mask that sometimes exceeds the masked sum and sometimes
    // not, so both halves of the packed result are read.
    double s = 0, c = 0;
    for (int64_t i = 0; i < kN * kN; ++i) {
      s += double(in["X"].at(i)) * in["M"].at(i);
      c += in["M"].at(i);
    }
    for (size_t i = 0; i < compiled.size(); ++i) {
      INFO("mesh " << i << ", seed " << seed);
      RunOutcome r = run(compiled[i], in);
      REQUIRE(r.error == "");
      CHECK(mismatch("m", r.outputs.at("m"), {}, {std::max(s, c)}, {1e-5, 1e-5}) == "");
    }
    // And with the masked sum larger: scale X up.
    for (float &x : in["X"].values)
      x = std::abs(x) * 64;
    double s2 = 0;
    for (int64_t i = 0; i < kN * kN; ++i)
      s2 += double(in["X"].at(i)) * in["M"].at(i);
    REQUIRE(s2 > c);
    for (size_t i = 0; i < compiled.size(); ++i) {
      RunOutcome r = run(compiled[i], in);
      REQUIRE(r.error == "");
      CHECK(mismatch("m", r.outputs.at("m"), {}, {s2}, {1e-5, 1e-4}) == "");
    }
  }
}

namespace {
struct CommOpText {
  std::string kind, in, out;
};

/// Every communicating comm op of a printed local program, in order:
/// `comm.<kind> ... : tensor<..> -> tensor<..>` (all_slice and device_value
/// move nothing and are skipped).
std::vector<CommOpText> commOps(const std::string &local) {
  std::vector<CommOpText> ops;
  size_t at = 0;
  while ((at = local.find("comm.", at)) != std::string::npos) {
    size_t end = local.find('\n', at);
    std::string line = local.substr(at, end - at);
    at = end;
    std::string kind = line.substr(5, line.find(' ') - 5);
    if (kind == "all_slice" || kind == "device_value")
      continue;
    size_t colon = line.rfind(" : ");
    size_t arrow = line.find(" -> ", colon);
    if (colon == std::string::npos || arrow == std::string::npos)
      continue;
    ops.push_back({kind, line.substr(colon + 3, arrow - colon - 3), line.substr(arrow + 4)});
  }
  return ops;
}
} // namespace

TEST_CASE("reshard: the report's collectives are the local program's comm ops, even and uneven",
          "[exec][reshard][report]") {
  struct Case {
    std::string model, mesh;
  };
  std::vector<Case> cases = {
      {kAllToAll, "x=4"},           {kMultiAxis, "x=2,y=2"},   {kReduceScatter, "x=8"},
      {kReduceScatter2D, "data=2,model=4"}, {kMoveAxis, "x=2,y=4"},
      // Uneven: full gathers of padded blocks, and blocks that do not nest.
      {resized(kAllToAll, 5, 7), "x=2"}, {resized(kAllToAll, 7, 5), "x=3"},
      {resized(kAllToAll, 5, 5), "x=4"}, {resized(kMultiAxis, 5, 5), "x=2,y=2"},
      {resized(kMultiAxis, 10, 10), "x=2,y=4"}, {resized(kReduceScatter, 5, 5), "x=2"},
      {resized(kReduceScatter, 7, 7), "x=4"},  {resized(kMoveAxis, 5, 5), "x=3,y=3"},
  };
  for (const Case &c : cases) {
    Compiled compiled = compile(c.model, c.mesh, "report.mlir");
    Compiled local = compile(c.model, c.mesh, "report.mlir", shardc::Phase::Local);
    INFO("--mesh " << c.mesh << "\n" << c.model << "\n" << local.diagnostics);
    REQUIRE(compiled.ok);
    REQUIRE(local.ok);
    std::vector<CommOpText> ops = commOps(local.emitted);
    std::vector<const shardc::CollectiveRecord *> records;
    for (const shardc::CollectiveRecord &r : compiled.signature.collectives)
      if (r.kind != "all_slice")
        records.push_back(&r);
    INFO(local.emitted);
    REQUIRE(records.size() == ops.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      INFO("collective #" << i);
      CHECK(records[i]->kind == ops[i].kind);
      CHECK(records[i]->localInType == ops[i].in);
      CHECK(records[i]->localOutType == ops[i].out);
    }
  }
}

// A reshape whose result is constrained to a split of its minor factor
// (64 -> 8x8 with P(None, "x")): no layout of the flat operand holds that
// split as blocks, so the reshape runs whole and an all_slice follows (run
// with the result's split and the operand's whole layout, global-to-local
// would make an invalid reshape, 64 elements into 8x4). On 1, 2, 4, 8 and an
// uneven 3 ranks against the 1-rank run.
TEST_CASE("reshard: a reshape constrained on its minor factor runs whole, then slices",
          "[exec][reshard]") {
  const char *model = R"(garray.mesh @mesh ["x" = 2]
func.func @main(%X: tensor<8x8xf32> {garray.name = "X"}) -> (tensor<8x8xf32> {garray.name = "Y"}) {
  %f = garray.reshape %X : (tensor<8x8xf32>) -> tensor<64xf32>
  %r = garray.reshape %f : (tensor<64xf32>) -> tensor<8x8xf32>
  %c = garray.sharding_constraint %r : tensor<8x8xf32> to #garray.sharding<@mesh, P(None, "x")>
  %y = garray.tanh %c : tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
)";
  runEverywhere(model, {"x=1", "x=2", "x=4", "x=8", "x=3"}, {"X"}, [](const Inputs &in) {
    return std::map<std::string, std::vector<double>>{
        {"Y", map(in.at("X"), [](double x) { return std::tanh(x); })}};
  });
  CHECK(kinds(compile(model, "x=4", "rsminor.mlir")) == std::vector<std::string>{"all_slice"});
}

// The same through two dims: [8,8] -> [2,8,4] has factors z·a | b·c on the
// operand and z | a·b | c on the result. Constraining the result to
// P(None, ("q","r"), "s") splits a, b and c; a is minor to an unsplit z on
// the operand, and clearing it strands b (minor to a on the result), which
// strands c (minor to b on the operand): the block check repeats until
// nothing changes (a single pass would leave c split, and an invalid local
// reshape). On meshes of 1, 8, 4 and uneven 3x1x2 devices.
TEST_CASE("reshard: a reshape's block check repeats until nothing changes", "[exec][reshard]") {
  const char *model = R"(garray.mesh @mesh ["q" = 2, "r" = 2, "s" = 2]
func.func @main(%X: tensor<8x8xf32> {garray.name = "X"}) -> (tensor<8x8xf32> {garray.name = "Y"}) {
  %r = garray.reshape %X : (tensor<8x8xf32>) -> tensor<2x8x4xf32>
  %c = garray.sharding_constraint %r : tensor<2x8x4xf32> to #garray.sharding<@mesh, P(None, ("q", "r"), "s")>
  %t = garray.tanh %c : tensor<2x8x4xf32>
  %y = garray.reshape %t : (tensor<2x8x4xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
)";
  runEverywhere(model, {"q=1,r=1,s=1", "q=2,r=2,s=2", "q=2,r=1,s=2", "q=3,r=1,s=2"}, {"X"},
                [](const Inputs &in) {
                  return std::map<std::string, std::vector<double>>{
                      {"Y", map(in.at("X"), [](double x) { return std::tanh(x); })}};
                });
}
