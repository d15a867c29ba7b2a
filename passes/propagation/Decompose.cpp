//===- Decompose.cpp - garray-decompose: composites into core ops ---------===//
//
// Keeps: the denominator of a mean is the *global* element count, written as a
// constant in the global program, before anything is sharded.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYDECOMPOSE
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {
struct Decompose : shardc::impl::GArrayDecomposeBase<Decompose> {
  void runOnOperation() override {
    WalkResult r = getOperation().walk([](MeanOp mean) {
      OpBuilder b(mean);
      auto type = cast<RankedTensorType>(mean.getType());
      // The count must be exact in the element type, or the mean is wrong.
      llvm::APFloat exact(static_cast<double>(mean.getGlobalCount()));
      bool lost = false;
      exact.convert(cast<FloatType>(type.getElementType()).getFloatSemantics(),
                    llvm::APFloat::rmNearestTiesToEven, &lost);
      if (lost) {
        mean.emitError("mean over ")
            << mean.getGlobalCount() << " elements: the count is not exactly representable in "
            << type.getElementType() << "; convert the operand to f32 first";
        return WalkResult::interrupt();
      }
      Value sum = ReduceOp::create(b, mean.getLoc(), type,
                                   ReductionKindAttr::get(b.getContext(), ReductionKind::sum),
                                   mean.getOperand(), mean.getDimsAttr(), mean.getKeepdimsAttr());
      auto elem = cast<FloatType>(type.getElementType());
      auto count = DenseElementsAttr::get(
          type, b.getFloatAttr(elem, static_cast<double>(mean.getGlobalCount())));
      Value n = ConstantOp::create(b, mean.getLoc(), count);
      Value div = DivOp::create(b, mean.getLoc(), sum, n);
      if (Attribute s = mean->getAttr(kShardingAttrName))
        div.getDefiningOp()->setAttr(kShardingAttrName, s);
      mean.replaceAllUsesWith(div);
      mean.erase();
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
