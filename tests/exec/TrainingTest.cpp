//===- TrainingTest.cpp - training steps: value_and_grad + optimizers -----===//
//
// The training samples, run for several steps on several meshes, feeding
// every output named like an input back into it (as `shardc run --steps`):
//
//   - samples/linear_regression.mlir (value_and_grad + sgd_update): the first
//     step is the seed's (loss 4.875, grad [-5.25, -0.75], w [0.525, 0.075]),
//     the 5-step trajectory equals a double-precision C++ reference on 1, 2,
//     4 and 8 ranks (and the uneven 3 and 5); permuting the examples changes
//     nothing; the gradient is all-reduced exactly once;
//   - samples/mlp_train.mlir (value_and_grad + adam_update): the 3-step
//     trajectory is the same on meshes 1x1, 2x1, 1x2, 2x2, 4x2 and the uneven
//     3x3, also with labels that leave very unequal valid counts per data shard (a masked
//     mean of local means would differ between meshes);
//   - the optimizer ops on their own (momentum, AdamW, global-norm clipping)
//     against double references, sharded.
// After every step, every replicated output must be identical on all its
// replicas (the harness reports the largest disagreement).
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"

#include "shardrt.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

//===----------------------------------------------------------------------===//
// Multi-step runs
//===----------------------------------------------------------------------===//

using TypedInputs = std::map<std::string, TypedArray>;

/// Runs `steps` steps of `c` as `shardc run --steps` does (the state stays
/// on the ranks, outputs named like an argument feed it), gathering every
/// output after every step; returns every step's outcome. Checks replicas
/// after every step.
std::vector<TypedRunOutcome> runSteps(const Compiled &c, const TypedInputs &in, int steps) {
  std::vector<TypedRunOutcome> out = runTypedSteps(c, in, steps, shardc::ReplicaCheck::Every);
  REQUIRE(out.size() == static_cast<size_t>(steps));
  for (size_t s = 0; s < out.size(); ++s) {
    INFO("step " << s + 1);
    REQUIRE(out[s].error == "");
    for (const auto &[name, diff] : out[s].replicaDiffs) {
      INFO("replicas of output " << name << " after step " << s + 1);
      CHECK(diff == 0.0);
    }
  }
  return out;
}

/// The same steps fed back on the host, one runTyped() per step (every
/// input scattered afresh): the reference the on-rank state must match.
std::vector<TypedRunOutcome> runStepsOnHost(const Compiled &c, TypedInputs in, int steps) {
  std::vector<TypedRunOutcome> out;
  for (int s = 0; s < steps; ++s) {
    TypedRunOutcome r = runTyped(c, in);
    REQUIRE(r.error == "");
    for (auto &[name, value] : in)
      if (r.outputs.count(name))
        value = r.outputs.at(name);
    out.push_back(std::move(r));
  }
  return out;
}

TypedArray loadTyped(const std::string &path) {
  shardrt_array a{};
  if (shardrt_npy_read(path.c_str(), &a) != SHARDRT_OK)
    FAIL(path << ": " << shardrt_last_error());
  TypedArray t;
  t.dtype = shardrt_dtype_name(a.dtype);
  t.shape.assign(a.shape, a.shape + a.rank);
  for (int64_t i = 0; i < shardrt_array_numel(&a); ++i) {
    if (a.dtype == SHARDRT_F32)
      t.values.push_back(static_cast<const float *>(a.data)[i]);
    else if (a.dtype == SHARDRT_I64)
      t.values.push_back(static_cast<double>(static_cast<const int64_t *>(a.data)[i]));
    else
      FAIL(path << ": only f32 and i64 inputs are used here");
  }
  shardrt_array_free(&a);
  return t;
}

TypedArray f32(std::vector<int64_t> shape, std::vector<double> values) {
  return TypedArray{"f32", std::move(shape), std::move(values)};
}

//===----------------------------------------------------------------------===//
// Linear regression
//===----------------------------------------------------------------------===//

struct LrStep {
  double loss;
  std::vector<double> grad, w;
};

/// SGD on mean((Xw - y)^2) in double, from the f32 inputs.
std::vector<LrStep> lrReference(const TypedInputs &in, int steps) {
  const TypedArray &X = in.at("X"), &y = in.at("y");
  std::vector<double> w = in.at("w").values;
  int64_t n = X.shape[0], d = X.shape[1];
  std::vector<LrStep> out;
  for (int s = 0; s < steps; ++s) {
    std::vector<double> r(n);
    LrStep st{0, std::vector<double>(d, 0.0), {}};
    for (int64_t i = 0; i < n; ++i) {
      double p = 0;
      for (int64_t j = 0; j < d; ++j)
        p += X.values[i * d + j] * w[j];
      r[i] = p - y.values[i];
      st.loss += r[i] * r[i] / n;
    }
    for (int64_t j = 0; j < d; ++j) {
      for (int64_t i = 0; i < n; ++i)
        st.grad[j] += 2.0 / n * X.values[i * d + j] * r[i];
      w[j] -= 0.1 * st.grad[j];
    }
    st.w = w;
    out.push_back(st);
  }
  return out;
}

