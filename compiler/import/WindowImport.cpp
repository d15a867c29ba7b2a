//===- WindowImport.cpp - pad (interior, negative) and reduce_window ------===//
//
// garray.pad pads edges with a non-negative amount. StableHLO's pad also
// cuts (negative edges) and inserts `interior` copies of the value between
// neighbours (the gradient of a strided window); both are built here:
// interior padding by a reshape that gives each element its own row, an
// edge pad of that row, and a reshape back (then the trailing copies cut),
// negative edges by a slice.
//
// reduce_window (jnp.cumsum, average and max pooling, and the gradient of
// average pooling) is a combination of strided slices, one per window
// position (a tap), as a convolution is a sum of products
// (ConvolutionImport.cpp): the input padded with the init value, tap w its
// slice from w·window_dilation every stride, the taps combined in row-major
// order with the body's op (add, multiply, max, min), and the init combined
// once more unless it is the op's identity. A cumulative window (a prefix
// scan along one dim, jnp.cumsum's) is log2(n) shifted combinations
// instead of n taps. Refused with an error: several inputs, base dilation,
// a body that is not one such op, more than kMaxTaps taps in another
// window. select_and_scatter (max pooling's gradient) is built from the
// same taps in SelectAndScatterImport.cpp.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::garray;

namespace shardc::import {
namespace {

RankedTensorType withShape(Value v, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, tensorType(v).getElementType());
}

/// `x` padded with the rank-0 `value`: `low`/`high` per dim (negative:
/// cut), only non-negative amounts.
Value padEdges(OpEmitter &e, Value x, Value value, ArrayRef<int64_t> low,
               ArrayRef<int64_t> high) {
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; }))
    return x;
  SmallVector<int64_t> shape(tensorType(x).getShape());
  for (size_t d = 0; d < shape.size(); ++d)
    shape[d] += low[d] + high[d];
  return PadOp::create(e.b, e.loc, withShape(x, shape), x, value, e.b.getDenseI64ArrayAttr(low),
                       e.b.getDenseI64ArrayAttr(high));
}

} // namespace

void forEachIndex(ArrayRef<int64_t> bounds, SmallVector<int64_t> &index,
                  llvm::function_ref<void()> body, size_t d) {
  if (d == bounds.size())
    return body();
  for (index[d] = 0; index[d] < bounds[d]; ++index[d])
    forEachIndex(bounds, index, body, d + 1);
}

Value stridedSlice(OpEmitter &e, Value x, ArrayRef<int64_t> start, ArrayRef<int64_t> limit,
                   ArrayRef<int64_t> stride) {
  SmallVector<int64_t> shape;
  for (size_t d = 0; d < start.size(); ++d)
    shape.push_back(llvm::divideCeil(limit[d] - start[d], stride[d]));
  if (ArrayRef<int64_t>(shape) == tensorType(x).getShape())
    return x;
  return SliceOp::create(e.b, e.loc, withShape(x, shape), x, e.b.getDenseI64ArrayAttr(start),
                         e.b.getDenseI64ArrayAttr(limit), e.b.getDenseI64ArrayAttr(stride));
}

Value padGeneral(OpEmitter &e, Value x, Value value, ArrayRef<int64_t> low,
                 ArrayRef<int64_t> high, ArrayRef<int64_t> interior) {
  int64_t rank = tensorType(x).getRank();
  // Interior: [.., n, ..] -> [.., n, 1, ..] -> pad to [.., n, k+1, ..] ->
  // [.., n(k+1), ..] -> cut the trailing k.
  for (int64_t d = 0; d < rank; ++d) {
    int64_t k = interior[d], n = tensorType(x).getDimSize(d);
    if (k == 0 || n == 0)
      continue;
    SmallVector<int64_t> rows(tensorType(x).getShape());
    rows.insert(rows.begin() + d + 1, 1);
    Value y = e.reshape(x, withShape(x, rows));
    SmallVector<int64_t> lo(rank + 1, 0), hi(rank + 1, 0);
    hi[d + 1] = k;
    y = padEdges(e, y, value, lo, hi);
    SmallVector<int64_t> merged(tensorType(x).getShape());
    merged[d] = n * (k + 1);
    y = e.reshape(y, withShape(x, merged));
    SmallVector<int64_t> start(rank, 0), limit(merged), stride(rank, 1);
    limit[d] -= k;
    x = stridedSlice(e, y, start, limit, stride);
  }
  // Negative edges cut, then positive ones pad.
  SmallVector<int64_t> start(rank, 0), limit(tensorType(x).getShape()), stride(rank, 1);
  SmallVector<int64_t> lo(rank), hi(rank);
  for (int64_t d = 0; d < rank; ++d) {
    start[d] = std::max<int64_t>(0, -low[d]);
    limit[d] -= std::max<int64_t>(0, -high[d]);
    lo[d] = std::max<int64_t>(0, low[d]);
    hi[d] = std::max<int64_t>(0, high[d]);
  }
  x = stridedSlice(e, x, start, limit, stride);
  return padEdges(e, x, value, lo, hi);
}

