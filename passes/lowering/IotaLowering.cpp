//===- IotaLowering.cpp - garray.iota → linalg.generic over linalg.index --===//
//
// A parallel generic with no inputs yields linalg.index(dim), converted to the
// element type. It is the *local* index: after global-to-local, a sharded iota
// is followed by the add of its shard's global offset (GlobalToLocal.cpp).
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::garray;

namespace {
struct LowerIota : OpRewritePattern<IotaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IotaOp op, PatternRewriter &rewriter) const override {
    auto out = cast<RankedTensorType>(op.getType());
    Type elem = out.getElementType();
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, out.getShape(), elem);
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(out.getRank())};
    SmallVector<utils::IteratorType> iters(out.getRank(), utils::IteratorType::parallel);
    int64_t dim = op.getDim();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{out}, ValueRange{}, ValueRange{init}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange) {
          Value i = linalg::IndexOp::create(b, l, dim);
          // The verifier (iota_c3) guarantees every index converts exactly.
          Value asInt = arith::IndexCastOp::create(
              b, l, isa<FloatType>(elem) ? b.getI64Type() : elem, i);
          Value v = isa<FloatType>(elem) ? Value(arith::SIToFPOp::create(b, l, elem, asInt)) : asInt;
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};
} // namespace

void shardc::populateIotaLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerIota>(patterns.getContext());
}