TypedInputs lrSeedInputs() {
  TypedInputs in;
  for (const char *n : {"X", "y", "w"})
    in[n] = loadTyped(runfile(std::string("samples/linear_regression/") + n + ".npy"));
  return in;
}

void checkLr(const std::vector<TypedRunOutcome> &runs, const std::vector<LrStep> &ref,
             Tolerance tol) {
  for (size_t s = 0; s < runs.size(); ++s) {
    INFO("step " << s + 1);
    int64_t d = ref[s].grad.size();
    CHECK(mismatchTyped("loss", runs[s].outputs.at("loss"), f32({}, {ref[s].loss}), tol) == "");
    CHECK(mismatchTyped("grad", runs[s].outputs.at("grad"), f32({d}, ref[s].grad), tol) == "");
    CHECK(mismatchTyped("w", runs[s].outputs.at("w"), f32({d}, ref[s].w), tol) == "");
  }
}

const char *kLr = "samples/linear_regression.mlir";

} // namespace

TEST_CASE("linear_regression.mlir (value_and_grad): the seed's first step on 1, 2, 4, 8 ranks",
          "[exec][training][seed]") {
  TypedInputs in = lrSeedInputs();
  std::vector<LrStep> exact = {{4.875, {-5.25, -0.75}, {0.525, 0.075}}};
  // The reference agrees with the numbers the seed is known for.
  std::vector<LrStep> ref = lrReference(in, 1);
  CHECK(ref[0].loss == Approx(4.875));
  for (int64_t ranks : {1, 2, 4, 8}) {
    std::string mesh = "data=" + std::to_string(ranks);
    INFO("--mesh " << mesh);
    Compiled c = compileFile(runfile(kLr), mesh);
    INFO(c.diagnostics);
    REQUIRE(c.ok);
    CHECK(c.signature.mesh.deviceCount() == ranks);
    checkLr(runSteps(c, in, 1), exact, {1e-6, 1e-6});
  }
}

TEST_CASE("linear_regression.mlir: 5-step trajectory equal on 1, 2, 4, 8 ranks (and uneven 3, 5)",
          "[exec][training][trajectory]") {
  TypedInputs seed = lrSeedInputs();
  Rng rng(7);
  TypedInputs random = seed;
  for (auto &[name, a] : random)
    for (double &v : a.values)
      v = rng.uniform(-2.0f, 2.0f);
  for (const TypedInputs &in : {seed, random}) {
    std::vector<LrStep> ref = lrReference(in, 5);
    std::vector<TypedRunOutcome> one;
    for (int64_t ranks : {1, 2, 4, 8, 3, 5}) {
      std::string mesh = "data=" + std::to_string(ranks);
      INFO("--mesh " << mesh);
      Compiled c = compileFile(runfile(kLr), mesh);
      INFO(c.diagnostics);
      REQUIRE(c.ok);
      std::vector<TypedRunOutcome> runs = runSteps(c, in, 5);
      checkLr(runs, ref, {1e-5, 1e-5});
      if (ranks == 1)
        one = runs;
      for (size_t s = 0; s < runs.size(); ++s)
        for (const char *name : {"loss", "grad", "w"}) {
          INFO("step " << s + 1 << " vs 1 rank");
          CHECK(mismatchTyped(name, runs[s].outputs.at(name), one[s].outputs.at(name),
                              {1e-6, 1e-6}) == "");
        }
    }
  }
}

TEST_CASE("linear_regression.mlir: permuting the examples leaves loss and gradients unchanged",
          "[exec][training][permutation]") {
  TypedInputs in = lrSeedInputs();
  std::vector<LrStep> ref = lrReference(in, 3);
  for (int64_t ranks : {2, 4, 8}) {
    Compiled c = compileFile(runfile(kLr), "data=" + std::to_string(ranks));
    INFO(c.diagnostics);
    REQUIRE(c.ok);
    Rng rng(static_cast<uint32_t>(100 + ranks));
    for (int q = 0; q < 3; ++q) {
      std::vector<int64_t> perm = rng.permutation(8);
      TypedInputs p = in;
      for (int64_t i = 0; i < 8; ++i) {
        p["y"].values[i] = in["y"].values[perm[i]];
        for (int64_t j = 0; j < 2; ++j)
          p["X"].values[i * 2 + j] = in["X"].values[perm[i] * 2 + j];
      }
      INFO(ranks << " ranks, permutation #" << q);
      checkLr(runSteps(c, p, 3), ref, {1e-5, 1e-5});
    }
  }
}

