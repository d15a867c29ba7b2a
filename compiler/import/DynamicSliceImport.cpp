//===- DynamicSliceImport.cpp - dynamic_slice and dynamic_update_slice ----===//
//
// lax.dynamic_slice / dynamic_update_slice (and what lax.scan's body reads
// and writes per step: `xs[i]`, `ys.at[i].set(y)`) in garray ops. Start
// indices are clamped so the slice fits, as StableHLO defines:
//
//   - a start that is a constant (as every index is once a loop with a
//     known trip count is unrolled, UnrollWhile.cpp): a static slice, or,
//     for an update, the update padded into place and selected by a
//     constant mask;
//   - a start known only when running (a function argument): along that
//     dim, each of the `size` positions is a one-hot sum,
//     sum_k select(iota == start + j, x, 0), exact (it adds zeros), and an
//     update of size 1 is broadcast along the dim and selected where
//     iota == start; an update of z positions places each of its rows
//     likewise, at start + j. Those cost z passes over the dim, so past
//     kMaxDynamicSize positions (a minibatch cut from a dataset held on the
//     devices) the dim is moved first and its rows are gathered instead:
//     rows start + j for a slice, rows clamp(i - start, 0, z - 1) of the
//     update for position i of an update (garray.gather, which needs the
//     dim whole on each device).
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::garray;

namespace shardc::import {
namespace {

constexpr int64_t kMaxDynamicSize = 64;

/// A scalar integer constant's value, or nullopt.
std::optional<int64_t> constantIndex(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  auto value = c ? dyn_cast<DenseIntElementsAttr>(c.getValue()) : nullptr;
  if (!value || value.getNumElements() != 1)
    return std::nullopt;
  return (*value.getValues<APInt>().begin()).getSExtValue();
}

Value zeroLike(OpEmitter &e, Type tensorType) {
  auto t = cast<RankedTensorType>(tensorType);
  return filledConstant(e, t, e.b.getZeroAttr(t.getElementType()));
}

Value scalarInt(OpEmitter &e, Type element, int64_t v) {
  auto t = RankedTensorType::get({}, element);
  return ConstantOp::create(e.b, e.loc,
                            DenseElementsAttr::get(t, e.b.getIntegerAttr(element, v)));
}

/// `start` clamped to [0, hi] (a rank-0 integer value).
Value clampIndex(OpEmitter &e, Value start, int64_t hi) {
  Type element = tensorType(start).getElementType();
  return ClampOp::create(e.b, e.loc, start.getType(), scalarInt(e, element, 0), start,
                         scalarInt(e, element, hi));
}

/// An i1 tensor of `shape`: iota along `dim` compared with `bound`.
Value iotaCompare(OpEmitter &e, ArrayRef<int64_t> shape, int64_t dim, ComparisonDirection d,
                  Value bound) {
  Type element = tensorType(bound).getElementType();
  auto type = RankedTensorType::get(shape, element);
  Value iota = IotaOp::create(e.b, e.loc, type, e.b.getI64IntegerAttr(dim));
  return e.compare(d, iota, e.broadcastScalar(bound, type));
}

Value andOf(OpEmitter &e, Value a, Value b) {
  return a ? AndOp::create(e.b, e.loc, a.getType(), a, b).getResult() : b;
}

/// `x` with dim `d` moved to the front (`toFront`) or from the front back
/// to `d` (the inverse permutation).
Value moveDim(OpEmitter &e, Value x, int64_t d, bool toFront) {
  if (d == 0)
    return x;
  RankedTensorType t = tensorType(x);
  SmallVector<int64_t> perm;
  if (toFront) {
    perm.push_back(d);
    for (int64_t i = 0; i < t.getRank(); ++i)
      if (i != d)
        perm.push_back(i);
  } else {
    for (int64_t i = 1; i <= d; ++i)
      perm.push_back(i);
    perm.push_back(0);
    for (int64_t i = d + 1; i < t.getRank(); ++i)
      perm.push_back(i);
  }
  SmallVector<int64_t> shape;
  for (int64_t i : perm)
    shape.push_back(t.getDimSize(i));
  return TransposeOp::create(e.b, e.loc, RankedTensorType::get(shape, t.getElementType()), x,
                             e.b.getDenseI64ArrayAttr(perm));
}

/// The positions `indices` (rank 1, clamped to range) of `x` along dim `d`.
Value gatherAlong(OpEmitter &e, Value x, int64_t d, Value indices) {
  Value front = moveDim(e, x, d, /*toFront=*/true);
  RankedTensorType ft = tensorType(front);
  SmallVector<int64_t> shape(ft.getShape());
  shape[0] = tensorType(indices).getDimSize(0);
  Value rows = GatherOp::create(e.b, e.loc, RankedTensorType::get(shape, ft.getElementType()),
                                front, indices);
  return moveDim(e, rows, d, /*toFront=*/false);
}

/// A rank-1 integer tensor of `n` values `offset + i`, of `offset`'s type.
Value iotaFrom(OpEmitter &e, Value offset, int64_t n) {
  auto type = RankedTensorType::get({n}, tensorType(offset).getElementType());
  Value iota = IotaOp::create(e.b, e.loc, type, e.b.getI64IntegerAttr(0));
  return e.add(iota, e.broadcastScalar(offset, type));
}

} // namespace

FailureOr<Value> dynamicSlice(Operation *op, OpEmitter &e, Value x, ArrayRef<Value> starts,
                              ArrayRef<int64_t> sizes) {
  RankedTensorType t = tensorType(x);
  int64_t rank = t.getRank();
  // Constant starts (clamped) and the full extent of the dynamic dims.
  SmallVector<int64_t> start(rank, 0), limit(t.getShape()), stride(rank, 1), dynamic;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = t.getDimSize(d), z = sizes[d];
    if (z < 0 || z > dim)
      return op->emitError() << "slice size " << z << " of dim " << d << " exceeds its " << dim;
    std::optional<int64_t> c = starts[d] ? constantIndex(starts[d]) : 0;
    if (c) {
      start[d] = std::clamp<int64_t>(*c, 0, dim - z);
      limit[d] = start[d] + z;
    } else if (z != dim) {
      dynamic.push_back(d);
    }
  }
  Value cur = x;
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(limit[d] - start[d]);
  if (ArrayRef<int64_t>(shape) != t.getShape())
    cur = SliceOp::create(e.b, e.loc, RankedTensorType::get(shape, t.getElementType()), x,
                          e.b.getDenseI64ArrayAttr(start), e.b.getDenseI64ArrayAttr(limit),
                          e.b.getDenseI64ArrayAttr(stride));
  for (int64_t d : dynamic) {
    int64_t z = sizes[d];
    Value s = clampIndex(e, starts[d], t.getDimSize(d) - z);
    // Booleans cannot be summed: they are gathered whatever their count.
    if (z > kMaxDynamicSize || t.getElementType().isInteger(1)) {
      cur = gatherAlong(e, cur, d, iotaFrom(e, s, z));
      continue;
    }
    SmallVector<Value> pieces;
    for (int64_t j = 0; j < z; ++j) {
      Value at = j ? e.add(s, scalarInt(e, tensorType(s).getElementType(), j)) : s;
      Value mask = iotaCompare(e, tensorType(cur).getShape(), d, ComparisonDirection::eq, at);
      Value picked = e.select(mask, cur, zeroLike(e, cur.getType()));
      pieces.push_back(e.sum(picked, {d}, /*keepdims=*/true));
    }
    if (pieces.size() == 1) {
      cur = pieces.front();
    } else {
      SmallVector<int64_t> joined(tensorType(cur).getShape());
      joined[d] = z;
      cur = ConcatenateOp::create(e.b, e.loc,
                                  RankedTensorType::get(joined, t.getElementType()), pieces,
                                  e.b.getI64IntegerAttr(d));
    }
  }
  return cur;
}

