//===- ReadOverlap.h - what each asynchronous reduction overlaps -*- C++ -*-===//
//
// The CPU target starts each all-reduce and reduce-scatter of the local
// program as soon as its operand is computed and finishes it just before
// its result is first read (comm-lower-to-runtime). Read off the local
// program, this estimates what each one can hide behind: the ops between
// those two points and their arithmetic. One with nothing between is
// exposed: its whole time is spent waiting. `shardc run --profile`
// measures the wait (all_reduce_done, reduce_scatter_done).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_REPORT_READOVERLAP_H
#define SHARDC_COMPILER_REPORT_READOVERLAP_H

#include "compiler/host/Signature.h"

#include "mlir/IR/BuiltinOps.h"

namespace shardc {

/// Appends an OverlapRecord to `sig.overlaps` for every all-reduce and
/// reduce-scatter of the local program `module` (those outside the
/// function `entry` name theirs).
void readOverlap(mlir::ModuleOp module, llvm::StringRef entry, Signature &sig);

} // namespace shardc

#endif // SHARDC_COMPILER_REPORT_READOVERLAP_H
