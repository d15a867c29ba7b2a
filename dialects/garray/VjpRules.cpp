//===- VjpRules.cpp - every differentiable garray op's adjoint ------------===//
//
// One small function per op (family), alphabetical, each building the
// vector-Jacobian product of its op from plain *global* garray ops: given
// the cotangent `g` of the result, the cotangent of each operand. They are
// attached to the ops as external models of VjpOpInterface
// (registerVjpModels), which garray-autodiff reads; the op definitions do
// not change.
//
// Rules of the house:
//   - an adjoint never mentions shardings or collectives: it is a global
//     program, partitioned later like the forward pass (a broadcast's adjoint
//     is a reduction, which leaves a pending sum where the broadcast dim is
//     sharded; one all-reduce completes it);
//   - ties follow JAX: max/min (elementwise) split the cotangent evenly
//     between equal operands; reduce max/min split it evenly over the tied
//     positions (g * mask / count);
//   - operands that receive nothing (integer indices, predicates, ops whose
//     derivative is zero almost everywhere such as floor or sign) stay null.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "dialects/garray/OpEmitter.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::garray;

namespace {

/// Builds adjoint ops at the adjoint's insertion point and location.
using Adj = OpEmitter;

using Grads = SmallVectorImpl<Value>;

//===----------------------------------------------------------------------===//
// Elementwise (alphabetical). `y` is the op's result.
//===----------------------------------------------------------------------===//

LogicalResult vjp(AbsOp op, Adj &a, Value g, Grads &out) {
  out[0] = a.mul(g, SignOp::create(a.b, a.loc, op.getOperand()));
  return success();
}
LogicalResult vjp(AddOp, Adj &, Value g, Grads &out) {
  out[0] = out[1] = g;
  return success();
}
// clamp(lo, x, hi) = min(max(x, lo), hi): x gets g where lo < x < hi, lo
// where lo > x and lo < hi, hi where hi < max(x, lo). That is JAX's rule,
// except where lo > hi: the result is hi there, so hi gets g (JAX's `hi < x`
// gives it to nobody when x < hi < lo).
LogicalResult vjp(ClampOp op, Adj &a, Value g, Grads &out) {
  Value lo = op.getLo(), x = op.getOperand(), hi = op.getHi();
  using D = ComparisonDirection;
  Value inside = AndOp::create(a.b, a.loc, a.compare(D::gt, x, lo), a.compare(D::lt, x, hi));
  out[1] = a.mask(inside, g);
  Value loWins = AndOp::create(a.b, a.loc, a.compare(D::gt, lo, x), a.compare(D::lt, lo, hi));
  out[0] = a.mask(loWins, g);
  out[2] = a.mask(a.compare(D::lt, hi, MaxOp::create(a.b, a.loc, x, lo)), g);
  return success();
}
LogicalResult vjp(ConvertOp op, Adj &a, Value g, Grads &out) {
  if (isa<FloatType>(getElementTypeOrSelf(op.getOperand().getType())))
    out[0] = a.convert(g, op.getOperand().getType());
  return success();
}
LogicalResult vjp(CosOp op, Adj &a, Value g, Grads &out) {
  out[0] = a.neg(a.mul(g, SinOp::create(a.b, a.loc, op.getOperand())));
  return success();
}
// d(x/y) = dx / y - dy * (x/y) / y.
LogicalResult vjp(DivOp op, Adj &a, Value g, Grads &out) {
  Value gy = a.div(g, op.getRhs());
  out[0] = gy;
  out[1] = a.neg(a.mul(gy, op.getResult()));
  return success();
}
LogicalResult vjp(ExpOp op, Adj &a, Value g, Grads &out) {
  out[0] = a.mul(g, op.getResult());
  return success();
}
LogicalResult vjp(Expm1Op op, Adj &a, Value g, Grads &out) {
  out[0] = a.mul(g, a.add(op.getResult(), a.splatLike(g, 1.0)));
  return success();
}
LogicalResult vjp(LogOp op, Adj &a, Value g, Grads &out) {
  out[0] = a.div(g, op.getOperand());
  return success();
}
LogicalResult vjp(Log1pOp op, Adj &a, Value g, Grads &out) {
  out[0] = a.div(g, a.add(op.getOperand(), a.splatLike(g, 1.0)));
  return success();
}
LogicalResult vjp(LogisticOp op, Adj &a, Value g, Grads &out) {
  Value y = op.getResult();
  out[0] = a.mul(g, a.mul(y, a.sub(a.splatLike(g, 1.0), y)));
  return success();
}

// max/min: the operand equal to the result gets g; on a tie each gets g/2
// (JAX's balanced rule), so relu's kink at 0 gets half.
template <typename OpT> LogicalResult vjpChooser(OpT op, Adj &a, Value g, Grads &out) {
  using D = ComparisonDirection;
  Value y = op.getResult();
  Value lhsIs = a.compare(D::eq, op.getLhs(), y), rhsIs = a.compare(D::eq, op.getRhs(), y);
  Value half = a.scale(g, 0.5);
  out[0] = a.mask(lhsIs, a.select(rhsIs, half, g));
  out[1] = a.mask(rhsIs, a.select(lhsIs, half, g));
  return success();
}
LogicalResult vjp(MaxOp op, Adj &a, Value g, Grads &out) { return vjpChooser(op, a, g, out); }
LogicalResult vjp(MinOp op, Adj &a, Value g, Grads &out) { return vjpChooser(op, a, g, out); }

LogicalResult vjp(MulOp op, Adj &a, Value g, Grads &out) {
  out[0] = a.mul(g, op.getRhs());
  out[1] = a.mul(g, op.getLhs());
  return success();
}
LogicalResult vjp(NegOp, Adj &a, Value g, Grads &out) {
  out[0] = a.neg(g);
  return success();
}
// d(x^p) = p x^(p-1) dx + x^p log(x) dp.
LogicalResult vjp(PowOp op, Adj &a, Value g, Grads &out) {
  Value x = op.getLhs(), p = op.getRhs();
  Value pm1 = a.sub(p, a.splatLike(p, 1.0));
  out[0] = a.mul(g, a.mul(p, PowOp::create(a.b, a.loc, x, pm1)));
  out[1] = a.mul(g, a.mul(op.getResult(), LogOp::create(a.b, a.loc, x)));
  return success();
}
// rem(a, b) = a - trunc(a / b) b: d/da = 1, d/db = -trunc(a / b).
LogicalResult vjp(RemOp op, Adj &a, Value g, Grads &out) {
  if (!isa<FloatType>(getElementTypeOrSelf(op.getType())))
    return success();
  Value q = a.div(op.getLhs(), op.getRhs());
  Value trunc = a.mul(SignOp::create(a.b, a.loc, q),
                      FloorOp::create(a.b, a.loc, AbsOp::create(a.b, a.loc, q)));
  out[0] = g;
  out[1] = a.neg(a.mul(g, trunc));
  return success();
}
// d(x^-1/2) = -1/2 y^3 dx.
LogicalResult vjp(RsqrtOp op, Adj &a, Value g, Grads &out) {
  Value y = op.getResult();
  out[0] = a.scale(a.mul(g, a.mul(y, a.mul(y, y))), -0.5);
  return success();
}
LogicalResult vjp(SelectOp op, Adj &a, Value g, Grads &out) {
  Value zero = a.splatLike(g, 0.0);
  out[1] = a.select(op.getPred(), g, zero);
  out[2] = a.select(op.getPred(), zero, g);
  return success();
}
LogicalResult vjp(SinOp op, Adj &a, Value g, Grads &out) {
  out[0] = a.mul(g, CosOp::create(a.b, a.loc, op.getOperand()));
  return success();
}
LogicalResult vjp(SqrtOp op, Adj &a, Value g, Grads &out) {
  out[0] = a.div(a.scale(g, 0.5), op.getResult());
  return success();
}
LogicalResult vjp(SubOp, Adj &a, Value g, Grads &out) {
  out[0] = g;
  out[1] = a.neg(g);
  return success();
}
LogicalResult vjp(TanhOp op, Adj &a, Value g, Grads &out) {
  Value y = op.getResult();
  out[0] = a.mul(g, a.sub(a.splatLike(g, 1.0), a.mul(y, y)));
  return success();
}
// Piecewise constant: derivative zero wherever it exists (as JAX); the
// operand's gradient stays null, which the autodiff pass reads as zero.
LogicalResult vjp(CeilOp, Adj &, Value, Grads &) { return success(); }
LogicalResult vjp(FloorOp, Adj &, Value, Grads &) { return success(); }
LogicalResult vjp(RoundOp, Adj &, Value, Grads &) { return success(); }
LogicalResult vjp(SignOp, Adj &, Value, Grads &) { return success(); }
// The point of the op: no cotangent for its operand.
LogicalResult vjp(StopGradientOp, Adj &, Value, Grads &) { return success(); }

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// broadcast: sum the cotangent over the dims the broadcast created or
// stretched, then reshape to the operand (the kept dims stay in order).
LogicalResult vjp(BroadcastInDimOp op, Adj &a, Value g, Grads &out) {
  RankedTensorType in = a.typeOf(op.getOperand()), res = a.typeOf(op.getResult());
  ArrayRef<int64_t> dims = op.getDims();
  SmallVector<int64_t> summed;
  for (int64_t d = 0; d < res.getRank(); ++d) {
    auto it = llvm::find(dims, d);
    if (it == dims.end())
      summed.push_back(d);
    else if (in.getDimSize(it - dims.begin()) != res.getDimSize(d))
      summed.push_back(d);
  }
  out[0] = a.reshape(a.sum(g, summed), in);
  return success();
}
LogicalResult vjp(ConcatenateOp op, Adj &a, Value g, Grads &out) {
  int64_t dim = op.getDim(), offset = 0;
  for (auto [i, v] : llvm::enumerate(op.getInputs())) {
    int64_t n = a.typeOf(v).getDimSize(dim);
    out[i] = a.slice(g, dim, offset, offset + n);
    offset += n;
  }
  return success();
}
// pad: the operand's cotangent is the interior; the padding value's is
// everything else (the total minus the interior).
LogicalResult vjp(PadOp op, Adj &a, Value g, Grads &out) {
  RankedTensorType in = a.typeOf(op.getOperand());
  SmallVector<int64_t> start(op.getLow()), limit, strides(in.getRank(), 1);
  for (int64_t d = 0; d < in.getRank(); ++d)
    limit.push_back(start[d] + in.getDimSize(d));
  Value inner = SliceOp::create(a.b, a.loc, in, g, a.b.getDenseI64ArrayAttr(start),
                                a.b.getDenseI64ArrayAttr(limit), a.b.getDenseI64ArrayAttr(strides));
  out[0] = inner;
  out[1] = a.sub(a.sumAll(g), a.sumAll(inner));
  return success();
}
LogicalResult vjp(ReshapeOp op, Adj &a, Value g, Grads &out) {
  out[0] = a.reshape(g, op.getOperand().getType());
  return success();
}
LogicalResult vjp(ReverseOp op, Adj &a, Value g, Grads &out) {
  out[0] = ReverseOp::create(a.b, a.loc, g.getType(), g, op.getDimsAttr());
  return success();
}
// shift by o: x[i] reaches result i + o, so its cotangent is g shifted back
// by -o (0 where i + o left the array); the fill's is everything else.
LogicalResult vjp(ShiftOp op, Adj &a, Value g, Grads &out) {
  Value zero = a.splat(a.typeOf(op.getFill()), 0.0);
  Value back = ShiftOp::create(a.b, a.loc, g.getType(), g, zero, op.getDimAttr(),
                               a.b.getI64IntegerAttr(-op.getOffset()));
  out[0] = back;
  out[1] = a.sub(a.sumAll(g), a.sumAll(back));
  return success();
}
LogicalResult vjp(ShardingConstraintOp, Adj &, Value g, Grads &out) {
  out[0] = g;
  return success();
}
// slice: put the cotangent back where the slice read, zeros elsewhere.
// Stride 1 is one zero-pad. A strided dim is first spread out: [n] ->
// reshape [n, 1] -> pad to [n, s] -> reshape [n s] puts element k at k s
// (garray.pad has no interior padding), then cut to what fits and pad.
LogicalResult vjp(SliceOp op, Adj &a, Value g, Grads &out) {
  RankedTensorType in = a.typeOf(op.getOperand());
  Type elem = in.getElementType();
  auto scalar = RankedTensorType::get({}, elem);
  Value zero = a.splat(scalar, 0.0);
  SmallVector<int64_t> low(op.getStart()), high;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t s = op.getStrides()[d];
    if (s != 1) {
      SmallVector<int64_t> shape(a.typeOf(g).getShape());
      int64_t n = shape[d];
      SmallVector<int64_t> split(shape.begin(), shape.begin() + d + 1);
      split.push_back(1);
      split.append(shape.begin() + d + 1, shape.end());
      Value col = a.reshape(g, RankedTensorType::get(split, elem));
      SmallVector<int64_t> padLow(split.size(), 0), padHigh(split.size(), 0);
      padHigh[d + 1] = s - 1;
      split[d + 1] = s;
      Value spread = PadOp::create(a.b, a.loc, RankedTensorType::get(split, elem), col, zero,
                                   a.b.getDenseI64ArrayAttr(padLow),
                                   a.b.getDenseI64ArrayAttr(padHigh));
      shape[d] = n * s;
      g = a.reshape(spread, RankedTensorType::get(shape, elem));
      // Keep what lies inside the operand: (n - 1) s + 1 <= size - start.
      int64_t keep = std::min(n * s, in.getDimSize(d) - low[d]);
      if (keep != n * s) {
        SmallVector<int64_t> start(shape.size(), 0), limit(shape), strides(shape.size(), 1);
        limit[d] = keep;
        shape[d] = keep;
        g = SliceOp::create(a.b, a.loc, RankedTensorType::get(shape, elem), g,
                            a.b.getDenseI64ArrayAttr(start), a.b.getDenseI64ArrayAttr(limit),
                            a.b.getDenseI64ArrayAttr(strides));
      }
    }
    high.push_back(in.getDimSize(d) - low[d] - a.typeOf(g).getDimSize(d));
  }
  out[0] = PadOp::create(a.b, a.loc, in, g, zero, a.b.getDenseI64ArrayAttr(low),
                         a.b.getDenseI64ArrayAttr(high));
  return success();
}
LogicalResult vjp(TransposeOp op, Adj &a, Value g, Grads &out) {
  ArrayRef<int64_t> perm = op.getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  out[0] = TransposeOp::create(a.b, a.loc, op.getOperand().getType(), g,
                               a.b.getDenseI64ArrayAttr(inverse));
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions, reductions, indexing
//===----------------------------------------------------------------------===//

// The cotangent of one dot operand `x` (the other is `other`): contract g's
// dims that came from `other` with `other`'s free dims, batching over the
// batch dims. That product has dims [batch, x's free (in order), x's
// contracting (in the order of `other`'s contracting dims, sorted)], which a
// transpose puts back in x's order.
static Value dotOperandGrad(Adj &a, Value g, Value x, Value other, ArrayRef<int64_t> xBatch,
                            ArrayRef<int64_t> xContract, ArrayRef<int64_t> otherBatch,
                            ArrayRef<int64_t> otherContract, int64_t gOtherFreeStart) {
  RankedTensorType xt = a.typeOf(x), ot = a.typeOf(other);
  int64_t nb = xBatch.size();
  SmallVector<int64_t> gBatch = llvm::to_vector(llvm::seq<int64_t>(0, nb));
  SmallVector<int64_t> otherFree, xFree;
  for (int64_t d = 0; d < ot.getRank(); ++d)
    if (!llvm::is_contained(otherBatch, d) && !llvm::is_contained(otherContract, d))
      otherFree.push_back(d);
  for (int64_t d = 0; d < xt.getRank(); ++d)
    if (!llvm::is_contained(xBatch, d) && !llvm::is_contained(xContract, d))
      xFree.push_back(d);
  SmallVector<int64_t> gContract;
  for (size_t i = 0; i < otherFree.size(); ++i)
    gContract.push_back(gOtherFreeStart + i);
  // Which x dim each product dim is.
  SmallVector<int64_t> xDimOf(xBatch);
  xDimOf.append(xFree);
  SmallVector<int64_t> shape;
  for (int64_t d : xBatch)
    shape.push_back(xt.getDimSize(d));
  for (int64_t d : xFree)
    shape.push_back(xt.getDimSize(d));
  for (int64_t d = 0; d < ot.getRank(); ++d) {
    auto it = llvm::find(otherContract, d);
    if (it == otherContract.end())
      continue;
    int64_t xd = xContract[it - otherContract.begin()];
    xDimOf.push_back(xd);
    shape.push_back(xt.getDimSize(xd));
  }
  Value prod = DotGeneralOp::create(a.b, a.loc, RankedTensorType::get(shape, xt.getElementType()),
                                    g, other, a.b.getDenseI64ArrayAttr(gBatch),
                                    a.b.getDenseI64ArrayAttr(otherBatch),
                                    a.b.getDenseI64ArrayAttr(gContract),
                                    a.b.getDenseI64ArrayAttr(otherFree));
  SmallVector<int64_t> perm(xt.getRank());
  for (auto [p, xd] : llvm::enumerate(xDimOf))
    perm[xd] = p;
  if (llvm::equal(perm, llvm::seq<int64_t>(0, xt.getRank())))
    return prod;
  return TransposeOp::create(a.b, a.loc, xt, prod, a.b.getDenseI64ArrayAttr(perm));
}

LogicalResult vjp(DotGeneralOp op, Adj &a, Value g, Grads &out) {
  RankedTensorType lt = a.typeOf(op.getLhs());
  int64_t nb = op.getLhsBatch().size();
  int64_t lhsFree = lt.getRank() - nb - op.getLhsContracting().size();
  // g's dims: [batch, lhs free, rhs free].
  out[0] = dotOperandGrad(a, g, op.getLhs(), op.getRhs(), op.getLhsBatch(),
                          op.getLhsContracting(), op.getRhsBatch(), op.getRhsContracting(),
                          nb + lhsFree);
  // For rhs, g's dims from lhs are the lhs free ones, right after the batch
  // dims; the product has g as its first operand either way.
  out[1] = dotOperandGrad(a, g, op.getRhs(), op.getLhs(), op.getRhsBatch(),
                          op.getRhsContracting(), op.getLhsBatch(), op.getLhsContracting(), nb);
  return success();
}

// The cotangent of a sum-reduced operand: g broadcast back over `dims`.
static Value unreduce(Adj &a, Value g, RankedTensorType to, ArrayRef<int64_t> dims,
                      bool keepdims) {
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < to.getRank(); ++d)
    if (keepdims || !llvm::is_contained(dims, d))
      kept.push_back(d);
  return a.broadcast(g, to, kept);
}

