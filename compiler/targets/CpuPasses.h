//===- CpuPasses.h - passes of the CPU back end ----------------*- C++ -*-===//
//
// Declarations generated from CpuPasses.td, and registerCpuTargetPasses(),
// which tools (shardc-opt) call next to shardc::registerUpstreamPasses() so
// every step of cpuLoweringPipeline() can be run by name.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_CPUPASSES_H
#define SHARDC_COMPILER_TARGETS_CPUPASSES_H

#include "mlir/Pass/Pass.h"

namespace shardc {

/// The unit attribute cpu-outline-loop-nests puts on the functions it makes;
/// the CPU target turns it into LLVM's `noinline` after conversion.
inline constexpr const char kOutlinedNestAttr[] = "shardc.outlined_nest";
/// On an outlined function: the LLVM parameters (memref descriptors'
/// aligned pointers) to mark `noalias` once it is an
/// llvm.func; convert-func-to-llvm drops a memref argument's llvm.noalias.
inline constexpr const char kNoAliasParamsAttr[] = "shardc.noalias_params";

/// On a dispatch function cpu-outline-parallel-loops declares: the symbol of
/// the chunk function it runs on the kernel threads. cpu-build-parallel-
/// dispatch defines the function and removes the attribute.
inline constexpr const char kParallelBodyAttr[] = "shardc.parallel_body";

/// Also on a dispatch declaration: the loop runs on the rank's own kernel
/// threads only (shardrt_parallel_for_own), never as a loop other ranks
/// share.
inline constexpr const char kParallelOwnAttr[] = "shardc.parallel_own";

#define GEN_PASS_DECL
#include "compiler/targets/CpuPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/targets/CpuPasses.h.inc"

} // namespace shardc

#endif // SHARDC_COMPILER_TARGETS_CPUPASSES_H
