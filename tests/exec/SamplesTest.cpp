//===- SamplesTest.cpp - samples/mlp.mlir and samples/attention.mlir -------===//
//
// The two model samples, compiled from their files for several 2-D meshes,
// run on a threads world with the committed inputs (samples/mlp/*.npy,
// samples/attention/*.npy) and checked against a double-precision C++
// reference computed here from the same inputs (1e-4 relative tolerance),
// and against the 1-rank run. The NumPy scripts samples/*_reference.py
// compute the same references for users; CI needs no Python.
//
// Collectives of samples/mlp.mlir on data=2,model=2
// (`shardc compile samples/mlp.mlir --mesh data=2,model=2 --emit=partitioned`),
// asserted below through Signature.collectives:
//   - all_reduce <sum> over ["model"] of h @ W2 (tensor<8x4xf32>): the second
//     product contracts the hidden dim, which W2's rows and h's columns both
//     keep split over "model" — a pending sum, reduced once at the bias add;
//   - all_reduce <sum> over ["data"] of the weighted mean's two batch sums
//     (numerator and valid count, tensor<f32> each);
//   (the numerator's all_reduce sits after the division and the negation,
//   which keep it pending: 3 collectives, 72 B/device in all);
//   - `logits` (P("data", None)) is gathered by the runtime, not a collective;
//   - no all_gather of W1 or W2: the weights stay sharded.
// The exact list printed by the test (INFO) is kept in README.md "Samples".
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"

#include "shardrt.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

using namespace shardc_test;

namespace {

/// Any-dtype .npy file as a TypedArray (f32 and i64 are what the samples use).
TypedArray loadNpyTyped(const std::string &path, std::string &error) {
  TypedArray out;
  shardrt_array a{};
  if (shardrt_npy_read(path.c_str(), &a) != SHARDRT_OK) {
    error += path + ": " + shardrt_last_error() + "\n";
    return out;
  }
  out.dtype = shardrt_dtype_name(a.dtype);
  out.shape.assign(a.shape, a.shape + a.rank);
  int64_t n = shardrt_array_numel(&a);
  out.values.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    if (out.dtype == "f32")
      out.values[i] = static_cast<const float *>(a.data)[i];
    else if (out.dtype == "f64")
      out.values[i] = static_cast<const double *>(a.data)[i];
    else if (out.dtype == "i64")
      out.values[i] = static_cast<double>(static_cast<const int64_t *>(a.data)[i]);
    else if (out.dtype == "i32")
      out.values[i] = static_cast<const int32_t *>(a.data)[i];
    else {
      error += path + ": unexpected dtype " + out.dtype + "\n";
      break;
    }
  }
  shardrt_array_free(&a);
  return out;
}

TypedInputs loadSample(const std::string &dir, const std::vector<std::string> &names) {
  std::string error;
  TypedInputs in;
  for (const std::string &n : names)
    in[n] = loadNpyTyped(runfile("samples/" + dir + "/" + n + ".npy"), error);
  INFO(error);
  REQUIRE(error == "");
  return in;
}

//===----------------------------------------------------------------------===//
// MLP reference
//===----------------------------------------------------------------------===//

struct MlpRef {
  double loss = 0;
  std::vector<double> logits; // 8x4
  int64_t validRows = 0;
};

