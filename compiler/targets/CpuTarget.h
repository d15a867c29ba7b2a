//===- CpuTarget.h - shardc's x86-64 CPU back end --------------------------===//
//
// Turns a local (per-device) program on tensors into an x86-64 ELF object.
//
// Host ABI. For an entry `func.func @f(%a: tensor<AxBxf32>, ...) -> (tensor<...>, ...)`
// (ranked tensors, static shapes, int or float elements; rank 0 for scalars)
// the object exports
//
//   extern "C" void f_shardc(void **buffers);
//
// buffers[0 .. numInputs) are the inputs, then one buffer per result, each a
// dense row-major array of its tensor's shape. Preconditions, which
// bufferization relies on (restrict): output buffers do not overlap each
// other or any input; inputs are only read. Results that alias an input or
// another result are copied, never returned by reference. The generated code
// has no global mutable state, so it may run on several threads at once. Its
// undefined symbols are libc/libm functions and the external functions the
// input module declares (the runtime's shardrt_* functions).
//
// Staging: lowerToLLVMDialect (MLIR, in place) -> emitLLVMIR / emitObject. Each
// step reports failure through MLIR diagnostics on the module; nothing is
// printed and nothing aborts.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_CPUTARGET_H
#define SHARDC_COMPILER_TARGETS_CPUTARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <string>

namespace mlir {
class TimingScope;
} // namespace mlir

namespace shardc {

/// CpuTargetOptions::cpu value meaning "the machine running the compiler":
/// its LLVM CPU name and the features it reports (CPUID), as -march=native.
inline constexpr llvm::StringLiteral kHostCpu = "host";

struct CpuTargetOptions {
  /// LLVM CPU name (`llc -mcpu`) or kHostCpu. The default is the host,
  /// because shardc's objects normally run where they are compiled (`shardc
  /// run` loads them in process) and the GEMM kernel's register tiles need
  /// the host's vector width (AVX-512 vs AVX2) to be fast. For an object
  /// that must run on other machines, name their CPU; "x86-64-v2" runs on any
  /// x86-64 from ~2009 on, "x86-64-v3" on any with AVX2/FMA (docs/decisions.md).
  std::string cpu = kHostCpu.str();
  /// LLVM optimization level, 0..3.
  unsigned optLevel = 3;
  /// `--profile`: every loop nest becomes a named kernel function, and each
  /// kernel and collective call is timed by the runtime's probes
  /// (cpu-instrument-profile).
  bool profile = false;
  /// Tests of the GPU target: run its tile phase (gpu-tile-and-fuse) and
  /// execute the tiles in index order (gpu-sequential-forall), so a program
  /// tiled for the GPU runs here and can be compared with this target's.
  bool gpuSequential = false;
  /// With gpuSequential: f32 contractions take the tensor-core recipe with
  /// TF32 operands, as `--target ptx --matmul-precision=tf32` compiles them.
  bool gpuTf32 = false;
  /// Verify the IR after every pass of the lowering pipeline, not just at
  /// its end: names the pass that broke it, at about twice the time.
  bool verifyEachPass = false;
  /// LLVM optimization and code generation in partitions (LlvmCodegen.h):
  /// 0 chooses the count from the module's size, so the object does not
  /// depend on the machine; 1 compiles the module whole.
  unsigned codegenPartitions = 0;
  /// Partitions compiled at once; 0 = one per hardware thread. Does not
  /// change the object.
  unsigned codegenThreads = 0;
  /// When set, the MLIR pipeline's passes, the translation, LLVM's IR
  /// optimization and its code generation are timed as scopes nested here.
  mlir::TimingScope *timing = nullptr;
};

/// Suffix of the exported host entry point: `<entry>_shardc`.
inline constexpr llvm::StringLiteral kCpuEntrySuffix = "_shardc";

/// Lowers `module` in place to the LLVM dialect. `entry` names a func.func on
/// tensors (static shapes) whose results become caller-provided output
/// buffers; a new function `void <entry>_shardc(void** buffers)` (C ABI,
/// buffers[0..numInputs) are the inputs, then one buffer per result, all dense
/// row-major) is added and is the symbol host code calls. Other funcs may
/// exist (private helpers, external declarations). The module's context gets
/// the upstream dialects and passes it needs registered; do not lower modules
/// of the same MLIRContext from several threads at once. On failure the
/// module is left partially lowered (diagnostics say where) and should be
/// discarded.
/// `options.cpu` chooses the GEMM register/cache tiles (by vector width);
/// an unknown CPU is an error here already. optLevel is not used.
mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module, llvm::StringRef entry,
                                       const CpuTargetOptions &options = CpuTargetOptions());

/// The MLIR pass pipeline (textual form, anchored on builtin.module) that
/// lowerToLLVMDialect runs between its two C++ steps (adding the buffer
/// wrapper before, adding the `void**` entry after). For shardc-opt and tests:
/// `shardc-opt --pass-pipeline=<this>` replays it. The GEMM tiles depend on
/// `options.cpu` (an unknown CPU gets the portable x86-64 tiles).
std::string cpuLoweringPipeline(const CpuTargetOptions &options = CpuTargetOptions());

/// The tensor phase this pipeline starts with, as a comma-separated pass
/// list: helpers inlined, elementwise chains fused into one generic each,
/// named ops given back their names, canonicalized. The GPU target starts
/// with the same phase (its kernels are these ops).
std::string tensorPhasePasses();

/// The phase that ends the pipeline: memrefs, arith, math, func and cf to
/// the LLVM dialect, as a comma-separated pass list. The GPU target lowers
/// its host code with it.
std::string llvmDialectPhasePasses();

/// The two C++ steps around lowerToLLVMDialect's pipeline, which the GPU
/// target's host code shares: before, `<entry>_shardc_body` on memrefs
/// (inputs, then one output buffer per result) calling the entry; after
/// the pipeline, the exported `void <entry>_shardc(void **buffers)`.
/// addEntryBufferWrapper returns the buffers' types in `void**` order.
mlir::FailureOr<llvm::SmallVector<mlir::MemRefType>>
addEntryBufferWrapper(mlir::ModuleOp module, llvm::StringRef entry);
mlir::LogicalResult addEntryPointerArray(mlir::ModuleOp module, llvm::StringRef entry,
                                         llvm::ArrayRef<mlir::MemRefType> buffers);

/// LLVM IR (text) of a module already in the LLVM dialect, optimized at optLevel.
mlir::FailureOr<std::string> emitLLVMIR(mlir::ModuleOp module, const CpuTargetOptions &options);

/// x86-64 ELF object bytes of a module already in the LLVM dialect.
mlir::FailureOr<std::string> emitObject(mlir::ModuleOp module, const CpuTargetOptions &options);

} // namespace shardc

#endif // SHARDC_COMPILER_TARGETS_CPUTARGET_H
