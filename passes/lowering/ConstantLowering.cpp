//===- ConstantLowering.cpp - garray.constant → arith.constant ------------===//
#include "dialects/garray/GArray.h"
#include "passes/lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {
struct LowerConstant : OpRewritePattern<garray::ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(garray::ConstantOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, cast<TypedAttr>(op.getValue()));
    return success();
  }
};
} // namespace

Value shardc::createFilled(OpBuilder &b, Location loc, Type type, Value value) {
  auto t = cast<RankedTensorType>(type);
  Value empty = tensor::EmptyOp::create(b, loc, t.getShape(), t.getElementType());
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

void shardc::populateConstantLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerConstant>(patterns.getContext());
}
