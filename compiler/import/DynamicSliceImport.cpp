//===- DynamicSliceImport.cpp - dynamic_slice and dynamic_update_slice ----===//
//
// lax.dynamic_slice / dynamic_update_slice (and what lax.scan's body reads
// and writes per step: `xs[i]`, `ys.at[i].set(y)`) in garray ops. Start
// indices are clamped so the slice fits, as StableHLO defines:
//
//   - a start that is a constant (as every index is once a loop with a
//     known trip count is unrolled, UnrollWhile.cpp, and a reversed
//     scan's `n - 1 - i` is then computed here): a static slice, or, for
//     an update, the update padded into place and selected by a constant
//     mask. A scan's stacked outputs (and the gradients of its stacked
//     inputs) are chains of updates along dim 0 starting from zeros;
//     there each update is a concatenation of the pieces around it, whose
//     pieces are the earlier updates themselves, and a slice of such a
//     concatenation is the piece it covers. The chain ends as one
//     concatenation of the rows, and reading a row back reads the update
//     that wrote it: linear in the scan's length where the masked form
//     passed over the whole stacked array at every step;
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

/// How deep constantIndex follows an index's arithmetic: JAX computes a
/// reversed scan's index in two or three ops (`n - i - 1`, and a negative
/// index wrapped by `select(i < 0, i + n, i)`).
constexpr int kMaxIndexDepth = 16;

/// The value of a rank-0 integer `v` computed from constants alone, in its
/// own width (wrapping as the program would), or nullopt. After a loop is
/// unrolled its counter is a constant, but a reversed scan (every backward
/// pass of lax.scan) indexes with `n - 1 - i`: taken for an index known
/// only when running, each step's slice and update would be a masked pass
/// over the whole stacked array, quadratic in the scan's length.
std::optional<APInt> constantScalar(Value v, int depth = 0) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() != 0 || !type.getElementType().isInteger() || depth > kMaxIndexDepth)
    return std::nullopt;
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto c = dyn_cast<ConstantOp>(def)) {
    auto value = dyn_cast<DenseIntElementsAttr>(c.getValue());
    if (!value || value.getNumElements() != 1)
      return std::nullopt;
    return *value.getValues<APInt>().begin();
  }
  auto operand = [&](unsigned i) { return constantScalar(def->getOperand(i), depth + 1); };
  auto binary = [&](auto fn) -> std::optional<APInt> {
    std::optional<APInt> a = operand(0), b = operand(1);
    if (!a || !b)
      return std::nullopt;
    return fn(*a, *b);
  };
  if (isa<AddOp>(def))
    return binary([](const APInt &a, const APInt &b) { return a + b; });
  if (isa<SubOp>(def))
    return binary([](const APInt &a, const APInt &b) { return a - b; });
  if (isa<MulOp>(def))
    return binary([](const APInt &a, const APInt &b) { return a * b; });
  if (isa<MaxOp>(def))
    return binary([](const APInt &a, const APInt &b) { return a.sge(b) ? a : b; });
  if (isa<MinOp>(def))
    return binary([](const APInt &a, const APInt &b) { return a.sle(b) ? a : b; });
  if (isa<NegOp>(def)) {
    std::optional<APInt> a = operand(0);
    return a ? std::optional<APInt>(-*a) : std::nullopt;
  }
  if (isa<ClampOp>(def)) {
    // min(max(x, lo), hi): hi where lo > hi, as the op defines.
    std::optional<APInt> lo = operand(0), x = operand(1), hi = operand(2);
    if (!lo || !x || !hi)
      return std::nullopt;
    APInt atLeast = x->sge(*lo) ? *x : *lo;
    return atLeast.sle(*hi) ? atLeast : *hi;
  }
  if (auto compare = dyn_cast<CompareOp>(def)) {
    std::optional<APInt> a = operand(0), b = operand(1);
    if (!a || !b)
      return std::nullopt;
    bool r = false;
    switch (compare.getDirection()) {
    case ComparisonDirection::eq: r = a->eq(*b); break;
    case ComparisonDirection::ne: r = a->ne(*b); break;
    case ComparisonDirection::lt: r = a->slt(*b); break;
    case ComparisonDirection::le: r = a->sle(*b); break;
    case ComparisonDirection::gt: r = a->sgt(*b); break;
    case ComparisonDirection::ge: r = a->sge(*b); break;
    }
    return APInt(1, r ? 1 : 0);
  }
  if (isa<SelectOp>(def)) {
    std::optional<APInt> pred = operand(0);
    return pred ? operand(pred->isOne() ? 1 : 2) : std::nullopt;
  }
  if (isa<ConvertOp>(def)) {
    // Between integer widths: sign-extended or truncated (i1 reads as 0/1).
    std::optional<APInt> a = operand(0);
    if (!a)
      return std::nullopt;
    unsigned width = type.getElementType().getIntOrFloatBitWidth();
    return a->getBitWidth() == 1 ? a->zextOrTrunc(width) : a->sextOrTrunc(width);
  }
  return std::nullopt;
}

