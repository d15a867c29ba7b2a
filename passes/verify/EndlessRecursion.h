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
// Calls also nest at most kMaxCallDepth (sharding/Limits.h) functions deep (as brackets nest
// at most 256 levels): the passes that follow calls recurse once per level,
// so a longer chain, which no model needs, is refused before they run.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_VERIFY_ENDLESSRECURSION_H
#define SHARDC_PASSES_VERIFY_ENDLESSRECURSION_H

#include "llvm/Support/LogicalResult.h"

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace shardc {

/// Refuses a chain of calls deeper than kMaxCallDepth (one error), then
/// each cycle of unconditional calls (one error per cycle) in `module`,
/// which must have been verified.
llvm::LogicalResult refuseEndlessRecursion(mlir::ModuleOp module);

} // namespace shardc

#endif // SHARDC_PASSES_VERIFY_ENDLESSRECURSION_H
