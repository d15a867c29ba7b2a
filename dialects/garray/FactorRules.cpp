//===- FactorRules.cpp - every garray op's sharding rule, alphabetically --===//
//
// One small function per op family; the rule is the whole of an op's sharding
// semantics (see sharding/FactorRule.h). Keep entries alphabetical.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "sharding/ReshapeRule.h"

using namespace mlir;
using namespace mlir::garray;
using shardc::FactorKind;
using shardc::FactorRule;
using shardc::FactorRuleBuilder;
using shardc::PendingFlow;
using shardc::Reduction;

static std::vector<int64_t> shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return std::vector<int64_t>(t.getShape().begin(), t.getShape().end());
}

static PendingFlow none() { return {}; }
static PendingFlow allSame(Reduction r) { return {PendingFlow::Mode::AllSame, r, {}}; }
static PendingFlow oneOf(std::vector<int> operands) {
  return {PendingFlow::Mode::OneOf, Reduction::Sum, std::move(operands)};
}

static FactorRule elementwise(Operation *op, PendingFlow flow) {
  return FactorRuleBuilder::elementwise(shapeOf(op->getResult(0)), op->getNumOperands(),
                                        std::move(flow));
}

// Reductions: reduced dims are Reduction factors; with keepdims the result
// keeps a size-1 dim that no factor indexes (so it is never sharded). Every
// operand (a weighted mean has two) shares the factors dim by dim.
static FactorRule reduction(ValueRange operands, ArrayRef<int64_t> dims, bool keepdims,
                            Reduction kind, PendingFlow flow,
                            FactorKind reducedKind = FactorKind::Reduction) {
  FactorRuleBuilder b;
  FactorRule::TensorFactors in, out;
  std::vector<int64_t> shape = shapeOf(operands.front());
  for (int64_t d = 0, e = shape.size(); d < e; ++d) {
    bool reduced = llvm::is_contained(dims, d);
    int f = b.factor(shape[d], reduced ? reducedKind : FactorKind::Parallel);
    in.push_back({f});
    if (!reduced)
      out.push_back({f});
    else if (keepdims)
      out.push_back({});
  }
  for (size_t i = 0; i < operands.size(); ++i)
    b.operand(in);
  return b.result(out).reduction(kind).pending(std::move(flow)).build();
}

// Arg-reductions: the reduced dim stays whole. (garray-decompose rewrites
// them into max/min reductions over global indices before propagation, which
// may shard it; this rule only serves tools that ask first, and is correct
// there because it never reduces an index.)
static FactorRule argReduction(Value operand, int64_t dim) {
  FactorRuleBuilder b;
  FactorRule::TensorFactors in, out;
  std::vector<int64_t> shape = shapeOf(operand);
  for (int64_t d = 0, e = shape.size(); d < e; ++d) {
    int f = b.factor(shape[d], d == dim ? FactorKind::NeedReplication : FactorKind::Parallel);
    in.push_back({f});
    if (d != dim)
      out.push_back({f});
  }
  return b.operand(in).result(out).pending(none()).build();
}

/// The rule of ops that index rows of `rows` ([V, t...]) by `indices` ([b...]):
/// V is whole (any device may touch any row), b and t are shared with
/// `indexed` ([b..., t...]). Returns the factors of each of those tensors.
struct RowIndexing {
  FactorRule::TensorFactors rows, indices, indexed;
};
static RowIndexing rowIndexing(FactorRuleBuilder &b, Value rows, Value indices,
                               FactorKind indexKind) {
  RowIndexing r;
  std::vector<int64_t> rowShape = shapeOf(rows), indexShape = shapeOf(indices);
  r.rows.push_back({b.factor(rowShape[0], FactorKind::NeedReplication)});
  for (int64_t s : indexShape) {
    r.indices.push_back({b.factor(s, indexKind)});
    r.indexed.push_back(r.indices.back());
  }
  for (size_t d = 1; d < rowShape.size(); ++d) {
    r.rows.push_back({b.factor(rowShape[d])});
    r.indexed.push_back(r.rows.back());
  }
  return r;
}

// Shape ops: a dim kept as it is shares one factor between operand and
// result; a dim whose extent or order changes (sliced, padded, concatenated,
// reversed) needs the whole dim on every device: NeedReplication.
static int keptOrWhole(FactorRuleBuilder &b, int64_t size, bool kept) {
  return b.factor(size, kept ? FactorKind::Parallel : FactorKind::NeedReplication);
}

