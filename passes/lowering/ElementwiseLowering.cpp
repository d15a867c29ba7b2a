//===- ElementwiseLowering.cpp - elementwise ops → linalg.generic ---------===//
//
// Every elementwise op becomes one linalg.generic with identity maps whose
// body is the op's scalar function, so upstream elementwise fusion turns a
// chain of them into one loop nest. The scalar functions use arith/math only
// (no calls into the runtime).
//
// Invariants kept here, for every element type the verifier admits:
//   - nothing traps or is undefined: integer div/rem guard the divisor (XLA's
//     results for x/0 and INT_MIN/-1), float→int conversion saturates and
//     maps NaN to 0 instead of producing LLVM poison;
//   - i1 is ordered false < true (unsigned), so max/min are or/and.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::garray;

namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

bool isBool(Type t) { return t.isInteger(1); }

Value constantOf(OpBuilder &b, Location l, Type t, double v) {
  if (auto f = dyn_cast<FloatType>(t))
    return arith::ConstantOp::create(b, l, b.getFloatAttr(f, v));
  return arith::ConstantOp::create(b, l, b.getIntegerAttr(t, static_cast<int64_t>(v)));
}

Value intConstant(OpBuilder &b, Location l, Type t, const APInt &v) {
  return arith::ConstantOp::create(b, l, b.getIntegerAttr(t, v));
}

/// FOp on floats, IOp on integers.
template <typename FOp, typename IOp> Value floatOrInt(OpBuilder &b, Location l, ValueRange a) {
  if (isa<FloatType>(a[0].getType()))
    return FOp::create(b, l, a);
  return IOp::create(b, l, a);
}

/// The divisor to use in place of `rhs` so that integer division cannot trap
/// (rhs == 0, or lhs == INT_MIN and rhs == -1); and whether rhs was zero.
std::pair<Value, Value> safeDivisor(OpBuilder &b, Location l, Value lhs, Value rhs) {
  Type t = rhs.getType();
  unsigned w = t.getIntOrFloatBitWidth();
  Value zero = intConstant(b, l, t, APInt::getZero(w));
  Value one = intConstant(b, l, t, APInt(w, 1));
  Value isZero = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, rhs, zero);
  Value lhsMin = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, lhs,
                                       intConstant(b, l, t, APInt::getSignedMinValue(w)));
  Value rhsMinusOne = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, rhs,
                                            intConstant(b, l, t, APInt::getAllOnes(w)));
  Value overflow = arith::AndIOp::create(b, l, lhsMin, rhsMinusOne);
  Value bad = arith::OrIOp::create(b, l, isZero, overflow);
  return {arith::SelectOp::create(b, l, bad, one, rhs), isZero};
}

// x / 0 = -1; INT_MIN / -1 = INT_MIN / 1 = INT_MIN.
Value divInt(OpBuilder &b, Location l, ValueRange a) {
  auto [divisor, isZero] = safeDivisor(b, l, a[0], a[1]);
  Value q = arith::DivSIOp::create(b, l, a[0], divisor);
  unsigned w = a[0].getType().getIntOrFloatBitWidth();
  return arith::SelectOp::create(b, l, isZero,
                                 intConstant(b, l, a[0].getType(), APInt::getAllOnes(w)), q);
}

// x rem 0 = x; INT_MIN rem -1 = INT_MIN rem 1 = 0.
Value remInt(OpBuilder &b, Location l, ValueRange a) {
  auto [divisor, isZero] = safeDivisor(b, l, a[0], a[1]);
  Value r = arith::RemSIOp::create(b, l, a[0], divisor);
  return arith::SelectOp::create(b, l, isZero, a[0], r);
}

// -1, 0, 1; NaN and ±0 map to themselves.
Value sign(OpBuilder &b, Location l, Value x) {
  Type t = x.getType();
  if (isa<FloatType>(t)) {
    Value zero = constantOf(b, l, t, 0.0);
    Value nonzero = arith::CmpFOp::create(b, l, arith::CmpFPredicate::ONE, x, zero);
    Value unit = math::CopySignOp::create(b, l, constantOf(b, l, t, 1.0), x);
    return arith::SelectOp::create(b, l, nonzero, unit, x);
  }
  Value zero = constantOf(b, l, t, 0);
  Value pos = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, x, zero);
  Value neg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, x, zero);
  return arith::SubIOp::create(b, l, arith::ExtUIOp::create(b, l, t, pos),
                               arith::ExtUIOp::create(b, l, t, neg));
}

Value logistic(OpBuilder &b, Location l, Value x) {
  Type t = x.getType();
  Value one = constantOf(b, l, t, 1.0);
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
  return arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
}

