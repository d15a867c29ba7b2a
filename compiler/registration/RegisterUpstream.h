//===- RegisterUpstream.h - Upstream MLIR dialects and passes shardc uses -===//
//
// The single place that says which upstream MLIR dialects, external models and
// passes shardc depends on. Tools (shardc-opt, the compiler driver) and the
// target back ends call these instead of MLIR's InitAll*.h, which cost far
// more compile time.
//
// Invariant: every pass name that a shardc pipeline string mentions is
// registered by registerUpstreamPasses(), so `shardc-opt` can replay each step
// of the pipeline by name. This header stays tiny on purpose: include it
// anywhere without pulling in MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_REGISTRATION_REGISTERUPSTREAM_H
#define SHARDC_COMPILER_REGISTRATION_REGISTERUPSTREAM_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace shardc {

/// Adds the upstream dialects shardc's IR may contain (affine, arith,
/// bufferization, cf, func, index, linalg, llvm, math, memref, scf, tensor, ub,
/// vector) and every external model that one-shot bufferization, ownership-based
/// buffer deallocation, the inliner, ConvertToLLVM and LLVM IR translation
/// (builtin + llvm) need. Cheap and idempotent; safe to call on any registry.
void registerUpstreamDialects(mlir::DialectRegistry &registry);

/// Registers (globally, by name) the upstream passes and pass pipelines that
/// shardc's pipelines use. Idempotent and thread-safe.
void registerUpstreamPasses();

} // namespace shardc

#endif // SHARDC_COMPILER_REGISTRATION_REGISTERUPSTREAM_H
