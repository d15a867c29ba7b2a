//===- SelectAndScatterImport.cpp - select_and_scatter as window taps -----===//
//
// stablehlo.select_and_scatter (the gradient of max and min pooling) picks
// one element of each window of `operand` with its `select` body and adds
// the window's `source` value into the result there. The spec's order is
// sequential: the first valid position of a window is selected, then each
// later valid position replaces the selection unless select(selected,
// candidate) holds; positions in the padding are never selected.
//
// That procedure is built from the window taps reduce_window uses
// (WindowImport.cpp), the taps taken in row-major window order:
//   taken_t  = valid_t and (no earlier valid tap, or not select(sel, v_t))
//   sel      = taken_t ? v_t : sel,   which = taken_t ? t : which
// and then each tap's share, source where `which` is t, is put back at the
// tap's positions by an interior pad (the inverse of its strided slice) and
// the shares are summed; the padding is cut off and the init added. When
// the windows do not overlap (stride >= window, as in 2x2 pooling with
// stride 2) no two shares meet, and they are interleaved instead: one
// stack and one transpose rather than a pad and an add per tap. The
// comparisons run exactly as the spec's loop runs them, NaN included.
// Supported: a select body that is one compare (GE, GT, LE, LT) of its two
// arguments, a scatter body that adds, float elements, at most kMaxTaps
// window positions.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"
#include "compiler/import/StableHloAttrText.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::garray;