LogicalResult readPadding(Operation *op, size_t n, SmallVectorImpl<int64_t> &low,
                          SmallVectorImpl<int64_t> &high) {
  low.assign(n, 0);
  high.assign(n, 0);
  Attribute attr = op->getAttr("padding");
  if (!attr)
    return success();
  auto padding = dyn_cast<DenseIntElementsAttr>(attr);
  if (!padding || padding.getNumElements() != static_cast<int64_t>(2 * n))
    return op->emitError() << "`padding` must be a dense " << n << "x2 integer attribute";
  auto values = llvm::to_vector(padding.getValues<int64_t>());
  for (size_t d = 0; d < n; ++d) {
    low[d] = values[2 * d];
    high[d] = values[2 * d + 1];
  }
  return success();
}

FailureOr<WindowAttrs> readWindow(Operation *op, size_t rank) {
  auto array = [&](StringRef name) -> std::optional<SmallVector<int64_t>> {
    if (!op->getAttr(name))
      return SmallVector<int64_t>(rank, 1);
    return readI64Array(op, name);
  };
  std::optional<SmallVector<int64_t>> window = readI64Array(op, "window_dimensions");
  std::optional<SmallVector<int64_t>> strides = array("window_strides");
  std::optional<SmallVector<int64_t>> baseDilation = array("base_dilations");
  std::optional<SmallVector<int64_t>> windowDilation = array("window_dilations");
  if (!window || !strides || !baseDilation || !windowDilation)
    return failure();
  for (const SmallVector<int64_t> *v : {&*window, &*strides, &*baseDilation, &*windowDilation})
    if (v->size() != rank || llvm::any_of(*v, [](int64_t s) { return s < 1; }))
      return op->emitError() << "'" << op->getName() << "' needs one positive window size, "
                             << "stride and dilation per dimension (" << rank << ")";
  WindowAttrs w{*window, *strides, *baseDilation, *windowDilation, {}, {}};
  if (failed(readPadding(op, rank, w.low, w.high)))
    return failure();
  return w;
}

FailureOr<Values> importPad(Operation *op, OpEmitter &e) {
  auto low = readI64Array(op, "edge_padding_low");
  auto high = low ? readI64Array(op, "edge_padding_high") : std::nullopt;
  auto interior = high ? readI64Array(op, "interior_padding") : std::nullopt;
  if (!interior)
    return failure();
  size_t rank = tensorType(op->getOperand(0)).getRank();
  if (low->size() != rank || high->size() != rank || interior->size() != rank ||
      llvm::any_of(*interior, [](int64_t v) { return v < 0; }))
    return op->emitError() << "'stablehlo.pad' needs one low, high and non-negative interior "
                              "padding per dimension";
  Value out = padGeneral(e, op->getOperand(0), op->getOperand(1), *low, *high, *interior);
  if (out.getType() != op->getResult(0).getType())
    return op->emitError() << "'stablehlo.pad' gives " << out.getType() << " for "
                           << op->getResult(0).getType();
  return Values{out};
}

namespace {

/// A cumulative window (`jnp.cumsum`, `cumprod`, `cummax`, and with
/// `reverse=True`): along one dim of n elements, a window of n padded by
/// n - 1 before (or after) with the identity, stride 1, every other dim a
/// window of 1. Its n taps are a prefix scan, built by doubling: after
/// the step of shift s each element holds the combination of the 2s
/// elements ending (or starting) at it, so log2(n) shifted combinations
/// in all. Nullopt for any other window.
std::optional<Value> cumulative(OpEmitter &e, Value x, Value init, const WindowAttrs &w,
                                bool initIsIdentity, function_ref<Value(Value, Value)> combine) {
  RankedTensorType t = tensorType(x);
  std::optional<int64_t> dim;
  for (int64_t d = 0; d < t.getRank(); ++d) {
    if (w.strides[d] != 1 || w.windowDilation[d] != 1 || w.baseDilation[d] != 1)
      return std::nullopt;
    if (w.window[d] == 1 && w.low[d] == 0 && w.high[d] == 0)
      continue;
    int64_t n = t.getDimSize(d);
    bool forward = w.low[d] == n - 1 && w.high[d] == 0;
    bool backward = w.low[d] == 0 && w.high[d] == n - 1;
    if (dim || w.window[d] != n || n < 2 || !(forward || backward))
      return std::nullopt;
    dim = d;
  }
  if (!dim || !initIsIdentity)
    return std::nullopt;
  int64_t d = *dim, n = t.getDimSize(d);
  bool forward = w.low[d] == n - 1;
  SmallVector<int64_t> none(t.getRank(), 0);
  Value acc = x;
  for (int64_t s = 1; s < n; s *= 2) {
    SmallVector<int64_t> low(none), high(none);
    (forward ? low : high)[d] = s;
    (forward ? high : low)[d] = -s;
    acc = combine(acc, padGeneral(e, acc, init, low, high, none));
  }
  return acc;
}

} // namespace

