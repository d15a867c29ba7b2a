//===- RuntimeTypes.h - garray's element types and reductions in shardrt's ABI -*- C++ -*-===//
//
// The one mapping from what a garray program holds (MLIR element types,
// ReductionKind) to the codes shardrt's C ABI takes (shardrt_dtype,
// shardrt_reduce_op in runtime/include/shardrt.h). The lowering to runtime
// calls, the manifest and the report all ask here, so a code or a name is
// written down once: the runtime's enum and its name table.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECTS_GARRAY_RUNTIMETYPES_H
#define SHARDC_DIALECTS_GARRAY_RUNTIMETYPES_H

#include "dialects/garray/GArray.h"
#include "shardrt.h"

#include <optional>

namespace mlir::garray {

/// The runtime's code for element type `t`; nullopt for a type the runtime
/// has no arrays of.
std::optional<shardrt_dtype> runtimeDtype(Type t);

/// The runtime's reduction for `kind`.
shardrt_reduce_op runtimeReduceOp(ReductionKind kind);

} // namespace mlir::garray

#endif // SHARDC_DIALECTS_GARRAY_RUNTIMETYPES_H
