//===- LowerGArrayToLinalg.cpp - garray-lower-to-linalg -------------------===//
//
// Runs every family's patterns; afterwards no garray op may remain (an op
// without a lowering is an error naming it, never silently kept).
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"
#include "passes/lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYLOWERTOLINALG
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace {
struct LowerToLinalg : shardc::impl::GArrayLowerToLinalgBase<LowerToLinalg> {
  void runOnOperation() override {
    // Before any op is lowered, while a transposed contraction still reads
    // as one (DotGeneralLowering.cpp).
    shardc::swapTransposedContractions(getOperation());
    RewritePatternSet patterns(&getContext());
    shardc::populateConstantLoweringPatterns(patterns);
    shardc::populateElementwiseLoweringPatterns(patterns);
    shardc::populateBroadcastLoweringPatterns(patterns);
    shardc::populateShapeLoweringPatterns(patterns);
    shardc::populateDotGeneralLoweringPatterns(patterns);
    shardc::populateReduceLoweringPatterns(patterns);
    shardc::populateGatherLoweringPatterns(patterns);
    shardc::populateIotaLoweringPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    WalkResult r = getOperation().walk([](Operation *op) {
      // Composites have no lowering at any type, on purpose: their meaning
      // (a global count, global indices) is fixed before sharding.
      if (isa<garray::MeanOp, garray::ArgMaxOp, garray::ArgMinOp>(op)) {
        op->emitError("'") << op->getName()
                           << "' is a composite with no direct lowering: run garray-decompose "
                              "first (on the global program, so counts and indices stay global)";
        return WalkResult::interrupt();
      }
      if (op->getDialect() && op->getDialect()->getNamespace() == "garray") {
        op->emitError("'") << op->getName() << "' has no lowering for element type or shape "
                           << op->getResultTypes();
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