arith::CmpFPredicate floatPredicate(ComparisonDirection d) {
  switch (d) {
  case ComparisonDirection::eq: return arith::CmpFPredicate::OEQ;
  case ComparisonDirection::ne: return arith::CmpFPredicate::UNE; // NaN != x
  case ComparisonDirection::lt: return arith::CmpFPredicate::OLT;
  case ComparisonDirection::le: return arith::CmpFPredicate::OLE;
  case ComparisonDirection::gt: return arith::CmpFPredicate::OGT;
  case ComparisonDirection::ge: return arith::CmpFPredicate::OGE;
  }
  llvm_unreachable("comparison direction");
}

arith::CmpIPredicate intPredicate(ComparisonDirection d, bool isUnsigned) {
  using P = arith::CmpIPredicate;
  switch (d) {
  case ComparisonDirection::eq: return P::eq;
  case ComparisonDirection::ne: return P::ne;
  case ComparisonDirection::lt: return isUnsigned ? P::ult : P::slt;
  case ComparisonDirection::le: return isUnsigned ? P::ule : P::sle;
  case ComparisonDirection::gt: return isUnsigned ? P::ugt : P::sgt;
  case ComparisonDirection::ge: return isUnsigned ? P::uge : P::sge;
  }
  llvm_unreachable("comparison direction");
}

/// Float → integer, truncating toward zero and saturating (fptosi.sat):
/// the checks run in f64, where every bound 2^(w-1) is exact and every
/// narrower float extends exactly.
Value floatToInt(OpBuilder &b, Location l, Value x, IntegerType to) {
  Type f64 = b.getF64Type();
  if (x.getType() != f64)
    x = arith::ExtFOp::create(b, l, f64, x);
  unsigned w = to.getWidth();
  double bound = std::ldexp(1.0, static_cast<int>(w) - 1);
  Value tooHigh = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, x,
                                        constantOf(b, l, f64, bound));
  // Values in (-2^(w-1) - 1, -2^(w-1)) truncate to the minimum, which is
  // also what the clamp gives them.
  Value tooLow = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x,
                                       constantOf(b, l, f64, -bound));
  Value isNan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
  Value outside = arith::OrIOp::create(b, l, arith::OrIOp::create(b, l, tooHigh, tooLow), isNan);
  // fptosi of an out-of-range value is poison: convert 0 instead.
  Value safe = arith::SelectOp::create(b, l, outside, constantOf(b, l, f64, 0.0), x);
  Value r = arith::FPToSIOp::create(b, l, to, safe);
  r = arith::SelectOp::create(b, l, tooHigh, intConstant(b, l, to, APInt::getSignedMaxValue(w)), r);
  return arith::SelectOp::create(b, l, tooLow, intConstant(b, l, to, APInt::getSignedMinValue(w)),
                                 r);
}

/// f64 → f32 rounding to odd: an inexact result is truncated toward zero
/// and its last bit set, which folds the dropped bits into a sticky bit. A
/// second rounding to a float with at most 22 significand bits (bf16 has 8)
/// then gives exactly the single rounding from f64, with no calls: LLVM
/// would call __truncdfbf2, which libgcc 12 lacks.
Value truncToOddF32(OpBuilder &b, Location l, Value x) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value r = arith::TruncFOp::create(b, l, f32, x);
  Value back = arith::ExtFOp::create(b, l, x.getType(), r);
  // ONE: ordered and unequal, so NaN and exact results stay as they are.
  Value inexact = arith::CmpFOp::create(b, l, arith::CmpFPredicate::ONE, back, x);
  Value away =
      arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, math::AbsFOp::create(b, l, back),
                            math::AbsFOp::create(b, l, x));
  Value bits = arith::BitcastOp::create(b, l, i32, r);
  // Floats are sign-magnitude: one less in the bits is one ulp toward zero.
  Value toward = arith::SelectOp::create(
      b, l, away, arith::SubIOp::create(b, l, bits, intConstant(b, l, i32, APInt(32, 1))), bits);
  Value odd = arith::OrIOp::create(b, l, toward, intConstant(b, l, i32, APInt(32, 1)));
  return arith::BitcastOp::create(b, l, f32, arith::SelectOp::create(b, l, inexact, odd, bits));
}

