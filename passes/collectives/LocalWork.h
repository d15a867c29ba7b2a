//===- LocalWork.h - arithmetic an op of the local program does -*- C++ -*-===//
//
// A rough count, for decisions and reports that weigh computation against
// communication (how much work an all-reduce can overlap): 2·M·N·K for a
// contraction, the operand's elements for a reduction, one per result
// element otherwise; collectives and constants count nothing.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_COLLECTIVES_LOCALWORK_H
#define SHARDC_PASSES_COLLECTIVES_LOCALWORK_H

#include "dialects/comm/Comm.h"
#include "dialects/garray/GArray.h"

namespace shardc {

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

#endif // SHARDC_PASSES_COLLECTIVES_LOCALWORK_H
