//===- GpuTarget.h - shardc's NVIDIA GPU (PTX) back end ---------*- C++ -*-===//
//
// Turns a local (per-device) program on tensors into GPU kernels and their
// PTX, for NVIDIA Hopper (docs/gpu.md is the plan; this is what is built of
// it). Staging, each step in place on the module and reporting failure
// through MLIR diagnostics:
//
//   lowerToGpuKernels   the CPU target's tensor phase (fusion), the tile
//                       phase (gpu-tile-and-fuse), bufferization,
//                       gpu-map-foralls, kernel outlining: every kernel in
//                       a gpu.module, launched by gpu.launch_func from the
//                       host function (`shardc compile --emit=gpu`);
//   emitPtx             NVVM, PTX per gpu.module (LLVM's NVPTX back end,
//                       in process), each assembled by the toolkit's ptxas
//                       for the arch, which must accept it
//                       (`--emit=ptx`).
//
// The tile phase's recipes so far (GpuPasses.td): one thread per output
// for elementwise ops, reductions and contractions (reduction loops run
// whole, in order), one thread for ops with no parallel loop. An op no
// recipe takes (a reversed read) is an error naming it.
//
//   lowerGpuHost        the host code to the LLVM dialect: each module's
//                       image (fatbin of cubin + PTX for sm_90, cubin for
//                       sm_90a) a constant, launches shardrt_cuda_launch
//                       calls, buffers device memory (shardrt_cuda_alloc),
//                       collectives staged through the host
//                       (shardrt_cuda.h), and the exported
//                       `void <entry>_shardc(void **buffers)` whose buffers
//                       are device pointers of the calling rank's GPU.
//                       emitObject then makes the object, as for the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_GPU_GPUTARGET_H
#define SHARDC_COMPILER_TARGETS_GPU_GPUTARGET_H

#include "compiler/host/Signature.h"
#include "compiler/targets/gpu/GpuTargetOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace shardc {

/// The first stage above. The module's public function is the entry the
/// host calls; other functions are inlined into it. `--matmul-precision
/// tf32` puts f32 contractions on the tensor cores too (TF32 operands).
/// `entry` gets the CPU target's buffer wrapper first (outputs written into
/// caller buffers).
mlir::LogicalResult lowerToGpuKernels(mlir::ModuleOp module, llvm::StringRef entry,
                                      const GpuTargetOptions &options);

struct PtxModule {
  std::string name;        // the gpu.module's symbol
  std::string ptx;         // PTX text
  std::string ptxasReport; // what `ptxas -v` said (registers, spills per kernel)
  std::string cubin;       // what ptxas made for the arch
};

/// The second stage, on a module lowerToGpuKernels made.
mlir::FailureOr<std::vector<PtxModule>> emitPtx(mlir::ModuleOp module,
                                                const GpuTargetOptions &options);

/// "ptx-sm_90" or "ptx-sm_90a": the manifest's target.
std::string gpuTargetName(gpu::GpuArch arch);

/// The kernels of a module emitPtx lowered, one per launch site in launch
/// order (a module launched twice is listed once): the launch shape from
/// its gpu.launch_func, registers, shared memory, stack and spills from
/// ptxas's report.
std::vector<KernelRecord> kernelRecords(mlir::ModuleOp module,
                                        const std::vector<PtxModule> &modules);

/// The third stage, on a module emitPtx lowered, with its modules.
mlir::LogicalResult lowerGpuHost(mlir::ModuleOp module, llvm::StringRef entry,
                                 const std::vector<PtxModule> &modules,
                                 const GpuTargetOptions &options);

} // namespace shardc

#endif // SHARDC_COMPILER_TARGETS_GPU_GPUTARGET_H
