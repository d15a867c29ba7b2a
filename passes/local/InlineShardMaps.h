//===- InlineShardMaps.h - shard_map bodies into the local program -*- C++ -*-===//
//
// garray-global-to-local calls this once every placed function is local: a
// garray.shard_map's operands then have the block types its body takes
// (its boundary was pinned to its shardings, so no other layout reaches
// it), and its body, already a local program with its own comm
// collectives, replaces the op. The bodies are then erased: a local
// program has no shard_map left.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_LOCAL_INLINESHARDMAPS_H
#define SHARDC_PASSES_LOCAL_INLINESHARDMAPS_H

#include "mlir/IR/BuiltinOps.h"

namespace shardc {

/// Fails, with an error on the op, where an operand or result reached the
/// body with another type than the body's (a layout other than the op's).
mlir::LogicalResult inlineShardMaps(mlir::ModuleOp module);

} // namespace shardc

#endif // SHARDC_PASSES_LOCAL_INLINESHARDMAPS_H
