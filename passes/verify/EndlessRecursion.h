//===- EndlessRecursion.h - functions that never return ------*- C++ -*-===//
//
// Every op of a function's entry block runs whenever the function is called:
// no garray op ends a program early. A function whose entry block calls
// itself, directly or through functions whose entry blocks call on (a
// func.call, or a garray.shard_map running its body), therefore never
// returns; the compiled program would recurse until the rank's stack
// overflows. Such a cycle is a compile error at the call that closes it,
// naming the cycle:
//
//   func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
//     %y = call @f(%x) : ...      // error: @f calls itself on every path
//     ...                         //        (@f -> @f), so it never returns
//
// Recursion under an scf.if, or past a branch to another block, may stop
// and is compiled as written.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_VERIFY_ENDLESSRECURSION_H
#define SHARDC_PASSES_VERIFY_ENDLESSRECURSION_H

#include "llvm/Support/LogicalResult.h"

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace shardc {

/// Refuses each cycle of unconditional calls in `module`, which must have
/// been verified. Emits one error per cycle found.
llvm::LogicalResult refuseEndlessRecursion(mlir::ModuleOp module);

} // namespace shardc

#endif // SHARDC_PASSES_VERIFY_ENDLESSRECURSION_H
