//===- RecognizeShifts.cpp - garray-recognize-shifts ----------------------===//
//
// Stencils are written with slices and pads (or concatenations with a
// constant): x[i-1] as pad(slice(x, 0 .. n-1), low 1), x[i+1] as
// pad(slice(x, 1 .. n), high 1). Taken op by op, the slice of a sharded dim
// needs the whole dim (an all-gather). Read together they are one shift of x
// along that dim, which keeps the dim sharded and moves only the boundary
// elements between neighbouring shards (garray.shift, a halo exchange).
//
// The rewrite is exact, not a heuristic: it fires only when the outer op puts
// the fill precisely where x[i - offset] falls outside x, so
//   result[i] = 0 <= i - offset < n ? x[i - offset] : fill
// holds for every i. Everything else is left as written.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/SetVector.h"

#include <optional>

namespace shardc {
#define GEN_PASS_DEF_GARRAYRECOGNIZESHIFTS
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {

/// A unit-stride slice that cuts exactly one dim: the part [start, limit) of
/// dim `dim`, all other dims whole.
struct OneDimCut {
  Value source;
  int64_t dim, start, limit, size;
};

std::optional<OneDimCut> oneDimCut(Value v) {
  auto slice = v.getDefiningOp<SliceOp>();
  if (!slice)
    return std::nullopt;
  std::optional<OneDimCut> cut;
  auto in = cast<RankedTensorType>(slice.getOperand().getType());
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (slice.getStrides()[d] != 1)
      return std::nullopt;
    if (slice.keepsWholeDim(d))
      continue;
    if (cut)
      return std::nullopt; // two cut dims: not a shift
    cut = OneDimCut{slice.getOperand(), d, slice.getStart()[d], slice.getLimit()[d],
                    in.getDimSize(d)};
  }
  return cut;
}

/// The shift offset when `low` fill elements before and `high` after the
/// part [start, limit) of a dim of size n rebuild exactly x[i - offset]:
/// a right shift keeps [0, n-k) and fills k before, a left shift keeps
/// [k, n) and fills k after.
std::optional<int64_t> shiftOffset(const OneDimCut &c, int64_t low, int64_t high) {
  if (low + (c.limit - c.start) + high != c.size)
    return std::nullopt;
  if (high == 0 && c.start == 0 && low > 0)
    return low;
  if (low == 0 && c.limit == c.size && high > 0)
    return -high;
  return std::nullopt;
}

/// The scalar of a splat garray.constant, as a rank-0 constant built at `b`.
Value splatScalar(OpBuilder &b, Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return {};
  auto value = dyn_cast<DenseElementsAttr>(c.getValue());
  if (!value || !value.isSplat())
    return {};
  auto scalar = RankedTensorType::get({}, value.getElementType());
  return ConstantOp::create(b, c.getLoc(), DenseElementsAttr::get(scalar, value.getSplatValue<Attribute>()));
}

/// Replaces `op` by the shift; operands of `op` left without users (the
/// slice, a splat fill) are erased.
void replaceWithShift(Operation *op, const OneDimCut &cut, int64_t offset, Value fill) {
  OpBuilder b(op);
  auto shift = ShiftOp::create(b, op->getLoc(), op->getResult(0).getType(), cut.source, fill,
                               b.getI64IntegerAttr(cut.dim), b.getI64IntegerAttr(offset));
  if (Attribute s = op->getAttr(kShardingAttrName))
    shift->setAttr(kShardingAttrName, s);
  llvm::SmallSetVector<Operation *, 2> inputs;
  for (Value v : op->getOperands())
    if (Operation *def = v.getDefiningOp())
      inputs.insert(def);
  op->getResult(0).replaceAllUsesWith(shift.getResult());
  op->erase();
  for (Operation *def : inputs)
    if (def->use_empty() && isa<SliceOp, ConstantOp>(def))
      def->erase();
}

// pad(slice(x), fill) with padding only along the cut dim.
bool recognizePad(PadOp pad) {
  std::optional<OneDimCut> cut = oneDimCut(pad.getOperand());
  if (!cut)
    return false;
  for (int64_t d = 0, e = pad.getLow().size(); d < e; ++d)
    if (d != cut->dim && (pad.getLow()[d] != 0 || pad.getHigh()[d] != 0))
      return false;
  std::optional<int64_t> offset =
      shiftOffset(*cut, pad.getLow()[cut->dim], pad.getHigh()[cut->dim]);
  if (!offset)
    return false;
  replaceWithShift(pad, *cut, *offset, pad.getPaddingValue());
  return true;
}

// concatenate(splat, slice(x)) or concatenate(slice(x), splat) along the cut dim.
bool recognizeConcatenate(ConcatenateOp concat) {
  if (concat.getInputs().size() != 2)
    return false;
  Value first = concat.getInputs()[0], second = concat.getInputs()[1];
  std::optional<OneDimCut> cut = oneDimCut(second);
  bool fillFirst = cut.has_value();
  if (!cut)
    cut = oneDimCut(first);
  if (!cut || cut->dim != static_cast<int64_t>(concat.getDim()))
    return false;
  Value fillOperand = fillFirst ? first : second;
  int64_t fillSize = cast<RankedTensorType>(fillOperand.getType()).getDimSize(cut->dim);
  std::optional<int64_t> offset =
      shiftOffset(*cut, fillFirst ? fillSize : 0, fillFirst ? 0 : fillSize);
  if (!offset)
    return false;
  OpBuilder b(concat);
  Value fill = splatScalar(b, fillOperand);
  if (!fill)
    return false;
  replaceWithShift(concat, *cut, *offset, fill);
  return true;
}

struct RecognizeShifts : shardc::impl::GArrayRecognizeShiftsBase<RecognizeShifts> {
  void runOnOperation() override {
    SmallVector<Operation *> candidates;
    getOperation().walk([&](Operation *op) {
      if (isa<PadOp, ConcatenateOp>(op))
        candidates.push_back(op);
    });
    bool changed = false;
    for (Operation *op : candidates) {
      if (auto pad = dyn_cast<PadOp>(op))
        changed |= recognizePad(pad);
      else
        changed |= recognizeConcatenate(cast<ConcatenateOp>(op));
    }
    // Both return false only before touching the IR: a function without a
    // shift is left as verified after the previous pass.
    if (!changed)
      markAllAnalysesPreserved();
  }
};

} // namespace