FailureOr<Values> importDynamicSlice(Operation *op, OpEmitter &e) {
  Value x = op->getOperand(0);
  int64_t rank = tensorType(x).getRank();
  std::optional<SmallVector<int64_t>> sizes = readI64Array(op, "slice_sizes");
  if (!sizes)
    return failure();
  if (static_cast<int64_t>(sizes->size()) != rank ||
      static_cast<int64_t>(op->getNumOperands()) != rank + 1)
    return op->emitError() << "'stablehlo.dynamic_slice' needs one start index and one slice "
                              "size per operand dimension";
  SmallVector<Value> starts(op->getOperands().drop_front());
  FailureOr<Value> slice = dynamicSlice(op, e, x, starts, *sizes);
  if (failed(slice))
    return failure();
  return Values{*slice};
}

FailureOr<Values> importDynamicUpdateSlice(Operation *op, OpEmitter &e) {
  Value x = op->getOperand(0), u = op->getOperand(1);
  RankedTensorType t = tensorType(x), ut = tensorType(u);
  int64_t rank = t.getRank();
  if (ut.getRank() != rank || static_cast<int64_t>(op->getNumOperands()) != rank + 2)
    return op->emitError() << "'stablehlo.dynamic_update_slice' needs an update of the "
                              "operand's rank and one start index per dimension";
  SmallVector<Value> starts(op->getOperands().drop_front(2));
  FailureOr<Value> updated = dynamicUpdateSlice(op, e, x, u, starts);
  if (failed(updated))
    return failure();
  return Values{*updated};
}