/// Operand and result of one rank where dim d is shared when `kept(d)` and
/// whole on every device otherwise (slice, pad: a changed dim's elements come
/// from anywhere in the operand's dim).
template <typename Kept>
static void sharedOrWhole(FactorRuleBuilder &b, const std::vector<int64_t> &in,
                          const std::vector<int64_t> &out, Kept kept,
                          FactorRule::TensorFactors &operand,
                          FactorRule::TensorFactors &result) {
  for (int64_t d = 0, e = in.size(); d < e; ++d) {
    if (kept(d)) {
      int f = b.factor(in[d]);
      operand.push_back({f});
      result.push_back({f});
      continue;
    }
    operand.push_back({keptOrWhole(b, in[d], false)});
    result.push_back({keptOrWhole(b, out[d], false)});
  }
}

FactorRule AbsOp::getFactorRule() { return elementwise(*this, none()); }
unsigned mlir::garray::zeroOperandMask(Operation *op) {
  if (!isa<AddOp, SubOp, SelectOp, ScatterAddOp, PadOp>(op))
    return 0;
  unsigned mask = 0;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (i < 32 && isAllZeros(v))
      mask |= 1u << i;
  return mask;
}

/// The pending flow of an op linear in sum partials of `candidates` (alike:
/// Σ(a_d + b_d) = Σa_d + Σb_d): those candidates that are not all zeros. A
/// device holding 0 sums to 0, so a zero operand need not be pending for the
/// others to stay pending (x + 0, select(p, x, 0)).
static PendingFlow sumOfNonZero(Operation *op, std::vector<int> candidates) {
  std::vector<int> flowing;
  for (int i : candidates)
    if (!isAllZeros(op->getOperand(i)))
      flowing.push_back(i);
  PendingFlow flow = allSame(Reduction::Sum);
  flow.operands = flowing.empty() ? candidates : flowing;
  return flow;
}

FactorRule AddOp::getFactorRule() { return elementwise(*this, sumOfNonZero(*this, {0, 1})); }
FactorRule AndOp::getFactorRule() { return elementwise(*this, none()); }

FactorRule ArgMaxOp::getFactorRule() { return argReduction(getOperand(), getDim()); }

FactorRule ArgMinOp::getFactorRule() { return argReduction(getOperand(), getDim()); }

// Operand dim i maps to result dim dims[i] when sizes agree; a stretched
// size-1 dim indexes no factor and so stays whole.
FactorRule BroadcastInDimOp::getFactorRule() {
  FactorRuleBuilder b;
  std::vector<int64_t> out = shapeOf(getResult()), in = shapeOf(getOperand());
  FactorRule::TensorFactors resultDims;
  for (int64_t s : out)
    resultDims.push_back({b.factor(s)});
  FactorRule::TensorFactors operandDims;
  for (auto [i, d] : llvm::enumerate(getDims()))
    operandDims.push_back(in[i] == out[d] ? resultDims[d] : FactorRule::DimFactors{});
  return b.operand(operandDims).result(resultDims).pending(oneOf({0})).build();
}

FactorRule CeilOp::getFactorRule() { return elementwise(*this, none()); }

FactorRule ClampOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule CompareOp::getFactorRule() { return elementwise(*this, none()); }

// Every dim but `dim` is shared; each operand's `dim` and the result's are
// separate NeedReplication factors (a concatenated dim is assembled whole).
FactorRule ConcatenateOp::getFactorRule() {
  FactorRuleBuilder b;
  std::vector<int64_t> out = shapeOf(getResult());
  int64_t dim = getDim();
  FactorRule::TensorFactors shared(out.size());
  for (int64_t d = 0, e = out.size(); d < e; ++d)
    if (d != dim)
      shared[d] = {b.factor(out[d])};
  for (Value v : getInputs()) {
    FactorRule::TensorFactors dims = shared;
    dims[dim] = {keptOrWhole(b, shapeOf(v)[dim], false)};
    b.operand(dims);
  }
  FactorRule::TensorFactors result = shared;
  result[dim] = {keptOrWhole(b, out[dim], false)};
  return b.result(result).pending(allSame(Reduction::Sum)).build();
}
// A constant has no operands; its result is free to take any sharding (each
// device materialises its part).
FactorRule ConstantOp::getFactorRule() { return elementwise(*this, none()); }

FactorRule ConvertOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule CosOp::getFactorRule() { return elementwise(*this, none()); }

// (Σ a_i) / b = Σ (a_i / b) holds for floats only: integer division
// truncates, so an integer numerator is reduced first.
FactorRule DivOp::getFactorRule() {
  bool isFloat = isa<FloatType>(getType().getElementType());
  return elementwise(*this, isFloat ? oneOf({0}) : none());
}

