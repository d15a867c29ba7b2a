//===- ImportJaxTest.cpp - JAX's programs, imported and run on many meshes ===//
//
// Each program under tests/import/jax/ is JAX's own lowering (generic
// StableHLO + Shardy, written by tools/jax_export.py from models.py), with
// JAX's inputs and the outputs of one call. shardc imports the file as it
// is, compiles it for the mesh in the file and for others (`--mesh`
// overrides sizes; uneven ones too), runs it on that many ranks and must
// match JAX: per output, ||shardc - jax|| / ||jax|| <= 1e-5, and every
// integer output exactly. The inputs are found by the names shardc gives the
// arguments, so a naming difference between the importer and the exporter
// fails here too.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"

#include "llvm/Support/JSON.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <set>

using namespace shardc_test;

namespace {

/// ||a - b|| / ||b|| over every element (0 when both are zero). Equal
/// elements differ by nothing, infinities included; ||b|| counts the
/// finite ones.
double relativeError(const TypedArray &a, const TypedArray &b) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (a.values[i] != b.values[i])
      diff += (a.values[i] - b.values[i]) * (a.values[i] - b.values[i]);
    if (std::isfinite(b.values[i]))
      norm += b.values[i] * b.values[i];
  }
  return norm == 0 ? std::sqrt(diff) : std::sqrt(diff / norm);
}

void checkProgram(const std::string &name, const std::vector<std::string> &meshes) {
  std::string dir = runfile("tests/import/jax/" + name), error;
  for (const std::string &mesh : meshes) {
    INFO(name << " on mesh '" << mesh << "'");
    Compiled model = compileFile(dir + ".mlir", mesh);
    INFO(model.diagnostics);
    REQUIRE(model.ok);
    TypedInputs inputs;
    for (const shardc::TensorSignature &t : model.signature.inputs) {
      inputs[t.name] = loadTypedNpy(dir + "/inputs/" + t.name + ".npy", error);
      INFO("argument '" << t.name << "': " << error);
      REQUIRE(error.empty());
    }
    TypedRunOutcome r = runTyped(model, inputs);
    INFO(r.error);
    REQUIRE(r.ok);
    std::set<std::string> seen;
    for (const shardc::TensorSignature &t : model.signature.outputs) {
      TypedArray want = loadTypedNpy(dir + "/outputs/" + t.name + ".npy", error);
      INFO("output '" << t.name << "': " << error);
      REQUIRE(error.empty());
      const TypedArray &got = r.outputs.at(t.name);
      REQUIRE(got.shape == want.shape);
      bool integer = got.dtype[0] == 'i' || got.dtype[0] == 'u' || got.dtype == "bool";
      double rel = relativeError(got, want);
      INFO("output '" << t.name << "' relative error " << rel);
      CHECK(rel <= (integer ? 0.0 : 1e-5));
      CHECK(r.replicaDiffs.at(t.name) == 0);
      seen.insert(t.name);
    }
    CHECK(seen.size() == model.signature.outputs.size());
  }
}

/// On the mesh JAX compiled for, shardc moves at most the bytes per device
/// XLA's compiled program moves (xla_collectives.json, counted as shardc's
/// report counts them).
void checkBytesAgainstXla(const std::string &name) {
  std::string dir = runfile("tests/import/jax/" + name), error;
  std::string text = readFile(dir + "/xla_collectives.json", error);
  REQUIRE(error.empty());
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  REQUIRE(bool(json));
  std::optional<int64_t> xla = json->getAsObject()->getInteger("bytes_per_device");
  REQUIRE(xla);
  Compiled model = compileFile(dir + ".mlir", "");
  REQUIRE(model.ok);
  int64_t ours = 0;
  for (const shardc::CollectiveRecord &c : model.signature.collectives)
    ours += c.bytesPerDevice;
  INFO(name << ": shardc " << ours << " B/device, XLA " << *xla);
  CHECK(ours <= *xla);
}

} // namespace

// Not `loops` or `solvers`: XLA's count has each collective of a while body
// once, not once per iteration, so it is no bound on what a step moves.
TEST_CASE("imported programs move no more bytes than XLA's", "[import][exec]") {
  for (const char *name :
       {"linreg", "mlp_2x2", "mlp_1d", "transformer", "embedding", "activations",
        "pooling", "maxpool", "branches", "dropout", "cnn", "vae", "sorting",
        "scans", "windows", "edges", "counts", "keyed", "dirichlet", "segments", "flags",
        "products", "shardmap"})
    checkBytesAgainstXla(name);
}

TEST_CASE("the seed's linear-regression step from JAX matches JAX", "[import][exec]") {
  checkProgram("linreg", {"", "data=1", "data=3", "data=8"});
}

TEST_CASE("an MLP training step with Adam on a 2x2 mesh matches JAX", "[import][exec]") {
  checkProgram("mlp_2x2", {"", "data=1,model=1", "data=3,model=1", "data=1,model=4"});
}

TEST_CASE("an MLP training step with Adam on a 1-D mesh matches JAX", "[import][exec]") {
  checkProgram("mlp_1d", {"", "data=2", "data=3"});
}

TEST_CASE("a transformer block's training step matches JAX", "[import][exec]") {
  checkProgram("transformer", {"", "data=1,model=1", "data=4,model=1", "data=3,model=2"});
}