LogicalResult vjp(GatherOp op, Adj &a, Value g, Grads &out) {
  RankedTensorType table = a.typeOf(op.getTable());
  out[0] = ScatterAddOp::create(a.b, a.loc, table, a.splat(table, 0.0), op.getIndices(), g);
  return success();
}

// mean: g / N broadcast back; weighted: d/dx = g w / sum(w),
// d/dw = g (x - mean) / sum(w).
LogicalResult vjp(MeanOp op, Adj &a, Value g, Grads &out) {
  RankedTensorType in = a.typeOf(op.getOperand());
  bool keep = op.getKeepdims();
  if (Value w = op.getWeights()) {
    Value gOverW = unreduce(a, a.div(g, a.sum(w, op.getDims(), keep)), in, op.getDims(), keep);
    out[0] = a.mul(gOverW, w);
    Value centred = a.sub(op.getOperand(), unreduce(a, op.getResult(), in, op.getDims(), keep));
    out[1] = a.mul(gOverW, centred);
    return success();
  }
  out[0] = unreduce(a, a.scale(g, 1.0 / static_cast<double>(op.getGlobalCount())), in,
                    op.getDims(), keep);
  return success();
}

// sum: broadcast back. max/min: to the positions equal to the result,
// split evenly between ties (g * mask / count), as JAX's reduce_max.
LogicalResult vjp(ReduceOp op, Adj &a, Value g, Grads &out) {
  RankedTensorType in = a.typeOf(op.getOperand());
  ArrayRef<int64_t> dims = op.getDims();
  bool keep = op.getKeepdims();
  switch (op.getKind()) {
  case ReductionKind::sum:
    out[0] = unreduce(a, g, in, dims, keep);
    return success();
  case ReductionKind::max:
  case ReductionKind::min: {
    Value hit = a.compare(ComparisonDirection::eq, op.getOperand(),
                          unreduce(a, op.getResult(), in, dims, keep));
    Value ones = a.select(hit, a.splatLike(op.getOperand(), 1.0), a.splatLike(op.getOperand(), 0.0));
    Value count = a.sum(ones, dims, keep);
    out[0] = a.mul(ones, unreduce(a, a.div(g, count), in, dims, keep));
    return success();
  }
  default:
    return op.emitOpError("garray-autodiff: no adjoint for reduce <")
           << stringifyReductionKind(op.getKind()) << "> yet (sum, max and min have one)";
  }
}

