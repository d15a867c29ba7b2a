//===- GatherRows.h - any gather or scatter as rows of a table --*- C++ -*-===//
//
// StableHLO's gather and scatter name, per index position, a start in some
// operand dims (start_index_map, and the batching dims whose start is the
// position itself) and a window in every dim. GatherImport.cpp maps the
// two shapes that have cheaper forms (one start vector: a dynamic slice;
// one element per batch position: a one-hot sum that keeps the batch
// sharding); every other gather or scatter is read here as rows of a
// table, which garray's row gather and scatters handle:
//
//   table  the operand with its indexed dims D moved first and flattened
//          into one row dim of N = prod(D) rows: [N, rest...], the rest
//          dims cut to their window (the window starts at 0 there);
//   rows   the row of each element: sum over d in D of
//          (clamp(start_d, 0, dim_d - window_d) + w_d) * stride_d, over
//          the index positions Bs and one dim w_d per indexed dim whose
//          window is wider than 1 (a vmapped dynamic_slice's crop);
//   fits   per index position, whether every window fits unclamped
//          (a scatter skips an update that does not; a gather clamps).
//
// A batching dim pair is an indexed dim whose start is an iota along its
// index dim. For example `m[jnp.triu_indices(n, 1)]` (two starts per
// position, operand [n, n]) is a gather of rows i*n + j of m reshaped to
// [n*n]; `x[:, idx]` is a gather of rows of x transposed to [6, 8].
//
// The rows form needs the indexed dims whole on every device: a sharded
// operand is gathered there first (the propagation inserts it).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_IMPORT_GATHERROWS_H
#define SHARDC_COMPILER_IMPORT_GATHERROWS_H

#include "dialects/garray/OpEmitter.h"

#include "llvm/ADT/SmallVector.h"

namespace shardc::import {

/// A gather's or scatter's dimension numbers, renamed to what they share.
struct IndexMap {
  llvm::SmallVector<int64_t> windowDims;      // offset_dims / update_window_dims
  llvm::SmallVector<int64_t> collapsedDims;   // collapsed_slice_dims / inserted_window_dims
  llvm::SmallVector<int64_t> operandBatching; // operand_batching_dims / input_batching_dims
  llvm::SmallVector<int64_t> indicesBatching; // start_indices_batching_dims / scatter_...
  llvm::SmallVector<int64_t> indexMap;        // start_index_map / scatter_dims_to_operand_dims
  int64_t indexVectorDim = 0;
};

/// An operand read as rows of a table (see the file comment).
struct RowsForm {
  mlir::Value table; // [N, rest windows...]
  mlir::Value rows;  // Bs ++ [window_d for d in wide]
  mlir::Value fits;  // i1 over Bs; null unless asked for
  llvm::SmallVector<int64_t> indexed, wide, rest; // operand dims: D, D's wide ones, the others
  llvm::SmallVector<int64_t> window;              // per operand dim
  llvm::SmallVector<int64_t> batchShape;          // Bs
  mlir::Value operand;                            // as given
  mlir::Value cutOperand;                         // its rest dims cut to their windows
};

/// `operand` (gathered from, or scattered into) read as rows for `indices`
/// with `window` sizes per operand dim; `fits` is computed when
/// `wantFits`. An error on `op` when the dimension numbers are not valid.
mlir::FailureOr<RowsForm> readAsRows(mlir::Operation *op, mlir::garray::OpEmitter &e,
                                     mlir::Value operand, mlir::Value indices, const IndexMap &m,
                                     llvm::ArrayRef<int64_t> window, bool wantFits);

/// The gather `op` (result type from it) through `f`.
mlir::FailureOr<mlir::Value> gatherRows(mlir::Operation *op, mlir::garray::OpEmitter &e,
                                        const RowsForm &f, const IndexMap &m);

/// A scatter's updates laid out as `f`'s rows: Bs ++ wide ++ rest.
mlir::FailureOr<mlir::Value> updatesAsRows(mlir::Operation *op, mlir::garray::OpEmitter &e,
                                           const RowsForm &f, const IndexMap &m,
                                           mlir::Value updates);

/// A scattered table ([N, rest...]) back in the operand's shape, the parts
/// outside the rest dims' windows from the operand.
mlir::FailureOr<mlir::Value> rowsAsOperand(mlir::Operation *op, mlir::garray::OpEmitter &e,
                                           const RowsForm &f, mlir::Value table);

} // namespace shardc::import

#endif // SHARDC_COMPILER_IMPORT_GATHERROWS_H