TEST_CASE("linear_regression.mlir: the gradient is all-reduced once, the loss once",
          "[exec][training][collectives]") {
  for (int64_t ranks : {2, 4, 8}) {
    std::string error;
    Compiled c = compile(readFile(runfile(kLr), error), "data=" + std::to_string(ranks), kLr,
                         shardc::Phase::Partitioned);
    INFO(c.diagnostics);
    REQUIRE(c.ok);
    std::string ir = c.emitted;
    size_t count = 0;
    for (size_t at = ir.find("garray.all_reduce"); at != std::string::npos;
         at = ir.find("garray.all_reduce", at + 1))
      ++count;
    INFO(ir);
    CHECK(count == 2);
    CHECK(ir.find("all_reduce <sum> %") != std::string::npos);
    CHECK(ir.find("all_gather") == std::string::npos);
  }
}

//===----------------------------------------------------------------------===//
// Masked loss
//===----------------------------------------------------------------------===//

namespace {

/// SGD on sum(m r^2) / sum(m) in double: the global masked mean.
std::vector<LrStep> maskedReference(const TypedInputs &in, int steps) {
  const TypedArray &X = in.at("X"), &y = in.at("y"), &m = in.at("mask");
  std::vector<double> w = in.at("w").values;
  int64_t n = X.shape[0], d = X.shape[1];
  double count = 0;
  for (double v : m.values)
    count += v;
  std::vector<LrStep> out;
  for (int s = 0; s < steps; ++s) {
    LrStep st{0, std::vector<double>(d, 0.0), {}};
    for (int64_t i = 0; i < n; ++i) {
      double r = -y.values[i];
      for (int64_t j = 0; j < d; ++j)
        r += X.values[i * d + j] * w[j];
      st.loss += m.values[i] * r * r / count;
      for (int64_t j = 0; j < d; ++j)
        st.grad[j] += 2.0 / count * m.values[i] * X.values[i * d + j] * r;
    }
    for (int64_t j = 0; j < d; ++j)
      w[j] -= 0.1 * st.grad[j];
    st.w = w;
    out.push_back(st);
  }
  return out;
}

} // namespace

TEST_CASE("masked_regression.mlir: the global masked mean with 4/1 and 2/2/1/0 valid rows per "
          "shard, 3 steps on 1, 2, 3, 4, 8 ranks",
          "[exec][training][masked]") {
  TypedInputs in = lrSeedInputs();
  in["mask"] = loadTyped(runfile("samples/masked_regression/mask.npy"));
  REQUIRE(in["mask"].values == std::vector<double>{1, 1, 1, 1, 1, 0, 0, 0});
  std::vector<LrStep> ref = maskedReference(in, 3);
  // The test can tell the right denominator from the wrong one: averaging
  // the two data=2 shards' own masked means gives another first loss.
  {
    double l0 = 0, l1 = 0;
    for (int64_t i = 0; i < 8; ++i) {
      double r = -in["y"].values[i]; // w = 0
      (i < 4 ? l0 : l1) += in["mask"].values[i] * r * r;
    }
    CHECK(std::fabs((l0 / 4 + l1 / 1) / 2 - ref[0].loss) > 0.1);
  }
  for (int64_t ranks : {1, 2, 3, 4, 8}) { // 3: shards of 3, 3 and 2 rows
    std::string mesh = "data=" + std::to_string(ranks);
    INFO("--mesh " << mesh);
    Compiled c = compileFile(runfile("samples/masked_regression.mlir"), mesh);
    INFO(c.diagnostics);
    REQUIRE(c.ok);
    checkLr(runSteps(c, in, 3), ref, {1e-5, 1e-5});
  }
}

//===----------------------------------------------------------------------===//
// MLP with Adam
//===----------------------------------------------------------------------===//

