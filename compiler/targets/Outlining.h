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

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SetVector.h"

namespace shardc {

struct NestInputs {
  llvm::SetVector<mlir::Value> captured;        // become arguments, in first-use order
  llvm::SetVector<mlir::Operation *> constants; // cloned into the new function
};

/// The values `nest` reads that are defined outside it.
NestInputs nestInputs(mlir::Operation *nest);

} // namespace shardc

#endif // SHARDC_COMPILER_TARGETS_OUTLINING_H
