//===- OpEmitter.h - build garray ops at one point ----------------*- C++ -*-===//
//
// The small vocabulary the passes that synthesize garray math share (the
// adjoint rules, the optimizer expansion, the autodiff pass): elementwise
// arithmetic, float splats, sums, broadcasts, slices, casts, each built at one
// insertion point and location.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECTS_GARRAY_OPEMITTER_H
#define SHARDC_DIALECTS_GARRAY_OPEMITTER_H

#include "dialects/garray/GArray.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/Sequence.h"

namespace mlir::garray {

struct OpEmitter {
  OpBuilder &b;
  Location loc;

  RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }
  /// A constant of float tensor type `t` with every element `v`.
  Value splat(Type t, double v) {
    auto tensor = cast<RankedTensorType>(t);
    return ConstantOp::create(
        b, loc, DenseElementsAttr::get(tensor, b.getFloatAttr(tensor.getElementType(), v)));
  }
  Value splatLike(Value like, double v) { return splat(like.getType(), v); }
  Value add(Value x, Value y) { return AddOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return SubOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return MulOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return DivOp::create(b, loc, x, y); }
  Value neg(Value x) { return NegOp::create(b, loc, x); }
  Value scale(Value x, double s) { return mul(x, splatLike(x, s)); }
  Value compare(ComparisonDirection d, Value x, Value y) {
    auto t = RankedTensorType::get(typeOf(x).getShape(), b.getI1Type());
    return CompareOp::create(b, loc, t, ComparisonDirectionAttr::get(b.getContext(), d), x, y);
  }
  Value select(Value p, Value t, Value f) { return SelectOp::create(b, loc, p, t, f); }
  /// Where `p`, `g`; elsewhere 0.
  Value mask(Value p, Value g) { return select(p, g, splatLike(g, 0.0)); }

  /// Sum of `x` over `dims` (keepdims as asked).
  Value sum(Value x, ArrayRef<int64_t> dims, bool keepdims = false) {
    if (dims.empty())
      return x;
    RankedTensorType t = typeOf(x);
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (!llvm::is_contained(dims, d))
        shape.push_back(t.getDimSize(d));
      else if (keepdims)
        shape.push_back(1);
    }
    return ReduceOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()),
                            ReductionKindAttr::get(b.getContext(), ReductionKind::sum), x,
                            b.getDenseI64ArrayAttr(dims), keepdims ? b.getUnitAttr() : UnitAttr());
  }
  /// Sum of every element, as a rank-0 value.
  Value sumAll(Value x) {
    SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, typeOf(x).getRank()));
    return sum(x, dims);
  }
  Value broadcast(Value x, Type to, ArrayRef<int64_t> dims) {
    if (x.getType() == to)
      return x;
    return BroadcastInDimOp::create(b, loc, to, x, b.getDenseI64ArrayAttr(dims));
  }
  /// `x` cut to [lo, hi) along `dim`, every other dim whole.
  Value slice(Value x, int64_t dim, int64_t lo, int64_t hi) {
    RankedTensorType t = typeOf(x);
    SmallVector<int64_t> start(t.getRank(), 0), limit(t.getShape()), strides(t.getRank(), 1);
    start[dim] = lo;
    limit[dim] = hi;
    SmallVector<int64_t> shape(t.getShape());
    shape[dim] = hi - lo;
    return SliceOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), x,
                           b.getDenseI64ArrayAttr(start), b.getDenseI64ArrayAttr(limit),
                           b.getDenseI64ArrayAttr(strides));
  }
  /// A rank-0 value broadcast to `to`.
  Value broadcastScalar(Value scalar, Type to) { return broadcast(scalar, to, {}); }
  Value reshape(Value x, Type to) {
    return x.getType() == to ? x : ReshapeOp::create(b, loc, to, x).getResult();
  }
  Value convert(Value x, Type to) {
    if (x.getType() == to)
      return x;
    bool exact = ConvertOp::isExact(getElementTypeOrSelf(x.getType()), getElementTypeOrSelf(to));
    return ConvertOp::create(b, loc, to, x, exact ? UnitAttr() : b.getUnitAttr());
  }
};

} // namespace mlir::garray

#endif // SHARDC_DIALECTS_GARRAY_OPEMITTER_H