namespace shardc::import {
namespace {

/// The direction D of a select body `compare(selected, candidate) D`, the
/// arguments in either order (a swapped order flips D); nullopt unless the
/// body is exactly one such compare and its return.
std::optional<ComparisonDirection> selectDirection(Block &body) {
  if (body.getNumArguments() != 2 || !llvm::hasNItems(body, 2))
    return std::nullopt;
  Operation &cmp = body.front();
  Operation &ret = body.back();
  if (cmp.getName().getStringRef() != "stablehlo.compare" || cmp.getNumOperands() != 2 ||
      ret.getName().getStringRef() != "stablehlo.return" || ret.getNumOperands() != 1 ||
      ret.getOperand(0) != cmp.getResult(0))
    return std::nullopt;
  bool swapped;
  if (cmp.getOperand(0) == body.getArgument(0) && cmp.getOperand(1) == body.getArgument(1))
    swapped = false;
  else if (cmp.getOperand(0) == body.getArgument(1) && cmp.getOperand(1) == body.getArgument(0))
    swapped = true;
  else
    return std::nullopt;
  std::optional<std::string> text = readAttrText(&cmp, "comparison_direction");
  std::string error;
  std::optional<std::string> dir =
      text ? parseStableHloEnum(*text, "comparison_direction", error) : std::nullopt;
  if (!dir)
    return std::nullopt;
  if (*dir == "GE")
    return swapped ? ComparisonDirection::le : ComparisonDirection::ge;
  if (*dir == "GT")
    return swapped ? ComparisonDirection::lt : ComparisonDirection::gt;
  if (*dir == "LE")
    return swapped ? ComparisonDirection::ge : ComparisonDirection::le;
  if (*dir == "LT")
    return swapped ? ComparisonDirection::gt : ComparisonDirection::lt;
  return std::nullopt;
}

/// The shares of windows that do not overlap (stride >= window on every
/// dim), each [n...] and listed in row-major window order, put back into
/// one [paddedShape...] array: element i of tap a lands at a + i·stride,
/// and no two taps land on one position, so instead of a pad and an add per
/// tap (each as large as the operand) the shares are stacked and
/// interleaved, [s..., n...] -> [n0, s0, n1, s1, ...] -> [n0·s0, ...], the
/// positions between windows (a >= window) taking zeros; the tail the
/// windows do not reach is padded (or the last gap cut).
Value interleave(OpEmitter &e, ArrayRef<Value> shares, ArrayRef<int64_t> window,
                 ArrayRef<int64_t> strides, ArrayRef<int64_t> paddedShape) {
  RankedTensorType st = tensorType(shares.front());
  int64_t rank = st.getRank();
  Type element = st.getElementType();
  SmallVector<int64_t> unit(st.getShape());
  unit.insert(unit.begin(), 1);
  auto unitType = RankedTensorType::get(unit, element);
  Value gap;
  SmallVector<Value> parts;
  SmallVector<int64_t> index(rank, 0);
  int64_t t = 0;
  forEachIndex(strides, index, [&] {
    bool inside = llvm::all_of(llvm::seq<int64_t>(0, rank),
                               [&](int64_t d) { return index[d] < window[d]; });
    if (!inside && !gap)
      gap = e.splat(unitType, 0.0);
    parts.push_back(inside ? e.reshape(shares[t++], unitType) : gap);
  });
  SmallVector<int64_t> stackedShape(st.getShape());
  stackedShape.insert(stackedShape.begin(), static_cast<int64_t>(parts.size()));
  Value stacked =
      parts.size() == 1
          ? parts.front()
          : ConcatenateOp::create(e.b, e.loc, RankedTensorType::get(stackedShape, element), parts,
                                  e.b.getI64IntegerAttr(0))
                .getResult();
  // [S, n...] -> [s..., n...] -> [n0, s0, n1, s1, ...] -> [n0·s0, ...]
  SmallVector<int64_t> split(strides), perm, interleaved, merged;
  llvm::append_range(split, st.getShape());
  for (int64_t d = 0; d < rank; ++d) {
    perm.append({rank + d, d});
    interleaved.append({st.getDimSize(d), strides[d]});
    merged.push_back(st.getDimSize(d) * strides[d]);
  }
  Value x = e.reshape(stacked, RankedTensorType::get(split, element));
  x = TransposeOp::create(e.b, e.loc, RankedTensorType::get(interleaved, element), x,
                          e.b.getDenseI64ArrayAttr(perm));
  x = e.reshape(x, RankedTensorType::get(merged, element));
  SmallVector<int64_t> low(rank, 0), high, none(rank, 0);
  for (int64_t d = 0; d < rank; ++d)
    high.push_back(paddedShape[d] - merged[d]);
  return padGeneral(e, x, e.splat(RankedTensorType::get({}, element), 0.0), low, high, none);
}

} // namespace

FailureOr<Values> importSelectAndScatter(Operation *op, OpEmitter &e) {
  if (op->getNumOperands() != 3 || op->getNumResults() != 1 || op->getNumRegions() != 2 ||
      !llvm::hasSingleElement(op->getRegion(0)) || !llvm::hasSingleElement(op->getRegion(1)))
    return op->emitError() << "'stablehlo.select_and_scatter' needs an operand, a source, an "
                              "init value and a select and a scatter body";
  Value x = op->getOperand(0), source = op->getOperand(1), init = op->getOperand(2);
  RankedTensorType xt = tensorType(x), st = tensorType(source);
  size_t rank = xt.getRank();
  if (!isa<FloatType>(xt.getElementType()) || !isa<FloatType>(st.getElementType()))
    return op->emitError() << "'stablehlo.select_and_scatter' is imported for float operands "
                              "and sources only";
  std::optional<ComparisonDirection> dir = selectDirection(op->getRegion(0).front());
  std::optional<ReductionKind> scatter =
      combinerKind(op->getRegion(1).front(), st.getElementType());
  if (!dir || scatter != ReductionKind::sum)
    return op->emitError() << "'stablehlo.select_and_scatter' is imported when its select "
                              "body is one compare (GE, GT, LE, LT) of its arguments and its "
                              "scatter body adds (max and min pooling's gradient)";
  FailureOr<WindowAttrs> w = readWindow(op, rank);
  if (failed(w))
    return failure();
  SmallVector<int64_t> none(rank, 0);
  const SmallVector<int64_t> &window = w->window, &strides = w->strides, &low = w->low,
                             &high = w->high;
  if (llvm::any_of(low, [](int64_t v) { return v < 0; }) ||
      llvm::any_of(high, [](int64_t v) { return v < 0; }))
    return op->emitError() << "'stablehlo.select_and_scatter' with negative padding is not "
                              "supported";
  const bool padded = llvm::any_of(low, [](int64_t v) { return v != 0; }) ||
                      llvm::any_of(high, [](int64_t v) { return v != 0; });

  // The windows: one source element each.
  SmallVector<int64_t> paddedShape, windows;
  int64_t taps = 1;
  for (size_t d = 0; d < rank; ++d) {
    paddedShape.push_back(xt.getDimSize(d) + low[d] + high[d]);
    if (paddedShape[d] < window[d])
      return op->emitError() << "'stablehlo.select_and_scatter': the window of dim " << d
                             << " is larger than the padded operand";
    windows.push_back((paddedShape[d] - window[d]) / strides[d] + 1);
    taps *= window[d];
  }
  if (ArrayRef<int64_t>(windows) != st.getShape()) {
    InFlightDiagnostic diag = op->emitError()
                              << "'stablehlo.select_and_scatter': the source is " << st
                              << " but the operand has [";
    llvm::interleaveComma(windows, diag);
    return diag << "] windows";
  }
  if (taps > kMaxTaps)
    return op->emitError() << "this select_and_scatter has " << taps
                           << " window positions; shardc imports at most " << kMaxTaps;

  auto scalarType = [](Type element) { return RankedTensorType::get({}, element); };
  Value xPadded = padGeneral(e, x, e.splat(scalarType(xt.getElementType()), 0.0), low, high,
                             none);
  // Which positions of the padded operand are real (only with padding).
  Value validPadded;
  if (padded) {
    Type i1 = e.b.getI1Type();
    auto ones = RankedTensorType::get(xt.getShape(), i1);
    Value all = filledConstant(e, ones, e.b.getBoolAttr(true));
    Value no = ConstantOp::create(
        e.b, e.loc, DenseElementsAttr::get(RankedTensorType::get({}, i1), false));
    validPadded = padGeneral(e, all, no, low, high, none);
  }
  auto windowType = [&](Type element) { return RankedTensorType::get(windows, element); };
  auto tapIndex = [&](int64_t t) -> Value {
    auto type = windowType(e.b.getI32Type());
    return filledConstant(e, type, e.b.getI32IntegerAttr(static_cast<int32_t>(t)));
  };

  // The sequential selection, tap by tap.
  SmallVector<SmallVector<int64_t>> starts, limits;
  Value selected, which, seen;
  SmallVector<int64_t> index(rank, 0);
  forEachIndex(window, index, [&] {
    SmallVector<int64_t> start, limit;
    for (size_t d = 0; d < rank; ++d) {
      start.push_back(index[d]);
      limit.push_back(index[d] + (windows[d] - 1) * strides[d] + 1);
    }
    const int64_t t = static_cast<int64_t>(starts.size());
    starts.push_back(start);
    limits.push_back(limit);
    Value v = stridedSlice(e, xPadded, start, limit, strides);
    Value valid = padded ? stridedSlice(e, validPadded, start, limit, strides) : Value();
    if (t == 0) {
      selected = v;
      which = tapIndex(0);
      seen = valid;
      return;
    }
    Value keep = e.compare(*dir, selected, v);
    Value taken = NotOp::create(e.b, e.loc, keep.getType(), keep);
    if (padded) {
      Value first = NotOp::create(e.b, e.loc, seen.getType(), seen);
      taken = OrOp::create(e.b, e.loc, taken.getType(), taken, first);
      taken = AndOp::create(e.b, e.loc, taken.getType(), taken, valid);
      seen = OrOp::create(e.b, e.loc, seen.getType(), seen, valid);
    }
    selected = e.select(taken, v, selected);
    which = e.select(taken, tapIndex(t), which);
  });

  // Each tap's share of the source, put back where the tap read.
  Value zero = e.splat(scalarType(st.getElementType()), 0.0);
  SmallVector<Value> shares;
  for (int64_t t = 0; t < static_cast<int64_t>(starts.size()); ++t) {
    Value mine = e.compare(ComparisonDirection::eq, which, tapIndex(t));
    if (padded)
      mine = AndOp::create(e.b, e.loc, mine.getType(), mine, seen);
    shares.push_back(e.mask(mine, source));
  }
  Value sum;
  if (llvm::all_of(llvm::seq<size_t>(0, rank),
                   [&](size_t d) { return strides[d] >= window[d]; })) {
    sum = interleave(e, shares, window, strides, paddedShape);
  } else {
    for (int64_t t = 0; t < static_cast<int64_t>(starts.size()); ++t) {
      SmallVector<int64_t> lo, hi, interior;
      for (size_t d = 0; d < rank; ++d) {
        lo.push_back(starts[t][d]);
        hi.push_back(paddedShape[d] - limits[t][d]);
        interior.push_back(strides[d] - 1);
      }
      Value placed = padGeneral(e, shares[t], zero, lo, hi, interior);
      sum = sum ? e.add(sum, placed) : placed;
    }
  }
  SmallVector<int64_t> cutLimit, ones(rank, 1);
  for (size_t d = 0; d < rank; ++d)
    cutLimit.push_back(paddedShape[d] - high[d]);
  Value result = stridedSlice(e, sum, low, cutLimit, ones);
  DenseElementsAttr initValue;
  bool zeroInit = matchPattern(init, m_Constant(&initValue)) && initValue.isSplat() &&
                  initValue.getSplatValue<APFloat>().isZero();
  if (!zeroInit)
    result = e.add(result, e.broadcastScalar(init, result.getType()));
  if (result.getType() != op->getResult(0).getType())
    return op->emitError() << "'stablehlo.select_and_scatter' gives " << result.getType()
                           << " for " << op->getResult(0).getType();
  return Values{result};
}

} // namespace shardc::import