MlpRef mlpReference(const TypedInputs &in) {
  const TypedArray &X = in.at("X"), &W1 = in.at("W1"), &b1 = in.at("b1"), &W2 = in.at("W2"),
                  &b2 = in.at("b2"), &labels = in.at("labels");
  int64_t n = X.shape[0], d = X.shape[1], hdim = W1.shape[1], c = W2.shape[1];
  MlpRef ref;
  ref.logits.assign(n * c, 0.0);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<double> h(hdim);
    for (int64_t j = 0; j < hdim; ++j) {
      double acc = b1.at(j);
      for (int64_t k = 0; k < d; ++k)
        acc += X.at(i, k) * W1.at(k, j);
      h[j] = std::max(acc, 0.0);
    }
    double mx = -INFINITY;
    for (int64_t j = 0; j < c; ++j) {
      double acc = b2.at(j);
      for (int64_t k = 0; k < hdim; ++k)
        acc += h[k] * W2.at(k, j);
      ref.logits[i * c + j] = acc;
      mx = std::max(mx, acc);
    }
    double se = 0;
    for (int64_t j = 0; j < c; ++j)
      se += std::exp(ref.logits[i * c + j] - mx);
    int64_t label = static_cast<int64_t>(labels.at(i));
    if (label == -1)
      continue;
    sum += ref.logits[i * c + label] - mx - std::log(se);
    ++ref.validRows;
  }
  ref.loss = -sum / static_cast<double>(ref.validRows);
  return ref;
}

const std::vector<std::string> kMlpInputs = {"X", "W1", "b1", "W2", "b2", "labels"};
const std::vector<std::string> kMlpMeshes = {"data=1,model=1", "data=2,model=1",
                                             "data=1,model=2", "data=2,model=2",
                                             "data=4,model=2",
                                             // uneven: 8 rows over 3, 32 hidden over 3 or 5
                                             "data=3,model=3", "data=3,model=5"};
const Tolerance kTol{1e-4, 1e-5};

std::string collectivesText(const shardc::Signature &sig) {
  std::ostringstream os;
  for (const shardc::CollectiveRecord &c : sig.collectives) {
    os << "  " << c.kind << " " << c.valueType << " over [";
    for (size_t i = 0; i < c.axes.size(); ++i)
      os << (i ? ", " : "") << '"' << c.axes[i] << '"';
    os << "] at " << c.location << "\n";
  }
  return os.str();
}

void checkMlp(const TypedRunOutcome &r, const MlpRef &ref, const std::string &mesh) {
  INFO("--mesh " << mesh);
  INFO(r.error);
  REQUIRE(r.ok);
  CHECK(mismatchTyped("loss", r.outputs.at("loss"), "f32", {}, {ref.loss}, kTol) == "");
  CHECK(mismatchTyped("logits", r.outputs.at("logits"), "f32", {8, 4}, ref.logits, kTol) == "");
  for (const auto &[name, diff] : r.replicaDiffs) {
    INFO("output " << name);
    CHECK(diff == 0.0);
  }
}

void checkSame(const TypedRunOutcome &r, const TypedRunOutcome &one, const std::string &mesh) {
  INFO("--mesh " << mesh << " vs data=1,model=1");
  REQUIRE(r.ok);
  REQUIRE(one.ok);
  for (const auto &[name, a] : one.outputs)
    CHECK(mismatchTyped(name, r.outputs.at(name), a.dtype, a.shape, a.values, kTol) == "");
}

//===----------------------------------------------------------------------===//
// Attention reference
//===----------------------------------------------------------------------===//

std::vector<double> attentionReference(const TypedInputs &in) {
  const TypedArray &X = in.at("X");
  int64_t B = X.shape[0], T = X.shape[1], D = X.shape[2];
  auto proj = [&](const TypedArray &W) {
    std::vector<double> out(B * T * D, 0.0);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t j = 0; j < D; ++j) {
          double acc = 0;
          for (int64_t k = 0; k < D; ++k)
            acc += X.values[(b * T + t) * D + k] * W.at(k, j);
          out[(b * T + t) * D + j] = acc;
        }
    return out;
  };
  std::vector<double> q = proj(in.at("Wq")), k = proj(in.at("Wk")), v = proj(in.at("Wv"));
  const TypedArray &Wo = in.at("Wo");
  std::vector<double> y(B * T * D, 0.0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      std::vector<double> s(T);
      double mx = -INFINITY;
      for (int64_t u = 0; u < T; ++u) {
        double acc = 0;
        for (int64_t j = 0; j < D; ++j)
          acc += q[(b * T + t) * D + j] * k[(b * T + u) * D + j];
        s[u] = u <= t ? acc / std::sqrt(static_cast<double>(D)) : -1e9;
        mx = std::max(mx, s[u]);
      }
      double den = 0;
      for (int64_t u = 0; u < T; ++u)
        den += s[u] = std::exp(s[u] - mx);
      std::vector<double> o(D, 0.0);
      for (int64_t u = 0; u < T; ++u)
        for (int64_t j = 0; j < D; ++j)
          o[j] += s[u] / den * v[(b * T + u) * D + j];
      for (int64_t j = 0; j < D; ++j) {
        double acc = 0;
        for (int64_t m = 0; m < D; ++m)
          acc += o[m] * Wo.at(m, j);
        y[(b * T + t) * D + j] = acc;
      }
    }
  return y;
}

