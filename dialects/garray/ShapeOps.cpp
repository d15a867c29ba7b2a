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


//===----------------------------------------------------------------------===//
// iota
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  auto out = cast<RankedTensorType>(getType());
  int64_t dim = getDim();
  if (out.getRank() < 1 || dim < 0 || dim >= out.getRank())
    return emitOpError("iota_c1: dim ") << dim << " is out of range for a result of rank "
                                       << out.getRank();
  Type elem = out.getElementType();
  if (elem.isInteger(1))
    return emitOpError("iota_c2: the element type must be a float or an integer wider than i1");
  // The largest index, size - 1, must survive the conversion exactly (an f16
  // iota of 4096 would repeat indices; an i8 iota of 300 would wrap).
  int64_t last = out.getDimSize(dim) - 1;
  bool exact;
  if (auto f = dyn_cast<FloatType>(elem)) {
    llvm::APFloat v(static_cast<double>(last));
    bool lost = false;
    v.convert(f.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
    // All integers up to 2^precision are exact (and then so is every index
    // below `last`) unless `last` overflows the type.
    unsigned precision = llvm::APFloat::semanticsPrecision(f.getFloatSemantics());
    exact = !lost && !v.isInfinity() && (precision >= 62 || last <= (int64_t(1) << precision));
  } else {
    unsigned w = elem.getIntOrFloatBitWidth();
    exact = w > 64 || last <= static_cast<int64_t>((uint64_t(1) << (w - 1)) - 1);
  }
  if (!exact)
    return emitOpError("iota_c3: the indices 0..")
           << last << " along dim " << dim << " are not all exactly representable in " << elem;
  return success();
}
