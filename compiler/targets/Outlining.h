//===- Outlining.h - what a region-holding op reads from outside -*- C++ -*-===//
//
// Shared by the passes that move a loop nest into a function of its own
// (cpu-outline-loop-nests, cpu-outline-parallel-loops): the values the nest
// uses but does not define become the new function's arguments, except
// constants, which are cloned into it so that loop bounds stay known to
// LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_OUTLINING_H
#define SHARDC_COMPILER_TARGETS_OUTLINING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace shardc {

struct NestInputs {
  llvm::SetVector<mlir::Value> captured;        // become arguments, in first-use order
  llvm::SetVector<mlir::Operation *> constants; // cloned into the new function
  bool otherMemory = false; // the nest calls a function or names a global
};

/// The values `nest` reads that are defined outside it.
NestInputs nestInputs(mlir::Operation *nest);

/// A new function for a nest: private, marked `shardc.outlined_nest` (so the
/// CPU target makes it `noinline`), placed after `after` and named `name`
/// (renamed on a clash), taking `leading` arguments and then one per value
/// in `in.captured`. Its entry block holds clones of `in.constants`; `map`
/// maps every captured value and constant to its counterpart inside.
/// Memref arguments whose memory provably overlaps no other's are recorded
/// for LLVM's `noalias` (kNoAliasParamsAttr), unless the nest calls a
/// function or names a global, either of which may reach that memory
/// another way.
struct OutlinedFunction {
  mlir::func::FuncOp fn;
  mlir::IRMapping map;
};
OutlinedFunction createOutlinedFunction(mlir::Operation *after, llvm::StringRef name,
                                        mlir::Location loc, mlir::TypeRange leading,
                                        const NestInputs &in, mlir::SymbolTable &symbols);

} // namespace shardc

#endif // SHARDC_COMPILER_TARGETS_OUTLINING_H
