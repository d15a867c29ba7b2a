//===- ElementaryFunctions.cpp - atan2, sinh, cbrt, ... as garray ops ----===//
//
// Elementary functions garray has no op for, built from its elementwise
// ops. The float ones are computed in f32 (bf16 and f16 widened and
// rounded back; f64 refused, as in SpecialFunctions.cpp):
//
//   stablehlo.atan2   the quotient min(|x|, |y|) / max(|x|, |y|) in [0, 1],
//                     its arctangent by Cephes' atanf (reduced by
//                     tan(π/8); a degree-4 polynomial), then the octant
//                     and quadrant by π/2 - r, π - r and the sign of y;
//                     ±0 and ±inf in both operands as C's atan2 has them.
//   chlo.atan         atan2(x, 1).
//   chlo.asin, acos   atan2(x, √((1-x)(1+x))) and atan2(√((1-x)(1+x)), x):
//                     no cancellation near ±1, NaN beyond.
//   stablehlo.tan     sin(x) / cos(x), as XLA computes it.
//   chlo.sinh         |x| < 1: (u + u / (u + 1)) / 2 with u = expm1(|x|),
//                     accurate near 0; else (e^|x| - e^-|x|) / 2, and
//                     e^(|x|/2) · e^(|x|/2) / 2 past 88 where e^|x|
//                     overflows; the sign of x.
//   chlo.cosh         (e^|x| + e^-|x|) / 2, e^(|x|/2) · e^(|x|/2) / 2 past 88.
//   chlo.asinh        log1p(|x| + x² / (1 + √(1 + x²))), ln|x| + ln 2 past
//                     2^28 (x² would overflow); the sign of x.
//   chlo.acosh        log1p(t + √(t (x + 1))) with t = x - 1 (exact near
//                     1), ln x + ln 2 past 2^28; NaN below 1.
//   chlo.atanh        log1p(2|x| / (1 - |x|)) / 2 (no cancellation near
//                     -1, as 2x / (1 - x) would have); the sign of x; ±inf
//                     at ±1, NaN beyond.
//   stablehlo.cbrt    |x|^(1/3) then one Newton step (2y + |x|/y²) / 3,
//                     which corrects pow's rounding of 1/3; the sign of x;
//                     0 and inf kept.
//   stablehlo.round_nearest_afz   t = trunc(x), then t ± 1 where |x - t|
//                     >= 1/2 (x - t is exact); `lax.round`'s default.
//
// Integer and bit functions, on every width:
//
//   stablehlo.popcnt  pairs, nibbles, bytes, ... summed in place (masks
//                     01010101..., 00110011..., ...), log2(width) steps.
//   stablehlo.count_leading_zeros  every bit below the highest set bit
//                     set by or-ing shifted copies, then width - popcnt.
//   chlo.next_after   the float's bits read as an integer, plus or minus
//                     one toward y; ±smallest subnormal from ±0; y where
//                     x == y; NaN where either is NaN.
//
// Against double-precision <cmath> at 4096 f32 points (edges, every
// binade, [-3, 3]), tests/exec/ElementaryFunctionsTest.cpp measured the
// worst errors at 2.1 ulp (atan2), 1.6 (atan), 2.2 (asin), 2.1 (acos),
// 1.5 (tan, |x| <= 10), 2.0 (sinh), 1.3 (cosh), 2.1 (asinh), 1.7 (acosh),
// 1.6 (atanh), 1.6 (cbrt); rounding and next_after are exact. It fails
// above 4 ulp.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/FloatExpansion.h"

#include <cmath>
#include <limits>
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::garray;

