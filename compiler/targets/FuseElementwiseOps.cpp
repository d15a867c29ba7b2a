//===- FuseElementwiseOps.cpp - cpu-fuse-elementwise-ops ------------------===//
//
// linalg-fuse-elementwise-ops with a bound on the size of what it fuses
// (see CpuPasses.td): the same patterns, but a producer is folded into its
// consumer only while their bodies together hold at most kMaxFusedBodyOps
// ops. Each fusion clones both bodies, so an unbounded chain of n ops costs
// O(n^2) cloned ops (8,000 ops: about a minute); bounded, O(n) — a chain
// becomes kernels of up to kMaxFusedBodyOps ops each, with one intermediate
// tensor between two of them.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace shardc {
#define GEN_PASS_DEF_CPUFUSEELEMENTWISEOPS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Ops in the body of a linalg op (its first block), terminator included.
size_t bodySize(Operation *op) {
  if (op->getNumRegions() == 0 || op->getRegion(0).empty())
    return 0;
  return op->getRegion(0).front().getOperations().size();
}

struct CpuFuseElementwiseOps : shardc::impl::CpuFuseElementwiseOpsBase<CpuFuseElementwiseOps> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    size_t limit = maxFusedBodyOps;
    // As upstream: a producer with one use is folded into that use; here
    // also only while the fused body stays within the bound.
    linalg::ControlFusionFn bounded = [limit](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             bodySize(producer) + bodySize(fused->getOwner()) <= limit;
    };
    // Reshapes are not folded into or out of a matmul: folding expands the
    // named matmul into a generic contraction over the reshaped dims (a
    // weight gradient's [b, s, d] operand gives a 4-loop generic), then the
    // transpose before it fuses in as a strided read, and the GEMM recipe
    // no longer applies: the kernel runs as scalar loops.
    auto isMatmul = [](Operation *op) {
      return isa_and_nonnull<linalg::MatmulOp, linalg::BatchMatmulOp>(op);
    };
    linalg::ControlFusionFn reshapes = [bounded, isMatmul](OpOperand *fused) {
      return !isMatmul(fused->getOwner()) && !isMatmul(fused->get().getDefiningOp()) &&
             bounded(fused);
    };
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, bounded);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshapes);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, bounded);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     GreedyRewriteConfig().setUseTopDownTraversal(true))))
      return signalPassFailure();
  }
};

} // namespace
