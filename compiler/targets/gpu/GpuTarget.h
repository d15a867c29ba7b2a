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
// recipe takes (a reversed read) is an error naming it. Host code
// (allocation, copies, launches on device memory, collectives) is not
// lowered yet, so there is no object.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_GPU_GPUTARGET_H
#define SHARDC_COMPILER_TARGETS_GPU_GPUTARGET_H

#include "compiler/targets/gpu/GpuTargetOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace shardc {

/// The first stage above. The module's public function is the entry the
/// host calls; other functions are inlined into it. `--matmul-precision
/// tf32` is refused (no tensor-core recipe yet).
mlir::LogicalResult lowerToGpuKernels(mlir::ModuleOp module, const GpuTargetOptions &options);

struct PtxModule {
  std::string name;        // the gpu.module's symbol
  std::string ptx;         // PTX text
  std::string ptxasReport; // what `ptxas -v` said (registers, spills per kernel)
};

/// The second stage, on a module lowerToGpuKernels made.
mlir::FailureOr<std::vector<PtxModule>> emitPtx(mlir::ModuleOp module,
                                                const GpuTargetOptions &options);

} // namespace shardc

#endif // SHARDC_COMPILER_TARGETS_GPU_GPUTARGET_H
