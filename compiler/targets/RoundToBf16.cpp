//===- RoundToBf16.cpp - cpu-round-to-bf16 ---------------------------------===//
//
// f32 -> bf16 roundings as integer ops that vectorize (see CpuPasses.td).
// The one thing that matters is where the NaN case is chosen: on the i32
// bits, between two computed values. A select whose arm is a constant bf16
// NaN is moved by LLVM's InstCombine past the truncation and the bitcast,
// and x86 then scalarizes a select of bf16 vectors lane by lane.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace shardc {
#define GEN_PASS_DEF_CPUROUNDTOBF16
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// `type` (a scalar or a vector) with `element` in place of its element type.
Type withElement(Type type, Type element) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(element);
  return element;
}

struct RoundF32ToBf16 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op, PatternRewriter &rewriter) const override {
    Type in = op.getIn().getType(), out = op.getType();
    if (!getElementTypeOrSelf(in).isF32() || !getElementTypeOrSelf(out).isBF16())
      return failure();
    if (auto mode = op.getRoundingmode(); mode && *mode != arith::RoundingMode::to_nearest_even)
      return failure();
    Location loc = op.getLoc();
    Type i32 = withElement(in, rewriter.getI32Type());
    Type i16 = withElement(in, rewriter.getI16Type());
    auto constant = [&](uint32_t v) -> Value {
      Attribute value = rewriter.getI32IntegerAttr(static_cast<int32_t>(v));
      if (auto vector = dyn_cast<ShapedType>(i32))
        value = SplatElementsAttr::get(vector, value);
      return arith::ConstantOp::create(rewriter, loc, cast<TypedAttr>(value));
    };
    Value bits = arith::BitcastOp::create(rewriter, loc, i32, op.getIn());
    Value magnitude = arith::AndIOp::create(rewriter, loc, bits, constant(0x7fffffff));
    Value isNan = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ugt, magnitude,
                                        constant(0x7f800000));
    // Round to nearest, ties to even: add 0x7fff plus the bit that becomes
    // the result's last, then drop the low half. Infinity stays infinity and
    // the largest finite values round up to it, as IEEE rounding does.
    Value lsb = arith::AndIOp::create(
        rewriter, loc, arith::ShRUIOp::create(rewriter, loc, bits, constant(16)), constant(1));
    Value rounded = arith::AddIOp::create(
        rewriter, loc, bits, arith::AddIOp::create(rewriter, loc, lsb, constant(0x7fff)));
    // A NaN is not rounded (its payload could carry into the exponent) but
    // quieted, keeping its sign and top payload bits, as vcvtneps2bf16 does.
    Value quiet = arith::OrIOp::create(rewriter, loc, bits, constant(0x00400000));
    Value chosen = arith::SelectOp::create(rewriter, loc, isNan, quiet, rounded);
    Value high = arith::ShRUIOp::create(rewriter, loc, chosen, constant(16));
    Value narrow = arith::TruncIOp::create(rewriter, loc, i16, high);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, out, narrow);
    return success();
  }
};

struct CpuRoundToBf16 : shardc::impl::CpuRoundToBf16Base<CpuRoundToBf16> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RoundF32ToBf16>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
