//===- Stacking.h - what the dot-stacking passes share -------*- C++ -*-===//
//
// garray-stack-summed-dots and garray-stack-shared-operand-dots both turn
// several small products into one product of stacked operands. Both leave
// ops a user placed as written, and both stack values of one type by
// giving each a unit dim and concatenating them along it.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PROPAGATION_STACKING_H
#define SHARDC_PASSES_PROPAGATION_STACKING_H

#include "mlir/IR/Builders.h"

namespace shardc::stacking {

/// Whether a user wrote a sharding on `op`: such an op stays as written.
bool userPlaced(mlir::Operation *op);

/// `parts` (one ranked tensor type), each given a unit dim at `dim`, side
/// by side along it: [..., parts.size(), ...].
mlir::Value stackAlong(mlir::OpBuilder &b, mlir::Location loc, mlir::ArrayRef<mlir::Value> parts,
                       int64_t dim);

} // namespace shardc::stacking

#endif // SHARDC_PASSES_PROPAGATION_STACKING_H
