//===- ReadCollectives.h - the collective schedule, read off the IR -*- C++ -*-===//
//
// The collectives partitioning inserted, in program order, each with its
// reason, its device group and its bytes per device: read right after the
// planner emitted them (types still global), with the halo exchanges and the
// uneven gathers that global-to-local will add, recorded before they exist.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_REPORT_READCOLLECTIVES_H
#define SHARDC_COMPILER_REPORT_READCOLLECTIVES_H

#include "compiler/host/Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace shardc {

/// Appends the collectives `entry` runs (with those of the functions it
/// calls, once per call) to `sig.collectives`.
void readCollectives(mlir::func::FuncOp entry, Signature &sig);

/// Appends to `sig.combined` every all-reduce of the local program that
/// comm-combine-all-reduces made from several (its `parts`); those outside
/// the function `entry` name the function they are in.
void readCombined(mlir::ModuleOp module, llvm::StringRef entry, Signature &sig);

} // namespace shardc

#endif // SHARDC_COMPILER_REPORT_READCOLLECTIVES_H