/// samples/mlp.mlir on every mesh of kMlpMeshes against `ref`, and each
/// run against the 1x1 run.
void checkMlpOnMeshes(const TypedInputs &in, const MlpRef &ref) {
  TypedRunOutcome one;
  for (const std::string &mesh : kMlpMeshes) {
    Compiled c = compileFile(runfile("samples/mlp.mlir"), mesh);
    INFO("--mesh " << mesh << "\n" << c.diagnostics);
    REQUIRE(c.ok);
    TypedRunOutcome r = runTyped(c, in);
    checkMlp(r, ref, mesh);
    if (mesh == "data=1,model=1")
      one = r;
    else
      checkSame(r, one, mesh);
  }
}

} // namespace

TEST_CASE("samples/mlp.mlir: loss and logits on 1x1, 2x1, 1x2, 2x2, 4x2, 3x3, 3x5 meshes",
          "[exec][samples][mlp]") {
  TypedInputs in = loadSample("mlp", kMlpInputs);
  MlpRef ref = mlpReference(in);
  CHECK(ref.validRows == 7); // row 5 is labelled -1
  // The number samples/mlp_reference.py prints for the committed inputs.
  CHECK(ref.loss == Approx(2.1000857).epsilon(1e-6));
  checkMlpOnMeshes(in, ref);
}

TEST_CASE("samples/mlp.mlir: ignored labels, unequal valid rows per data shard",
          "[exec][samples][mlp][ignore]") {
  TypedInputs in = loadSample("mlp", kMlpInputs);
  // data=2: shard 0 (rows 0-3) has 4 valid rows, shard 1 (rows 4-7) has 1.
  in["labels"].values = {0, 3, 1, 2, -1, -1, 2, -1};
  MlpRef ref = mlpReference(in);
  REQUIRE(ref.validRows == 5);
  // The wrong answer shardc exists to prevent: the mean of the two shards'
  // local means. It must differ here, or the test would prove nothing.
  double shard0 = 0, shard1 = 0;
  {
    const TypedArray &lab = in["labels"];
    for (int64_t i = 0; i < 8; ++i) {
      int64_t l = static_cast<int64_t>(lab.at(i));
      if (l < 0)
        continue;
      double mx = -INFINITY, se = 0;
      for (int64_t j = 0; j < 4; ++j)
        mx = std::max(mx, ref.logits[i * 4 + j]);
      for (int64_t j = 0; j < 4; ++j)
        se += std::exp(ref.logits[i * 4 + j] - mx);
      (i < 4 ? shard0 : shard1) += -(ref.logits[i * 4 + l] - mx - std::log(se));
    }
  }
  double meanOfMeans = (shard0 / 4 + shard1 / 1) / 2;
  REQUIRE(std::abs(meanOfMeans - ref.loss) > 1e-2);
  CHECK(ref.loss == Approx((shard0 + shard1) / 5));

  checkMlpOnMeshes(in, ref);

  // Every label ignored: 0/0 = NaN, as jnp.average.
  in["labels"].values.assign(8, -1);
  Compiled c = compileFile(runfile("samples/mlp.mlir"), "data=2,model=2");
  REQUIRE(c.ok);
  TypedRunOutcome r = runTyped(c, in);
  REQUIRE(r.ok);
  CHECK(std::isnan(r.outputs.at("loss").values.at(0)));
}