TEST_CASE("an embedding lookup with token cross-entropy matches JAX", "[import][exec]") {
  checkProgram("embedding", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("exact GELU, erf, erfc, logsumexp and an is_finite guard match JAX", "[import][exec]") {
  checkProgram("activations",
               {"", "data=1,model=1", "data=3,model=1", "data=2,model=3", "data=4,model=2"});
}

TEST_CASE("a VAE step with jax.random.normal noise (erf_inv) matches JAX", "[import][exec]") {
  checkProgram("vae", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("sort, argsort, top_k and lexsort (ties, infinities, -0) match JAX",
          "[import][exec]") {
  checkProgram("sorting", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("cumlogsumexp, its gradient, a windowed argmax of pairs and rows put at a "
          "runtime start match JAX",
          "[import][exec]") {
  checkProgram("scans", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("a minibatch, a boolean mask, columns and rows cut or put at a runtime start, "
          "more than one-hot sums take, match JAX",
          "[import][exec]") {
  checkProgram("windows", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("zero-size pieces (cumprod's gradient) and reduce_precision (a remat policy, "
          "bfloat16 widths) match JAX",
          "[import][exec]") {
  checkProgram("edges", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("while loops bounded by a count and stopped by a test on data (power iteration, "
          "Newton's square root, a loop that never runs) match JAX",
          "[import][exec]") {
  checkProgram("solvers", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("searchsorted, digitize and uint32 hashing (division, remainder, sign, clip, a "
          "take at indices past 2^31) match JAX",
          "[import][exec]") {
  checkProgram("search", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("a negative-binomial regression step (gammaln, its digamma gradient) and both "
          "functions at negatives and poles match JAX",
          "[import][exec]") {
  checkProgram("counts", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("a CNN's training step (strided, dilated, depthwise convolutions) matches JAX",
          "[import][exec]") {
  checkProgram("cnn", {"", "data=1,model=1", "data=3,model=1", "data=2,model=3", "data=8"});
}

TEST_CASE("lax.scan over layers and time and a fori_loop (unrolled) match JAX",
          "[import][exec]") {
  checkProgram("loops", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("a scan over stacked layers and a reversed scan over time, trained, match JAX",
          "[import][exec]") {
  checkProgram("stacked_scans", {"", "data=1,model=1", "data=2,model=1", "data=1,model=2",
                                 "data=3,model=1", "data=4,model=2"});
}

TEST_CASE("average pooling and cumsum (reduce_window, interior padding) match JAX",
          "[import][exec]") {
  checkProgram("pooling", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("max pooling and its gradient (select_and_scatter: padding, overlaps, ties) match "
          "JAX",
          "[import][exec]") {
  checkProgram("maxpool", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("lax.cond and lax.switch on data (stablehlo.case, and in the gradient) match JAX",
          "[import][exec]") {
  checkProgram("branches", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("dropout with jax.random in the step (threefry on unsigned words) matches JAX",
          "[import][exec]") {
  checkProgram("dropout", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("a step that takes a PRNG key and uint8 pixels and returns the next key matches "
          "JAX",
          "[import][exec]") {
  checkProgram("keyed", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("a Dirichlet KL term's second-order gradient (polygamma) and Hurwitz zeta match "
          "JAX",
          "[import][exec]") {
  checkProgram("dirichlet", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("segment_max and its gradient, segment_min, .at[ids].set (last write wins, out of "
          "range dropped) and .at[ids].max match JAX",
          "[import][exec]") {
  checkProgram("segments", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("boolean segment_max and segment_min, .at[ids].max and .min of flags (an OR and an "
          "AND, out-of-range ids dropped) match JAX",
          "[import][exec]") {
  checkProgram("flags", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("segment_prod of floats (a zero factor, an empty segment) and of integers, "
          ".at[ids].mul, match JAX",
          "[import][exec]") {
  checkProgram("products", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("fancy indexing (logp[arange(B), labels], x[:, idx], diagonal, triu_indices, "
          "vmapped v[l] and dynamic_slice, broadcast take_along_axis), its gradients and "
          ".at[i, j].add/.set with repeated and out-of-range pairs match JAX",
          "[import][exec]") {
  checkProgram("gathers", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("cumsum, cummax, cummin and cumprod along 1030 to 1100 elements (forward, reversed, "
          "along a sharded dim) and a cumsum's gradient match JAX",
          "[import][exec]") {
  checkProgram("cumulative", {"", "data=1", "data=3", "data=4"});
}

TEST_CASE("float to uint8, uint16 and uint32 (negatives, NaN, infinities and values past the "
          "range saturate) match JAX",
          "[import][exec]") {
  checkProgram("unsigned_casts", {"", "data=1", "data=3"});
}

TEST_CASE("shard_map (a hand-written Megatron MLP, its gradient, psum of floats and ints, "
          "pmax, all_gather tiled and not, psum_scatter, all_to_all, ppermute of every "
          "device and of some, axis_index) matches JAX",
          "[import][exec]") {
  // Its body is written for the blocks of its own mesh: only that compiles.
  checkProgram("shardmap", {""});
  Compiled other = compileFile(runfile("tests/import/jax/shardmap.mlir"), "data=4,model=1");
  CHECK_FALSE(other.ok);
  CHECK_THAT(other.diagnostics,
             Catch::Matchers::Contains("resizes mesh @mesh, but this shard_map's body is "
                                       "written for the blocks and devices of its sizes"));
}

TEST_CASE("shard_map over some mesh axes only (a data-parallel loss and its gradient, every "
          "collective over the manual axis, axis_index, one over \"model\" only) matches "
          "JAX",
          "[import][exec]") {
  // The body runs per device over every axis, whole along the free one.
  checkProgram("shardmap_partial", {""});
}

TEST_CASE("shard_map over \"data\" on a 2x1 mesh (argmax and psum in its body, open "
          "shardings along the one-device free axis) and on a one-device mesh (collectives "
          "over one device outside any shard_map) match JAX",
          "[import][exec]") {
  checkProgram("shardmap_unit", {""});
  checkProgram("shardmap_one", {""});
}
