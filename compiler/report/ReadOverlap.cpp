//===- ReadOverlap.cpp - what each asynchronous collective overlaps -------===//
#include "compiler/report/ReadOverlap.h"

#include "compiler/report/ReadSignature.h"
#include "dialects/comm/Comm.h"
#include "dialects/garray/GArray.h"
#include "passes/collectives/Overlap.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using mlir::garray::locationText;

namespace shardc {

void readOverlap(ModuleOp module, llvm::StringRef entry, Signature &sig) {
  module.walk([&](Operation *op) {
    std::optional<garray::ReductionKind> kind;
    if (auto c = dyn_cast<comm::AllReduceOp>(op))
      kind = c.getKind();
    else if (auto c = dyn_cast<comm::ReduceScatterOp>(op))
      kind = c.getKind();
    if (!kind)
      return;
    OverlapRecord r;
    r.collective = isa<comm::AllReduceOp>(op) ? "all_reduce" : "reduce_scatter";
    r.reduction = garray::stringifyReductionKind(*kind).str();
    int64_t bytes = 0;
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    r.localType = localTypeText(llvm::to_vector(type.getShape()), type.getElementType(), bytes);
    r.bytes = bytes;
    r.location = locationText(op->getLoc());
    auto fn = op->getParentOfType<func::FuncOp>();
    if (fn && fn.getSymName() != entry)
      r.within = "@" + fn.getSymName().str();
    // From just after the operand's definition (where it starts) to the
    // first op that reads the result (where it is finished), in its block.
    Block *block = op->getBlock();
    Operation *def = definitionInBlock(op->getOperand(0), block);
    Block::iterator from = def ? std::next(def->getIterator()) : block->begin();
    Operation *firstUse = firstUseInBlock(op->getResult(0), block);
    Block::iterator to = firstUse ? firstUse->getIterator() : std::next(op->getIterator());
    for (Block::iterator it = from; it != to; ++it) {
      if (&*it == op || isa<comm::AllReduceOp, comm::ReduceScatterOp>(*it))
        continue;
      int64_t w = nestedWork(&*it);
      if (w == 0)
        continue;
      r.ops += 1;
      r.work += w;
    }
    sig.overlaps.push_back(std::move(r));
  });
}

} // namespace shardc
