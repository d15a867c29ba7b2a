//===- MinMaxToIntrinsics.cpp - cpu-min-max-to-intrinsics ------------------===//
//
// Float max and min as LLVM's intrinsics rather than arith-expand's compare
// and select (see CpuPasses.td), so that reductions over them vectorize.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace shardc {
#define GEN_PASS_DEF_CPUMINMAXTOINTRINSICS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// `From` (same operand and result types) as the LLVM intrinsic `To`, which
/// computes the same for every input. Fastmath flags are not carried over:
/// without them the intrinsic promises no more than the op did.
template <typename From, typename To> struct ToIntrinsic : OpRewritePattern<From> {
  using OpRewritePattern<From>::OpRewritePattern;
  LogicalResult matchAndRewrite(From op, PatternRewriter &rewriter) const override {
    // The intrinsics take scalars and 1-D vectors only; the n-D vectors of
    // a GEMM's register tile (an epilogue's relu) keep arith-expand's form,
    // which needs no reduction vectorized.
    auto vector = dyn_cast<VectorType>(op.getType());
    if (vector && vector.getRank() != 1)
      return failure();
    rewriter.replaceOpWithNewOp<To>(op, op.getType(), op.getLhs(), op.getRhs());
    return success();
  }
};

struct CpuMinMaxToIntrinsics : shardc::impl::CpuMinMaxToIntrinsicsBase<CpuMinMaxToIntrinsics> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ToIntrinsic<arith::MaximumFOp, LLVM::MaximumOp>,
                 ToIntrinsic<arith::MinimumFOp, LLVM::MinimumOp>,
                 ToIntrinsic<arith::MaxNumFOp, LLVM::MaxNumOp>,
                 ToIntrinsic<arith::MinNumFOp, LLVM::MinNumOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
