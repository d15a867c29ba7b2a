//===- TrainingOps.cpp - verifiers of value_and_grad and optimizer ops ----===//
//
// Messages start with the constraint label from GArrayTrainingOps.td.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"

#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::garray;

static bool isFloatTensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && isa<FloatType>(rt.getElementType());
}

//===----------------------------------------------------------------------===//
// value_and_grad
//===----------------------------------------------------------------------===//

LogicalResult ValueAndGradOp::verify() {
  ArrayRef<int64_t> wrt = getWrt();
  if (wrt.empty())
    return emitOpError("value_and_grad_c2: `wrt` names no argument");
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t i : wrt) {
    if (i < 0 || i >= static_cast<int64_t>(getArgs().size()))
      return emitOpError("value_and_grad_c2: wrt index ")
             << i << " is out of range for " << getArgs().size() << " arguments";
    if (!seen.insert(i).second)
      return emitOpError("value_and_grad_c2: wrt index ") << i << " is listed twice";
    if (!isFloatTensor(getArgs()[i].getType()))
      return emitOpError("value_and_grad_c2: argument #")
             << i << " has type " << getArgs()[i].getType()
             << ", not a float tensor: only floats have gradients";
  }
  if (getNumResults() != wrt.size() + 1)
    return emitOpError("value_and_grad_c3: expected ")
           << wrt.size() + 1 << " results (the loss, then one gradient per wrt index), got "
           << getNumResults();
  auto loss = cast<RankedTensorType>(getResult(0).getType());
  if (loss.getRank() != 0 || !isa<FloatType>(loss.getElementType()))
    return emitOpError("value_and_grad_c3: result #0 (the loss) must be a rank-0 float, not ")
           << loss;
  for (auto [k, i] : llvm::enumerate(wrt))
    if (getResult(k + 1).getType() != getArgs()[i].getType())
      return emitOpError("value_and_grad_c3: result #")
             << k + 1 << " has type " << getResult(k + 1).getType() << " but the gradient of "
             << "argument #" << i << " has its type " << getArgs()[i].getType();
  return success();
}

LogicalResult ValueAndGradOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto fn = symbols.lookupNearestSymbolFrom<func::FuncOp>(*this, getCalleeAttr());
  if (!fn || fn.isExternal())
    return emitOpError("value_and_grad_c1: no function @")
           << getCallee() << " with a body to differentiate";
  FunctionType type = fn.getFunctionType();
  if (!llvm::equal(type.getInputs(), getArgs().getTypes()))
    return emitOpError("value_and_grad_c1: @")
           << getCallee() << " has type " << type << ", which does not take the "
           << getArgs().size() << " arguments' types";
  if (type.getNumResults() != 1 || type.getResult(0) != getResult(0).getType())
    return emitOpError("value_and_grad_c1: @")
           << getCallee() << " has type " << type << " but must return exactly one "
           << getResult(0).getType() << " (the loss)";
  return success();
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

LogicalResult SgdUpdateOp::verify() {
  if (!isFloatTensor(getParam().getType()))
    return emitOpError("sgd_update_c1: the parameter must be a float tensor, not ")
           << getParam().getType();
  return success();
}

LogicalResult MomentumUpdateOp::verify() {
  if (!isFloatTensor(getParam().getType()))
    return emitOpError("momentum_update_c1: the parameter must be a float tensor, not ")
           << getParam().getType();
  return success();
}

LogicalResult AdamUpdateOp::verify() {
  if (!isFloatTensor(getParam().getType()))
    return emitOpError("adam_update_c1: the parameter must be a float tensor, not ")
           << getParam().getType();
  auto t = cast<RankedTensorType>(getT().getType());
  Type elem = cast<RankedTensorType>(getParam().getType()).getElementType();
  if (t.getRank() != 0 || t.getElementType() != elem)
    return emitOpError("adam_update_c2: the step count `t` must be a ")
           << RankedTensorType::get({}, elem) << ", not " << t;
  return success();
}

LogicalResult ClipByGlobalNormOp::verify() {
  if (getGrads().empty())
    return emitOpError("clip_by_global_norm_c1: no gradients to clip");
  if (getGrads().size() != getClipped().size())
    return emitOpError("clip_by_global_norm_c1: ")
           << getGrads().size() << " gradients but " << getClipped().size() << " results";
  Type elem = cast<RankedTensorType>(getGrads()[0].getType()).getElementType();
  for (auto [i, g] : llvm::enumerate(getGrads())) {
    auto t = cast<RankedTensorType>(g.getType());
    if (!isa<FloatType>(t.getElementType()) || t.getElementType() != elem)
      return emitOpError("clip_by_global_norm_c1: gradient #")
             << i << " has type " << t << "; all must share one float element type";
    if (getClipped()[i].getType() != t)
      return emitOpError("clip_by_global_norm_c1: result #")
             << i << " has type " << getClipped()[i].getType() << ", not its gradient's " << t;
  }
  if (!(getMaxNorm().convertToDouble() > 0))
    return emitOpError("clip_by_global_norm_c2: max_norm must be positive, not ")
           << getMaxNorm().convertToDouble();
  return success();
}
