//===- ReduceWindowTaps.cpp - reduce_window with any elementwise body -----===//
//
// A reduce_window of one input of numbers, without base dilation, whose
// body is one add, multiply, maximum or minimum is imported directly
// (WindowImport.cpp). Every other one whose body is built from elementwise
// ops (jax.lax.cumlogsumexp's log-add-exp, a windowed argmax of (value,
// index) pairs, base dilation, booleans) is rewritten here, before the
// import, into the StableHLO ops that compute what the spec defines: each
// input padded with its init (edges from `padding`, base dilation as
// interior padding), one strided slice per window position (tap), and per
// output element the body folded over the taps in row-major window order
// from the init,
//
//   acc = broadcast(init);  for each tap w: acc = body(acc, slice_w)
//
// with the body's ops applied to whole tensors (ElementwiseBody.h). That is
// the order XLA's CPU backend folds in, so a non-associative body gives its
// result. Several inputs fold together: the body takes (accumulators...,
// elements...). At most kMaxTaps taps, as the other window ops.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ElementwiseBody.h"
#include "compiler/import/ImportOps.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace shardc::import {
namespace {

/// Whether the importer maps this reduce_window directly: one input of
/// numbers, no base dilation, a body of one add, multiply, max or min.
bool importsDirectly(Operation *op) {
  if (op->getNumOperands() != 2 || op->getNumRegions() != 1 ||
      !llvm::hasSingleElement(op->getRegion(0)))
    return false;
  if (op->getAttr("base_dilations")) {
    std::optional<SmallVector<int64_t>> dilation = readI64Array(op, "base_dilations");
    if (!dilation || llvm::any_of(*dilation, [](int64_t d) { return d != 1; }))
      return false;
  }
  Type element = tensorType(op->getOperand(0)).getElementType();
  return !element.isInteger(1) && combinerKind(op->getRegion(0).front(), element).has_value();
}

LogicalResult rewriteReduceWindow(Operation *op) {
  unsigned n = op->getNumResults();
  if (n == 0 || op->getNumOperands() != 2 * n || op->getNumRegions() != 1 ||
      !llvm::hasSingleElement(op->getRegion(0)))
    return op->emitError() << "'stablehlo.reduce_window' needs one init per input and a body";
  Block &body = op->getRegion(0).front();
  if (failed(checkElementwiseBody(op, body, 2 * n, n, "the body of 'stablehlo.reduce_window'")))
    return failure();
  RankedTensorType t = tensorType(op->getOperand(0));
  size_t rank = t.getRank();
  FailureOr<WindowAttrs> w = readWindow(op, rank);
  if (failed(w))
    return failure();
  const SmallVector<int64_t> &window = w->window, &strides = w->strides,
                             &baseDilation = w->baseDilation,
                             &windowDilation = w->windowDilation, &low = w->low,
                             &high = w->high;
  SmallVector<int64_t> interior;
  for (int64_t d : baseDilation)
    interior.push_back(d - 1);

  OpBuilder b(op);
  Location loc = op->getLoc();
  auto i64s = [&](ArrayRef<int64_t> v) { return b.getDenseI64ArrayAttr(v); };
  bool pads = llvm::any_of(llvm::concat<const int64_t>(low, high, interior),
                           [](int64_t v) { return v != 0; });
  SmallVector<Value> padded;
  SmallVector<int64_t> paddedShape;
  for (size_t d = 0; d < rank; ++d)
    paddedShape.push_back(t.getDimSize(d) == 0
                              ? low[d] + high[d]
                              : (t.getDimSize(d) - 1) * baseDilation[d] + 1 + low[d] + high[d]);
  SmallVector<int64_t> out;
  int64_t taps = 1;
  for (size_t d = 0; d < rank; ++d) {
    int64_t span = (window[d] - 1) * windowDilation[d] + 1;
    out.push_back(paddedShape[d] < span ? 0 : (paddedShape[d] - span) / strides[d] + 1);
    taps *= window[d];
  }
  if (taps > kMaxTaps)
    return op->emitError() << "this reduce_window has " << taps
                           << " window positions; shardc imports at most " << kMaxTaps;
  if (tensorType(op->getResult(0)).getShape() != ArrayRef<int64_t>(out))
    return op->emitError() << "'stablehlo.reduce_window': the result's shape does not match "
                              "its window, strides and padding";
  for (unsigned i = 0; i < n; ++i) {
    Value x = op->getOperand(i), init = op->getOperand(n + i);
    if (tensorType(x).getShape() != t.getShape() || tensorType(init).getRank() != 0)
      return op->emitError() << "'stablehlo.reduce_window' needs inputs of one shape and "
                                "scalar inits";
    if (!pads) {
      padded.push_back(x);
      continue;
    }
    auto type = RankedTensorType::get(paddedShape, tensorType(x).getElementType());
    padded.push_back(createStableHlo(b, loc, "stablehlo.pad", {x, init}, type,
                                     {b.getNamedAttr("edge_padding_low", i64s(low)),
                                      b.getNamedAttr("edge_padding_high", i64s(high)),
                                      b.getNamedAttr("interior_padding", i64s(interior))})
                         ->getResult(0));
  }
  SmallVector<Value> acc;
  for (unsigned i = 0; i < n; ++i) {
    Value init = op->getOperand(n + i);
    acc.push_back(createStableHlo(b, loc, "stablehlo.broadcast_in_dim", {init},
                                  RankedTensorType::get(out, tensorType(init).getElementType()),
                                  {b.getNamedAttr("broadcast_dimensions", i64s({}))})
                      ->getResult(0));
  }
  SmallVector<int64_t> index(rank, 0);
  forEachIndex(window, index, [&] {
    SmallVector<int64_t> start, limit;
    for (size_t d = 0; d < rank; ++d) {
      start.push_back(index[d] * windowDilation[d]);
      limit.push_back(out[d] == 0 ? start.back() : start.back() + (out[d] - 1) * strides[d] + 1);
    }
    SmallVector<Value> args(acc);
    for (Value x : padded)
      args.push_back(createStableHlo(b, loc, "stablehlo.slice", {x},
                                     RankedTensorType::get(out, tensorType(x).getElementType()),
                                     {b.getNamedAttr("start_indices", i64s(start)),
                                      b.getNamedAttr("limit_indices", i64s(limit)),
                                      b.getNamedAttr("strides", i64s(strides))})
                         ->getResult(0));
    acc = applyElementwiseBody(b, loc, body, args);
  });
  for (auto [result, value] : llvm::zip(op->getResults(), acc))
    result.replaceAllUsesWith(value);
  op->erase();
  return success();
}

} // namespace

LogicalResult reduceWindowsToTaps(ModuleOp module) {
  for (Operation *op : opsNamed(module, "stablehlo.reduce_window"))
    if (!importsDirectly(op) && failed(rewriteReduceWindow(op)))
      return failure();
  return success();
}

} // namespace shardc::import