FailureOr<Values> importReduceWindow(Operation *op, OpEmitter &e) {
  if (op->getNumOperands() != 2 || op->getNumResults() != 1)
    return op->emitError() << "'stablehlo.reduce_window' of several inputs is not supported";
  Value x = op->getOperand(0), init = op->getOperand(1);
  RankedTensorType t = tensorType(x);
  size_t rank = t.getRank();
  std::optional<ReductionKind> kind =
      op->getNumRegions() == 1 && llvm::hasSingleElement(op->getRegion(0))
          ? combinerKind(op->getRegion(0).front(), t.getElementType())
          : std::nullopt;
  if (!kind || t.getElementType().isInteger(1))
    return op->emitError() << "'stablehlo.reduce_window' with a body other than one add, "
                              "multiply, maximum or minimum of numbers is not supported";
  FailureOr<WindowAttrs> w = readWindow(op, rank);
  if (failed(w))
    return failure();
  // ReduceWindowTaps.cpp rewrites every other reduce_window before the import.
  if (llvm::any_of(w->baseDilation, [](int64_t s) { return s != 1; }))
    return op->emitError() << "'stablehlo.reduce_window' with base dilation is not supported";
  SmallVector<int64_t> none(rank, 0);
  const SmallVector<int64_t> &window = w->window, &strides = w->strides,
                             &windowDilation = w->windowDilation;
  Value padded = padGeneral(e, x, init, w->low, w->high, none);
  RankedTensorType pt = tensorType(padded);
  SmallVector<int64_t> out;
  int64_t taps = 1;
  for (size_t d = 0; d < rank; ++d) {
    int64_t span = (window[d] - 1) * windowDilation[d] + 1;
    if (pt.getDimSize(d) < span)
      return op->emitError() << "'stablehlo.reduce_window': the window of dim " << d
                             << " is larger than the padded input";
    out.push_back((pt.getDimSize(d) - span) / strides[d] + 1);
    taps *= window[d];
  }
  auto combine = [&](Value a, Value b) -> Value {
    switch (*kind) {
    case ReductionKind::sum:
      return e.add(a, b);
    case ReductionKind::prod:
      return e.mul(a, b);
    case ReductionKind::max:
      return MaxOp::create(e.b, e.loc, a.getType(), a, b);
    case ReductionKind::min:
      return MinOp::create(e.b, e.loc, a.getType(), a, b);
    }
    return a;
  };
  Attribute identity = reductionIdentity(e.b, t.getElementType(), *kind);
  DenseElementsAttr initValue;
  bool isIdentity = matchPattern(init, m_Constant(&initValue)) && initValue.isSplat() &&
                    initValue.getSplatValue<Attribute>() == identity;
  if (std::optional<Value> scan = cumulative(e, x, init, *w, isIdentity, combine))
    return Values{*scan};
  if (taps > kMaxTaps)
    return op->emitError() << "this reduce_window has " << taps
                           << " window positions; shardc imports at most " << kMaxTaps
                           << " (and any number along one dim of a cumulative window, "
                              "jnp.cumsum's)";
  Value acc;
  SmallVector<int64_t> index(rank, 0);
  forEachIndex(window, index, [&] {
    SmallVector<int64_t> start, limit;
    for (size_t d = 0; d < rank; ++d) {
      start.push_back(index[d] * windowDilation[d]);
      limit.push_back(start.back() + (out[d] - 1) * strides[d] + 1);
    }
    Value tap = stridedSlice(e, padded, start, limit, strides);
    acc = acc ? combine(acc, tap) : tap;
  });
  // The init is combined once more, as reduce_window's definition says,
  // unless it is the op's identity.
  if (!isIdentity)
    acc = combine(acc, e.broadcastScalar(init, acc.getType()));
  return Values{acc};
}

} // namespace shardc::import