LogicalResult vjp(ScatterAddOp op, Adj &a, Value g, Grads &out) {
  out[0] = g;
  out[2] = GatherOp::create(a.b, a.loc, op.getUpdates().getType(), g, op.getIndices());
  return success();
}

/// The product's adjoints without dividing by a factor that may be zero:
/// each row's product of its nonzero updates (NZ) and count of zero ones
/// (Z). The base's adjoint is g times the updates' product (NZ, or 0 when
/// Z > 0); an update's is g times the base times the product of the row's
/// other updates: NZ / u for a nonzero u when Z = 0, NZ for the one zero u
/// when Z = 1, else 0.
LogicalResult vjpProduct(ScatterReduceOp op, Adj &a, Value g, Grads &out) {
  Value base = op.getBase(), updates = op.getUpdates(), indices = op.getIndices();
  Type rows = base.getType(), each = updates.getType();
  Value zero = a.compare(ComparisonDirection::eq, updates, a.splatLike(updates, 0.0));
  Value nonzero = a.select(zero, a.splatLike(updates, 1.0), updates);
  Value nz = ScatterReduceOp::create(a.b, a.loc, rows, ReductionKind::prod, a.splat(rows, 1.0),
                                     indices, nonzero);
  Value zeros = ScatterAddOp::create(a.b, a.loc, rows, a.splat(rows, 0.0), indices,
                                     a.select(zero, a.splatLike(updates, 1.0),
                                              a.splatLike(updates, 0.0)));
  auto countIs = [&](Value count, double n) {
    return a.compare(ComparisonDirection::eq, count, a.splatLike(count, n));
  };
  out[0] = a.mul(g, a.select(countIs(zeros, 0.0), nz, a.splatLike(nz, 0.0)));
  Value zerosAt = GatherOp::create(a.b, a.loc, each, zeros, indices);
  Value nzAt = GatherOp::create(a.b, a.loc, each, nz, indices);
  Value others =
      a.select(zero, a.select(countIs(zerosAt, 1.0), nzAt, a.splatLike(nzAt, 0.0)),
               a.select(countIs(zerosAt, 0.0), a.div(nzAt, nonzero), a.splatLike(nzAt, 0.0)));
  out[2] = a.mul(GatherOp::create(a.b, a.loc, each, a.mul(g, base), indices), others);
  return success();
}

