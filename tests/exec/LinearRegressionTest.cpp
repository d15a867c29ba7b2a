//===- LinearRegressionTest.cpp - the seed, executed on N ranks -----------===//
//
// The seed (samples/linear_regression_step.mlir) and the same program with
// other sizes, compiled for 1, 2, 4, 8 ranks and uneven rank counts (3, 5, 6,
// 12 ranks, with row counts they divide), run on a threads world and checked
// against a double-precision C++ reference and against the 1-rank run:
//
//   r = X w - y,  loss = mean(r^2),  grad = (2/N) X^T r,  w_next = w - 0.1 grad
//
// Every run also checks that replicated outputs agree across replicas. All
// comparisons use tolerances (sharded sums add in a different order).
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"
#include "tests/exec/ModelText.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

const char *kSeedModel = "samples/linear_regression_step.mlir";

struct Reference {
  double loss = 0;
  std::vector<double> grad, wNext;
};

/// The global program in double precision, from the f32 inputs.
Reference reference(const F32Array &X, const F32Array &y, const F32Array &w) {
  int64_t n = X.shape[0], d = X.shape[1];
  std::vector<double> r(n);
  for (int64_t i = 0; i < n; ++i) {
    double pred = 0;
    for (int64_t j = 0; j < d; ++j)
      pred += static_cast<double>(X.at(i, j)) * w.at(j);
    r[i] = pred - y.at(i);
  }
  Reference ref;
  for (int64_t i = 0; i < n; ++i)
    ref.loss += r[i] * r[i];
  ref.loss /= static_cast<double>(n);
  ref.grad.assign(d, 0.0);
  for (int64_t j = 0; j < d; ++j) {
    for (int64_t i = 0; i < n; ++i)
      ref.grad[j] += static_cast<double>(X.at(i, j)) * r[i];
    ref.grad[j] *= 2.0 / static_cast<double>(n);
    ref.wNext.push_back(w.at(j) - 0.1 * ref.grad[j]);
  }
  return ref;
}

std::string dataMesh(int64_t ranks) { return "data=" + std::to_string(ranks); }

/// Checks one run against the reference; every output replicated, replicas
/// equal.
void checkRun(const RunOutcome &r, const Reference &ref, Tolerance tol = {}) {
  INFO("mesh " << describe(r));
  REQUIRE(r.error == "");
  REQUIRE(r.ok);
  int64_t d = static_cast<int64_t>(ref.grad.size());
  CHECK(mismatch("loss", r.outputs.at("loss"), {}, {ref.loss}, tol) == "");
  CHECK(mismatch("grad", r.outputs.at("grad"), {d}, ref.grad, tol) == "");
  CHECK(mismatch("w_next", r.outputs.at("w_next"), {d}, ref.wNext, tol) == "");
  for (const auto &[name, diff] : r.replicaDiffs) {
    INFO("output " << name);
    CHECK(diff == 0.0);
  }
}

/// Same outputs as `base` (another mesh, or the unpermuted inputs).
void checkSameAs(const RunOutcome &r, const RunOutcome &base, Tolerance tol = {}) {
  INFO("mesh " << describe(r) << " vs " << describe(base));
  REQUIRE(r.ok);
  REQUIRE(base.ok);
  for (const char *name : {"loss", "grad", "w_next"})
    CHECK(mismatchArrays(name, r.outputs.at(name), base.outputs.at(name), tol) == "");
}

F32Array permuteRows(const F32Array &a, const std::vector<int64_t> &perm) {
  F32Array out = F32Array::zeros(a.shape);
  int64_t rowSize = a.numel() / a.shape[0];
  for (int64_t i = 0; i < a.shape[0]; ++i)
    for (int64_t k = 0; k < rowSize; ++k)
      out.values[i * rowSize + k] = a.values[perm[i] * rowSize + k];
  return out;
}

Inputs randomInputs(uint32_t seed, int64_t rows, int64_t features) {
  Rng rng(seed);
  Inputs in;
  in["X"] = rng.array({rows, features}, -2.0f, 2.0f);
  in["y"] = rng.array({rows}, -2.0f, 2.0f);
  in["w"] = rng.array({features}, -1.0f, 1.0f);
  return in;
}

} // namespace

