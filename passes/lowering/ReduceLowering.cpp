//===- ReduceLowering.cpp - garray.reduce → linalg.generic ----------------===//
//
// The accumulator starts at the reduction's identity (0, 1, -inf, +inf), which
// is also what padding of uneven shards must hold. On i1 the kinds are logical
// (sum, max: or; prod, min: and), matching how the runtime combines i1
// partials; signed max on i1 would rank true (-1) below false.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::garray;

Value shardc::combineByKind(OpBuilder &b, Location l, ReductionKind kind, Value acc, Value x) {
  bool f = isa<FloatType>(x.getType());
  if (x.getType().isInteger(1))
    return kind == ReductionKind::sum || kind == ReductionKind::max
               ? Value(arith::OrIOp::create(b, l, acc, x))
               : Value(arith::AndIOp::create(b, l, acc, x));
  switch (kind) {
  case ReductionKind::sum:
    return f ? Value(arith::AddFOp::create(b, l, acc, x)) : Value(arith::AddIOp::create(b, l, acc, x));
  case ReductionKind::prod:
    return f ? Value(arith::MulFOp::create(b, l, acc, x)) : Value(arith::MulIOp::create(b, l, acc, x));
  case ReductionKind::max:
    return f ? Value(arith::MaximumFOp::create(b, l, acc, x))
             : Value(arith::MaxSIOp::create(b, l, acc, x));
  case ReductionKind::min:
    return f ? Value(arith::MinimumFOp::create(b, l, acc, x))
             : Value(arith::MinSIOp::create(b, l, acc, x));
  }
  return {};
}

namespace {
struct LowerReduce : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op, PatternRewriter &rewriter) const override {
    auto in = cast<RankedTensorType>(op.getOperand().getType());
    auto out = cast<RankedTensorType>(op.getType());
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iters;
    for (int64_t d = 0; d < in.getRank(); ++d) {
      bool reduced = llvm::is_contained(op.getDims(), d);
      iters.push_back(reduced ? utils::IteratorType::reduction : utils::IteratorType::parallel);
      if (!reduced)
        outExprs.push_back(getAffineDimExpr(d, ctx));
      else if (op.getKeepdims())
        outExprs.push_back(getAffineConstantExpr(0, ctx));
    }
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(in.getRank()),
                                   AffineMap::get(in.getRank(), 0, outExprs, ctx)};
    Location loc = op.getLoc();
    ReductionKind kind = op.getKind();
    Value init = arith::ConstantOp::create(rewriter, loc,
                                           reductionIdentity(rewriter, out.getElementType(), kind));
    Value filled = shardc::createFilled(rewriter, loc, out, init);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{out}, ValueRange{op.getOperand()}, ValueRange{filled}, maps,
        iters, [&](OpBuilder &b, Location l, ValueRange a) {
          linalg::YieldOp::create(b, l, shardc::combineByKind(b, l, kind, a[1], a[0]));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};
} // namespace

void shardc::populateReduceLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerReduce>(patterns.getContext());
}
