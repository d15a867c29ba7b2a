//===- Pipeline.h - the compiler, phase by phase ----------------*- C++ -*-===//
//
// One call compiles a global model to a CPU object and its Signature:
//
//   model ──global phase──▶ global ──propagation phase──▶ propagated
//   ──partition phase──▶ partitioned ──local phase──▶ local
//   ──lowering phase, CPU target──▶ llvm ──▶ object
//
// The phases and their passes are passes/Pipelines.h; each ends with a
// verify gate stating its invariant (passes/verify/). `emit` stops after a
// phase and prints its IR. Errors are reported through MLIR diagnostics with
// source locations; the caller owns the diagnostic handler.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_PIPELINE_PIPELINE_H
#define SHARDC_COMPILER_PIPELINE_PIPELINE_H

#include "compiler/host/Signature.h"
#include "compiler/targets/gpu/GpuTargetOptions.h"

#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class ModuleOp;
class MLIRContext;
class DialectRegistry;
class Diagnostic;
class Location;
class TimingScope;
} // namespace mlir

namespace shardc {

/// Where `--emit` stops. Gpu and Ptx exist on the GPU target only
/// (CompileOptions::gpu), LLVM on the CPU target only.
enum class Phase { Global, Propagated, Partitioned, Local, LLVM, Gpu, Ptx };

/// "global", "propagated", ... → Phase; nullopt if unknown.
std::optional<Phase> parsePhase(llvm::StringRef name);

struct CompileOptions {
  /// `--mesh data=2,model=4`: overrides the sizes the model declares.
  std::string meshSizes;
  /// Stop after this phase and print its IR to `emitStream`.
  std::optional<Phase> emit;
  llvm::raw_ostream *emitStream = nullptr;
  /// Entry function; empty = `main`, or the only public function.
  std::string entry;
  /// LLVM CPU of the object (CpuTargetOptions::cpu): "host" (this machine,
  /// the default) or a name such as "x86-64-v2" for a portable object.
  std::string cpu = "host";
  /// `shardc explain` / `--explain-sharding`: propagation emits one remark
  /// per value (its sharding and where it came from) through the context's
  /// diagnostic handler.
  bool explain = false;
  /// `--split-idle-axes` (default on): inputs already split are split over
  /// the mesh axes no placement names too (garray-split-idle-axes).
  bool splitIdleAxes = true;
  /// `--shard-optimizer-state` (default off): the update of training state
  /// replicated over mesh axes is split over them, and the state held split
  /// (garray-shard-optimizer-state), for state of at least
  /// `shardStateMinElements` elements.
  bool shardOptimizerState = false;
  int64_t shardStateMinElements = 16384;
  /// `--memory-budget`: bytes per device. Compiling fails (with the largest
  /// values and how to shard them) when the estimated peak exceeds it.
  std::optional<int64_t> memoryBudget;
  /// `--combine-bytes`: independent all-reduces over the same groups are
  /// combined up to this many bytes per device (0: never).
  int64_t combineBytes = int64_t(4) << 20;
  /// `--profile`: the object times each kernel and collective call
  /// (CpuTargetOptions::profile) for `shardc run --profile`.
  bool profile = false;
  /// Tests only: compile with the GPU target's tile phase, its tiles run in
  /// index order on this CPU (CpuTargetOptions::gpuSequential).
  bool gpuSequential = false;
  /// Tests only, with gpuSequential: f32 contractions on the TF32 tensor-core
  /// recipe (CpuTargetOptions::gpuTf32).
  bool gpuTf32 = false;
  /// Tests: verify the IR after every pass of the CPU lowering, not just
  /// at its end (CpuTargetOptions::verifyEachPass).
  bool verifyEachPass = false;
  /// `--compile-threads`: threads for LLVM's optimization and code
  /// generation (CpuTargetOptions::codegenThreads; 0 = one per hardware
  /// thread). The object does not depend on it.
  unsigned compileThreads = 0;
  /// Tests only: compile in this many partitions whatever the module's size
  /// (CpuTargetOptions::codegenPartitions; 0 = by size).
  unsigned codegenPartitions = 0;
  /// `--timing`: each phase is timed as a scope nested in this one, its
  /// passes (and the CPU target's LLVM optimization and code generation)
  /// nested in it; the caller's timing manager prints the tree.
  mlir::TimingScope *timing = nullptr;
  /// `--target ptx`: compile for the GPU target instead (GpuTarget.h). As
  /// far as it is built: `emit` Gpu or Ptx print its kernels; without them
  /// compiling fails after the PTX is made (no host object yet).
  std::optional<GpuTargetOptions> gpu;
};

struct CompileResult {
  Signature signature;
  std::string object; // ELF bytes; empty when stopped early by `emit`
};

/// How deep a model's text may nest brackets ( [ { < before it is refused
/// unparsed.
inline constexpr int kMaxNesting = 256;

/// The dialects a model may be written in (the input contract's): a context
/// that parses a model knows only these, so the parser never runs another
/// dialect's custom parser on hostile text; parseModel adds the rest.
void registerModelDialects(mlir::DialectRegistry &registry);

/// Parses the main buffer of `sourceMgr` as a model into `ctx`, which must
/// have been made with registerModelDialects only: nesting deeper than
/// kMaxNesting is refused before parsing, the input contract
/// (passes/verify/InputContract.h) is checked before MLIR's verifier runs,
/// then the module is verified and the compiler's other dialects are added
/// to `ctx`. Null on error, reported through `ctx`.
mlir::OwningOpRef<mlir::ModuleOp> parseModel(llvm::SourceMgr &sourceMgr,
                                             mlir::MLIRContext &ctx);

/// Registers every dialect and interface the pipeline needs.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// Parses `text` in a fresh single-threaded context and compiles it: the one
/// entry point for library callers (tests, benchmarks, embedders). Every
/// diagnostic is appended to `diagnostics` as `name:line:col: error: ...`
/// with the offending line, `bufferName` naming the text; `observe`, when
/// given, sees each diagnostic first (the C API records them structured).
std::optional<CompileResult>
compileText(llvm::StringRef text, llvm::StringRef bufferName, const CompileOptions &options,
            std::string &diagnostics,
            const std::function<void(mlir::Diagnostic &)> &observe = nullptr);

/// The file, line and column a diagnostic at `loc` points at: the first
/// file position inside it (a call site's callee first, which for a JAX
/// program is the user's line); false when it names no file.
bool fileLocationOf(mlir::Location loc, std::string &file, unsigned &line, unsigned &column);

/// Compiles `module` (parsed in `ctx`) in place. Returns nullopt on error
/// (already reported as diagnostics).
std::optional<CompileResult> compileModule(mlir::ModuleOp module, const CompileOptions &options);

} // namespace shardc

#endif
