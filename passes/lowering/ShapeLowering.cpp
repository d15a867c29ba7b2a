//===- ShapeLowering.cpp - shape ops → tensor / linalg --------------------===//
//
// Each shape op becomes the upstream op that says the same thing on local
// tensors, so bufferization sees views and copies it understands:
//   reshape      tensor.collapse_shape / expand_shape (via 1-D when the two
//                shapes do not nest)
//   transpose    linalg.transpose
//   slice        tensor.extract_slice with static offsets/sizes/strides
//   pad          tensor.pad yielding the scalar padding value
//   concatenate  tensor.concat
//   reverse      linalg.generic reading the operand through a reversed map
//                (d -> size - 1 - d), so it can fuse with elementwise ops
// Strided copies these become after bufferization are turned into loops by
// the CPU target's cpu-lower-strided-copies. Sizes come from the local types
// (garray-global-to-local already localized a slice's limit).
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/lowering/LoweringPatterns.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::garray;

namespace {

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  SmallVector<OpFoldResult> out;
  for (int64_t v : values)
    out.push_back(b.getIndexAttr(v));
  return out;
}

/// All dims in one group: rank r <-> 1-D (rank 0 <-> 1-D uses no group).
SmallVector<ReassociationIndices> oneGroup(int64_t rank) {
  if (rank == 0)
    return {};
  ReassociationIndices all;
  for (int64_t d = 0; d < rank; ++d)
    all.push_back(d);
  return {all};
}

struct LowerReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op, PatternRewriter &rewriter) const override {
    auto in = cast<RankedTensorType>(op.getOperand().getType());
    auto out = cast<RankedTensorType>(op.getType());
    Location loc = op.getLoc();
    if (in == out) {
      rewriter.replaceOp(op, op.getOperand());
      return success();
    }
    // One collapse or one expand when the shapes nest ([8,4] <-> [32]).
    if (in.getRank() != out.getRank())
      if (auto groups = getReassociationIndicesForReshape(in, out)) {
        if (in.getRank() > out.getRank())
          rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, out, op.getOperand(), *groups);
        else
          rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, out, op.getOperand(), *groups);
        return success();
      }
    // Otherwise ([8,4] -> [4,8]) through the 1-D row-major order.
    auto flatType = RankedTensorType::get({in.getNumElements()}, in.getElementType());
    Value flat = op.getOperand();
    if (in.getRank() > 1)
      flat = tensor::CollapseShapeOp::create(rewriter, loc, flatType, flat, oneGroup(in.getRank()));
    else if (in.getRank() == 0)
      flat = tensor::ExpandShapeOp::create(rewriter, loc, flatType, flat, oneGroup(0));
    if (out.getRank() > 1)
      flat = tensor::ExpandShapeOp::create(rewriter, loc, out, flat, oneGroup(out.getRank()));
    else if (out.getRank() == 0)
      flat = tensor::CollapseShapeOp::create(rewriter, loc, out, flat, oneGroup(0));
    rewriter.replaceOp(op, flat);
    return success();
  }
};

struct LowerTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto out = cast<RankedTensorType>(op.getType());
    Value init =
        tensor::EmptyOp::create(rewriter, op.getLoc(), out.getShape(), out.getElementType());
    auto t = linalg::TransposeOp::create(rewriter, op.getLoc(), op.getOperand(), init,
                                         op.getPermutation());
    rewriter.replaceOp(op, t->getResults());
    return success();
  }
};

struct LowerSlice : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op, PatternRewriter &rewriter) const override {
    auto out = cast<RankedTensorType>(op.getType());
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, out, op.getOperand(), indexAttrs(rewriter, op.getStart()),
        indexAttrs(rewriter, out.getShape()), indexAttrs(rewriter, op.getStrides()));
    return success();
  }
};

struct LowerPad : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op, PatternRewriter &rewriter) const override {
    Value value = tensor::ExtractOp::create(rewriter, op.getLoc(), op.getPaddingValue(),
                                            ValueRange{});
    rewriter.replaceOpWithNewOp<tensor::PadOp>(op, op.getType(), op.getOperand(),
                                               indexAttrs(rewriter, op.getLow()),
                                               indexAttrs(rewriter, op.getHigh()), value);
    return success();
  }
};

struct LowerConcatenate : OpRewritePattern<ConcatenateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatenateOp op, PatternRewriter &rewriter) const override {
    if (op.getInputs().size() == 1) {
      rewriter.replaceOp(op, op.getInputs()[0]);
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(op, op.getType(), op.getDim(),
                                                  op.getInputs());
    return success();
  }
};

struct LowerReverse : OpRewritePattern<ReverseOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReverseOp op, PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Location loc = op.getLoc();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      AffineExpr e = rewriter.getAffineDimExpr(d);
      if (llvm::is_contained(op.getDims(), d))
        e = rewriter.getAffineConstantExpr(type.getDimSize(d) - 1) - e;
      exprs.push_back(e);
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(type.getRank(), 0, exprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(type.getRank())};
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType());
    SmallVector<utils::IteratorType> iters(type.getRank(), utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{op.getOperand()}, ValueRange{init}, maps,
        iters,
        [](OpBuilder &b, Location l, ValueRange args) { linalg::YieldOp::create(b, l, args[0]); });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

// A shift is a slice of the part that stays followed by a pad with the fill
// on the vacated side. In a partitioned program only unsharded shifts remain
// (garray-global-to-local expands sharded ones into a halo exchange).
struct LowerShift : OpRewritePattern<ShiftOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ShiftOp op, PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t dim = op.getDim(), offset = op.getOffset(), k = offset < 0 ? -offset : offset;
    SmallVector<int64_t> start(type.getRank(), 0), size(type.getShape()),
        strides(type.getRank(), 1), low(type.getRank(), 0), high(type.getRank(), 0);
    size[dim] -= k;
    (offset > 0 ? low : high)[dim] = k;
    if (offset < 0)
      start[dim] = k;
    Location loc = op.getLoc();
    auto keptType = RankedTensorType::get(size, type.getElementType());
    Value kept = tensor::ExtractSliceOp::create(rewriter, loc, keptType, op.getOperand(),
                                                indexAttrs(rewriter, start),
                                                indexAttrs(rewriter, size),
                                                indexAttrs(rewriter, strides));
    Value fill = tensor::ExtractOp::create(rewriter, loc, op.getFill(), ValueRange{});
    rewriter.replaceOpWithNewOp<tensor::PadOp>(op, type, kept, indexAttrs(rewriter, low),
                                               indexAttrs(rewriter, high), fill);
    return success();
  }
};

} // namespace

void shardc::populateShapeLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerReshape, LowerTranspose, LowerSlice, LowerPad, LowerConcatenate,
               LowerReverse, LowerShift>(patterns.getContext());
}
