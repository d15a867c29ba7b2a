//===- ContractionMaps.h - indexing maps of (batch_)matmul -----*- C++ -*-===//
//
// The maps of a linalg.matmul / batch_matmul over ([b,] m, n, k) whose A is
// read as [M, K] or, transposed, [K, M], and whose B as [K, N] or [N, K]:
// the layouts dot_general's lowering emits and the CPU GEMM recipe packs.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_LOWERING_CONTRACTIONMAPS_H
#define SHARDC_PASSES_LOWERING_CONTRACTIONMAPS_H

#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/SmallVector.h"

namespace shardc {

/// {A, B, C} maps over ([b,] m, n, k); the batch dim leads every operand.
inline llvm::SmallVector<mlir::AffineMap, 3> contractionMaps(mlir::MLIRContext *ctx, bool batched,
                                                             bool aTransposed, bool bTransposed) {
  unsigned lead = batched ? 1 : 0;
  mlir::AffineExpr m = mlir::getAffineDimExpr(lead, ctx), n = mlir::getAffineDimExpr(lead + 1, ctx),
                   k = mlir::getAffineDimExpr(lead + 2, ctx);
  auto map = [&](mlir::AffineExpr x, mlir::AffineExpr y) {
    llvm::SmallVector<mlir::AffineExpr> results;
    if (batched)
      results.push_back(mlir::getAffineDimExpr(0, ctx));
    results.append({x, y});
    return mlir::AffineMap::get(lead + 3, 0, results, ctx);
  };
  return {aTransposed ? map(k, m) : map(m, k), bTransposed ? map(n, k) : map(k, n), map(m, n)};
}

} // namespace shardc

#endif // SHARDC_PASSES_LOWERING_CONTRACTIONMAPS_H
