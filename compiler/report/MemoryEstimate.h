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
#include "llvm/ADT/DenseMap.h"

namespace shardc {

/// What the user annotated, read before propagation writes a sharding on
/// every value: the entry's arguments (by number) and ops anywhere.
struct UserPlaced {
  mlir::Operation *entryFunc = nullptr;
  std::vector<bool> arguments;
  /// Each annotated op by address, with its name and location: the passes
  /// between reading and asking may erase an op (a slice and pad read as a
  /// shift) and create another at its address, which must not count.
  llvm::DenseMap<mlir::Operation *, std::pair<mlir::OperationName, mlir::Location>> ops;
  mlir::Operation *entry() const { return entryFunc; }
  bool placed(mlir::Operation *op) const {
    auto it = op ? ops.find(op) : ops.end();
    return it != ops.end() && it->second.first == op->getName() &&
           it->second.second == op->getLoc();
  }
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