// max/min: to the base elements and updates equal to the result they went
// into, split evenly between ties, as reduce's.
LogicalResult vjp(ScatterReduceOp op, Adj &a, Value g, Grads &out) {
  if (op.getKind() == ReductionKind::prod)
    return vjpProduct(op, a, g, out);
  Value base = op.getBase(), updates = op.getUpdates(), indices = op.getIndices();
  auto ones = [&](Value x, Value y) {
    return a.select(a.compare(ComparisonDirection::eq, x, y), a.splatLike(x, 1.0),
                    a.splatLike(x, 0.0));
  };
  Value hitBase = ones(base, op.getResult());
  Value resultAtUpdates =
      GatherOp::create(a.b, a.loc, updates.getType(), op.getResult(), indices);
  Value hitUpdates = ones(updates, resultAtUpdates);
  Value count = a.add(hitBase, ScatterAddOp::create(a.b, a.loc, base.getType(),
                                                    a.splat(base.getType(), 0.0), indices,
                                                    hitUpdates));
  Value share = a.div(g, count);
  out[0] = a.mul(hitBase, share);
  out[2] = a.mul(hitUpdates, GatherOp::create(a.b, a.loc, updates.getType(), share, indices));
  return success();
}

//===----------------------------------------------------------------------===//
// Attachment
//===----------------------------------------------------------------------===//

