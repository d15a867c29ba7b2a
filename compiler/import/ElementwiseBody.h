//===- ElementwiseBody.h - a scalar body applied to whole tensors -*- C++ -*-===//
//
// Sort comparators and reduce_window bodies are blocks on rank-0 tensors.
// A body built only from elementwise ops (and scalar constants) computes
// on whole tensors what it computes on scalars, so the rewrites that run
// before the import (SortToNetwork.cpp, ReduceWindowTaps.cpp) copy its ops
// with the arguments' shape: each op on tensors of that shape, each
// constant broadcast to it. Works on the generic (unregistered) form the
// importer reads.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_IMPORT_ELEMENTWISEBODY_H
#define SHARDC_COMPILER_IMPORT_ELEMENTWISEBODY_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

namespace shardc::import {

/// Checks that `body` (of `owner`, described as `what` in errors, e.g. "the
/// comparator of 'stablehlo.sort'") takes `arguments` arguments, ends in a
/// stablehlo.return of `results` values and holds only elementwise ops and
/// constants; an error at the offending op otherwise.
mlir::LogicalResult checkElementwiseBody(mlir::Operation *owner, mlir::Block &body,
                                         unsigned arguments, unsigned results,
                                         llvm::StringRef what);

/// The values `body` returns for `args` (one per block argument, all of
/// one shape), its ops copied at `b` on tensors of that shape.
llvm::SmallVector<mlir::Value> applyElementwiseBody(mlir::OpBuilder &b, mlir::Location loc,
                                                    mlir::Block &body,
                                                    llvm::ArrayRef<mlir::Value> args);

} // namespace shardc::import

#endif // SHARDC_COMPILER_IMPORT_ELEMENTWISEBODY_H
