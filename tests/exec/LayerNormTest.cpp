// samples/layer_norm.mlir on 1x1 .. 4x2 meshes with random inputs, against a
// double-precision reference and the 1-rank run: layer norm and variance are
// composites of the core ops, and their statistics must be the global ones.
#include "tests/exec/ExecHarness.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace shardc_test;

namespace {
constexpr int64_t kRows = 8, kCols = 16;

void reference(const Inputs &in, std::vector<double> &y, std::vector<double> &var) {
  const F32Array &x = in.at("x"), &gamma = in.at("gamma"), &beta = in.at("beta");
  y.assign(kRows * kCols, 0);
  var.assign(kRows, 0);
  for (int64_t i = 0; i < kRows; ++i) {
    double mu = 0;
    for (int64_t j = 0; j < kCols; ++j)
      mu += x.at(i, j);
    mu /= kCols;
    for (int64_t j = 0; j < kCols; ++j)
      var[i] += (x.at(i, j) - mu) * (x.at(i, j) - mu);
    var[i] /= kCols;
    double inv = 1.0 / std::sqrt(var[i] + 1e-5);
    for (int64_t j = 0; j < kCols; ++j)
      y[i * kCols + j] = (x.at(i, j) - mu) * inv * gamma.at(j) + beta.at(j);
  }
}
} // namespace

TEST_CASE("layer norm sample: global statistics on every mesh", "[exec][samples]") {
  std::string error;
  std::string text = readFile(runfile("samples/layer_norm.mlir"), error);
  REQUIRE(error.empty());
  for (uint32_t seed : {1u, 2u, 3u}) {
    Rng rng(seed);
    Inputs in;
    // A large common offset per row makes a one-pass variance lose digits;
    // the two-pass composite must not.
    in["x"] = rng.array({kRows, kCols}, 99.0f, 101.0f);
    in["gamma"] = rng.array({kCols}, 0.5f, 1.5f);
    in["beta"] = rng.array({kCols}, -1.0f, 1.0f);
    std::vector<double> y, var;
    reference(in, y, var);
    RunOutcome one = compileAndRun(text, "data=1,model=1", in, "layer_norm.mlir");
    INFO(one.error);
    REQUIRE(one.ok);
    for (const char *mesh : {"data=2,model=1", "data=1,model=2", "data=2,model=2",
                             "data=4,model=2", "data=2,model=4",
                             // uneven: 16 features over 3 (6,6,4) or 5 (4,4,4,4,0)
                             "data=3,model=3", "data=3,model=5"}) {
      INFO("seed " << seed << ", mesh " << mesh);
      RunOutcome r = compileAndRun(text, mesh, in, "layer_norm.mlir");
      INFO(r.error);
      REQUIRE(r.ok);
      CHECK(mismatch("var", r.outputs.at("var"), {kRows}, var, {1e-3, 1e-5}) == "");
      CHECK(mismatch("y", r.outputs.at("y"), {kRows, kCols}, y, {1e-3, 1e-3}) == "");
      CHECK(mismatchArrays("y vs 1 rank", r.outputs.at("y"), one.outputs.at("y"),
                           {1e-4, 1e-4}) == "");
      for (auto &[name, diff] : r.replicaDiffs)
        CHECK(diff == 0);
    }
  }
}
