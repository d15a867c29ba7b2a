//===- VerifyLocal.cpp - garray-verify-local: the local-program gate ------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYVERIFYLOCAL
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {
struct VerifyLocal : shardc::impl::GArrayVerifyLocalBase<VerifyLocal> {
  void runOnOperation() override {
    WalkResult r = getOperation().walk([&](Operation *op) {
      if (isa<MeshOp, ReshardOp, ShardingConstraintOp, MeanOp, ShardMapOp>(op) ||
          isGlobalCollective(op)) {
        op->emitError("verify-local: '")
            << op->getName() << "' belongs to the global program and survived global-to-local";
        return WalkResult::interrupt();
      }
      if (op->hasAttr(kShardingAttrName) || op->hasAttr(kGroupAttrName)) {
        op->emitError("verify-local: a sharding attribute survived global-to-local");
        return WalkResult::interrupt();
      }
      if (auto func = dyn_cast<func::FuncOp>(op)) {
        for (unsigned i = 0; i < func.getNumArguments(); ++i)
          if (func.getArgAttr(i, kShardingAttrName) || func.getArgAttr(i, kGroupAttrName)) {
            func.emitError("verify-local: argument #") << i << " still has a sharding";
            return WalkResult::interrupt();
          }
        for (unsigned i = 0; i < func.getNumResults(); ++i)
          if (func.getResultAttr(i, kShardingAttrName)) {
            func.emitError("verify-local: result #") << i << " still has a sharding";
            return WalkResult::interrupt();
          }
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
