//===- FreeAfterLastUse.cpp - cpu-free-after-last-use ----------------------===//
//
// Moves each buffer's deallocation up to right after the buffer's last use
// in its block (see CpuPasses.td), so that a step's intermediates are freed
// as it goes instead of all at its end.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace shardc {
#define GEN_PASS_DEF_CPUFREEAFTERLASTUSE
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Ops whose memref results are views of their memref operands.
bool isView(Operation *op) {
  return isa<ViewLikeOpInterface, memref::CastOp, memref::CollapseShapeOp,
             memref::ExpandShapeOp, memref::ReinterpretCastOp, memref::TransposeOp>(op);
}

/// Ops that are done with a buffer when they return and keep no reference
/// to it: the loads, stores and loop bodies generated code is made of, and
/// calls of the module's own kernels. Anything else (a runtime call given
/// the buffer's address, an asynchronous collective, a return, a yield into
/// a loop's iteration arguments) keeps the deallocation where it is.
bool completesUse(Operation *op, SymbolTableCollection &symbols) {
  if (isa<linalg::LinalgOp, memref::LoadOp, memref::StoreOp, memref::CopyOp, memref::DimOp,
          vector::TransferReadOp, vector::TransferWriteOp, vector::LoadOp, vector::StoreOp,
          vector::MaskedLoadOp, vector::MaskedStoreOp>(op))
    return true;
  auto call = dyn_cast<func::CallOp>(op);
  if (!call)
    return false;
  auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  return callee && !callee.isExternal();
}

/// The op of `block` after which `dealloc`'s buffer is no longer used, or
/// null when the buffer cannot be followed (it is not allocated in the
/// block, or something other than views and completed uses reads it).
Operation *lastUse(memref::DeallocOp dealloc, const DenseMap<Operation *, unsigned> &position,
                   SymbolTableCollection &symbols) {
  Block *block = dealloc->getBlock();
  auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != block)
    return nullptr;
  Operation *last = alloc;
  SmallVector<Value> worklist = {alloc.getResult()};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (Operation *user : value.getUsers()) {
      if (user == dealloc.getOperation())
        continue;
      if (isView(user))
        llvm::append_range(worklist, user->getResults());
      else if (!completesUse(user, symbols))
        return nullptr;
      Operation *at = block->findAncestorOpInBlock(*user);
      if (!at)
        return nullptr;
      if (position.lookup(at) > position.lookup(last))
        last = at;
    }
  }
  return last;
}

struct CpuFreeAfterLastUse : shardc::impl::CpuFreeAfterLastUseBase<CpuFreeAfterLastUse> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    DenseMap<Block *, DenseMap<Operation *, unsigned>> positions;
    SmallVector<std::pair<memref::DeallocOp, Operation *>> moves;
    getOperation()->walk([&](memref::DeallocOp dealloc) {
      Block *block = dealloc->getBlock();
      auto [it, added] = positions.try_emplace(block);
      if (added) {
        unsigned k = 0;
        for (Operation &op : *block)
          it->second[&op] = k++;
      }
      if (Operation *last = lastUse(dealloc, it->second, symbols))
        if (it->second.lookup(last) < it->second.lookup(dealloc))
          moves.emplace_back(dealloc, last);
    });
    // Positions are read before anything moves; moving deallocations does
    // not change where any other op is relative to the uses found.
    for (auto [dealloc, last] : moves)
      dealloc->moveAfter(last);
  }
};

} // namespace
