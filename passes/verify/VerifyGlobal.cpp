//===- VerifyGlobal.cpp - garray-verify-global: the global-phase gate -----===//
//
// After the global phase every op is a core garray op (or func/cf/scf around
// them): composites, gradients and optimizer updates have been written out,
// so propagation and partitioning see one ordinary global program.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYVERIFYGLOBAL
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {
/// The pass that should have removed `op`, or null when `op` may stay.
const char *expectedRemover(Operation *op) {
  if (isa<MeanOp, ArgMaxOp, ArgMinOp>(op))
    return "garray-decompose";
  if (isa<ValueAndGradOp>(op))
    return "garray-autodiff";
  if (isa<SgdUpdateOp, MomentumUpdateOp, AdamUpdateOp, ClipByGlobalNormOp>(op))
    return "garray-expand-optimizers";
  return nullptr;
}

struct VerifyGlobal : shardc::impl::GArrayVerifyGlobalBase<VerifyGlobal> {
  void runOnOperation() override {
    WalkResult r = getOperation().walk([&](Operation *op) {
      const char *remover = expectedRemover(op);
      if (!remover)
        return WalkResult::advance();
      op->emitError("verify-global: '")
          << op->getName() << "' should have been written in core garray ops by " << remover
          << " before propagation";
      return WalkResult::interrupt();
    });
    if (r.wasInterrupted())
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
