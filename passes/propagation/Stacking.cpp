//===- Stacking.cpp - what the dot-stacking passes share ------------------===//
#include "passes/propagation/Stacking.h"

#include "dialects/garray/GArray.h"

using namespace mlir;
using namespace mlir::garray;

namespace shardc::stacking {

bool userPlaced(Operation *op) { return op->hasAttr(kShardingAttrName); }

Value stackAlong(OpBuilder &b, Location loc, ArrayRef<Value> parts, int64_t dim) {
  auto type = cast<RankedTensorType>(parts.front().getType());
  SmallVector<int64_t> unit(type.getShape()), all(type.getShape());
  unit.insert(unit.begin() + dim, 1);
  all.insert(all.begin() + dim, static_cast<int64_t>(parts.size()));
  auto unitType = RankedTensorType::get(unit, type.getElementType());
  SmallVector<Value> pieces;
  for (Value part : parts)
    pieces.push_back(ReshapeOp::create(b, loc, unitType, part));
  return ConcatenateOp::create(b, loc, RankedTensorType::get(all, type.getElementType()), pieces,
                               static_cast<uint64_t>(dim));
}

} // namespace shardc::stacking