TEST_CASE("samples/mlp.mlir on data=2,model=2: weights stay sharded (no all_gather)",
          "[exec][samples][mlp][collectives]") {
  for (const std::string &mesh : {std::string("data=2,model=2"), std::string("data=4,model=2")}) {
    Compiled c = compileFile(runfile("samples/mlp.mlir"), mesh);
    INFO("--mesh " << mesh << "\n" << c.diagnostics);
    REQUIRE(c.ok);
    INFO("collectives:\n" << collectivesText(c.signature));
    int64_t allReduceModel = 0, allReduceData = 0;
    for (const shardc::CollectiveRecord &r : c.signature.collectives) {
      INFO(r.kind << " " << r.valueType << " at " << r.location);
      // W1 is tensor<16x32xf32>, W2 tensor<32x4xf32>; no gather of either,
      // nor of anything derived from them (h is 8x32).
      CHECK(r.kind != "all_gather");
      CHECK(r.valueType != "tensor<16x32xf32>");
      CHECK(r.valueType != "tensor<32x4xf32>");
      if (r.kind == "all_reduce" && r.axes == std::vector<std::string>{"model"})
        ++allReduceModel;
      if (r.kind == "all_reduce" && r.axes == std::vector<std::string>{"data"})
        ++allReduceData;
    }
    // One reduction of h @ W2 over "model"; the batch sums over "data".
    CHECK(allReduceModel == 1);
    CHECK(allReduceData >= 1);
    // The partitioned IR says the same: no all_gather anywhere.
    std::string error;
    std::string text = readFile(runfile("samples/mlp.mlir"), error);
    REQUIRE(error == "");
    Compiled p = compile(text, mesh, "samples/mlp.mlir", shardc::Phase::Partitioned);
    REQUIRE(p.ok);
    CHECK(p.emitted.find("all_gather") == std::string::npos);
    CHECK(p.emitted.find("garray.all_reduce") != std::string::npos);
  }
}

TEST_CASE("samples/attention.mlir: y on 1x1, 2x1, 1x2, 2x2, 1x4, 2x4, 2x3, 3x5 meshes",
          "[exec][samples][attention]") {
  TypedInputs in = loadSample("attention", {"X", "Wq", "Wk", "Wv", "Wo"});
  std::vector<double> ref = attentionReference(in);
  TypedRunOutcome one;
  for (const std::string &mesh : {"data=1,model=1", "data=2,model=1", "data=1,model=2",
                                  "data=2,model=2", "data=1,model=4", "data=2,model=4",
                                  "data=2,model=3", "data=3,model=5"}) { // last two uneven
    Compiled c = compileFile(runfile("samples/attention.mlir"), mesh);
    INFO("--mesh " << mesh << "\n" << c.diagnostics);
    REQUIRE(c.ok);
    INFO("collectives:\n" << collectivesText(c.signature));
    for (const shardc::CollectiveRecord &r : c.signature.collectives)
      CHECK(r.kind != "all_gather"); // Wq, Wk, Wv, Wo stay sharded
    TypedRunOutcome r = runTyped(c, in);
    INFO(r.error);
    REQUIRE(r.ok);
    CHECK(mismatchTyped("y", r.outputs.at("y"), "f32", {2, 8, 16}, ref, kTol) == "");
    for (const auto &[name, diff] : r.replicaDiffs)
      CHECK(diff == 0.0);
    if (std::string(mesh) == "data=1,model=1")
      one = r;
    else
      checkSame(r, one, mesh);
  }
}