Value convert(OpBuilder &b, Location l, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (isBool(to)) { // x != 0; a NaN is true
    if (fromFloat)
      return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, x, constantOf(b, l, from, 0));
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, x, constantOf(b, l, from, 0));
  }
  if (toFloat && toFloat.isBF16() && !isBool(from) && !from.isF32()) {
    // Into bf16 from f64 or an integer: exactly to f64 (an i64 beyond 2^53
    // rounds here), then to odd in f32, then once to bf16.
    if (!fromFloat)
      x = arith::SIToFPOp::create(b, l, b.getF64Type(), x);
    else if (!from.isF64()) // f16: f32 holds it exactly
      x = arith::ExtFOp::create(b, l, b.getF32Type(), x);
    if (x.getType().isF64())
      x = truncToOddF32(b, l, x);
    return arith::TruncFOp::create(b, l, to, x);
  }
  if (fromFloat && toFloat) {
    // f16 -> bf16 was handled above; bf16 -> f16 have one width, so neither
    // extf nor truncf applies: go through f32, which holds bf16 exactly.
    if (fromFloat.getWidth() == toFloat.getWidth())
      x = arith::ExtFOp::create(b, l, b.getF32Type(), x);
    unsigned width = cast<FloatType>(x.getType()).getWidth();
    if (width < toFloat.getWidth())
      return arith::ExtFOp::create(b, l, to, x);
    return arith::TruncFOp::create(b, l, to, x);
  }
  if (fromFloat)
    return floatToInt(b, l, x, cast<IntegerType>(to));
  if (toFloat)
    return isBool(from) ? Value(arith::UIToFPOp::create(b, l, to, x))
                        : Value(arith::SIToFPOp::create(b, l, to, x));
  unsigned fromWidth = from.getIntOrFloatBitWidth(), toWidth = to.getIntOrFloatBitWidth();
  if (toWidth < fromWidth)
    return arith::TruncIOp::create(b, l, to, x);
  return isBool(from) ? Value(arith::ExtUIOp::create(b, l, to, x))
                      : Value(arith::ExtSIOp::create(b, l, to, x));
}

//===----------------------------------------------------------------------===//
// Scalar bodies, one per op. `a` are the operand elements; null = this
// element type has no body (the verifier rejects it first).
//===----------------------------------------------------------------------===//

#define UNARY_FLOAT(OP, MATH)                                                                  \
  Value body(OP, OpBuilder &b, Location l, ValueRange a) {                                     \
    return MATH::create(b, l, a[0]);                                                           \
  }
UNARY_FLOAT(CeilOp, math::CeilOp)
UNARY_FLOAT(CosOp, math::CosOp)
UNARY_FLOAT(ExpOp, math::ExpOp)
UNARY_FLOAT(Expm1Op, math::ExpM1Op)
UNARY_FLOAT(Log1pOp, math::Log1pOp)
UNARY_FLOAT(RoundOp, math::RoundEvenOp)
UNARY_FLOAT(FloorOp, math::FloorOp)
UNARY_FLOAT(LogOp, math::LogOp)
UNARY_FLOAT(RsqrtOp, math::RsqrtOp)
UNARY_FLOAT(SinOp, math::SinOp)
UNARY_FLOAT(SqrtOp, math::SqrtOp)
UNARY_FLOAT(TanhOp, math::TanhOp)
#undef UNARY_FLOAT

Value body(AbsOp, OpBuilder &b, Location l, ValueRange a) {
  return floatOrInt<math::AbsFOp, math::AbsIOp>(b, l, a);
}
Value body(LogisticOp, OpBuilder &b, Location l, ValueRange a) { return logistic(b, l, a[0]); }
Value body(NegOp, OpBuilder &b, Location l, ValueRange a) {
  if (isa<FloatType>(a[0].getType()))
    return arith::NegFOp::create(b, l, a[0]);
  return arith::SubIOp::create(b, l, constantOf(b, l, a[0].getType(), 0), a[0]);
}
Value body(NotOp, OpBuilder &b, Location l, ValueRange a) {
  unsigned w = a[0].getType().getIntOrFloatBitWidth();
  return arith::XOrIOp::create(b, l, a[0], intConstant(b, l, a[0].getType(), APInt::getAllOnes(w)));
}
Value body(SignOp, OpBuilder &b, Location l, ValueRange a) { return sign(b, l, a[0]); }
// garray-autodiff removes these; one left by a pipeline without it copies.
Value body(StopGradientOp, OpBuilder &, Location, ValueRange a) { return a[0]; }

