//===- ApproximateMath.cpp - cpu-approximate-math --------------------------===//
//
// f32 exp, tanh, log and log1p as polynomial approximations (see
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
  auto constant = [&](double v) -> Value {
    TypedAttr scalar = b.getF32FloatAttr(static_cast<float>(v));
    if (auto vector = dyn_cast<VectorType>(type))
      return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vector, scalar));
    return arith::ConstantOp::create(b, loc, scalar);
  };
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

    RewritePatternSet patterns(&getContext());
    // The predicate sees operation names ("math.exp").
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return llvm::is_contained({"math.exp", "math.tanh", "math.log", "math.log1p"}, name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