TEST_CASE("seed: loss 4.875, grad [-5.25, -0.75], w_next [0.525, 0.075] on 1, 2, 4, 8 ranks",
          "[exec][seed]") {
  std::string error;
  Inputs in;
  in["X"] = loadNpy(runfile("samples/linear_regression/X.npy"), error);
  in["y"] = loadNpy(runfile("samples/linear_regression/y.npy"), error);
  in["w"] = loadNpy(runfile("samples/linear_regression/w.npy"), error);
  REQUIRE(error == "");
  Reference exact;
  exact.loss = 4.875;
  exact.grad = {-5.25, -0.75};
  exact.wNext = {0.525, 0.075};
  // The reference agrees with the numbers the seed is known for.
  Reference ref = reference(in["X"], in["y"], in["w"]);
  CHECK(ref.loss == Approx(exact.loss));
  CHECK(ref.grad[0] == Approx(exact.grad[0]));
  CHECK(ref.grad[1] == Approx(exact.grad[1]));

  for (int64_t ranks : {1, 2, 4, 8}) {
    Compiled c = compileFile(runfile(kSeedModel), dataMesh(ranks));
    INFO("--mesh " << dataMesh(ranks) << "\n" << c.diagnostics);
    REQUIRE(c.ok);
    CHECK(c.signature.mesh.deviceCount() == ranks);
    RunOutcome r = run(c, in);
    CHECK(r.ranks == ranks);
    checkRun(r, exact, Tolerance{1e-6, 1e-6});
  }
  // Without --mesh: the sizes the model declares (data=4).
  Compiled c = compileFile(runfile(kSeedModel), "");
  INFO("no --mesh\n" << c.diagnostics);
  REQUIRE(c.ok);
  CHECK(c.signature.mesh.deviceCount() == 4);
  checkRun(run(c, in), exact, Tolerance{1e-6, 1e-6});
}

TEST_CASE("seed model: outputs are replicated and replicas agree", "[exec][seed][replicas]") {
  for (int64_t ranks : {1, 2, 4, 8}) {
    Compiled c = compileFile(runfile(kSeedModel), dataMesh(ranks));
    INFO("--mesh " << dataMesh(ranks) << "\n" << c.diagnostics);
    REQUIRE(c.ok);
    // Every output is replicated, so every rank holds a full copy that the
    // gather compares against device 0's.
    REQUIRE(c.signature.outputs.size() == 3);
    for (const shardc::TensorSignature &t : c.signature.outputs) {
      INFO("output " << t.name << " " << t.spec);
      CHECK(t.localShape == t.shape);
      for (const shardc::DimSharding &dim : t.sharding.dims)
        CHECK(dim.axes.empty());
    }
    for (uint32_t seed : {11u, 12u, 13u}) {
      RunOutcome r = run(c, randomInputs(seed, 8, 2));
      INFO("mesh " << describe(r) << ", seed " << seed);
      REQUIRE(r.error == "");
      REQUIRE(r.replicaDiffs.size() == 3);
      for (const auto &[name, diff] : r.replicaDiffs) {
        INFO("output " << name);
        CHECK(diff == 0.0);
      }
    }
  }
}

TEST_CASE("seed model, random inputs (w != 0): 1, 2, 4, 8 ranks vs reference and vs 1 rank",
          "[exec][seed][random]") {
  std::vector<Compiled> compiled;
  for (int64_t ranks : {1, 2, 4, 8}) {
    compiled.push_back(compileFile(runfile(kSeedModel), dataMesh(ranks)));
    INFO("--mesh " << dataMesh(ranks) << "\n" << compiled.back().diagnostics);
    REQUIRE(compiled.back().ok);
  }
  for (uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    INFO("seed " << seed);
    Inputs in = randomInputs(seed, 8, 2);
    REQUIRE((in["w"].at(0) != 0.0f || in["w"].at(1) != 0.0f));
    Reference ref = reference(in["X"], in["y"], in["w"]);
    RunOutcome one = run(compiled[0], in);
    checkRun(one, ref);
    for (size_t m = 1; m < compiled.size(); ++m) {
      RunOutcome r = run(compiled[m], in);
      checkRun(r, ref);
      checkSameAs(r, one);
    }
  }
}

