//===- GeneralizeNamedOps.cpp - cpu-generalize-named-ops ------------------===//
//
// Named linalg ops -> linalg.generic, except the contractions the GEMM recipe
// matches (see CpuPasses.td). Same rewrite as upstream
// linalg-generalize-named-ops, with a filter.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace shardc {
#define GEN_PASS_DEF_CPUGENERALIZENAMEDOPS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Contractions stay named: cpu-tile-and-vectorize-matmul matches them, and
/// elementwise fusion (which only rewrites generics) then cannot fold
/// producers into them.
bool staysNamed(linalg::LinalgOp op) {
  return isa<linalg::GenericOp, linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation());
}

struct CpuGeneralizeNamedOps : shardc::impl::CpuGeneralizeNamedOpsBase<CpuGeneralizeNamedOps> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> named;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!staysNamed(op))
        named.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      // Fails only for ops without a region builder, which linalg's named
      // structured ops all have; such an op would just stay named.
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
  }
};

} // namespace
