//===- LocalizeShift.cpp - a sharded shift as a halo exchange -------------===//
#include "passes/local/LocalizeShift.h"

#include "dialects/comm/Comm.h"
#include "sharding/Halo.h"
#include "passes/local/UnevenShards.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::garray;

namespace shardc {
namespace {

struct HaloBuilder {
  OpBuilder &b;
  Location loc;
  RankedTensorType local; // the local type of operand and result
  int64_t dim;
  const Mesh &mesh;
  const std::vector<int> &axes;

  /// Local elements [start, start + size) of `dim`.
  Value slice(Value x, int64_t start, int64_t size) {
    SmallVector<int64_t> starts(local.getRank(), 0), limits(local.getShape()),
        strides(local.getRank(), 1), shape(local.getShape());
    starts[dim] = start;
    limits[dim] = start + size;
    shape[dim] = size;
    auto type = RankedTensorType::get(shape, local.getElementType());
    return SliceOp::create(b, loc, type, x, b.getDenseI64ArrayAttr(starts),
                           b.getDenseI64ArrayAttr(limits), b.getDenseI64ArrayAttr(strides));
  }

  /// Every device sends `x` to the member `distance` places further along
  /// its group (no send past either end). distance 0 is the device itself.
  Value move(Value x, int64_t distance, const std::string &reason) {
    if (distance == 0)
      return x;
    SmallVector<int64_t> pairs;
    for (const std::vector<int64_t> &group : mesh.groups(axes))
      for (int64_t p = 0, n = group.size(); p < n; ++p)
        if (p + distance >= 0 && p + distance < n) {
          pairs.push_back(group[p]);
          pairs.push_back(group[p + distance]);
        }
    // No device has a neighbour that far: every element of this piece has
    // its source outside the array, and the final select fills it.
    if (pairs.empty())
      return x;
    Operation *permute = comm::CollectivePermuteOp::create(b, loc, x.getType(), x,
                                                           b.getDenseI64ArrayAttr(pairs));
    permute->setAttr("reason", b.getStringAttr(reason));
    return permute->getResult(0);
  }

  Value concat(Value first, Value second) {
    if (!first)
      return second;
    if (!second)
      return first;
    return ConcatenateOp::create(b, loc, local, ValueRange{first, second},
                                 b.getI64IntegerAttr(dim));
  }
};

} // namespace

LogicalResult localizeShift(ShiftOp shift, const std::vector<int> &axes, const Mesh &mesh,
                            int64_t globalSize) {
  auto local = cast<RankedTensorType>(shift.getType());
  int64_t dim = shift.getDim(), offset = shift.getOffset();
  int64_t s = local.getDimSize(dim);
  if (s == 0)
    return shift.emitOpError("shift of an empty local shard");
  OpBuilder b(shift);
  Location loc = shift.getLoc();
  HaloBuilder h{b, loc, local, dim, mesh, axes};
  Value x = shift.getOperand();

  // The pieces each shard reads (sharding/Halo.h), in result order.
  Value y;
  for (const HaloPiece &p : haloPieces(s, offset)) {
    Value piece =
        h.move(h.slice(x, p.start, p.size), p.distance, haloReason(dim, offset, p));
    y = h.concat(y, piece);
  }

  // The source of local element t on shard j is j*s + t - offset; keep y
  // where it is inside [0, n), i.e. t in [offset - j*s, n + offset - j*s).
  SmallVector<int64_t> lo, hi;
  for (int64_t d = 0, n = mesh.deviceCount(); d < n; ++d) {
    int64_t start = mesh.indexInGroup(d, axes) * s;
    lo.push_back(offset - start);
    hi.push_back(globalSize + offset - start);
  }
  Value result = y;
  if (Value inside = localIndexInRange(b, loc, local.getShape(), dim, lo, hi)) {
    Value fill =
        BroadcastInDimOp::create(b, loc, local, shift.getFill(), b.getDenseI64ArrayAttr({}));
    result = SelectOp::create(b, loc, local, inside, y, fill);
  }
  shift.getResult().replaceAllUsesWith(result);
  shift.erase();
  return success();
}

} // namespace shardc