namespace shardc::import {
namespace {

constexpr double kPi = llvm::numbers::pi;
constexpr double kLn2 = llvm::numbers::ln2;
constexpr double kInf = std::numeric_limits<double>::infinity();

Value lessThan(OpEmitter &e, Value x, double v) {
  return e.compare(ComparisonDirection::lt, x, constLike(e, x, v));
}
Value greaterThan(OpEmitter &e, Value x, double v) {
  return e.compare(ComparisonDirection::gt, x, constLike(e, x, v));
}
Value equalTo(OpEmitter &e, Value x, double v) {
  return e.compare(ComparisonDirection::eq, x, constLike(e, x, v));
}
Value isNan(OpEmitter &e, Value x) { return e.compare(ComparisonDirection::ne, x, x); }
Value orOf(OpEmitter &e, Value p, Value q) { return OrOp::create(e.b, e.loc, p, q); }

template <typename Op> Value unary(OpEmitter &e, Value x) {
  return Op::create(e.b, e.loc, x.getType(), x);
}

/// Whether x's sign bit is set: x < 0, or x is -0 (1 / -0 = -inf).
Value signBit(OpEmitter &e, Value x) {
  return orOf(e, lessThan(e, x, 0.0), lessThan(e, e.div(constLike(e, x, 1.0), x), 0.0));
}

/// `r` (>= 0 or NaN) with the sign of `x`.
Value withSignOf(OpEmitter &e, Value x, Value r) { return e.select(signBit(e, x), e.neg(r), r); }

/// atan(t) for t in [0, 1]: Cephes' atanf.
Value atanUnit(OpEmitter &e, Value t) {
  static constexpr double kP[] = {8.05374449538e-2, -1.38776856032e-1, 1.99777106478e-1,
                                  -3.33329491539e-1};
  Value one = constLike(e, t, 1.0);
  Value far = greaterThan(e, t, 0.4142135623730950); // tan(π/8)
  Value u = e.select(far, e.div(e.sub(t, one), e.add(t, one)), t);
  Value z = e.mul(u, u);
  Value r = e.add(e.mul(e.mul(polynomial(e, z, kP), z), u), u);
  return e.select(far, e.add(r, constLike(e, t, kPi / 4)), r);
}

Value atan2F32(OpEmitter &e, Value y, Value x) {
  Value ax = absOf(e, x), ay = absOf(e, y);
  Value lo = MinOp::create(e.b, e.loc, ax, ay), hi = MaxOp::create(e.b, e.loc, ax, ay);
  // 0/0 (both zero) reads as 0 and inf/inf (both infinite) as 1, which
  // the octant and quadrant steps turn into C's ±0, ±π, ±π/4, ±3π/4.
  Value t = e.div(lo, hi);
  t = e.select(equalTo(e, hi, 0.0), constLike(e, t, 0.0), t);
  t = e.select(equalTo(e, lo, kInf), constLike(e, t, 1.0), t);
  Value r = atanUnit(e, t);
  r = e.select(e.compare(ComparisonDirection::gt, ay, ax),
               e.sub(constLike(e, r, kPi / 2), r), r);
  r = e.select(signBit(e, x), e.sub(constLike(e, r, kPi), r), r);
  r = withSignOf(e, y, r);
  return e.select(orOf(e, isNan(e, x), isNan(e, y)), e.add(x, y), r);
}

Value atanF32(OpEmitter &e, Value x) { return atan2F32(e, x, constLike(e, x, 1.0)); }

/// √((1 - x)(1 + x)), the cosine of asin(x).
Value cosOfAsin(OpEmitter &e, Value x) {
  Value one = constLike(e, x, 1.0);
  return unary<SqrtOp>(e, e.mul(e.sub(one, x), e.add(one, x)));
}

Value asinF32(OpEmitter &e, Value x) { return atan2F32(e, x, cosOfAsin(e, x)); }
Value acosF32(OpEmitter &e, Value x) { return atan2F32(e, cosOfAsin(e, x), x); }

Value tanF32(OpEmitter &e, Value x) { return e.div(unary<SinOp>(e, x), unary<CosOp>(e, x)); }

/// e^a / 2 as e^(a/2) · (e^(a/2) / 2): finite past 88 where e^a is not,
/// and a/2 is exact where a - ln 2 would round (19 ulp off at 89).
Value halfExp(OpEmitter &e, Value a) {
  Value h = unary<ExpOp>(e, scaleBy(e, a, 0.5));
  return e.mul(h, scaleBy(e, h, 0.5));
}

Value sinhF32(OpEmitter &e, Value x) {
  Value a = absOf(e, x);
  Value u = unary<Expm1Op>(e, a);
  Value near = scaleBy(e, e.add(u, e.div(u, e.add(u, constLike(e, u, 1.0)))), 0.5);
  Value ea = unary<ExpOp>(e, a);
  Value mid = scaleBy(e, e.sub(ea, e.div(constLike(e, ea, 1.0), ea)), 0.5);
  Value s = e.select(lessThan(e, a, 1.0), near,
                     e.select(greaterThan(e, a, 88.0), halfExp(e, a), mid));
  return withSignOf(e, x, s);
}

Value coshF32(OpEmitter &e, Value x) {
  Value a = absOf(e, x);
  Value ea = unary<ExpOp>(e, a);
  Value mid = scaleBy(e, e.add(ea, e.div(constLike(e, ea, 1.0), ea)), 0.5);
  return e.select(greaterThan(e, a, 88.0), halfExp(e, a), mid);
}

/// ln(a) + ln 2, the limit of asinh and acosh for large a.
Value logTwice(OpEmitter &e, Value a) {
  return e.add(unary<LogOp>(e, a), constLike(e, a, kLn2));
}

constexpr double kHuge = 268435456.0; // 2^28: 1 + x² == x² in f32

Value asinhF32(OpEmitter &e, Value x) {
  Value a = absOf(e, x);
  Value one = constLike(e, a, 1.0);
  Value a2 = e.mul(a, a);
  Value mid = unary<Log1pOp>(
      e, e.add(a, e.div(a2, e.add(one, unary<SqrtOp>(e, e.add(one, a2))))));
  return withSignOf(e, x, e.select(greaterThan(e, a, kHuge), logTwice(e, a), mid));
}

Value acoshF32(OpEmitter &e, Value x) {
  Value one = constLike(e, x, 1.0);
  Value t = e.sub(x, one);
  Value mid = unary<Log1pOp>(e, e.add(t, unary<SqrtOp>(e, e.mul(t, e.add(x, one)))));
  Value r = e.select(greaterThan(e, x, kHuge), logTwice(e, x), mid);
  return e.select(lessThan(e, x, 1.0), constLike(e, x, std::nan("")), r);
}

Value atanhF32(OpEmitter &e, Value x) {
  Value a = absOf(e, x);
  Value q = e.div(scaleBy(e, a, 2.0), e.sub(constLike(e, a, 1.0), a));
  // Past |x| = 1, q < -1 and log1p gives NaN.
  return withSignOf(e, x, scaleBy(e, unary<Log1pOp>(e, q), 0.5));
}

Value cbrtF32(OpEmitter &e, Value x) {
  Value a = absOf(e, x);
  Value y = PowOp::create(e.b, e.loc, a, constLike(e, a, 1.0 / 3.0));
  Value newton = scaleBy(e, e.add(scaleBy(e, y, 2.0), e.div(a, e.mul(y, y))), 1.0 / 3.0);
  Value kept = orOf(e, equalTo(e, a, 0.0), equalTo(e, a, kInf));
  return withSignOf(e, x, e.select(kept, a, newton));
}

Value roundAwayF32(OpEmitter &e, Value x) {
  Value t = e.select(lessThan(e, x, 0.0), unary<CeilOp>(e, x), unary<FloorOp>(e, x));
  Value half = e.compare(ComparisonDirection::ge, absOf(e, e.sub(x, t)), constLike(e, x, 0.5));
  return e.select(half, e.add(t, unary<SignOp>(e, x)), t);
}

/// An integer tensor like `x` with every element `v` (its low bits).
Value intLike(OpEmitter &e, Value x, uint64_t v) {
  auto t = cast<RankedTensorType>(x.getType());
  unsigned w = t.getElementType().getIntOrFloatBitWidth();
  return filledConstant(e, t, e.b.getIntegerAttr(t.getElementType(), APInt(w, v, false, true)));
}

Value popcount(OpEmitter &e, Value x) {
  unsigned w = tensorType(x).getElementType().getIntOrFloatBitWidth();
  for (unsigned k = 1; k < w; k *= 2) {
    // k ones, k zeros, repeated from the low bit: 0x55.., 0x33.., 0x0f.., ...
    APInt mask(w, 0);
    for (unsigned bit = 0; bit < w; ++bit)
      if ((bit / k) % 2 == 0)
        mask.setBit(bit);
    Value m = intLike(e, x, mask.getZExtValue());
    Value shifted = ShiftRightLogicalOp::create(e.b, e.loc, x, intLike(e, x, k));
    x = e.add(AndOp::create(e.b, e.loc, x, m), AndOp::create(e.b, e.loc, shifted, m));
  }
  return x;
}

Value leadingZeros(OpEmitter &e, Value x) {
  unsigned w = tensorType(x).getElementType().getIntOrFloatBitWidth();
  for (unsigned k = 1; k < w; k *= 2)
    x = orOf(e, x, ShiftRightLogicalOp::create(e.b, e.loc, x, intLike(e, x, k)));
  return e.sub(intLike(e, x, w), popcount(e, x));
}

FailureOr<Values> integerOnly(Operation *op, OpEmitter &e, Value (*f)(OpEmitter &, Value)) {
  Value x = op->getOperand(0);
  Type el = tensorType(x).getElementType();
  if (!el.isSignlessInteger() || el.isInteger(1))
    return op->emitError() << "'" << op->getName() << "' on " << el
                           << " is not supported (integers of 8 to 64 bits)";
  return Values{f(e, x)};
}

} // namespace

FailureOr<Values> importAtan2(Operation *op, OpEmitter &e) { return inF32(op, e, atan2F32); }
FailureOr<Values> importAtan(Operation *op, OpEmitter &e) { return inF32(op, e, atanF32); }
FailureOr<Values> importAsin(Operation *op, OpEmitter &e) { return inF32(op, e, asinF32); }
FailureOr<Values> importAcos(Operation *op, OpEmitter &e) { return inF32(op, e, acosF32); }
FailureOr<Values> importTan(Operation *op, OpEmitter &e) { return inF32(op, e, tanF32); }
FailureOr<Values> importSinh(Operation *op, OpEmitter &e) { return inF32(op, e, sinhF32); }
FailureOr<Values> importCosh(Operation *op, OpEmitter &e) { return inF32(op, e, coshF32); }
FailureOr<Values> importAsinh(Operation *op, OpEmitter &e) { return inF32(op, e, asinhF32); }
FailureOr<Values> importAcosh(Operation *op, OpEmitter &e) { return inF32(op, e, acoshF32); }
FailureOr<Values> importAtanh(Operation *op, OpEmitter &e) { return inF32(op, e, atanhF32); }
FailureOr<Values> importCbrt(Operation *op, OpEmitter &e) { return inF32(op, e, cbrtF32); }
FailureOr<Values> importRoundAway(Operation *op, OpEmitter &e) {
  return inF32(op, e, roundAwayF32);
}
FailureOr<Values> importPopcnt(Operation *op, OpEmitter &e) {
  return integerOnly(op, e, popcount);
}
FailureOr<Values> importCountLeadingZeros(Operation *op, OpEmitter &e) {
  return integerOnly(op, e, leadingZeros);
}

FailureOr<Values> importNextAfter(Operation *op, OpEmitter &e) {
  Value x = op->getOperand(0), y = op->getOperand(1);
  RankedTensorType t = tensorType(x);
  auto ft = dyn_cast<FloatType>(t.getElementType());
  if (!ft)
    return op->emitError() << "'chlo.next_after' on " << t.getElementType()
                           << " is not supported (floats)";
  auto bitsType = t.clone(e.b.getIntegerType(ft.getWidth()));
  Value bits = BitcastConvertOp::create(e.b, e.loc, bitsType, x);
  // Away from zero when y lies beyond x on x's side of zero.
  Value xNegative = signBit(e, x);
  Value towardLarger = e.compare(ComparisonDirection::gt, y, x);
  Value away = e.select(xNegative, NotOp::create(e.b, e.loc, towardLarger), towardLarger);
  Value one = intLike(e, bits, 1);
  Value stepped = e.select(away, e.add(bits, one), e.sub(bits, one));
  // From ±0: the smallest subnormal with y's sign.
  Value tiny = e.select(signBit(e, y), intLike(e, bits, (uint64_t{1} << (ft.getWidth() - 1)) | 1),
                        one);
  stepped = e.select(equalTo(e, x, 0.0), tiny, stepped);
  Value r = BitcastConvertOp::create(e.b, e.loc, t, stepped);
  r = e.select(e.compare(ComparisonDirection::eq, x, y), y, r);
  return Values{e.select(orOf(e, isNan(e, x), isNan(e, y)), e.add(x, y), r)};
}

} // namespace shardc::import
