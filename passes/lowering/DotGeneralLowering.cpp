//===- DotGeneralLowering.cpp - dot_general → a linalg contraction --------===//
//
// Loops: result dims (batch, lhs free, rhs free) then contracting dims; the
// accumulator starts at zero. Kept as one linalg.generic so that later tiling
// and vectorisation see a plain contraction.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::garray;

namespace {
struct LowerDotGeneral : OpRewritePattern<DotGeneralOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DotGeneralOp op, PatternRewriter &rewriter) const override {
    auto lhs = cast<RankedTensorType>(op.getLhs().getType());
    auto rhs = cast<RankedTensorType>(op.getRhs().getType());
    auto out = cast<RankedTensorType>(op.getType());
    MLIRContext *ctx = rewriter.getContext();
    int64_t numResultDims = out.getRank();
    int64_t numLoops = numResultDims + op.getLhsContracting().size();
    SmallVector<AffineExpr> l(lhs.getRank()), r(rhs.getRank()), o;
    int64_t next = 0;
    for (auto [ld, rd] : llvm::zip(op.getLhsBatch(), op.getRhsBatch()))
      l[ld] = r[rd] = getAffineDimExpr(next++, ctx);
    int64_t k = numResultDims;
    for (auto [ld, rd] : llvm::zip(op.getLhsContracting(), op.getRhsContracting()))
      l[ld] = r[rd] = getAffineDimExpr(k++, ctx);
    for (auto &e : l)
      if (!e)
        e = getAffineDimExpr(next++, ctx);
    for (auto &e : r)
      if (!e)
        e = getAffineDimExpr(next++, ctx);
    for (int64_t d = 0; d < numResultDims; ++d)
      o.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, l, ctx),
                                   AffineMap::get(numLoops, 0, r, ctx),
                                   AffineMap::get(numLoops, 0, o, ctx)};
    SmallVector<utils::IteratorType> iters(numResultDims, utils::IteratorType::parallel);
    iters.append(op.getLhsContracting().size(), utils::IteratorType::reduction);
    Location loc = op.getLoc();
    Type elem = out.getElementType();
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(elem));
    Value init = shardc::createFilled(rewriter, loc, out, zero);
    bool isFloat = isa<FloatType>(elem);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{out}, ValueRange{op.getLhs(), op.getRhs()}, ValueRange{init},
        maps, iters, [&](OpBuilder &b, Location loc, ValueRange a) {
          Value prod = isFloat ? Value(arith::MulFOp::create(b, loc, a[0], a[1]))
                               : Value(arith::MulIOp::create(b, loc, a[0], a[1]));
          Value sum = isFloat ? Value(arith::AddFOp::create(b, loc, a[2], prod))
                              : Value(arith::AddIOp::create(b, loc, a[2], prod));
          linalg::YieldOp::create(b, loc, sum);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};
} // namespace

void shardc::populateDotGeneralLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerDotGeneral>(patterns.getContext());
}
