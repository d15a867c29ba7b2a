//===- VerifyPropagated.cpp - garray-verify-propagated: the propagation gate -===//
//
// After propagation, every ranked tensor of a placed function (an argument
// or an op result) carries a closed sharding without priorities on a mesh
// the module declares: partitioning reads each value's layout and never
// guesses one. Functions nothing placed carry no sharding at all.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYVERIFYPROPAGATED
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {
/// Whether anything in `func` (an argument, a result or an op) has a sharding.
bool isPlaced(func::FuncOp func) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, kShardingAttrName))
      return true;
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (getResultSharding(func, i))
      return true;
  WalkResult r = func.walk([](Operation *op) {
    return op->hasAttr(kShardingAttrName) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return r.wasInterrupted();
}

/// "" when `sharding` is what propagation must leave on a value, else why not.
std::string problem(Operation *scope, ShardingAttr sharding) {
  if (!sharding)
    return "has no sharding";
  if (!lookupMesh(scope, sharding.getMesh()))
    return "names mesh " + sharding.getMesh().getValue().str() + ", which is not declared";
  for (DimShardingAttr dim : sharding.getDims()) {
    if (dim.getOpen())
      return "has an open dim (" + writtenSpec(sharding) + ")";
    if (dim.hasPriority())
      return "keeps a priority (" + writtenSpec(sharding) + ")";
  }
  return "";
}

struct VerifyPropagated : shardc::impl::GArrayVerifyPropagatedBase<VerifyPropagated> {
  void runOnOperation() override {
    bool ok = true;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !isPlaced(func))
        continue;
      for (BlockArgument arg : func.getArguments()) {
        if (!isa<RankedTensorType>(arg.getType()))
          continue;
        std::string p = problem(func, getSharding(arg));
        if (!p.empty()) {
          func.emitError("verify-propagated: argument #") << arg.getArgNumber() << " " << p;
          ok = false;
        }
      }
      func.walk([&](Operation *op) {
        for (OpResult res : op->getResults()) {
          if (!isa<RankedTensorType>(res.getType()))
            continue;
          std::string p = problem(op, getSharding(res));
          if (!p.empty()) {
            op->emitError("verify-propagated: result #")
                << res.getResultNumber() << " of '" << op->getName() << "' " << p;
            ok = false;
            return WalkResult::interrupt();
          }
        }
        return WalkResult::advance();
      });
    }
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
