//===- WidenNarrowReductions.cpp - 16-bit integer reductions as 32-bit -----===//
//
// comm-widen-narrow-reductions: NCCL reduces no 16-bit integers, so an
// all-reduce or reduce-scatter of i16 runs on i32 and converts back. The
// low 16 bits of a 32-bit sum, product, maximum or minimum of sign-extended
// values are the 16-bit result with its wrap-around, so every target gives
// what the threads backend gives on the narrow values. Data movement
// (gathers, permutes, all-to-all) keeps the narrow type: it moves bytes.
//
//===----------------------------------------------------------------------===//
#include "dialects/comm/Comm.h"
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace shardc {
#define GEN_PASS_DEF_COMMWIDENNARROWREDUCTIONS
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {

bool isNarrow(Type t) { return cast<RankedTensorType>(t).getElementType().isInteger(16); }

RankedTensorType widened(Type t) {
  auto r = cast<RankedTensorType>(t);
  return r.clone(IntegerType::get(t.getContext(), 32));
}

/// Replaces `op`'s operand and result by their 32-bit forms, converting
/// around it.
void widen(Operation *op) {
  OpBuilder b(op);
  Value in = op->getOperand(0);
  op->setOperand(0, ConvertOp::create(b, op->getLoc(), widened(in.getType()), in, UnitAttr()));
  Value out = op->getResult(0);
  Type narrow = out.getType();
  out.setType(widened(narrow));
  b.setInsertionPointAfter(op);
  auto back = ConvertOp::create(b, op->getLoc(), narrow, out, b.getUnitAttr());
  out.replaceAllUsesExcept(back, back);
}

struct WidenNarrowReductions
    : shardc::impl::CommWidenNarrowReductionsBase<WidenNarrowReductions> {
  void runOnOperation() override {
    SmallVector<Operation *> narrow;
    getOperation().walk([&](Operation *op) {
      if (isa<comm::AllReduceOp, comm::ReduceScatterOp>(op) &&
          isNarrow(op->getOperand(0).getType()))
        narrow.push_back(op);
    });
    if (narrow.empty())
      return markAllAnalysesPreserved();
    for (Operation *op : narrow)
      widen(op);
  }
};

} // namespace
