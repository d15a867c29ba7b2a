//===- SequentialForall.cpp - gpu-sequential-forall -------------------------===//
//
// The CPU test path of the GPU target (GpuPasses.td). Outer foralls are
// converted first; upstream forallToForLoop keeps the body, so nested
// foralls are found again by the walk that follows.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace shardc {
#define GEN_PASS_DEF_GPUSEQUENTIALFORALL
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

struct GpuSequentialForall : shardc::impl::GpuSequentialForallBase<GpuSequentialForall> {
  void runOnOperation() override {
    SmallVector<scf::ForallOp> foralls;
    getOperation()->walk([&](scf::ForallOp op) { foralls.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (scf::ForallOp op : foralls) {
      if (op.getNumResults() != 0) {
        op.emitError() << "gpu-sequential-forall: the forall still has results; run it after "
                          "bufferization";
        return signalPassFailure();
      }
      rewriter.setInsertionPoint(op);
      if (failed(scf::forallToForLoop(rewriter, op))) {
        op.emitError() << "gpu-sequential-forall: the forall could not become scf.for loops";
        return signalPassFailure();
      }
    }
  }
};

} // namespace
