//===- SplitFreshDeallocs.cpp - cpu-split-fresh-deallocs ------------------===//
//
// Gives each fresh allocation of a block-end bufferization.dealloc a dealloc
// of its own (see CpuPasses.td), so that upstream's simplification does not
// compare every pair of a long step's buffers for aliasing.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace shardc {
#define GEN_PASS_DEF_CPUSPLITFRESHDEALLOCS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Whether `dealloc` frees only distinct allocations of this function and
/// its arguments, and retains nothing: no two of those can alias.
bool freesOnlyDistinctBuffers(bufferization::DeallocOp dealloc) {
  if (!dealloc.getRetained().empty() || dealloc.getMemrefs().size() < 2)
    return false;
  llvm::DenseSet<Value> seen;
  for (Value memref : dealloc.getMemrefs()) {
    if (!seen.insert(memref).second)
      return false;
    if (auto arg = dyn_cast<BlockArgument>(memref)) {
      if (!arg.getOwner()->isEntryBlock() ||
          !isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
        return false;
      continue;
    }
    if (!memref.getDefiningOp<memref::AllocOp>())
      return false;
  }
  return true;
}

struct SplitFreshDeallocs : shardc::impl::CpuSplitFreshDeallocsBase<SplitFreshDeallocs> {
  void runOnOperation() override {
    SmallVector<bufferization::DeallocOp> deallocs;
    getOperation()->walk([&](bufferization::DeallocOp op) {
      if (freesOnlyDistinctBuffers(op))
        deallocs.push_back(op);
    });
    for (bufferization::DeallocOp dealloc : deallocs) {
      OpBuilder b(dealloc);
      for (auto [memref, condition] : llvm::zip(dealloc.getMemrefs(), dealloc.getConditions()))
        bufferization::DeallocOp::create(b, dealloc.getLoc(), ValueRange{memref},
                                         ValueRange{condition}, ValueRange{});
      dealloc.erase();
    }
  }
};

} // namespace