/// A rank-0 integer index computed from constants alone, or nullopt.
std::optional<int64_t> constantIndex(Value v) {
  std::optional<APInt> c = constantScalar(v);
  return c ? std::optional<int64_t>(c->getSExtValue()) : std::nullopt;
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

/// At most this many pieces in one concatenation built from a chain of
/// updates; past it an update concatenates plain slices of its operand.
constexpr size_t kMaxPieces = 1024;

/// The values that, concatenated along `d`, make [lo, hi) of `x` along `d`:
/// where `x` is a concatenation along `d`, the operands it covers (cut at
/// the ends), else a slice of `x`. Appended to `out`.
void piecesAlong(OpEmitter &e, Value x, int64_t d, int64_t lo, int64_t hi,
                 SmallVectorImpl<Value> &out) {
  if (lo >= hi)
    return;
  auto cat = x.getDefiningOp<ConcatenateOp>();
  if (!cat || cat.getDim() != d) {
    out.push_back(lo == 0 && hi == tensorType(x).getDimSize(d) ? x : e.slice(x, d, lo, hi));
    return;
  }
  int64_t at = 0;
  for (Value piece : cat.getInputs()) {
    int64_t n = tensorType(piece).getDimSize(d);
    int64_t a = std::max(lo, at), b = std::min(hi, at + n);
    if (a < b)
      out.push_back(a == at && b == at + n ? piece : e.slice(piece, d, a - at, b - at));
    at += n;
  }
}

/// `pieces` joined along `d` into `type` (the one piece itself when alone).
Value joinAlong(OpEmitter &e, RankedTensorType type, int64_t d, ArrayRef<Value> pieces) {
  if (pieces.size() == 1)
    return pieces.front();
  return ConcatenateOp::create(e.b, e.loc, type, pieces, e.b.getI64IntegerAttr(d));
}

/// The one dim along which `part` is smaller than `whole`, or nullopt when
/// there is none or more than one.
std::optional<int64_t> onlySmallerDim(RankedTensorType whole, ArrayRef<int64_t> part) {
  std::optional<int64_t> found;
  for (int64_t d = 0; d < whole.getRank(); ++d) {
    if (part[d] == whole.getDimSize(d))
      continue;
    if (found)
      return std::nullopt;
    found = d;
  }
  return found;
}

/// Whether `x` starts or continues a scan's chain of updates along `d`:
/// dim 0 (the dim lax.scan stacks along) of a constant (the zeros a scan
/// starts from), a broadcast constant, or an update's concatenation. Any other update keeps the
/// masked form, which stays elementwise wherever `x` is sharded: a
/// concatenation needs its dim whole on every device, and the stacked dim
/// of a scan is the one dim that is not sharded in practice.
bool chainsAlong(Value x, int64_t d) {
  if (d != 0)
    return false;
  if (auto cat = x.getDefiningOp<ConcatenateOp>())
    return cat.getDim() == d;
  if (auto broadcast = x.getDefiningOp<BroadcastInDimOp>())
    return isa_and_nonnull<ConstantOp>(broadcast.getOperand().getDefiningOp());
  return isa_and_nonnull<ConstantOp>(x.getDefiningOp());
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
  std::optional<int64_t> along = onlySmallerDim(t, shape);
  if (along && x.getDefiningOp<ConcatenateOp>()) {
    // A row of a chain of updates: the update that wrote it.
    SmallVector<Value> pieces;
    piecesAlong(e, x, *along, start[*along], limit[*along], pieces);
    cur = joinAlong(e, RankedTensorType::get(shape, t.getElementType()), *along, pieces);
  } else if (ArrayRef<int64_t>(shape) != t.getShape())
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
  for (int64_t d = 0; d < rank; ++d)
    if (ut.getDimSize(d) > t.getDimSize(d))
      return op->emitError() << "the update's dim " << d << " has " << ut.getDimSize(d)
                             << " positions, more than the operand's " << t.getDimSize(d)
                             << "; an update must fit in the array it is written into";
  if (std::optional<int64_t> d = onlySmallerDim(t, ut.getShape()); d && chainsAlong(x, *d)) {
    Value first = starts[*d] ? starts[*d] : Value();
    std::optional<int64_t> c = first ? constantIndex(first) : std::optional<int64_t>(0);
    if (c) {
      int64_t dim = t.getDimSize(*d), z = ut.getDimSize(*d);
      int64_t s = std::clamp<int64_t>(*c, 0, dim - z);
      SmallVector<Value> pieces;
      piecesAlong(e, x, *d, 0, s, pieces);
      pieces.push_back(u);
      piecesAlong(e, x, *d, s + z, dim, pieces);
      if (pieces.size() > kMaxPieces) {
        pieces.clear();
        if (s > 0)
          pieces.push_back(e.slice(x, *d, 0, s));
        pieces.push_back(u);
        if (s + z < dim)
          pieces.push_back(e.slice(x, *d, s + z, dim));
      }
      return joinAlong(e, t, *d, pieces);
    }
  }
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
        Value piece = e.slice(full, d, j, j + 1);
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
