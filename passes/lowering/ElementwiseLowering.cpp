//===- ElementwiseLowering.cpp - elementwise ops → linalg.generic ---------===//
//
// One table maps each op to its scalar body for float and integer elements;
// every op becomes a linalg.generic with identity maps, so upstream
// elementwise fusion turns chains into one loop nest.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::garray;

namespace {
using ScalarFn = Value (*)(OpBuilder &, Location, ValueRange);

struct ScalarBodies {
  ScalarFn onFloat;
  ScalarFn onInt; // null: not defined on integers
};

template <typename FOp> Value unaryF(OpBuilder &b, Location l, ValueRange a) {
  return FOp::create(b, l, a[0]);
}
template <typename FOp> Value binaryF(OpBuilder &b, Location l, ValueRange a) {
  return FOp::create(b, l, a[0], a[1]);
}
Value negI(OpBuilder &b, Location l, ValueRange a) {
  Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(a[0].getType()));
  return arith::SubIOp::create(b, l, zero, a[0]);
}

template <typename OpTy> ScalarBodies bodies();
template <> ScalarBodies bodies<AddOp>() { return {binaryF<arith::AddFOp>, binaryF<arith::AddIOp>}; }
template <> ScalarBodies bodies<SubOp>() { return {binaryF<arith::SubFOp>, binaryF<arith::SubIOp>}; }
template <> ScalarBodies bodies<MulOp>() { return {binaryF<arith::MulFOp>, binaryF<arith::MulIOp>}; }
template <> ScalarBodies bodies<DivOp>() { return {binaryF<arith::DivFOp>, binaryF<arith::DivSIOp>}; }
// maximumf/minimumf propagate NaN, as JAX's max/min do.
template <> ScalarBodies bodies<MaxOp>() { return {binaryF<arith::MaximumFOp>, binaryF<arith::MaxSIOp>}; }
template <> ScalarBodies bodies<MinOp>() { return {binaryF<arith::MinimumFOp>, binaryF<arith::MinSIOp>}; }
template <> ScalarBodies bodies<NegOp>() { return {unaryF<arith::NegFOp>, negI}; }
template <> ScalarBodies bodies<AbsOp>() { return {unaryF<math::AbsFOp>, unaryF<math::AbsIOp>}; }
template <> ScalarBodies bodies<ExpOp>() { return {unaryF<math::ExpOp>, nullptr}; }
template <> ScalarBodies bodies<LogOp>() { return {unaryF<math::LogOp>, nullptr}; }
template <> ScalarBodies bodies<SqrtOp>() { return {unaryF<math::SqrtOp>, nullptr}; }
template <> ScalarBodies bodies<TanhOp>() { return {unaryF<math::TanhOp>, nullptr}; }

template <typename OpTy> struct LowerElementwise : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Type elem = type.getElementType();
    ScalarBodies fns = bodies<OpTy>();
    ScalarFn fn = isa<FloatType>(elem) ? fns.onFloat : fns.onInt;
    if (!fn)
      return rewriter.notifyMatchFailure(op, "no scalar body for this element type");
    Location loc = op->getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(), elem);
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<AffineMap> maps(op->getNumOperands() + 1, id);
    SmallVector<utils::IteratorType> iters(type.getRank(), utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, op->getOperands(), ValueRange{init}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value v = fn(b, l, args.drop_back());
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

// compare: ordered float predicates except `ne` (unordered, so NaN != NaN);
// signed integers; i1 unsigned (false < true).
Value compareScalars(OpBuilder &b, Location l, ComparisonDirection d, Value x, Value y) {
  if (isa<FloatType>(x.getType())) {
    static const arith::CmpFPredicate preds[] = {
        arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE, arith::CmpFPredicate::OLT,
        arith::CmpFPredicate::OLE, arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE};
    return arith::CmpFOp::create(b, l, preds[static_cast<int>(d)], x, y);
  }
  bool isBool = x.getType().isInteger(1);
  const arith::CmpIPredicate eq = arith::CmpIPredicate::eq, ne = arith::CmpIPredicate::ne;
  const arith::CmpIPredicate preds[] = {
      eq,
      ne,
      isBool ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
      isBool ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle,
      isBool ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt,
      isBool ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge};
  return arith::CmpIOp::create(b, l, preds[static_cast<int>(d)], x, y);
}

/// A parallel linalg.generic over `type` with identity maps and `body`.
Value identityGeneric(PatternRewriter &rewriter, Location loc, RankedTensorType type,
                      ValueRange inputs,
                      function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType());
  SmallVector<AffineMap> maps(inputs.size() + 1, rewriter.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iters(type.getRank(), utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{type}, inputs, ValueRange{init}, maps, iters,
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, body(b, l, args.drop_back()));
      });
  return generic.getResult(0);
}

struct LowerCompare : OpRewritePattern<CompareOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CompareOp op, PatternRewriter &rewriter) const override {
    ComparisonDirection d = op.getDirection();
    rewriter.replaceOp(op, identityGeneric(rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
                                           op->getOperands(),
                                           [&](OpBuilder &b, Location l, ValueRange a) {
                                             return compareScalars(b, l, d, a[0], a[1]);
                                           }));
    return success();
  }
};

struct LowerSelect : OpRewritePattern<SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, identityGeneric(rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
                                           op->getOperands(),
                                           [](OpBuilder &b, Location l, ValueRange a) -> Value {
                                             return arith::SelectOp::create(b, l, a[0], a[1],
                                                                            a[2]);
                                           }));
    return success();
  }
};
} // namespace

void shardc::populateElementwiseLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerElementwise<AddOp>, LowerElementwise<SubOp>, LowerElementwise<MulOp>,
               LowerElementwise<DivOp>, LowerElementwise<MaxOp>, LowerElementwise<MinOp>,
               LowerElementwise<NegOp>, LowerElementwise<AbsOp>, LowerElementwise<ExpOp>,
               LowerElementwise<LogOp>, LowerElementwise<SqrtOp>, LowerElementwise<TanhOp>,
               LowerCompare, LowerSelect>(
      patterns.getContext());
}
