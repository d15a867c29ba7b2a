//===- ExecHarness.h - compile a model, run it on N ranks, read results ---===//
//
// The reusable part of the execution tests. A test hands over model text (or
// a sample from runfiles), a `--mesh` string and named f32 inputs; the harness
// parses the model, compiles it with shardc::compileModule exactly as `shardc`
// does, runs the object on every device of the mesh with shardc::runThreads
// (one thread per rank), and returns the gathered global outputs by name,
// together with the largest replica disagreement of each output.
//
// Nothing here uses Catch2: every failure comes back as text (MLIR
// diagnostics, runtime errors, the first element out of tolerance), so a test
// can print it with INFO/CHECK and the helper stays usable from other tests.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_EXEC_EXECHARNESS_H
#define SHARDC_TESTS_EXEC_EXECHARNESS_H

#include "compiler/host/Executor.h"
#include "compiler/host/Signature.h"
#include "compiler/pipeline/Pipeline.h"

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace shardc_test {

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

/// Absolute path of a workspace-relative runfile ("samples/x.mlir"), found
/// through $TEST_SRCDIR/$TEST_WORKSPACE (bazel test), $RUNFILES_DIR, or the
/// current directory (running the binary by hand from the repository root).
std::string runfile(const std::string &workspacePath);

/// Whole file as text; sets `error` (and returns "") when it cannot be read.
std::string readFile(const std::string &path, std::string &error);

//===----------------------------------------------------------------------===//
// Host arrays (every model under test is f32)
//===----------------------------------------------------------------------===//

struct F32Array {
  std::vector<int64_t> shape;
  std::vector<float> values; // row-major

  F32Array() = default;
  F32Array(std::vector<int64_t> shape, std::vector<float> values);
  /// Zero-filled.
  static F32Array zeros(std::vector<int64_t> shape);
  int64_t numel() const;
  float &at(int64_t i) { return values[i]; }
  float at(int64_t i) const { return values[i]; }
  float &at(int64_t i, int64_t j) { return values[i * shape[1] + j]; }
  float at(int64_t i, int64_t j) const { return values[i * shape[1] + j]; }
  std::string shapeString() const; // (8, 2)
};

/// Reads an f32 .npy file with shardrt; sets `error` on failure.
F32Array loadNpy(const std::string &path, std::string &error);

/// X @ W for rank-2 arrays, accumulated in double: the oracle of the tests
/// that check a sharded matmul.
std::vector<double> matmulReference(const F32Array &X, const F32Array &W);

//===----------------------------------------------------------------------===//
// Host arrays of any dtype (for models that are not all f32)
//===----------------------------------------------------------------------===//

/// A global array of any shardrt dtype. Values are held as doubles: exact
/// for every f16/bf16/f32/f64 value and every integer up to 2^53, which is
/// all a test needs. Building the shardrt array rounds each value to the
/// dtype as roundToDtype() does.
struct TypedArray {
  std::string dtype = "f32"; // as shardrt_dtype_name: f32 f64 f16 bf16 i64 i32 i8 bool
  std::vector<int64_t> shape;
  std::vector<double> values; // row-major

  int64_t numel() const;
  std::string shapeString() const; // (8, 4)
  double at(int64_t i) const { return values[i]; }
  double at(int64_t i, int64_t j) const { return values[i * shape[1] + j]; }
};

using TypedInputs = std::map<std::string, TypedArray>;

/// Reads a .npy file of any shardrt dtype; sets `error` on failure.
TypedArray loadTypedNpy(const std::string &path, std::string &error);

/// Writes `a` as a .npy file with shardrt (for reproducers `shardc run`
/// reads); sets `error` on failure.
bool saveNpy(const std::string &path, const TypedArray &a, std::string &error);

/// `v` as the nearest value of `dtype` holds (round to nearest even for
/// floats; integers truncate toward zero and wrap, except that i64 clamps
/// at ±2^63; bool is v != 0).
double roundToDtype(const std::string &dtype, double v);

//===----------------------------------------------------------------------===//
// Deterministic inputs
//===----------------------------------------------------------------------===//

/// Values on a dyadic grid in [lo, hi): k / 2^23 scaled, so every draw is
/// exactly representable as f32 and identical on every platform (mt19937's
/// output is fixed by the standard; the distributions are not, so none is
/// used).
class Rng {
public:
  explicit Rng(uint32_t seed) : gen_(seed) {}
  /// Uniform on [lo, hi); lo and hi should be small powers of two apart.
  float uniform(float lo, float hi);
  F32Array array(std::vector<int64_t> shape, float lo, float hi);
  /// A uniformly random permutation of 0..n-1 (Fisher–Yates on gen_).
  std::vector<int64_t> permutation(int64_t n);

private:
  std::mt19937 gen_;
};

/// Uniform integers in [lo, hi] as a `dtype` array (also for float dtypes,
/// where small integers make sums exact in any order).
TypedArray randomInts(Rng &rng, const std::string &dtype, std::vector<int64_t> shape, int64_t lo,
                      int64_t hi);
/// Uniform values on the dyadic grid of Rng::uniform, as a `dtype` array
/// (rounded to f16/bf16 for those dtypes: the values the device sees).
TypedArray randomReals(Rng &rng, const std::string &dtype, std::vector<int64_t> shape, float lo,
                       float hi);

//===----------------------------------------------------------------------===//
// Compile and run
//===----------------------------------------------------------------------===//

using Inputs = std::map<std::string, F32Array>;

struct Compiled {
  bool ok = false;
  /// Every diagnostic the parser and the pipeline reported, as `shardc`
  /// prints them (file:line:col: error: ...), plus harness errors.
  std::string diagnostics;
  shardc::Signature signature;
  std::string object; // ELF bytes
  /// The IR printed at `emit`, when compile() was asked to stop there.
  std::string emitted;
};

/// Whether compile() uses the GPU target's tile phase, its tiles run in
/// index order on the CPU (CompileOptions::gpuSequential). Off by default;
/// test binaries that link :gpu_sequential_mode turn it on before main, so
/// the same tests check the GPU tiling against the same references.
bool &gpuSequentialMode();

/// With gpuSequentialMode: f32 contractions take the TF32 tensor-core
/// recipe (CompileOptions::gpuTf32). Turned on by :gpu_tf32_mode.
bool &gpuTf32Mode();

/// When nonzero, compile() splits LLVM's optimization and code generation
/// into this many partitions (CompileOptions::codegenPartitions) however
/// small the module, so the split-and-merge path runs the same tests.
/// Turned on by :partitioned_codegen_mode.
unsigned &codegenPartitionsMode();

/// When nonzero, compile() splits the update of training state replicated
/// over mesh axes, for state of at least this many elements
/// (CompileOptions::shardOptimizerState). Zero (off) by default, as in
/// shardc.
int64_t &shardOptimizerStateMode();

/// Parses `modelText` (named `bufferName` in diagnostics) and compiles it for
/// `mesh` ("data=4", "data=2,model=2"; "" = the sizes the model declares).
/// With `emit`, stops after that phase and returns its IR in `emitted`.
Compiled compile(const std::string &modelText, const std::string &mesh,
                 const std::string &bufferName = "model.mlir",
                 std::optional<shardc::Phase> emit = std::nullopt);
/// As compile(), reading the model from `path`.
Compiled compileFile(const std::string &path, const std::string &mesh);

struct RunOutcome {
  bool ok = false;
  std::string error; // compile diagnostics or the runtime's message
  int64_t ranks = 0;
  std::map<std::string, F32Array> outputs;
  /// Per output, the largest difference between its replicas (0 = agree).
  std::map<std::string, double> replicaDiffs;
  shardc::Signature signature;
};

/// Runs a compiled model on every device of its mesh (threads backend).
RunOutcome run(const Compiled &model, const Inputs &inputs);
struct TypedRunOutcome {
  bool ok = false;
  std::string error;
  int64_t ranks = 0;
  std::map<std::string, TypedArray> outputs;
  std::map<std::string, double> replicaDiffs;
};

/// run() for inputs and outputs of any dtype.
TypedRunOutcome runTyped(const Compiled &model, const TypedInputs &inputs);
/// shardc::runSteps on a threads RankGroup: `steps` steps with the state
/// kept on the ranks; one outcome per step, holding the outputs that step
/// gathered (with ReplicaCheck::Every, all of them). On failure the last
/// outcome carries the error.
std::vector<TypedRunOutcome> runTypedSteps(const Compiled &model, const TypedInputs &inputs,
                                           int steps, shardc::ReplicaCheck check);
/// compile() then runTyped().
TypedRunOutcome compileAndRunTyped(const std::string &modelText, const std::string &mesh,
                                   const TypedInputs &inputs);

/// compile() then run().
RunOutcome compileAndRun(const std::string &modelText, const std::string &mesh,
                         const Inputs &inputs, const std::string &bufferName = "model.mlir");

//===----------------------------------------------------------------------===//
// Comparing results (never bitwise)
//===----------------------------------------------------------------------===//

struct Tolerance {
  double rel = 1e-5;
  double abs = 1e-5;
};

/// "" when `actual` has `shape` and every element satisfies
/// |actual - expected| <= abs + rel * |expected|; otherwise a message naming
/// `what`, the first offending index, both values and the tolerance.
std::string mismatch(const std::string &what, const F32Array &actual,
                     const std::vector<int64_t> &shape, const std::vector<double> &expected,
                     Tolerance tol = {});
/// The same against another f32 array (e.g. the 1-rank run).
std::string mismatchArrays(const std::string &what, const F32Array &actual,
                           const F32Array &expected, Tolerance tol = {});

/// mismatchArrays() for typed arrays: also checks the dtype, and a NaN
/// matches only a NaN.
/// The same against `expected` values of `dtype` and `shape`.
std::string mismatchTyped(const std::string &what, const TypedArray &actual,
                          const std::string &dtype, const std::vector<int64_t> &shape,
                          const std::vector<double> &expected, Tolerance tol = {});
std::string mismatchTyped(const std::string &what, const TypedArray &actual,
                          const TypedArray &expected, Tolerance tol = {});

/// The run's mesh and rank count, for messages: ["data"=2, "model"=2] (4 ranks).
std::string describe(const RunOutcome &r);

} // namespace shardc_test

#endif