// dot_general contractions with a transposed operand must not become
// linalg.matmul/batch_matmul with default maps (as LLVM 22's
// linalg-specialize-generic-ops would make them): samples/attention.mlir's
// q·kᵀ (contracting = [2] x [2]) would then fail to compile on model=1
// ("'linalg.batch_matmul' op inferred input/output operand #1 has shape's
// dimension #1 to be 16, but found 8") and give a wrong y on model=2, where
// the local sizes happen to agree. Square shapes here so that a
// mis-specialization would verify and compute silently wrong numbers.
TEST_CASE("dot_general with transposed operands (matmul / batch_matmul shapes)",
          "[exec][samples][dot_general]") {
  struct Case {
    const char *what;
    std::vector<int64_t> lhs, rhs, out;
    std::string dims; // batch = .., contracting = ..
    std::vector<int64_t> lb, rb, lc, rc;
  };
  auto ty = [](const std::vector<int64_t> &s) {
    std::string t = "tensor<";
    for (int64_t d : s)
      t += std::to_string(d) + "x";
    return t + "f32>";
  };
  for (const Case &k : {
           Case{"a^T b", {4, 4}, {4, 4}, {4, 4}, "batch = [] x [], contracting = [0] x [0]", {}, {}, {0}, {0}},
           Case{"a b^T", {4, 4}, {4, 4}, {4, 4}, "batch = [] x [], contracting = [1] x [1]", {}, {}, {1}, {1}},
           Case{"a^T b^T", {4, 4}, {4, 4}, {4, 4}, "batch = [] x [], contracting = [0] x [1]", {}, {}, {0}, {1}},
           Case{"batched q k^T", {2, 4, 4}, {2, 4, 4}, {2, 4, 4},
                "batch = [0] x [0], contracting = [2] x [2]", {0}, {0}, {2}, {2}},
           Case{"batched a^T b", {2, 4, 4}, {2, 4, 4}, {2, 4, 4},
                "batch = [0] x [0], contracting = [1] x [1]", {0}, {0}, {1}, {1}},
       }) {
    INFO(k.what);
    std::string model = "garray.mesh @mesh [\"data\" = 1]\nfunc.func @main(%a: " + ty(k.lhs) +
                        " {garray.name = \"a\"}, %b: " + ty(k.rhs) +
                        " {garray.name = \"b\"}) -> (" + ty(k.out) +
                        " {garray.name = \"c\"}) {\n  %c = garray.dot_general %a, %b, " + k.dims +
                        " : (" + ty(k.lhs) + ", " + ty(k.rhs) + ") -> " + ty(k.out) +
                        "\n  return %c : " + ty(k.out) + "\n}\n";
    Rng rng(77);
    TypedInputs in;
    in["a"] = randomInts(rng, "f32", k.lhs, -3, 3);
    in["b"] = randomInts(rng, "f32", k.rhs, -3, 3);
    // Reference: result index = (batch, lhs free, rhs free); one contracting dim.
    bool batched = !k.lb.empty();
    int64_t B = batched ? k.lhs[0] : 1, n = 4;
    auto idx = [&](const std::vector<int64_t> &shape, int64_t b, std::vector<int64_t> pos) {
      if (batched)
        pos.insert(pos.begin(), b);
      int64_t flat = 0;
      for (size_t d = 0; d < shape.size(); ++d)
        flat = flat * shape[d] + pos[d];
      return flat;
    };
    std::vector<double> expected;
    int64_t off = batched ? 1 : 0;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double acc = 0;
          for (int64_t c = 0; c < n; ++c) {
            std::vector<int64_t> lp(2), rp(2);
            lp[k.lc[0] - off] = c;
            lp[1 - (k.lc[0] - off)] = i;
            rp[k.rc[0] - off] = c;
            rp[1 - (k.rc[0] - off)] = j;
            acc += in["a"].values[idx(k.lhs, b, lp)] * in["b"].values[idx(k.rhs, b, rp)];
          }
          expected.push_back(acc);
        }
    TypedRunOutcome r = compileAndRunTyped(model, "data=1", in);
    INFO(r.error);
    REQUIRE(r.ok);
    CHECK(mismatchTyped("c", r.outputs.at("c"), "f32", k.out, expected, Tolerance{0, 0}) == "");
  }
}
