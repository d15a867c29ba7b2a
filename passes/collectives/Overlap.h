//===- Overlap.h - what an asynchronous all-reduce can overlap --*- C++ -*-===//
//
// An all-reduce of the local program starts right after the op that
// defines its operand and finishes just before the first op that reads its
// result (comm-lower-to-runtime); the ops between are its window. The
// passes that place all-reduces (combining, lowering) and the report that
// estimates their overlap find the window with the same two functions, and
// weigh it with the same rough count of arithmetic: 2·M·N·K for a
// contraction, the operand's elements for a reduction, one per result
// element otherwise; collectives and constants count nothing.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_COLLECTIVES_OVERLAP_H
#define SHARDC_PASSES_COLLECTIVES_OVERLAP_H

#include "dialects/comm/Comm.h"
#include "dialects/garray/GArray.h"

namespace shardc {

/// The op of `block` that defines `v`; null when `v` comes from outside
/// the block (an argument, an enclosing op). A collective of `v` can start
/// right after it, or at the block's start.
inline mlir::Operation *definitionInBlock(mlir::Value v, mlir::Block *block) {
  mlir::Operation *def = v.getDefiningOp();
  return def && def->getBlock() == block ? def : nullptr;
}

/// The first op of `block` that reads `v`, directly or inside its regions;
/// null when none does. A collective that produces `v` must finish before it.
inline mlir::Operation *firstUseInBlock(mlir::Value v, mlir::Block *block) {
  mlir::Operation *first = nullptr;
  for (mlir::Operation *user : v.getUsers())
    if (mlir::Operation *at = block->findAncestorOpInBlock(*user))
      if (!first || at->isBeforeInBlock(first))
        first = at;
  return first;
}

inline int64_t staticElements(mlir::Type type) {
  auto t = mlir::dyn_cast<mlir::RankedTensorType>(type);
  return t && t.hasStaticShape() ? t.getNumElements() : 0;
}

/// The work of `op` alone (not of ops nested in its regions).
inline int64_t localWork(mlir::Operation *op) {
  if (mlir::isa<mlir::comm::CommDialect>(op->getDialect()) ||
      op->hasTrait<mlir::OpTrait::ConstantLike>())
    return 0;
  if (auto dot = mlir::dyn_cast<mlir::garray::DotGeneralOp>(op)) {
    auto lhs = mlir::cast<mlir::RankedTensorType>(dot.getLhs().getType());
    int64_t k = 1;
    for (int64_t d : dot.getLhsContracting())
      k *= lhs.getDimSize(d);
    return 2 * staticElements(dot.getType()) * k;
  }
  if (auto reduce = mlir::dyn_cast<mlir::garray::ReduceOp>(op))
    return staticElements(reduce.getOperand().getType());
  int64_t work = 0;
  for (mlir::Type t : op->getResultTypes())
    work += staticElements(t);
  return work;
}

/// The work of `op` and of every op nested in it.
inline int64_t nestedWork(mlir::Operation *op) {
  int64_t work = 0;
  op->walk([&](mlir::Operation *inner) { work += localWork(inner); });
  return work;
}

} // namespace shardc

#endif // SHARDC_PASSES_COLLECTIVES_OVERLAP_H