// ([b.., i.., k..],[b.., k.., j..])->([b.., i.., j..]) sum={k..}
FactorRule DotGeneralOp::getFactorRule() {
  FactorRuleBuilder b;
  std::vector<int64_t> lhs = shapeOf(getLhs()), rhs = shapeOf(getRhs());
  FactorRule::TensorFactors l(lhs.size()), r(rhs.size()), out;
  for (auto [ld, rd] : llvm::zip(getLhsBatch(), getRhsBatch())) {
    int f = b.factor(lhs[ld]);
    l[ld] = r[rd] = {f};
    out.push_back({f});
  }
  for (auto [ld, rd] : llvm::zip(getLhsContracting(), getRhsContracting())) {
    int f = b.factor(lhs[ld], FactorKind::Reduction);
    l[ld] = r[rd] = {f};
  }
  for (size_t d = 0; d < lhs.size(); ++d)
    if (l[d].empty()) {
      l[d] = {b.factor(lhs[d])};
      out.push_back(l[d]);
    }
  for (size_t d = 0; d < rhs.size(); ++d)
    if (r[d].empty()) {
      r[d] = {b.factor(rhs[d])};
      out.push_back(r[d]);
    }
  return b.operand(l).operand(r).result(out).reduction(Reduction::Sum).pending(oneOf({0, 1})).build();
}

FactorRule ExpOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule Expm1Op::getFactorRule() { return elementwise(*this, none()); }
FactorRule FloorOp::getFactorRule() { return elementwise(*this, none()); }

// ([V,t..],[b..])->([b..,t..]) replicated={V}; linear in the table, so a
// pending sum of table partials stays pending.
FactorRule GatherOp::getFactorRule() {
  FactorRuleBuilder b;
  RowIndexing r = rowIndexing(b, getTable(), getIndices(), FactorKind::Parallel);
  return b.operand(r.rows).operand(r.indices).result(r.indexed).pending(oneOf({0})).build();
}

// Every dim is parallel; a sharded `dim` is offset to global indices in
// global-to-local.
FactorRule IotaOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule LogOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule Log1pOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule LogisticOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule MaxOp::getFactorRule() { return elementwise(*this, allSame(Reduction::Max)); }

// The mean is decomposed before propagation; its rule (a sum whose pending
// result is later divided by the global count) only serves tools that ask.
// A weighted mean, sum(x*w)/sum(w), is not linear in per-device partials, so
// undecomposed it keeps the reduced dims whole.
FactorRule MeanOp::getFactorRule() {
  if (getWeights())
    return reduction(getOperands(), getDims(), getKeepdims(), Reduction::Sum, none(),
                     FactorKind::NeedReplication);
  return reduction(getOperand(), getDims(), getKeepdims(), Reduction::Sum, oneOf({0}));
}

FactorRule MinOp::getFactorRule() { return elementwise(*this, allSame(Reduction::Min)); }
FactorRule MulOp::getFactorRule() { return elementwise(*this, oneOf({0, 1})); }
FactorRule NegOp::getFactorRule() { return elementwise(*this, oneOf({0})); }
FactorRule NotOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule OrOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule PowOp::getFactorRule() { return elementwise(*this, none()); }

// An unpadded dim is shared; a padded one is whole on every device. The
// padding value (rank 0) indexes no factor. A partial sum is reduced first
// (each device would add the padding value once), unless the padding is
// zero: then every device's padding sums to 0 and the result is pending.
FactorRule PadOp::getFactorRule() {
  FactorRuleBuilder b;
  std::vector<int64_t> in = shapeOf(getOperand()), out = shapeOf(getResult());
  FactorRule::TensorFactors operand, result;
  sharedOrWhole(
      b, in, out, [&](int64_t d) { return getLow()[d] == 0 && getHigh()[d] == 0; }, operand,
      result);
  PendingFlow flow = isAllZeros(getPaddingValue()) ? oneOf({0}) : none();
  return b.operand(operand).operand({}).result(result).pending(flow).build();
}

// A pending partial flows into a reduction of the same kind (a sum of partial
// sums is a partial sum); other kinds are reduced first.
FactorRule ReduceOp::getFactorRule() {
  Reduction kind = toCore(getKind());
  PendingFlow flow = kind == Reduction::Sum ? oneOf({0}) : allSame(kind);
  return reduction(getOperand(), getDims(), getKeepdims(), kind, flow);
}

FactorRule RemOp::getFactorRule() { return elementwise(*this, none()); }

// Common factors of the two shapes, major to minor (sharding/ReshapeRule.h):
// a split or merged dim keeps its sharding where the shapes line up.
FactorRule ReshapeOp::getFactorRule() {
  FactorRule rule = shardc::reshapeRule(shapeOf(getOperand()), shapeOf(getResult()));
  rule.pending = oneOf({0});
  return rule;
}

