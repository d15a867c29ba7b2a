//===- SinkViews.cpp - gpu-sink-views --------------------------------------===//
//
// Kernels take their buffers as bare pointers, which needs dense,
// identity-layout memrefs (GpuPasses.td). Runs right before outlining, after
// the canonicalizations that may fold or rebuild views outside a launch.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

namespace shardc {
#define GEN_PASS_DEF_GPUSINKVIEWS
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Clones every view the launch reads (subview, reshape, cast; views of
/// views too) into its start, so that only their buffers, and the views'
/// index operands as scalars, cross into the kernel. A view's offset may
/// come from the host (a rank's slice starts at a table entry read at
/// shardrt_rank()), which is why the views move and not their operands.
void sinkViews(RewriterBase &rw, gpu::LaunchOp launch) {
  Region &body = launch.getBody();
  for (bool changed = true; changed;) {
    changed = false;
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(body, captured);
    for (Value v : captured) {
      Operation *def = v.getDefiningOp();
      // Vector constants too (gpu-vectorize-threads' broadcasts of a
      // constant, hoisted out of the launch by canonicalization): a kernel
      // takes scalars and pointers only.
      bool vectorConstant = def && isa<arith::ConstantOp>(def) && isa<VectorType>(v.getType());
      if (!def || (!vectorConstant &&
                   !isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
                        memref::CastOp, memref::ReinterpretCastOp>(def)))
        continue;
      rw.setInsertionPointToStart(&body.front());
      Operation *clone = rw.clone(*def);
      rw.replaceUsesWithIf(def->getResults(), clone->getResults(), [&](OpOperand &use) {
        return launch->isProperAncestor(use.getOwner());
      });
      changed = true;
    }
  }
}

struct GpuSinkViews : shardc::impl::GpuSinkViewsBase<GpuSinkViews> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](gpu::LaunchOp launch) { sinkViews(rewriter, launch); });
  }
};

} // namespace