namespace {

TypedInputs mlpInputs() {
  TypedInputs in;
  for (const char *n : {"X", "labels", "W1", "b1", "W2", "b2"})
    in[n] = loadTyped(runfile(std::string("samples/mlp/") + n + ".npy"));
  for (const char *m : {"mu_", "nu_"})
    for (const char *n : {"W1", "b1", "W2", "b2"})
      in[std::string(m) + n] = loadTyped(runfile(std::string("samples/mlp_train/") + m + n + ".npy"));
  in["t"] = loadTyped(runfile("samples/mlp_train/t.npy"));
  return in;
}

/// How many collectives of each kind `c` runs on values of `valueType`.
std::map<std::string, int> collectivesOn(const Compiled &c, const std::string &valueType) {
  std::map<std::string, int> kinds;
  for (const shardc::CollectiveRecord &r : c.signature.collectives)
    if (r.valueType == valueType)
      ++kinds[r.kind];
  return kinds;
}

void checkMlpAcrossMeshes(const TypedInputs &in, int steps) {
  std::vector<TypedRunOutcome> one;
  for (const char *mesh : {"data=1,model=1", "data=2,model=1", "data=1,model=2", "data=2,model=2",
                           "data=4,model=2", "data=3,model=3"}) {
    INFO("--mesh " << mesh);
    Compiled c = compileFile(runfile("samples/mlp_train.mlir"), mesh);
    INFO(c.diagnostics);
    REQUIRE(c.ok);
    std::vector<TypedRunOutcome> runs = runSteps(c, in, steps);
    REQUIRE(runs.size() == static_cast<size_t>(steps));
    CHECK(runs.back().outputs.at("t").values.at(0) == 1 + steps);
    if (one.empty()) {
      one = runs;
      continue;
    }
    for (int s = 0; s < steps; ++s)
      for (const auto &[name, a] : one[s].outputs) {
        INFO("step " << s + 1 << ", vs data=1,model=1");
        CHECK(mismatchTyped(name, runs[s].outputs.at(name), a, {1e-4, 1e-5}) == "");
      }
  }
}

} // namespace

TEST_CASE("mlp_train.mlir (Adam): 3-step trajectory equal on 1x1, 2x1, 1x2, 2x2, 4x2, 3x3 meshes",
          "[exec][training][mlp]") {
  TypedInputs in = mlpInputs();
  checkMlpAcrossMeshes(in, 3);
  // The losses of samples/mlp_train_reference.py (NumPy, forward pass and
  // Adam in float64): step 1 is the forward pass of samples/mlp.mlir, steps
  // 2 and 3 follow two Adam updates.
  Compiled c = compileFile(runfile("samples/mlp_train.mlir"), "data=2,model=2");
  REQUIRE(c.ok);
  std::vector<TypedRunOutcome> runs = runSteps(c, in, 3);
  CHECK(runs[0].outputs.at("loss").values.at(0) == Approx(2.1000857).epsilon(1e-6));
  CHECK(runs[1].outputs.at("loss").values.at(0) == Approx(1.813988).epsilon(2e-5));
  CHECK(runs[2].outputs.at("loss").values.at(0) == Approx(1.567744).epsilon(2e-5));
}

TEST_CASE("mlp_train.mlir: one all-reduce per weight gradient, none doubled",
          "[exec][training][mlp][collectives]") {
  Compiled c = compileFile(runfile("samples/mlp_train.mlir"), "data=2,model=2");
  INFO(c.diagnostics);
  REQUIRE(c.ok);
  // Forward: the logits' pending sum over "model"; the loss: the valid count
  // and the numerator over "data"; backward: one per weight gradient.
  std::map<std::string, int> reduces;
  int total = 0;
  for (const shardc::CollectiveRecord &r : c.signature.collectives) {
    INFO(r.kind << " " << r.valueType << " at " << r.location);
    CHECK(r.kind == "all_reduce");
    ++reduces[r.valueType];
    ++total;
  }
  CHECK(total == 7);
  CHECK(reduces["tensor<16x32xf32>"] == 1); // dW1
  CHECK(reduces["tensor<32xf32>"] == 1);    // db1
  CHECK(reduces["tensor<32x4xf32>"] == 1);  // dW2
  CHECK(reduces["tensor<4xf32>"] == 1);     // db2
  CHECK(reduces["tensor<8x4xf32>"] == 1);   // logits over "model"
  CHECK(reduces["tensor<f32>"] == 2);       // valid count, loss numerator
}

