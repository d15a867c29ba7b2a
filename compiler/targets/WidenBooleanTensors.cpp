//===- WidenBooleanTensors.cpp - cpu-widen-boolean-tensors -----------------===//
//
// See CpuPasses.td. A tensor of i1 between two linalg.generic ops (a mask
// that fusion could not fold into its use) is stored as i8: its producer
// yields `arith.extui` of the bit and its consumers read `arith.trunci` of
// the byte. In memory an i1 takes a byte either way; what changes is that
// LLVM's loop vectorizer handles byte loads and stores, while it leaves a
// loop that loads or stores i1 scalar (a vector of i1 in LLVM is packed
// bits, not the bytes memref lays out).
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace shardc {
#define GEN_PASS_DEF_CPUWIDENBOOLEANTENSORS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

bool isBoolTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isInteger(1);
}

/// Whether result `index` of `op` can be widened: its destination is a
/// tensor.empty the body never reads, and every use is an input of a
/// linalg.generic.
bool widenable(linalg::GenericOp op, unsigned index) {
  OpOperand *init = op.getDpsInitOperand(index);
  if (!isBoolTensor(init->get().getType()) || !init->get().getDefiningOp<tensor::EmptyOp>() ||
      op.payloadUsesValueFromOperand(init))
    return false;
  Value result = op->getResult(index);
  return !result.use_empty() && llvm::all_of(result.getUses(), [](OpOperand &use) {
    auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
    return user && user.isDpsInput(&use);
  });
}

/// Makes result `index` of `op` an i8 tensor, and its users read it so.
void widen(linalg::GenericOp op, unsigned index) {
  MLIRContext *ctx = op.getContext();
  Type i8 = IntegerType::get(ctx, 8);
  OpOperand *init = op.getDpsInitOperand(index);
  auto empty = init->get().getDefiningOp<tensor::EmptyOp>();
  OpBuilder b(op);
  init->set(tensor::EmptyOp::create(b, empty.getLoc(), empty.getMixedSizes(), i8));
  Value result = op->getResult(index);
  result.setType(cast<RankedTensorType>(result.getType()).clone(i8));
  op.getMatchingBlockArgument(init).setType(i8);
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  b.setInsertionPoint(yield);
  OpOperand &yielded = yield->getOpOperand(index);
  yielded.set(arith::ExtUIOp::create(b, yield.getLoc(), i8, yielded.get()));
  for (OpOperand &use : result.getUses()) {
    auto user = cast<linalg::GenericOp>(use.getOwner());
    BlockArgument byte = user.getMatchingBlockArgument(&use);
    byte.setType(i8);
    b.setInsertionPointToStart(user.getBody());
    auto bit = arith::TruncIOp::create(b, user.getLoc(), b.getI1Type(), byte);
    byte.replaceAllUsesExcept(bit, bit);
  }
}

struct CpuWidenBooleanTensors
    : shardc::impl::CpuWidenBooleanTensorsBase<CpuWidenBooleanTensors> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, unsigned>> found;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!op.hasPureTensorSemantics())
        return;
      for (unsigned i = 0, e = op.getNumDpsInits(); i < e; ++i)
        if (widenable(op, i))
          found.emplace_back(op, i);
    });
    for (auto [op, index] : found)
      widen(op, index);
  }
};

} // namespace
