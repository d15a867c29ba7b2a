//===- LowerStridedCopies.cpp - cpu-lower-strided-copies ------------------===//
//
// memref.copy with a non-contiguous side -> linalg.copy (see CpuPasses.td).
// The contiguity test is the one finalize-memref-to-llvm uses to choose
// between the memcpy intrinsic and a `memrefCopy` call, so after this pass no
// copy can become a call into MLIR's runtime library.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Builders.h"

namespace shardc {
#define GEN_PASS_DEF_CPULOWERSTRIDEDCOPIES
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Mirrors MemRefCopyOpLowering in finalize-memref-to-llvm.
bool lowersToMemcpy(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref &&
         (memref.getLayout().isIdentity() || memref::isStaticShapeAndContiguousRowMajor(memref));
}

struct CpuLowerStridedCopies : shardc::impl::CpuLowerStridedCopiesBase<CpuLowerStridedCopies> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> strided;
    getOperation()->walk([&](memref::CopyOp copy) {
      if (!lowersToMemcpy(copy.getSource().getType()) ||
          !lowersToMemcpy(copy.getTarget().getType()))
        strided.push_back(copy);
    });
    for (memref::CopyOp copy : strided) {
      if (!isa<MemRefType>(copy.getSource().getType()) ||
          !isa<MemRefType>(copy.getTarget().getType())) {
        copy.emitError() << "cannot lower a non-contiguous copy of unranked memrefs without "
                            "MLIR's runtime library (memrefCopy)";
        return signalPassFailure();
      }
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), ValueRange{copy.getSource()},
                             ValueRange{copy.getTarget()});
      copy.erase();
    }
  }
};

} // namespace