TEST_CASE("mlp_train.mlir with Adam moments sharded over \"data\" too (ZeRO-1 layout)",
          "[exec][training][mlp][zero]") {
  std::string error, text = readFile(runfile("samples/mlp_train.mlir"), error);
  REQUIRE(error == "");
  // mu/nu of W1: P(None, "model") -> P("data", "model").
  for (const char *m : {"mu_W1", "nu_W1"}) {
    std::string from = std::string("{garray.name = \"") + m +
                       "\", garray.sharding = #garray.sharding<@mesh, P(None, \"model\")>}";
    size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(),
                 std::string("{garray.name = \"") + m +
                     "\", garray.sharding = #garray.sharding<@mesh, P(\"data\", \"model\")>}");
  }
  TypedInputs in = mlpInputs();
  Compiled one = compile(text, "data=1,model=1", "zero.mlir");
  Compiled c = compile(text, "data=2,model=2", "zero.mlir");
  INFO(c.diagnostics);
  REQUIRE(one.ok);
  REQUIRE(c.ok);
  // The moments' inputs are split over "data" (half of each per device).
  for (const shardc::TensorSignature &t : c.signature.inputs)
    if (t.name == "mu_W1" || t.name == "nu_W1")
      CHECK(t.localShape == std::vector<int64_t>{8, 16});
  // The pending gradient of W1 goes straight into the moments' layout: one
  // reduce-scatter over "data" (the planner plans the reduce and the slice
  // as one), no all-reduce of it and nothing gathered.
  int gathers = 0, w1Reduces = 0, w1Scatters = 0;
  for (const shardc::CollectiveRecord &r : c.signature.collectives) {
    INFO(r.kind << " " << r.valueType << " at " << r.location);
    gathers += r.kind == "all_gather";
    w1Reduces += r.kind == "all_reduce" && r.valueType == "tensor<16x32xf32>";
    if (r.kind == "reduce_scatter" && r.valueType == "tensor<16x32xf32>") {
      ++w1Scatters;
      CHECK(r.bytesPerDevice == 512); // half of the 1024 B local gradient
    }
  }
  CHECK(gathers == 0);
  CHECK(w1Reduces == 0);
  CHECK(w1Scatters == 1);
  std::vector<TypedRunOutcome> base = runSteps(one, in, 3), runs = runSteps(c, in, 3);
  for (int s = 0; s < 3; ++s)
    for (const auto &[name, a] : base[s].outputs) {
      INFO("step " << s + 1 << " vs data=1,model=1");
      CHECK(mismatchTyped(name, runs[s].outputs.at(name), a, {1e-4, 1e-5}) == "");
    }

  // With the updated W1 declared replicated over "data" (as the weight it
  // replaces), ZeRO-1 is complete: the gradient is reduce-scattered into
  // the moments' layout, the update computed on each device's half, and
  // the new weight all-gathered: 512 + 512 B/device, the bytes of the one
  // all-reduce it replaces, with half the optimizer state per device.
  const std::string plainW1 = "        tensor<16x32xf32> {garray.name = \"W1\"},";
  size_t at = text.find(plainW1);
  REQUIRE(at != std::string::npos);
  text.replace(at, plainW1.size(),
               "        tensor<16x32xf32> {garray.name = \"W1\", garray.sharding = "
               "#garray.sharding<@mesh, P(None, \"model\")>},");
  Compiled z = compile(text, "data=2,model=2", "zero_replicated_w.mlir");
  INFO(z.diagnostics);
  REQUIRE(z.ok);
  for (const shardc::CollectiveRecord &r : z.signature.collectives) {
    INFO(r.kind << " " << r.valueType << " at " << r.location);
    if (r.valueType == "tensor<16x32xf32>" &&
        (r.kind == "all_gather" || r.kind == "reduce_scatter"))
      CHECK(r.bytesPerDevice == 512);
  }
  std::map<std::string, int> w1 = collectivesOn(z, "tensor<16x32xf32>");
  CHECK(w1["all_reduce"] == 0);
  CHECK(w1["reduce_scatter"] == 1);
  CHECK(w1["all_gather"] == 1);
  std::vector<TypedRunOutcome> zruns = runSteps(z, in, 3);
  for (int s = 0; s < 3; ++s)
    for (const auto &[name, a] : base[s].outputs) {
      INFO("replicated W1 output, step " << s + 1 << " vs data=1,model=1");
      CHECK(mismatchTyped(name, zruns[s].outputs.at(name), a, {1e-4, 1e-5}) == "");
      CHECK(zruns[s].replicaDiffs.at(name) == 0.0);
    }
}

