//===- VerifyPartitioned.cpp - garray-verify-partitioned: the partitioning gate -===//
//
// After partitioning, every reshard and constraint has become collectives,
// and a pending (unreduced) value reaches only users that are linear in it:
// an op whose factor rule lets that operand stay pending with that reduction
// kind (any kind for ops that only move elements), a global collective that reduces it, or a call or a private
// function's return (a function signature may carry a pending value).
// Anything else would compute on a partial sum as if it were the value.
// Pending axes of size 1 hold the whole value already (partitioning emits
// no collective for them), so they do not count.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"
#include "sharding/FactorMerge.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYVERIFYPARTITIONED
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {
/// Whether `s` is pending over some mesh axis of size > 1.
bool isPendingOnDevices(Operation *scope, ShardingAttr s) {
  if (!s || !s.isPending())
    return false;
  MeshOp mesh = lookupMesh(scope, s.getMesh());
  FailureOr<shardc::Mesh> core = mesh ? toCoreMesh(mesh) : FailureOr<shardc::Mesh>(failure());
  if (failed(core))
    return true; // unknown sizes: count it
  return llvm::any_of(s.getUnreduced(), [&](StringAttr axis) {
    int i = core->indexOf(axis.str());
    return i < 0 || core->sizes[i] > 1;
  });
}

/// "" when `user` may read operand `i` while it is pending with `kind`.
std::string pendingProblem(Operation *user, unsigned i, ReductionKind kind) {
  if (isGlobalCollective(user) || isa<func::CallOp>(user))
    return "";
  if (isa<func::ReturnOp>(user)) {
    auto func = user->getParentOfType<func::FuncOp>();
    return func && func.isPublic() ? "but a public function's results must be whole" : "";
  }
  auto ruled = dyn_cast<ShardingRuleOpInterface>(user);
  if (!ruled)
    return "but the op has no sharding rule to pass a partial through";
  shardc::FactorRule rule = ruled.getFactorRule();
  if (!shardc::mayStayPending(rule.pending, i))
    return "but the op is not linear in it";
  // Moving elements commutes with every reduction (reshard-to-collectives
  // packs pending scalars of any kind with reshape and concatenate); other
  // linear ops pass only their rule's kind.
  bool movesElements =
      isa<ReshapeOp, TransposeOp, ConcatenateOp, SliceOp, ReverseOp, BroadcastInDimOp>(user);
  if (!movesElements && rule.pending.kind != toCore(kind))
    return std::string("but the op passes only pending ") +
           shardc::reductionName(rule.pending.kind) + " partials";
  return "";
}

struct VerifyPartitioned : shardc::impl::GArrayVerifyPartitionedBase<VerifyPartitioned> {
  void runOnOperation() override {
    WalkResult r = getOperation().walk([&](Operation *op) {
      if (isa<ReshardOp, ShardingConstraintOp>(op)) {
        op->emitError("verify-partitioned: '")
            << op->getName() << "' should have become collectives";
        return WalkResult::interrupt();
      }
      for (OpOperand &use : op->getOpOperands()) {
        ShardingAttr s = getSharding(use.get());
        if (!isPendingOnDevices(op, s))
          continue;
        std::string p = pendingProblem(op, use.getOperandNumber(), s.getUnreducedKind());
        if (p.empty())
          continue;
        op->emitError("verify-partitioned: operand #")
            << use.getOperandNumber() << " of '" << op->getName() << "' is pending ("
            << writtenSpec(s) << ") " << p;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
