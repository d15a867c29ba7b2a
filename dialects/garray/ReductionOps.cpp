//===- ReductionOps.cpp - verifiers of contractions and reductions --------===//
//
// Messages start with the constraint label from GArrayReductionOps.td.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "dialects/garray/VerifyUtils.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::garray;

//===----------------------------------------------------------------------===//
// dot_general
//===----------------------------------------------------------------------===//

LogicalResult DotGeneralOp::verify() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto rhs = cast<RankedTensorType>(getRhs().getType());
  auto out = cast<RankedTensorType>(getType());
  if (getLhsBatch().size() != getRhsBatch().size())
    return emitOpError("dot_general_c1: lhs has ")
           << getLhsBatch().size() << " batch dims but rhs has " << getRhsBatch().size();
  if (getLhsContracting().size() != getRhsContracting().size())
    return emitOpError("dot_general_c1: lhs has ")
           << getLhsContracting().size() << " contracting dims but rhs has "
           << getRhsContracting().size();
  llvm::SmallSet<int64_t, 8> lhsSeen, rhsSeen;
  if (failed(checkDimList(*this, "dot_general_c2", "lhs batch", getLhsBatch(), lhs.getRank(),
                          lhsSeen)) ||
      failed(checkDimList(*this, "dot_general_c2", "lhs contracting", getLhsContracting(),
                          lhs.getRank(), lhsSeen)) ||
      failed(checkDimList(*this, "dot_general_c2", "rhs batch", getRhsBatch(), rhs.getRank(),
                          rhsSeen)) ||
      failed(checkDimList(*this, "dot_general_c2", "rhs contracting", getRhsContracting(),
                          rhs.getRank(), rhsSeen)))
    return failure();
  SmallVector<int64_t> expected;
  for (auto [l, r] : llvm::zip(getLhsBatch(), getRhsBatch())) {
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOpError("dot_general_c3: lhs batch dim ")
             << l << " has size " << lhs.getDimSize(l) << " but rhs batch dim " << r
             << " has size " << rhs.getDimSize(r);
    expected.push_back(lhs.getDimSize(l));
  }
  for (auto [l, r] : llvm::zip(getLhsContracting(), getRhsContracting()))
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOpError("dot_general_c3: lhs contracting dim ")
             << l << " has size " << lhs.getDimSize(l) << " but rhs contracting dim " << r
             << " has size " << rhs.getDimSize(r);
  for (int64_t d = 0; d < lhs.getRank(); ++d)
    if (!lhsSeen.count(d))
      expected.push_back(lhs.getDimSize(d));
  for (int64_t d = 0; d < rhs.getRank(); ++d)
    if (!rhsSeen.count(d))
      expected.push_back(rhs.getDimSize(d));
  if (ArrayRef<int64_t>(expected) != out.getShape())
    return emitOpError("dot_general_c4: the result must have shape [")
           << expected << "] (batch, lhs free, rhs free) but has " << out;
  if (lhs.getElementType() != rhs.getElementType() ||
      lhs.getElementType() != out.getElementType())
    return emitOpError("dot_general_c5: element types differ: ")
           << lhs.getElementType() << ", " << rhs.getElementType() << " -> "
           << out.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// reduce / mean
//===----------------------------------------------------------------------===//

static LogicalResult verifyReduction(Operation *op, StringRef name, Value operand, Type result,
                                     ArrayRef<int64_t> dims, bool keepdims) {
  auto in = cast<RankedTensorType>(operand.getType());
  auto out = cast<RankedTensorType>(result);
  if (dims.empty())
    return op->emitOpError(name) << "_c1: dims must not be empty (a reduction over no "
                                    "dimensions is the identity; drop the op)";
  llvm::SmallSet<int64_t, 8> seen;
  if (failed(checkDimList(op, (name + "_c1").str(), "reduced", dims, in.getRank(), seen)))
    return failure();
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (!seen.count(d))
      expected.push_back(in.getDimSize(d));
    else if (keepdims)
      expected.push_back(1);
  }
  if (ArrayRef<int64_t>(expected) != out.getShape())
    return op->emitOpError(name) << "_c2: the result must have shape [" << expected
                                 << "] but has " << out;
  if (in.getElementType() != out.getElementType())
    return op->emitOpError(name) << "_c3: element types differ: " << in.getElementType()
                                 << " vs " << out.getElementType();
  return success();
}

LogicalResult ReduceOp::verify() {
  return verifyReduction(*this, "reduce", getOperand(), getType(), getDims(), getKeepdims());
}

LogicalResult MeanOp::verify() {
  if (failed(verifyReduction(*this, "mean", getOperand(), getType(), getDims(), getKeepdims())))
    return failure();
  if (!isa<FloatType>(getType().getElementType()))
    return emitOpError("mean_c4: the element type must be a float, not ")
           << getType().getElementType();
  return success();
}

int64_t MeanOp::getGlobalCount() {
  auto in = cast<RankedTensorType>(getOperand().getType());
  int64_t count = 1;
  for (int64_t d : getDims())
    count *= in.getDimSize(d);
  return count;
}