template <typename OpT>
struct VjpModel : public VjpOpInterface::ExternalModel<VjpModel<OpT>, OpT> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ValueRange resultGrads,
                         SmallVectorImpl<Value> &operandGrads) const {
    operandGrads.assign(op->getNumOperands(), Value());
    Adj a{b, op->getLoc()};
    return vjp(cast<OpT>(op), a, resultGrads.front(), operandGrads);
  }
};

template <typename... Ops> void attach(MLIRContext *ctx) {
  (Ops::template attachInterface<VjpModel<Ops>>(*ctx), ...);
}

} // namespace

void mlir::garray::registerVjpModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, GArrayDialect *) {
    attach<AbsOp, AddOp, BroadcastInDimOp, CeilOp, ClampOp, ConcatenateOp, ConvertOp, CosOp,
           DivOp, DotGeneralOp, ExpOp, Expm1Op, FloorOp, GatherOp, LogOp, Log1pOp, LogisticOp,
           MaxOp, MeanOp, MinOp, MulOp, NegOp, PadOp, PowOp, ReduceOp, RemOp, ReshapeOp,
           ReverseOp, RoundOp, RsqrtOp, ScatterAddOp, ScatterReduceOp, SelectOp,
           ShardingConstraintOp, ShiftOp, SignOp, SinOp, SliceOp, SqrtOp, StopGradientOp, SubOp,
           TanhOp, TransposeOp>(ctx);
  });
}
