//===- SortToNetwork.cpp - stablehlo.sort and chlo.top_k as a network ------===//
//
// garray has no sort. A sort along one dim of n elements is a bitonic
// sorting network over N = n rounded up to a power of two: log2(N) merges
// of log2(N)·(log2(N)+1)/2 compare-exchange stages in all, each stage one
// elementwise comparison of two halves of the operands and selects, so it
// is written here in StableHLO ops (reshape, slice, reverse, concatenate,
// compare, select), before the import, and imported like the program's own.
// Every comparator runs ascending: the first stage of each merge pairs
// element i of a block of k with element k-1-i (the second half reversed),
// the later ones halves j apart:
//
//   stage (k, j):  [pre, N, post] -> [pre, N/2j, 2, j, post]
//                  lo, hi = the two halves;  swap = less(hi, lo)
//                  lo, hi = select(swap, hi, lo), select(swap, lo, hi)
//
// `less` is the sort's comparator, its body applied to whole halves (its ops
// are elementwise; scalar constants are broadcast), made a strict total
// order by the elements' original positions: less(a, b) or, when neither
// is less, a's position first. That is what a stable sort produces, so the
// result is the same for stable and unstable sorts, on any mesh. Positions
// past n (padding) sort after every element and are cut off at the end.
//
// chlo.top_k(x, k) is the first k of a sort of (x, iota) by x descending in
// IEEE total order (NaN above +inf), as XLA expands it: the values and their
// int32 positions, ties in position order.
//
// The sorted dim is whole on every device: sharding propagation gathers it
// for the slices and reshapes, and keeps any other dim sharded.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ElementwiseBody.h"
#include "compiler/import/ImportOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace shardc::import {
namespace {

/// Comparator: less(a, b) for the operands' values at two sets of positions.
using Less = llvm::function_ref<Value(ArrayRef<Value> a, ArrayRef<Value> b)>;

class Network {
public:
  Network(OpBuilder &b, Location loc) : b(b), loc(loc), ctx(b.getContext()) {}

  Value op(StringRef name, ValueRange operands, Type result,
           ArrayRef<NamedAttribute> attrs = {}) {
    return createStableHlo(b, loc, name, operands, result, attrs)->getResult(0);
  }
  NamedAttribute attr(StringRef name, Attribute value) {
    return NamedAttribute(StringAttr::get(ctx, name), value);
  }
  static RankedTensorType like(Value x, ArrayRef<int64_t> shape, Type element = {}) {
    return RankedTensorType::get(shape, element ? element : tensorType(x).getElementType());
  }
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    if (tensorType(x).getShape() == shape)
      return x;
    return op("stablehlo.reshape", {x}, like(x, shape));
  }
  /// x[..., lo:hi, ...] along `dim`.
  Value slice(Value x, int64_t dim, int64_t lo, int64_t hi) {
    RankedTensorType t = tensorType(x);
    SmallVector<int64_t> start(t.getRank(), 0), limit(t.getShape()), strides(t.getRank(), 1);
    start[dim] = lo;
    limit[dim] = hi;
    SmallVector<int64_t> shape(t.getShape());
    shape[dim] = hi - lo;
    return op("stablehlo.slice", {x}, like(x, shape),
              {attr("start_indices", b.getDenseI64ArrayAttr(start)),
               attr("limit_indices", b.getDenseI64ArrayAttr(limit)),
               attr("strides", b.getDenseI64ArrayAttr(strides))});
  }
  Value concatenate(ValueRange xs, int64_t dim) {
    SmallVector<int64_t> shape(tensorType(xs[0]).getShape());
    shape[dim] = 0;
    for (Value x : xs)
      shape[dim] += tensorType(x).getDimSize(dim);
    return op("stablehlo.concatenate", xs, like(xs[0], shape),
              {attr("dimension", b.getI64IntegerAttr(dim))});
  }
  Value reverse(Value x, int64_t dim) {
    return op("stablehlo.reverse", {x}, x.getType(),
              {attr("dimensions", b.getDenseI64ArrayAttr({dim}))});
  }
  Value select(Value p, Value t, Value f) { return op("stablehlo.select", {p, t, f}, t.getType()); }
  Value logical(StringRef name, ValueRange xs) { return op(name, xs, xs[0].getType()); }
  Value compare(Value x, Value y, StringRef direction, StringRef type = "") {
    auto i1 = like(x, tensorType(x).getShape(), b.getI1Type());
    SmallVector<NamedAttribute> attrs = {attr(
        "comparison_direction",
        OpaqueAttr::get(StringAttr::get(ctx, "stablehlo"),
                        ("comparison_direction " + direction).str(), NoneType::get(ctx)))};
    if (!type.empty())
      attrs.push_back(attr("compare_type",
                           OpaqueAttr::get(StringAttr::get(ctx, "stablehlo"),
                                           ("comparison_type " + type).str(), NoneType::get(ctx))));
    return op("stablehlo.compare", {x, y}, i1, attrs);
  }
  Value iota(ArrayRef<int64_t> shape, int64_t dim) {
    return op("stablehlo.iota", {}, RankedTensorType::get(shape, b.getI32Type()),
              {attr("iota_dimension", b.getI64IntegerAttr(dim))});
  }
  /// `value` (a 0-d constant's) broadcast to `shape`.
  Value splat(Attribute scalar, ArrayRef<int64_t> shape) {
    auto elements = cast<DenseElementsAttr>(scalar);
    Value c = stableHloConstant(b, loc, elements);
    return stableHloBroadcastScalar(b, loc, c,
                                    RankedTensorType::get(shape, elements.getElementType()));
  }

  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
};