TEST_CASE("mlp_train.mlir with the optimizer update split (--shard-optimizer-state): the "
          "same trajectory on 2x1, 2x2, 4x2 and 3x3, moments held split",
          "[exec][training][mlp][zero]") {
  TypedInputs in = mlpInputs();
  Compiled one = compileFile(runfile("samples/mlp_train.mlir"), "data=1,model=1");
  REQUIRE(one.ok);
  std::vector<TypedRunOutcome> base = runSteps(one, in, 3);
  // Every state of the sample is small: split all of it.
  shardOptimizerStateMode() = 1;
  struct Restore {
    ~Restore() { shardOptimizerStateMode() = 0; }
  } restore;
  for (const char *mesh : {"data=2,model=1", "data=2,model=2", "data=4,model=2", "data=3,model=3"}) {
    INFO("--mesh " << mesh);
    Compiled c = compileFile(runfile("samples/mlp_train.mlir"), mesh);
    INFO(c.diagnostics);
    REQUIRE(c.ok);
    std::vector<TypedRunOutcome> runs = runSteps(c, in, 3);
    for (int s = 0; s < 3; ++s)
      for (const auto &[name, a] : base[s].outputs) {
        INFO("step " << s + 1 << " vs data=1,model=1");
        CHECK(mismatchTyped(name, runs[s].outputs.at(name), a, {1e-4, 1e-5}) == "");
      }
    if (std::string(mesh) != "data=2,model=2")
      continue;
    // W1 [16, 32] is P(None, "model"): its moments are held P("data",
    // "model"), a quarter per device; the weight itself stays as placed.
    for (const shardc::TensorSignature &t : c.signature.inputs) {
      INFO("input " << t.name);
      if (t.name == "mu_W1" || t.name == "nu_W1")
        CHECK(t.localShape == std::vector<int64_t>{8, 16});
      if (t.name == "W1")
        CHECK(t.localShape == std::vector<int64_t>{16, 16});
    }
    // Its gradient is reduce-scattered into the moments' layout and the new
    // weight gathered: the bytes of the all-reduce they replace.
    std::map<std::string, int> w1 = collectivesOn(c, "tensor<16x32xf32>");
    CHECK(w1["all_reduce"] == 0);
    CHECK(w1["reduce_scatter"] == 1);
    CHECK(w1["all_gather"] == 1);
  }
}

TEST_CASE("mlp_train.mlir: masked loss with very unequal valid counts per data shard",
          "[exec][training][mlp][masked]") {
  TypedInputs in = mlpInputs();
  // data=2: 4 valid rows on shard 0, 1 on shard 1; data=4: 2, 2, 0, 1.
  in["labels"].values = {0, 3, 1, 2, -1, -1, 2, -1};
  checkMlpAcrossMeshes(in, 2);
}

TEST_CASE("mlp_train.mlir: permuting the examples leaves the trajectory unchanged",
          "[exec][training][mlp][permutation]") {
  TypedInputs in = mlpInputs();
  Compiled c = compileFile(runfile("samples/mlp_train.mlir"), "data=4,model=2");
  INFO(c.diagnostics);
  REQUIRE(c.ok);
  std::vector<TypedRunOutcome> base = runSteps(c, in, 2);
  std::vector<int64_t> perm = {7, 2, 5, 0, 3, 6, 1, 4};
  TypedInputs p = in;
  for (int64_t i = 0; i < 8; ++i) {
    p["labels"].values[i] = in["labels"].values[perm[i]];
    for (int64_t j = 0; j < 16; ++j)
      p["X"].values[i * 16 + j] = in["X"].values[perm[i] * 16 + j];
  }
  std::vector<TypedRunOutcome> runs = runSteps(c, p, 2);
  for (int s = 0; s < 2; ++s)
    for (const auto &[name, a] : base[s].outputs) {
      INFO("step " << s + 1);
      CHECK(mismatchTyped(name, runs[s].outputs.at(name), a, {1e-4, 1e-5}) == "");
    }
}

//===----------------------------------------------------------------------===//
// Optimizer ops
//===----------------------------------------------------------------------===//

