//===- BroadcastLowering.cpp - broadcast_in_dim → linalg.generic ----------===//
//
// The operand is read through a projection: operand dim i follows result dim
// dims[i], or stays at 0 when it is a stretched size-1 dim.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/lowering/LoweringPatterns.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::garray;

namespace {
struct LowerBroadcast : OpRewritePattern<BroadcastInDimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastInDimOp op, PatternRewriter &rewriter) const override {
    auto out = cast<RankedTensorType>(op.getType());
    auto in = cast<RankedTensorType>(op.getOperand().getType());
    Location loc = op.getLoc();
    SmallVector<AffineExpr> exprs;
    for (auto [i, d] : llvm::enumerate(op.getDims()))
      exprs.push_back(in.getDimSize(i) == 1 && out.getDimSize(d) != 1
                          ? rewriter.getAffineConstantExpr(0)
                          : rewriter.getAffineDimExpr(d));
    SmallVector<AffineMap> maps = {
        AffineMap::get(out.getRank(), 0, exprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(out.getRank())};
    Value init = tensor::EmptyOp::create(rewriter, loc, out.getShape(), out.getElementType());
    SmallVector<utils::IteratorType> iters(out.getRank(), utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{out}, ValueRange{op.getOperand()}, ValueRange{init}, maps, iters,
        [](OpBuilder &b, Location l, ValueRange args) { linalg::YieldOp::create(b, l, args[0]); });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};
} // namespace

void shardc::populateBroadcastLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerBroadcast>(patterns.getContext());
}