/// Sorts `operands` (one shape) along `dim` by `less` (file comment); the
/// sorted operands.
SmallVector<Value> sortNetwork(Network &net, ValueRange operands, int64_t dim, Less less) {
  RankedTensorType t = tensorType(operands[0]);
  const int64_t n = t.getDimSize(dim), padded = static_cast<int64_t>(llvm::PowerOf2Ceil(n));
  ArrayRef<int64_t> pre = t.getShape().take_front(dim), post = t.getShape().drop_front(dim + 1);
  // Working set: the operands (padded to N) and their positions; a
  // position of n or more is padding.
  SmallVector<Value> xs(operands.begin(), operands.end());
  SmallVector<int64_t> shape(t.getShape());
  const size_t position = operands.size();
  const bool pad = padded != n;
  if (pad) {
    SmallVector<int64_t> padShape(shape);
    padShape[dim] = padded - n;
    for (Value &x : xs) {
      Type element = tensorType(x).getElementType();
      Value fill = net.splat(DenseElementsAttr::get(RankedTensorType::get({}, element),
                                                    net.b.getZeroAttr(element)),
                             padShape);
      x = net.concatenate({x, fill}, dim);
    }
    shape[dim] = padded;
  }
  xs.push_back(net.iota(shape, dim));
  auto realOf = [&](Value positions) {
    SmallVector<int64_t> s(tensorType(positions).getShape());
    Value limit = net.splat(DenseElementsAttr::get(RankedTensorType::get({}, net.b.getI32Type()),
                                                   net.b.getI32IntegerAttr(n)),
                            s);
    return net.compare(positions, limit, "LT");
  };
  // less'(a, b): a real and (b padding, or less(a, b), or a tie with a first).
  auto strictLess = [&](ArrayRef<Value> a, ArrayRef<Value> b) {
    ArrayRef<Value> av = a.take_front(position), bv = b.take_front(position);
    Value ab = less(av, bv), ba = less(bv, av);
    Value first = net.compare(a[position], b[position], "LT");
    Value tie = net.logical("stablehlo.and", {net.logical("stablehlo.not", {ba}), first});
    Value r = net.logical("stablehlo.or", {ab, tie});
    if (!pad)
      return r;
    Value aReal = realOf(a[position]), bReal = realOf(b[position]);
    r = net.logical("stablehlo.or", {r, net.logical("stablehlo.not", {bReal})});
    return net.logical("stablehlo.and", {aReal, r});
  };
  // One stage: halves `half` apart within blocks of 2·half, the second half
  // reversed first when `mirror`.
  auto stage = [&](int64_t half, bool mirror) {
    SmallVector<int64_t> split(pre);
    split.append({padded / (2 * half), 2, half});
    llvm::append_range(split, post);
    const int64_t two = dim + 1, inner = dim + 2;
    SmallVector<Value> lo, hi;
    for (Value x : xs) {
      Value s = net.reshape(x, split);
      lo.push_back(net.slice(s, two, 0, 1));
      Value h = net.slice(s, two, 1, 2);
      hi.push_back(mirror ? net.reverse(h, inner) : h);
    }
    Value swap = strictLess(hi, lo);
    for (size_t i = 0; i < xs.size(); ++i) {
      Value newLo = net.select(swap, hi[i], lo[i]);
      Value newHi = net.select(swap, lo[i], hi[i]);
      if (mirror)
        newHi = net.reverse(newHi, inner);
      xs[i] = net.reshape(net.concatenate({newLo, newHi}, two), shape);
    }
  };
  for (int64_t k = 2; k <= padded; k *= 2) {
    stage(k / 2, /*mirror=*/true);
    for (int64_t j = k / 4; j >= 1; j /= 2)
      stage(j, /*mirror=*/false);
  }
  SmallVector<Value> sorted;
  for (size_t i = 0; i < position; ++i)
    sorted.push_back(pad ? net.slice(xs[i], dim, 0, n) : xs[i]);
  return sorted;
}