// A reversed dim is whole on every device; the others are shared.
FactorRule ReverseOp::getFactorRule() {
  FactorRuleBuilder b;
  FactorRule::TensorFactors dims;
  std::vector<int64_t> shape = shapeOf(getOperand());
  for (int64_t d = 0, e = shape.size(); d < e; ++d)
    dims.push_back({keptOrWhole(b, shape[d], !llvm::is_contained(getDims(), d))});
  return b.operand(dims).result(dims).pending(oneOf({0})).build();
}

FactorRule RoundOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule RsqrtOp::getFactorRule() { return elementwise(*this, none()); }

/// A row scatter ([V,t..],[b..],[b..,t..])->([V,t..]): V whole, t parallel,
/// and the index positions b a reduction factor of `kind` when the base is
/// that kind's identity (each device combines its positions into its own
/// copy of the identity; the result is pending), else whole (a pending
/// result would combine the base once per device). `pending`: the operands
/// that may arrive pending with it.
static FactorRule rowScatterRule(Value base, Value indices, bool identityBase, Reduction kind,
                                 PendingFlow pending) {
  FactorRuleBuilder b;
  RowIndexing r = rowIndexing(b, base, indices,
                              identityBase ? FactorKind::Reduction : FactorKind::NeedReplication);
  return b.operand(r.rows)
      .operand(r.indices)
      .operand(r.indexed)
      .result(r.rows)
      .reduction(kind)
      .pending(identityBase ? std::move(pending) : none())
      .build();
}

// Each index position adds one row. With a zero base the updates may be
// pending sums themselves (the scatter is linear in them); any other base
// keeps b whole (garray-decompose splits such ops into base +
// scatter_add(zeros, ...)).
FactorRule ScatterAddOp::getFactorRule() {
  return rowScatterRule(getBase(), getIndices(), hasZeroBase(), Reduction::Sum, oneOf({2}));
}

// The index positions combined by max, min or product: onto the kind's
// identity (segment_max's -inf, segment_prod's 1) the result is a pending
// max (or min, or product). No operand may be pending: a max of pending
// sums is no pending max.
FactorRule ScatterReduceOp::getFactorRule() {
  return rowScatterRule(getBase(), getIndices(), hasIdentityBase(), toCore(getKind()), none());
}

// Both branches share the predicate's factors. The predicate (replicated
// along any pending axes, never a pending sum itself) picks elementwise, so
// select(p, a, b) summed over devices is select(p, sum a, sum b): branches
// pending alike stay pending, and a branch of zeros need not be pending.
FactorRule SelectOp::getFactorRule() { return elementwise(*this, sumOfNonZero(*this, {1, 2})); }

// Every dim is shared, the shifted one too: the local program exchanges the
// boundary elements between neighbouring shards (a halo), so keeping the dim
// sharded never costs more than the |offset| elements per shard. The fill is
// added per element: a pending sum is reduced first.
FactorRule ShiftOp::getFactorRule() {
  FactorRuleBuilder b;
  FactorRule::TensorFactors dims;
  for (int64_t size : shapeOf(getOperand()))
    dims.push_back({b.factor(size)});
  return b.operand(dims).operand({}).result(dims).pending(none()).build();
}

FactorRule SignOp::getFactorRule() { return elementwise(*this, none()); }

FactorRule SinOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule StopGradientOp::getFactorRule() { return elementwise(*this, oneOf({0})); }

// A dim taken whole is shared; a sliced one is whole on every device (its
// elements come from anywhere in the operand's dim).
FactorRule SliceOp::getFactorRule() {
  FactorRuleBuilder b;
  std::vector<int64_t> in = shapeOf(getOperand()), out = shapeOf(getResult());
  FactorRule::TensorFactors operand, result;
  sharedOrWhole(b, in, out, [&](int64_t d) { return keepsWholeDim(d); }, operand, result);
  return b.operand(operand).result(result).pending(oneOf({0})).build();
}
FactorRule SqrtOp::getFactorRule() { return elementwise(*this, none()); }

FactorRule SubOp::getFactorRule() { return elementwise(*this, sumOfNonZero(*this, {0, 1})); }

FactorRule TanhOp::getFactorRule() { return elementwise(*this, none()); }

// ([i,j])->([j,i]): result dim i is operand dim permutation[i].
FactorRule TransposeOp::getFactorRule() {
  FactorRuleBuilder b;
  FactorRule::TensorFactors operand, result;
  for (int64_t s : shapeOf(getOperand()))
    operand.push_back({b.factor(s)});
  for (int64_t p : getPermutation())
    result.push_back(operand[p]);
  return b.operand(operand).result(result).pending(oneOf({0})).build();
}

FactorRule XorOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule ShiftLeftOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule ShiftRightArithmeticOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule ShiftRightLogicalOp::getFactorRule() { return elementwise(*this, none()); }
FactorRule BitcastConvertOp::getFactorRule() { return elementwise(*this, none()); }
