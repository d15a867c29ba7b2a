//===- ShapeOps.cpp - verifiers of ops that move or make shape ------------===//
//
// Messages start with the constraint label from GArrayShapeOps.td.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "dialects/garray/VerifyUtils.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::garray;

//===----------------------------------------------------------------------===//
// broadcast_in_dim
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  auto in = cast<RankedTensorType>(getOperand().getType());
  auto out = cast<RankedTensorType>(getType());
  ArrayRef<int64_t> dims = getDims();
  if (static_cast<int64_t>(dims.size()) != in.getRank())
    return emitOpError("broadcast_in_dim_c1: dims has ")
           << dims.size() << " entries but the operand has rank " << in.getRank();
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= out.getRank())
      return emitOpError("broadcast_in_dim_c2: dims[")
             << i << "] = " << d << " is out of range for a result of rank " << out.getRank();
    if (i > 0 && d <= dims[i - 1])
      return emitOpError("broadcast_in_dim_c2: dims must be strictly increasing, but dims[")
             << i << "] = " << d << " follows " << dims[i - 1];
    if (in.getDimSize(i) != 1 && in.getDimSize(i) != out.getDimSize(d))
      return emitOpError("broadcast_in_dim_c3: operand dim ")
             << i << " has size " << in.getDimSize(i) << " but result dim " << d
             << " has size " << out.getDimSize(d) << "; sizes must match or the operand's be 1";
  }
  if (in.getElementType() != out.getElementType())
    return emitOpError("broadcast_in_dim_c4: element types differ: ")
           << in.getElementType() << " vs " << out.getElementType();
  return success();
}