TEST_CASE("momentum, AdamW and global-norm clipping on sharded parameters vs double reference "
          "(1-D and 2-D meshes)",
          "[exec][training][optimizers]") {
  const char *text = R"(
garray.mesh @mesh ["data" = 4, "model" = 1]
func.func @main(
    %p: tensor<8xf32> {garray.name = "p", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %q: tensor<2x4xf32> {garray.name = "q"},
    %gp: tensor<8xf32> {garray.name = "gp", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %gq: tensor<2x4xf32> {garray.name = "gq", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
    %m: tensor<8xf32> {garray.name = "m"},
    %v: tensor<8xf32> {garray.name = "v", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %t: tensor<f32> {garray.name = "t"})
    -> (tensor<8xf32> {garray.name = "cp"}, tensor<2x4xf32> {garray.name = "cq"},
        tensor<8xf32> {garray.name = "mom_p"}, tensor<8xf32> {garray.name = "mom_v"},
        tensor<8xf32> {garray.name = "adam_p"}, tensor<8xf32> {garray.name = "adam_m"},
        tensor<8xf32> {garray.name = "adam_v"}) {
  %cp, %cq = garray.clip_by_global_norm %gp, %gq {max_norm = 1.5 : f64}
      : tensor<8xf32>, tensor<2x4xf32> -> tensor<8xf32>, tensor<2x4xf32>
  %mp, %mv = garray.momentum_update %p, %cp, %m {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<8xf32>
  %ap, %am, %av = garray.adam_update %p, %cp, %m, %v, %t
      {lr = 0.01 : f64, beta1 = 0.8 : f64, beta2 = 0.99 : f64, eps = 1.0e-6 : f64,
       weight_decay = 0.1 : f64} : tensor<8xf32>, tensor<f32>
  return %cp, %cq, %mp, %mv, %ap, %am, %av
      : tensor<8xf32>, tensor<2x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<8xf32>, tensor<8xf32>
}
)";
  Rng rng(5);
  TypedInputs in;
  auto random = [&](std::vector<int64_t> shape, float lo, float hi) {
    TypedArray a = f32(shape, {});
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    for (int64_t i = 0; i < n; ++i)
      a.values.push_back(rng.uniform(lo, hi));
    return a;
  };
  in["p"] = random({8}, -1, 1);
  in["q"] = random({2, 4}, -1, 1);
  in["gp"] = random({8}, -1, 1);
  in["gq"] = random({2, 4}, -1, 1);
  in["m"] = random({8}, -0.5f, 0.5f);
  in["v"] = random({8}, 0, 0.5f);
  in["t"] = f32({}, {3});

  // Reference in double.
  double sq = 0;
  for (double g : in["gp"].values)
    sq += g * g;
  for (double g : in["gq"].values)
    sq += g * g;
  double norm = std::sqrt(sq), factor = 1.5 / std::max(norm, 1.5);
  REQUIRE(norm > 1.5); // the clipping is exercised
  std::vector<double> cp, cq, mp, mv, ap, am, av;
  for (double g : in["gq"].values)
    cq.push_back(g * factor);
  for (int i = 0; i < 8; ++i) {
    double p = in["p"].values[i], g = in["gp"].values[i] * factor, m = in["m"].values[i],
           v = in["v"].values[i], t = 3;
    cp.push_back(g);
    mv.push_back(0.9 * m + g);
    mp.push_back(p - 0.1 * mv.back());
    am.push_back(0.8 * m + 0.2 * g);
    av.push_back(0.99 * v + 0.01 * g * g);
    double mhat = am.back() / (1 - std::pow(0.8, t)), vhat = av.back() / (1 - std::pow(0.99, t));
    ap.push_back(p - 0.01 * (mhat / (std::sqrt(vhat) + 1e-6) + 0.1 * p));
  }
  // The clipping norm covers every shard of both gradients: gp split over
  // "data", gq over "model".
  for (const char *mesh : {"data=1,model=1", "data=2,model=1", "data=4,model=2",
                           "data=8,model=4", "data=2,model=2"}) {
    INFO("--mesh " << mesh);
    Compiled c = compile(text, mesh, "optimizers.mlir");
    INFO(c.diagnostics);
    REQUIRE(c.ok);
    std::vector<TypedRunOutcome> r = runSteps(c, in, 1);
    const auto &o = r[0].outputs;
    Tolerance tol{1e-5, 1e-6};
    CHECK(mismatchTyped("cp", o.at("cp"), f32({8}, cp), tol) == "");
    CHECK(mismatchTyped("cq", o.at("cq"), f32({2, 4}, cq), tol) == "");
    CHECK(mismatchTyped("mom_p", o.at("mom_p"), f32({8}, mp), tol) == "");
    CHECK(mismatchTyped("mom_v", o.at("mom_v"), f32({8}, mv), tol) == "");
    CHECK(mismatchTyped("adam_p", o.at("adam_p"), f32({8}, ap), tol) == "");
    CHECK(mismatchTyped("adam_m", o.at("adam_m"), f32({8}, am), tol) == "");
    CHECK(mismatchTyped("adam_v", o.at("adam_v"), f32({8}, av), tol) == "");
  }
}

TEST_CASE("run --steps keeps the state on the ranks: trajectories equal host feedback "
          "(--check-replicas=last and every, uneven meshes)",
          "[exec][training][state]") {
  TypedInputs in = mlpInputs();
  for (const char *mesh : {"data=2,model=2", "data=3,model=3", "data=4,model=2"}) {
    INFO("--mesh " << mesh);
    Compiled c = compileFile(runfile("samples/mlp_train.mlir"), mesh);
    INFO(c.diagnostics);
    REQUIRE(c.ok);
    std::vector<TypedRunOutcome> host = runStepsOnHost(c, in, 4);
    std::vector<TypedRunOutcome> every = runSteps(c, in, 4);
    std::vector<TypedRunOutcome> last = runTypedSteps(c, in, 4, shardc::ReplicaCheck::Last);
    REQUIRE(last.size() == 4);
    REQUIRE(last.back().error == "");
    for (int s = 0; s < 4; ++s)
      for (const auto &[name, expected] : host[s].outputs) {
        INFO("step " << s + 1 << ", output " << name);
        CHECK(mismatchTyped(name, every[s].outputs.at(name), expected, {1e-6, 1e-7}) == "");
        // With `last`, the state (outputs fed back) is gathered after the
        // last step only; the loss every step.
        bool state = in.count(name) > 0;
        CHECK(last[s].outputs.count(name) == (!state || s == 3 ? 1u : 0u));
        if (last[s].outputs.count(name))
          CHECK(mismatchTyped(name, last[s].outputs.at(name), expected, {1e-6, 1e-7}) == "");
      }
    for (const auto &[name, diff] : last.back().replicaDiffs)
      CHECK(diff == 0.0);
  }
}

TEST_CASE("run --steps: state whose output placement differs from its argument's is "
          "resharded between steps",
          "[exec][training][state]") {
  // w comes in replicated and leaves sharded over "data": it cannot be
  // donated as it lies, so it is gathered and scattered again each step.
  const char *text = R"(
garray.mesh @mesh ["data" = 3]
func.func @main(
    %w: tensor<7xf32> {garray.name = "w"},
    %x: tensor<7xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<7xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P("data")>},
        tensor<7xf32> {garray.name = "y"}) {
  %0 = garray.add %w, %x : tensor<7xf32>
  %1 = garray.mul %0, %w : tensor<7xf32>
  return %0, %1 : tensor<7xf32>, tensor<7xf32>
}
)";
  TypedInputs in;
  in["w"] = f32({7}, {1, 2, 3, 4, 5, 6, 7});
  in["x"] = f32({7}, {0.5, -1, 2, 0.25, 1, -3, 0});
  for (const char *mesh : {"data=1", "data=2", "data=3", "data=4"}) {
    INFO("--mesh " << mesh);
    Compiled c = compile(text, mesh, "reshard_state.mlir");
    INFO(c.diagnostics);
    REQUIRE(c.ok);
    std::vector<TypedRunOutcome> last = runTypedSteps(c, in, 3, shardc::ReplicaCheck::Last);
    REQUIRE(last.size() == 3);
    REQUIRE(last.back().error == "");
    // w after 3 steps: w + 3x; y of step 3: (w + 3x) * (w + 2x).
    std::vector<double> w, y;
    for (int i = 0; i < 7; ++i) {
      double w0 = in["w"].values[i], x = in["x"].values[i];
      w.push_back(w0 + 3 * x);
      y.push_back((w0 + 3 * x) * (w0 + 2 * x));
    }
    CHECK(mismatchTyped("w", last.back().outputs.at("w"), f32({7}, w), {1e-6, 1e-7}) == "");
    CHECK(mismatchTyped("y", last.back().outputs.at("y"), f32({7}, y), {1e-6, 1e-7}) == "");
  }
}

TEST_CASE("kernel threads do not change a single bit: mlp_train.mlir with 1, 2 and 3 "
          "threads per rank",
          "[exec][training][threads]") {
  // The parallel loops split only dimensions whose iterations write
  // disjoint outputs, each summed in a fixed order, so the result must be
  // the same bits whatever the thread count: that is what keeps replicas
  // identical and the replica check exact. Compared exactly on purpose.
  TypedInputs in = mlpInputs();
  for (const char *mesh : {"data=1,model=1", "data=2,model=1"}) {
    INFO("--mesh " << mesh);
    Compiled c = compileFile(runfile("samples/mlp_train.mlir"), mesh);
    REQUIRE(c.ok);
    std::vector<std::vector<TypedRunOutcome>> runs;
    for (const char *threads : {"1", "2", "3"}) {
      setenv("SHARDRT_THREADS", threads, 1);
      runs.push_back(runSteps(c, in, 2));
    }
    unsetenv("SHARDRT_THREADS");
    for (size_t t = 1; t < runs.size(); ++t)
      for (int s = 0; s < 2; ++s)
        for (const auto &[name, a] : runs[0][s].outputs) {
          INFO("threads " << t + 1 << ", step " << s + 1 << ", output " << name);
          const TypedArray &b = runs[t][s].outputs.at(name);
          REQUIRE(a.values.size() == b.values.size());
          size_t differing = 0;
          for (size_t i = 0; i < a.values.size(); ++i)
            differing += a.values[i] != b.values[i];
          CHECK(differing == 0);
        }
  }
}