FailureOr<Value> dynamicUpdateSlice(Operation *op, OpEmitter &e, Value x, Value u,
                                    ArrayRef<Value> starts) {
  RankedTensorType t = tensorType(x), ut = tensorType(u);
  int64_t rank = t.getRank();
  Value full = u, mask;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = t.getDimSize(d), z = ut.getDimSize(d);
    if (z == dim)
      continue;
    RankedTensorType ft = tensorType(full);
    Value first = starts[d] ? starts[d] : scalarInt(e, e.b.getI32Type(), 0);
    std::optional<int64_t> c = constantIndex(first);
    if (c) {
      // Padded into place; the mask keeps [s, s + z).
      int64_t s = std::clamp<int64_t>(*c, 0, dim - z);
      SmallVector<int64_t> lo(rank, 0), hi(rank, 0), shape(ft.getShape());
      lo[d] = s;
      hi[d] = dim - s - z;
      shape[d] = dim;
      Value zero = zeroLike(e, RankedTensorType::get({}, t.getElementType()));
      full = PadOp::create(e.b, e.loc, RankedTensorType::get(shape, t.getElementType()), full,
                           zero, e.b.getDenseI64ArrayAttr(lo), e.b.getDenseI64ArrayAttr(hi));
      Type i32 = e.b.getI32Type();
      Value from = iotaCompare(e, t.getShape(), d, ComparisonDirection::ge, scalarInt(e, i32, s));
      Value to =
          iotaCompare(e, t.getShape(), d, ComparisonDirection::lt, scalarInt(e, i32, s + z));
      mask = andOf(e, andOf(e, mask, from), to);
    } else if (z == 1) {
      // Broadcast along the dim; the mask keeps the start.
      SmallVector<int64_t> shape(ft.getShape()), dims;
      shape[d] = dim;
      for (int64_t i = 0; i < rank; ++i)
        dims.push_back(i);
      full = BroadcastInDimOp::create(e.b, e.loc,
                                      RankedTensorType::get(shape, t.getElementType()), full,
                                      e.b.getDenseI64ArrayAttr(dims));
      Value s = clampIndex(e, first, dim - 1);
      mask = andOf(e, mask, iotaCompare(e, t.getShape(), d, ComparisonDirection::eq, s));
    } else if (z <= kMaxDynamicSize) {
      // Position s + j takes the update's row j, broadcast along the dim
      // and selected where iota == s + j; the mask keeps [s, s + z).
      SmallVector<int64_t> shape(ft.getShape()), dims;
      shape[d] = dim;
      for (int64_t i = 0; i < rank; ++i)
        dims.push_back(i);
      auto wide = RankedTensorType::get(shape, t.getElementType());
      Value s = clampIndex(e, first, dim - z);
      Type element = tensorType(s).getElementType();
      Value placed = zeroLike(e, wide);
      for (int64_t j = 0; j < z; ++j) {
        SmallVector<int64_t> start(rank, 0), limit(ft.getShape()), stride(rank, 1), row(ft.getShape());
        start[d] = j;
        limit[d] = j + 1;
        row[d] = 1;
        Value piece = SliceOp::create(e.b, e.loc, RankedTensorType::get(row, t.getElementType()),
                                      full, e.b.getDenseI64ArrayAttr(start),
                                      e.b.getDenseI64ArrayAttr(limit),
                                      e.b.getDenseI64ArrayAttr(stride));
        Value spread = BroadcastInDimOp::create(e.b, e.loc, wide, piece,
                                                e.b.getDenseI64ArrayAttr(dims));
        Value at = j ? e.add(s, scalarInt(e, element, j)) : s;
        placed = e.select(iotaCompare(e, shape, d, ComparisonDirection::eq, at), spread, placed);
      }
      full = placed;
      Value end = e.add(s, scalarInt(e, element, z));
      mask = andOf(e, andOf(e, mask, iotaCompare(e, t.getShape(), d, ComparisonDirection::ge, s)),
                   iotaCompare(e, t.getShape(), d, ComparisonDirection::lt, end));
    } else {
      // Position i takes the update's row clamp(i - s, 0, z - 1); the
      // mask keeps [s, s + z).
      Value s = clampIndex(e, first, dim - z);
      Type element = tensorType(s).getElementType();
      Value rows = iotaFrom(e, e.neg(s), dim);
      rows = ClampOp::create(e.b, e.loc, rows.getType(),
                             e.broadcastScalar(scalarInt(e, element, 0), rows.getType()), rows,
                             e.broadcastScalar(scalarInt(e, element, z - 1), rows.getType()));
      full = gatherAlong(e, full, d, rows);
      Value end = e.add(s, scalarInt(e, element, z));
      mask = andOf(e, andOf(e, mask, iotaCompare(e, t.getShape(), d, ComparisonDirection::ge, s)),
                   iotaCompare(e, t.getShape(), d, ComparisonDirection::lt, end));
    }
  }
  if (!mask)
    return full;
  return e.select(mask, full, x);
}

} // namespace shardc::import
