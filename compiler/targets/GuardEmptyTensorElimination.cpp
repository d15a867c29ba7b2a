//===- GuardEmptyTensorElimination.cpp - cpu-guard-empty-tensor-elimination ===//
//
// See CpuPasses.td. Keeps: after this pass, every materialize_in_destination
// that eliminate-empty-tensors may rewrite (memref destination, `restrict`)
// has a destination chain of single-use values from its source back to a
// tensor.empty, so the output buffer that replaces the empty is never seen
// by any other op. Everything else is only ever made *less* in place.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace shardc {
#define GEN_PASS_DEF_CPUGUARDEMPTYTENSORELIMINATION
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Gives every use of `op`'s result its own clone of `op`, right before the
/// user, and erases `op`: the buffer each clone becomes is then allocated
/// where it is needed. (CSE leaves one zero fill for all the GEMMs of an
/// unrolled scan at the top of the function; cloned there, every
/// accumulator was allocated and zeroed at the start, and lived through
/// the whole step.)
void unshare(Operation *op) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : op->getResult(0).getUses())
    uses.push_back(&use);
  OpBuilder b(op);
  for (OpOperand *use : uses) {
    b.setInsertionPoint(use->getOwner());
    use->set(b.clone(*op)->getResult(0));
  }
  op->erase();
}

/// Whether the chain of destinations from `v` back to a tensor.empty consists
/// of values with exactly one use each (the next op on the chain).
bool isPrivateChain(Value v) {
  while (true) {
    if (!v.hasOneUse())
      return false;
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    if (isa<tensor::EmptyOp>(def))
      return true;
    auto result = cast<OpResult>(v);
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(def)) {
      v = dps.getTiedOpOperand(result)->get();
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      v = loop.getInitArgs()[result.getResultNumber()];
      continue;
    }
    return false; // an op this pass does not follow: be conservative
  }
}

struct CpuGuardEmptyTensorElimination
    : shardc::impl::CpuGuardEmptyTensorEliminationBase<CpuGuardEmptyTensorElimination> {
  void runOnOperation() override {
    // Fills first: cloning them gives their (shared) empties more uses.
    SmallVector<Operation *> fills, empties;
    getOperation()->walk([&](Operation *op) {
      if (isa<linalg::FillOp>(op) && op->getNumResults() == 1 && !op->getResult(0).hasOneUse())
        fills.push_back(op);
    });
    for (Operation *fill : fills)
      unshare(fill);
    getOperation()->walk([&](tensor::EmptyOp op) {
      if (!op.getResult().hasOneUse())
        empties.push_back(op);
    });
    for (Operation *empty : empties)
      unshare(empty);
    getOperation()->walk([&](bufferization::MaterializeInDestinationOp m) {
      if (m.getRestrict() && isa<BaseMemRefType>(m.getDest().getType()) &&
          !isPrivateChain(m.getSource()))
        m.setRestrict(false);
    });
  }
};

} // namespace
