//===- GpuTargetOptions.h - what a GPU compile is for ----------*- C++ -*-===//
//
// The choices of `--target ptx`, apart from the rest of the GPU target so
// that the compiler's light headers (Pipeline.h) can carry them.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_GPU_GPUTARGETOPTIONS_H
#define SHARDC_COMPILER_TARGETS_GPU_GPUTARGETOPTIONS_H

#include "compiler/targets/gpu/CudaToolkit.h"

namespace shardc {

struct GpuTargetOptions {
  gpu::GpuArch arch = gpu::GpuArch::Sm90;
  gpu::MatmulPrecision matmulPrecision = gpu::MatmulPrecision::Exact;
  /// The toolkit whose ptxas assembles the PTX (resolved by the caller, so
  /// nothing falls back to another toolkit).
  gpu::CudaToolkit toolkit;
};

} // namespace shardc

#endif // SHARDC_COMPILER_TARGETS_GPU_GPUTARGETOPTIONS_H
