//===- ApproximateMath.cpp - cpu-approximate-math --------------------------===//
//
// f32 exp, expm1, tanh, log and log1p as polynomial approximations (see
// CpuPasses.td), so that the loops computing them vectorize instead of
// calling libm per lane.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace shardc {
#define GEN_PASS_DEF_CPUAPPROXIMATEMATH
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// A float constant of `type` (a scalar or vector float type).
Value floatConstant(OpBuilder &b, Location loc, Type type, double v) {
  TypedAttr scalar = b.getFloatAttr(getElementTypeOrSelf(type), v);
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vector, scalar));
  return arith::ConstantOp::create(b, loc, scalar);
}

/// convert-math-to-llvm lowers expm1 as exp(x) - 1, which cancels: 0 for
/// |x| below 2^-24 in f32 and 4 % off at 1e-5. f32 gets MLIR's polynomial
/// approximation below; other widths (f64) get Kahan's correction of the
/// same cancellation, with exp and log from libm:
///   u = exp(x);  u == 1 ? x : u - 1 == -1 ? -1 : u == inf ? inf
///                            : (u - 1) * x / log(u)
/// (the rounding error of u - 1 cancels against that of log(u)).
void correctExpm1(math::ExpM1Op op) {
  Type type = op.getType();
  if (getElementTypeOrSelf(type).isF32())
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto constant = [&](double v) { return floatConstant(b, loc, type, v); };
  auto equal = [&](Value a, Value c) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, a, c);
  };
  Value x = op.getOperand();
  Value u = math::ExpOp::create(b, loc, x);
  Value one = constant(1), minusOne = constant(-1);
  Value um1 = arith::SubFOp::create(b, loc, u, one);
  Value corrected = arith::DivFOp::create(b, loc, arith::MulFOp::create(b, loc, um1, x),
                                          math::LogOp::create(b, loc, u));
  Value result = arith::SelectOp::create(b, loc, equal(u, constant(INFINITY)), u, corrected);
  result = arith::SelectOp::create(b, loc, equal(um1, minusOne), minusOne, result);
  result = arith::SelectOp::create(b, loc, equal(u, one), x, result);
  op.replaceAllUsesWith(result);
  op.erase();
}

/// MLIR's log approximation clamps its operand to the smallest normal f32,
/// so log(1e-40) would come out as log(1.18e-38). Scaling a subnormal
/// operand by 2^24 makes it normal and exact; subtracting 24 ln 2 after the
/// logarithm undoes the scaling. Zero, negatives and NaN keep their
/// results: 0 * 2^24 is still a zero of the same sign.
void scaleSubnormalOperand(math::LogOp log) {
  Type type = log.getType();
  if (!getElementTypeOrSelf(type).isF32())
    return;
  OpBuilder b(log);
  Location loc = log.getLoc();
  auto constant = [&](double v) { return floatConstant(b, loc, type, v); };
  Value x = log.getOperand();
  Value subnormal =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, constant(0x1p-126));
  Value scaled = arith::SelectOp::create(
      b, loc, subnormal, arith::MulFOp::create(b, loc, x, constant(0x1p24)), x);
  Value logScaled = math::LogOp::create(b, loc, scaled, log.getFastmathAttr());
  Value correction = arith::SelectOp::create(b, loc, subnormal, constant(24 * M_LN2), constant(0));
  Value result = arith::SubFOp::create(b, loc, logScaled, correction);
  log.replaceAllUsesWith(result);
  log.erase();
}

struct CpuApproximateMath : shardc::impl::CpuApproximateMathBase<CpuApproximateMath> {
  void runOnOperation() override {
    SmallVector<math::LogOp> logs;
    getOperation()->walk([&](math::LogOp log) { logs.push_back(log); });
    for (math::LogOp log : logs)
      scaleSubnormalOperand(log);
    SmallVector<math::ExpM1Op> expm1s;
    getOperation()->walk([&](math::ExpM1Op op) { expm1s.push_back(op); });
    for (math::ExpM1Op op : expm1s)
      correctExpm1(op);

    RewritePatternSet patterns(&getContext());
    // The predicate sees operation names ("math.exp").
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return llvm::is_contained({"math.exp", "math.expm1", "math.tanh", "math.log", "math.log1p"},
                                name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