LogicalResult rewriteSort(Operation *sort) {
  std::optional<int64_t> dim = readI64(sort, "dimension");
  if (!dim)
    return failure();
  if (sort->getNumOperands() == 0 || sort->getNumRegions() != 1 ||
      !llvm::hasSingleElement(sort->getRegion(0)))
    return sort->emitError() << "'stablehlo.sort' needs operands and one comparator";
  RankedTensorType t = tensorType(sort->getOperand(0));
  if (*dim < 0)
    *dim += t.getRank();
  if (*dim < 0 || *dim >= t.getRank())
    return sort->emitError() << "'stablehlo.sort' dimension " << *dim << " is out of range";
  Block &body = sort->getRegion(0).front();
  if (failed(checkElementwiseBody(sort, body, 2 * sort->getNumOperands(), 1,
                                  "the comparator of 'stablehlo.sort'")))
    return failure();
  OpBuilder b(sort);
  Network net(b, sort->getLoc());
  auto less = [&](ArrayRef<Value> a, ArrayRef<Value> c) -> Value {
    SmallVector<Value> args;
    for (size_t i = 0; i < a.size(); ++i)
      args.append({a[i], c[i]});
    return applyElementwiseBody(b, sort->getLoc(), body, args)[0];
  };
  SmallVector<Value> sorted = sortNetwork(net, sort->getOperands(), *dim, less);
  for (auto [result, value] : llvm::zip(sort->getResults(), sorted))
    result.replaceAllUsesWith(value);
  sort->erase();
  return success();
}

LogicalResult rewriteTopK(Operation *topK) {
  std::optional<int64_t> k = readI64(topK, "k");
  if (!k)
    return failure();
  if (topK->getNumOperands() != 1 || topK->getNumResults() != 2)
    return topK->emitError() << "'chlo.top_k' needs one operand and two results";
  Value x = topK->getOperand(0);
  RankedTensorType t = tensorType(x);
  int64_t dim = t.getRank() - 1;
  if (t.getRank() == 0 || *k < 0 || *k > t.getDimSize(dim))
    return topK->emitError() << "'chlo.top_k' with k = " << *k << " of " << t;
  bool isFloat = isa<FloatType>(t.getElementType());
  if (!isFloat && !t.getElementType().isSignlessInteger())
    return topK->emitError() << "'chlo.top_k' on " << t.getElementType() << " is not supported";
  OpBuilder b(topK);
  Network net(b, topK->getLoc());
  auto greater = [&](ArrayRef<Value> a, ArrayRef<Value> c) -> Value {
    return net.compare(a[0], c[0], "GT", isFloat ? "TOTALORDER" : "SIGNED");
  };
  Value positions = net.iota(t.getShape(), dim);
  SmallVector<Value> sorted = sortNetwork(net, {x, positions}, dim, greater);
  for (auto [i, result] : llvm::enumerate(topK->getResults()))
    result.replaceAllUsesWith(net.slice(sorted[i], dim, 0, *k));
  topK->erase();
  return success();
}

} // namespace

LogicalResult sortsToNetworks(ModuleOp module) {
  for (Operation *sort : opsNamed(module, "stablehlo.sort"))
    if (failed(rewriteSort(sort)))
      return failure();
  for (Operation *topK : opsNamed(module, "chlo.top_k"))
    if (failed(rewriteTopK(topK)))
      return failure();
  return success();
}

} // namespace shardc::import
