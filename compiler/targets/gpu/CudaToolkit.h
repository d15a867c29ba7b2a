//===- CudaToolkit.h - the CUDA toolkit and GPU architectures --*- C++ -*-===//
//
// What the PTX target needs from the machine that compiles: a CUDA toolkit
// whose `ptxas` assembles the generated PTX (for the manifest's registers
// and shared memory, and to refuse kernels over the arch's limits), and the
// choice of architecture.
//
// The toolkit is resolved once, by shardc itself, and handed to everything
// that needs it (MLIR's NVVM target included), so no step falls back to a
// different toolkit found on PATH:
//
//   CUDA_PATH set      -> $CUDA_PATH, which must hold bin/ptxas (a wrong
//                         CUDA_PATH is an error, never skipped);
//   otherwise          -> /usr/local/cuda;
//
// and the toolkit must hold nvvm/libdevice/libdevice.10.bc, the math
// library MLIR links into kernels.
//
// Architectures: sm_90 (Hopper through mma.sync; the object also embeds
// PTX, so newer GPUs can run it) and sm_90a (adds wgmma and TMA, which run
// on compute capability 9.0 only).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_GPU_CUDATOOLKIT_H
#define SHARDC_COMPILER_TARGETS_GPU_CUDATOOLKIT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace shardc::gpu {

enum class GpuArch { Sm90, Sm90a };

/// The arch named `name` ("sm_90", "sm_90a"), or nullopt.
std::optional<GpuArch> parseGpuArch(llvm::StringRef name);
llvm::StringRef archName(GpuArch arch);
/// The accepted names, for messages: "sm_90 or sm_90a".
llvm::StringRef acceptedArchs();

/// How f32 contractions use tensor cores: `exact` (default) keeps f32 FMAs;
/// `tf32` rounds operands to TF32 (10-bit mantissa) for mma.sync.
enum class MatmulPrecision { Exact, Tf32 };
std::optional<MatmulPrecision> parseMatmulPrecision(llvm::StringRef name);

struct CudaToolkit {
  std::string root;    // e.g. /usr/local/cuda
  std::string ptxas;   // root/bin/ptxas
  std::string release; // ptxas's release, e.g. "13.0"
};

/// Resolves the toolkit as described above and asks its ptxas for its
/// release. The error says where it looked and what to set.
llvm::Expected<CudaToolkit> findCudaToolkit();

/// What ptxas made of one PTX module.
struct AssembledModule {
  std::string report; // ptxas -v: per kernel, registers, stack, spills
  std::string cubin;  // the ELF image for the arch
};

/// Assembles `ptx` for `arch` with the toolkit's ptxas (-O3 -v); an error
/// holds ptxas's messages when it refuses the PTX.
llvm::Expected<AssembledModule> assemblePtx(const CudaToolkit &toolkit, GpuArch arch,
                                            llvm::StringRef ptx);

/// The image a GPU artifact embeds for one module. sm_90: a fatbin (the
/// toolkit's `fatbinary`) of the cubin and the PTX, so that GPUs newer than
/// Hopper JIT the PTX; sm_90a: the cubin alone (its wgmma/TMA code runs on
/// compute capability 9.0 only).
llvm::Expected<std::string> moduleImage(const CudaToolkit &toolkit, GpuArch arch,
                                        llvm::StringRef ptx, llvm::StringRef cubin);

} // namespace shardc::gpu

#endif // SHARDC_COMPILER_TARGETS_GPU_CUDATOOLKIT_H
