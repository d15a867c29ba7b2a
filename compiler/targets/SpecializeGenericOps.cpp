//===- SpecializeGenericOps.cpp - cpu-specialize-generic-ops --------------===//
//
// See CpuPasses.td: upstream linalg-specialize-generic-ops for everything but
// contractions, whose transposed operands LLVM 22's pass mis-specializes.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace shardc {
#define GEN_PASS_DEF_CPUSPECIALIZEGENERICOPS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

struct CpuSpecializeGenericOps
    : shardc::impl::CpuSpecializeGenericOpsBase<CpuSpecializeGenericOps> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!linalg::isaContractionOpInterface(op))
        generics.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      rewriter.setInsertionPoint(op);
      (void)linalg::specializeGenericOp(rewriter, op); // failure: stays generic
    }
  }
};

} // namespace