Value body(AddOp, OpBuilder &b, Location l, ValueRange a) {
  return floatOrInt<arith::AddFOp, arith::AddIOp>(b, l, a);
}
Value body(AndOp, OpBuilder &b, Location l, ValueRange a) { return arith::AndIOp::create(b, l, a); }
Value body(DivOp, OpBuilder &b, Location l, ValueRange a) {
  if (isa<FloatType>(a[0].getType()))
    return arith::DivFOp::create(b, l, a);
  return divInt(b, l, a);
}
// maximumf/minimumf propagate NaN, as JAX's max/min do.
Value body(MaxOp, OpBuilder &b, Location l, ValueRange a) {
  if (isBool(a[0].getType()))
    return arith::MaxUIOp::create(b, l, a);
  return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, l, a);
}
Value body(MinOp, OpBuilder &b, Location l, ValueRange a) {
  if (isBool(a[0].getType()))
    return arith::MinUIOp::create(b, l, a);
  return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, l, a);
}
// clamp(lo, x, hi) = min(max(x, lo), hi): the max/min bodies above, so NaN
// and i1 behave as they do.
Value body(ClampOp, OpBuilder &b, Location l, ValueRange a) {
  Value lower = body(MaxOp(), b, l, ValueRange{a[1], a[0]});
  return body(MinOp(), b, l, ValueRange{lower, a[2]});
}
Value body(MulOp, OpBuilder &b, Location l, ValueRange a) {
  return floatOrInt<arith::MulFOp, arith::MulIOp>(b, l, a);
}
Value body(OrOp, OpBuilder &b, Location l, ValueRange a) { return arith::OrIOp::create(b, l, a); }
Value body(PowOp, OpBuilder &b, Location l, ValueRange a) { return math::PowFOp::create(b, l, a); }
Value body(RemOp, OpBuilder &b, Location l, ValueRange a) {
  if (isa<FloatType>(a[0].getType()))
    return arith::RemFOp::create(b, l, a);
  return remInt(b, l, a);
}
Value body(SubOp, OpBuilder &b, Location l, ValueRange a) {
  return floatOrInt<arith::SubFOp, arith::SubIOp>(b, l, a);
}
Value body(XorOp, OpBuilder &b, Location l, ValueRange a) { return arith::XOrIOp::create(b, l, a); }

/// `shifted` where the amount a[1], read as unsigned, is below the bit
/// width; `outOfRange` elsewhere (LLVM's shifts give poison there).
Value guardShift(OpBuilder &b, Location l, ValueRange a, Value shifted, Value outOfRange) {
  Type t = a[0].getType();
  Value width = constantOf(b, l, t, t.getIntOrFloatBitWidth());
  Value inRange = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, a[1], width);
  return arith::SelectOp::create(b, l, inRange, shifted, outOfRange);
}
Value body(ShiftLeftOp, OpBuilder &b, Location l, ValueRange a) {
  return guardShift(b, l, a, arith::ShLIOp::create(b, l, a), constantOf(b, l, a[0].getType(), 0));
}
Value body(ShiftRightLogicalOp, OpBuilder &b, Location l, ValueRange a) {
  return guardShift(b, l, a, arith::ShRUIOp::create(b, l, a),
                    constantOf(b, l, a[0].getType(), 0));
}
Value body(ShiftRightArithmeticOp, OpBuilder &b, Location l, ValueRange a) {
  // Out of range, every bit is the sign bit: a shift by width - 1.
  Type t = a[0].getType();
  Value signFill =
      arith::ShRSIOp::create(b, l, a[0], constantOf(b, l, t, t.getIntOrFloatBitWidth() - 1));
  return guardShift(b, l, a, arith::ShRSIOp::create(b, l, a), signFill);
}
Value body(BitcastConvertOp op, OpBuilder &b, Location l, ValueRange a) {
  return arith::BitcastOp::create(b, l, op.getType().getElementType(), a[0]);
}

Value body(CompareOp op, OpBuilder &b, Location l, ValueRange a) {
  Type t = a[0].getType();
  if (isa<FloatType>(t))
    return arith::CmpFOp::create(b, l, floatPredicate(op.getDirection()), a[0], a[1]);
  return arith::CmpIOp::create(b, l, intPredicate(op.getDirection(), isBool(t)), a[0], a[1]);
}
Value body(SelectOp, OpBuilder &b, Location l, ValueRange a) {
  return arith::SelectOp::create(b, l, a[0], a[1], a[2]);
}
Value body(ConvertOp op, OpBuilder &b, Location l, ValueRange a) {
  return convert(b, l, a[0], op.getType().getElementType());
}

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

template <typename OpTy> struct LowerElementwise : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Location loc = op->getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType());
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<AffineMap> maps(op->getNumOperands() + 1, id);
    SmallVector<utils::IteratorType> iters(type.getRank(), utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, op->getOperands(), ValueRange{init}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, body(op, b, l, args.drop_back()));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

template <typename... Ops> void addPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerElementwise<Ops>...>(patterns.getContext());
}
} // namespace

void shardc::populateElementwiseLoweringPatterns(RewritePatternSet &patterns) {
  addPatterns<AbsOp, CeilOp, ClampOp, CosOp, ExpOp, Expm1Op, FloorOp, LogOp, Log1pOp,
              LogisticOp, NegOp, NotOp, RoundOp, RsqrtOp, SignOp, SinOp, SqrtOp, StopGradientOp, TanhOp, AddOp, AndOp, DivOp, MaxOp, MinOp, MulOp, OrOp,
              PowOp, RemOp, SubOp, XorOp, ShiftLeftOp, ShiftRightArithmeticOp,
              ShiftRightLogicalOp, CompareOp, SelectOp, ConvertOp, BitcastConvertOp>(patterns);
}