TEST_CASE("linear regression, 24 examples x 3 features: 1, 2, 3, 4, 6, 8, 12 ranks",
          "[exec][random][uneven]") {
  std::string model = linearRegressionModel(24, 3);
  std::vector<int64_t> rankCounts = {1, 2, 3, 4, 6, 8, 12};
  std::vector<Compiled> compiled;
  for (int64_t ranks : rankCounts) {
    compiled.push_back(compile(model, dataMesh(ranks), "lr24x3.mlir"));
    INFO("--mesh " << dataMesh(ranks) << "\n" << compiled.back().diagnostics);
    REQUIRE(compiled.back().ok);
  }
  for (uint32_t seed : {21u, 22u, 23u}) {
    INFO("seed " << seed);
    Inputs in = randomInputs(seed, 24, 3);
    Reference ref = reference(in["X"], in["y"], in["w"]);
    RunOutcome one = run(compiled[0], in);
    checkRun(one, ref);
    for (size_t m = 1; m < compiled.size(); ++m) {
      RunOutcome r = run(compiled[m], in);
      checkRun(r, ref);
      checkSameAs(r, one);
    }
  }
}

TEST_CASE("linear regression on uneven rank counts whose row counts divide",
          "[exec][random][uneven]") {
  struct Case {
    int64_t rows, features, ranks;
  };
  for (Case k : {Case{6, 2, 3}, Case{12, 2, 6}, Case{10, 3, 5}, Case{14, 2, 7}, Case{9, 4, 3}}) {
    std::string model = linearRegressionModel(k.rows, k.features);
    std::string name = "lr" + std::to_string(k.rows) + "x" + std::to_string(k.features) + ".mlir";
    INFO(k.rows << " rows, " << k.features << " features, " << k.ranks << " ranks");
    Compiled one = compile(model, "data=1", name);
    Compiled many = compile(model, dataMesh(k.ranks), name);
    INFO(one.diagnostics << many.diagnostics);
    REQUIRE(one.ok);
    REQUIRE(many.ok);
    for (uint32_t seed : {31u, 32u}) {
      INFO("seed " << seed);
      Inputs in = randomInputs(seed, k.rows, k.features);
      Reference ref = reference(in["X"], in["y"], in["w"]);
      RunOutcome r1 = run(one, in), rn = run(many, in);
      checkRun(r1, ref);
      checkRun(rn, ref);
      checkSameAs(rn, r1);
    }
  }
}

TEST_CASE("permuting the rows of X and y (which device gets which rows) changes nothing",
          "[exec][random][permutation]") {
  struct Case {
    const char *what;
    std::string model;
    int64_t rows, features;
    std::vector<int64_t> rankCounts;
  };
  std::string seedText, error;
  seedText = readFile(runfile(kSeedModel), error);
  REQUIRE(error == "");
  for (const Case &k : {Case{"the seed", seedText, 8, 2, {1, 2, 4, 8}},
                        Case{"24x3", linearRegressionModel(24, 3), 24, 3, {1, 3, 4, 6, 8}}}) {
    INFO(k.what);
    for (int64_t ranks : k.rankCounts) {
      Compiled c = compile(k.model, dataMesh(ranks), "perm.mlir");
      INFO("--mesh " << dataMesh(ranks) << "\n" << c.diagnostics);
      REQUIRE(c.ok);
      for (uint32_t seed : {41u, 42u}) {
        Rng rng(seed * 7919u);
        Inputs in = randomInputs(seed, k.rows, k.features);
        Reference ref = reference(in["X"], in["y"], in["w"]);
        RunOutcome base = run(c, in);
        checkRun(base, ref);

        // Reversed; rotated by one shard (every device gets its neighbour's
        // rows); and two random permutations.
        std::vector<std::vector<int64_t>> perms;
        std::vector<int64_t> p(k.rows);
        for (int64_t i = 0; i < k.rows; ++i)
          p[i] = k.rows - 1 - i;
        perms.push_back(p);
        int64_t shard = k.rows / ranks;
        for (int64_t i = 0; i < k.rows; ++i)
          p[i] = (i + shard) % k.rows;
        perms.push_back(p);
        perms.push_back(rng.permutation(k.rows));
        perms.push_back(rng.permutation(k.rows));

        for (size_t q = 0; q < perms.size(); ++q) {
          INFO("seed " << seed << ", permutation #" << q);
          Inputs permuted = in;
          permuted["X"] = permuteRows(in["X"], perms[q]);
          permuted["y"] = permuteRows(in["y"], perms[q]);
          RunOutcome r = run(c, permuted);
          checkRun(r, ref);
          checkSameAs(r, base);
        }
      }
    }
  }
}
