//===- ApproximateMath.cpp - cpu-approximate-math --------------------------===//
//
// f32 exp and tanh as polynomial approximations (see CpuPasses.td), so
// that the loops computing them vectorize instead of calling libm per lane.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace shardc {
#define GEN_PASS_DEF_CPUAPPROXIMATEMATH
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

struct CpuApproximateMath : shardc::impl::CpuApproximateMathBase<CpuApproximateMath> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // The predicate sees operation names ("math.exp").
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return llvm::is_contained({"math.exp", "math.tanh"}, name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
