//===- MemoryEstimate.h - peak live bytes per device -------------*- C++ -*-===//
//
// Peak live bytes per device of the partitioned entry, read where every
// value's sharding is known and types are still global, with the largest
// values and, for each, why it is whole where it is (docs/decisions.md,
// "Memory estimate").
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_REPORT_MEMORYESTIMATE_H
#define SHARDC_COMPILER_REPORT_MEMORYESTIMATE_H

#include "compiler/host/Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"

namespace shardc {

/// What the user annotated, read before propagation writes a sharding on
/// every value: the entry's arguments (by number) and ops anywhere.
struct UserPlaced {
  mlir::Operation *entryFunc = nullptr;
  std::vector<bool> arguments;
  llvm::DenseSet<mlir::Operation *> ops;
  mlir::Operation *entry() const { return entryFunc; }
};

/// Reads what the user placed in `module` (with entry `entry`), before
/// propagation writes a sharding on every value. Constraints and reshards are
/// left out: partitioning replaces them, and their collectives' reasons name
/// them.
UserPlaced readUserPlaced(mlir::ModuleOp module, mlir::func::FuncOp entry);

/// Fills `sig.memory` from the partitioned `func`, listing the `keep`
/// largest values.
void readMemory(mlir::func::FuncOp func, Signature &sig, const UserPlaced &userPlaced,
                size_t keep = 5);

} // namespace shardc

#endif // SHARDC_COMPILER_REPORT_MEMORYESTIMATE_H
