//===- ReductionOps.cpp - verifiers of reductions and indexing ops -------===//
//
// Messages start with the constraint label from GArrayReductionOps.td.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "dialects/garray/VerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"


using namespace mlir;
using namespace mlir::garray;

//===----------------------------------------------------------------------===//
// dot_general
//===----------------------------------------------------------------------===//

LogicalResult DotGeneralOp::verify() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto rhs = cast<RankedTensorType>(getRhs().getType());
  auto out = cast<RankedTensorType>(getType());
  if (getLhsBatch().size() != getRhsBatch().size())
    return emitOpError("dot_general_c1: lhs has ")
           << getLhsBatch().size() << " batch dims but rhs has " << getRhsBatch().size();
  if (getLhsContracting().size() != getRhsContracting().size())
    return emitOpError("dot_general_c1: lhs has ")
           << getLhsContracting().size() << " contracting dims but rhs has "
           << getRhsContracting().size();
  llvm::SmallSet<int64_t, 8> lhsSeen, rhsSeen;
  if (failed(checkDimList(*this, "dot_general_c2", "lhs batch", getLhsBatch(), lhs.getRank(),
                          lhsSeen)) ||
      failed(checkDimList(*this, "dot_general_c2", "lhs contracting", getLhsContracting(),
                          lhs.getRank(), lhsSeen)) ||
      failed(checkDimList(*this, "dot_general_c2", "rhs batch", getRhsBatch(), rhs.getRank(),
                          rhsSeen)) ||
      failed(checkDimList(*this, "dot_general_c2", "rhs contracting", getRhsContracting(),
                          rhs.getRank(), rhsSeen)))
    return failure();
  SmallVector<int64_t> expected;
  for (auto [l, r] : llvm::zip(getLhsBatch(), getRhsBatch())) {
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOpError("dot_general_c3: lhs batch dim ")
             << l << " has size " << lhs.getDimSize(l) << " but rhs batch dim " << r
             << " has size " << rhs.getDimSize(r);
    expected.push_back(lhs.getDimSize(l));
  }
  for (auto [l, r] : llvm::zip(getLhsContracting(), getRhsContracting()))
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOpError("dot_general_c3: lhs contracting dim ")
             << l << " has size " << lhs.getDimSize(l) << " but rhs contracting dim " << r
             << " has size " << rhs.getDimSize(r);
  for (int64_t d = 0; d < lhs.getRank(); ++d)
    if (!lhsSeen.count(d))
      expected.push_back(lhs.getDimSize(d));
  for (int64_t d = 0; d < rhs.getRank(); ++d)
    if (!rhsSeen.count(d))
      expected.push_back(rhs.getDimSize(d));
  if (ArrayRef<int64_t>(expected) != out.getShape())
    return emitOpError("dot_general_c4: the result must have shape [")
           << expected << "] (batch, lhs free, rhs free) but has " << out;
  if (lhs.getElementType() != rhs.getElementType() ||
      lhs.getElementType() != out.getElementType())
    return emitOpError("dot_general_c5: element types differ: ")
           << lhs.getElementType() << ", " << rhs.getElementType() << " -> "
           << out.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// reduce / mean
//===----------------------------------------------------------------------===//

static LogicalResult verifyReduction(Operation *op, StringRef name, Value operand, Type result,
                                     ArrayRef<int64_t> dims, bool keepdims) {
  auto in = cast<RankedTensorType>(operand.getType());
  auto out = cast<RankedTensorType>(result);
  if (dims.empty())
    return op->emitOpError(name) << "_c1: dims must not be empty (a reduction over no "
                                    "dimensions is the identity; drop the op)";
  llvm::SmallSet<int64_t, 8> seen;
  if (failed(checkDimList(op, (name + "_c1").str(), "reduced", dims, in.getRank(), seen)))
    return failure();
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (!seen.count(d))
      expected.push_back(in.getDimSize(d));
    else if (keepdims)
      expected.push_back(1);
  }
  if (ArrayRef<int64_t>(expected) != out.getShape())
    return op->emitOpError(name) << "_c2: the result must have shape [" << expected
                                 << "] but has " << out;
  if (in.getElementType() != out.getElementType())
    return op->emitOpError(name) << "_c3: element types differ: " << in.getElementType()
                                 << " vs " << out.getElementType();
  return success();
}

LogicalResult ReduceOp::verify() {
  return verifyReduction(*this, "reduce", getOperand(), getType(), getDims(), getKeepdims());
}

LogicalResult MeanOp::verify() {
  if (failed(verifyReduction(*this, "mean", getOperand(), getType(), getDims(), getKeepdims())))
    return failure();
  Type elem = getType().getElementType();
  if (!isa<FloatType>(elem))
    return emitOpError("mean_c4: the element type must be a float, not ") << elem;
  if (Value w = getWeights()) {
    if (w.getType() != getOperand().getType())
      return emitOpError("mean_c5: weights must have the operand's type ")
             << getOperand().getType() << ", not " << w.getType();
    return success();
  }
  // The count becomes a constant of the element type: a count that rounds
  // (or overflows to inf, as 70000 in f16) would silently scale every mean.
  auto f = cast<FloatType>(elem);
  llvm::APFloat count(static_cast<double>(getGlobalCount()));
  bool lost = false;
  count.convert(f.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
  if (lost || count.isInfinity())
    return emitOpError("mean_c6: the global count ")
           << getGlobalCount() << " is not exactly representable in " << elem
           << "; compute the mean in a wider float type (e.g. f32)";
  return success();
}

int64_t MeanOp::getGlobalCount() {
  auto in = cast<RankedTensorType>(getOperand().getType());
  int64_t count = 1;
  for (int64_t d : getDims())
    count *= in.getDimSize(d);
  return count;
}

//===----------------------------------------------------------------------===//
// argmax / argmin
//===----------------------------------------------------------------------===//

static LogicalResult verifyArgReduce(Operation *op, StringRef name, Value operand, Type result,
                                     int64_t dim) {
  auto in = cast<RankedTensorType>(operand.getType());
  auto out = cast<RankedTensorType>(result);
  if (dim < 0 || dim >= in.getRank())
    return op->emitOpError(name) << "_c1: dim " << dim << " is out of range for operand #0 of rank "
                                 << in.getRank();
  if (in.getDimSize(dim) == 0)
    return op->emitOpError(name) << "_c1: dim " << dim
                                 << " of operand #0 is empty; an empty dimension has no " << name;
  SmallVector<int64_t> expected(in.getShape());
  expected.erase(expected.begin() + dim);
  if (ArrayRef<int64_t>(expected) != out.getShape())
    return op->emitOpError(name) << "_c2: the result must have shape [" << expected
                                 << "] (the operand's without dim " << dim << ") but has " << out;
  auto it = dyn_cast<IntegerType>(out.getElementType());
  // The decomposition uses the type's largest value as "no candidate", so it
  // must exceed every index (size - 1), i.e. be >= the size.
  bool fits = it && it.getWidth() >= 2 &&
              (it.getWidth() >= 64 ||
               (int64_t(1) << (it.getWidth() - 1)) - 1 >= in.getDimSize(dim));
  if (!fits)
    return op->emitOpError(name)
           << "_c3: the result element type must be an integer wider than i1 that holds "
           << in.getDimSize(dim) << " (the size of dim " << dim << "), not "
           << out.getElementType();
  return success();
}

LogicalResult ArgMaxOp::verify() {
  return verifyArgReduce(*this, "argmax", getOperand(), getType(), getDim());
}

LogicalResult ArgMinOp::verify() {
  return verifyArgReduce(*this, "argmin", getOperand(), getType(), getDim());
}

//===----------------------------------------------------------------------===//
// gather / scatter_add
//===----------------------------------------------------------------------===//

/// indices.shape ++ rows.shape[1:]
static SmallVector<int64_t> indexedShape(RankedTensorType indices, RankedTensorType rows) {
  SmallVector<int64_t> shape(indices.getShape());
  shape.append(rows.getShape().begin() + 1, rows.getShape().end());
  return shape;
}

LogicalResult GatherOp::verify() {
  auto table = cast<RankedTensorType>(getTable().getType());
  auto indices = cast<RankedTensorType>(getIndices().getType());
  auto out = cast<RankedTensorType>(getType());
  if (!isa<IntegerType>(indices.getElementType()))
    return emitOpError("gather_c1: indices (operand #1) must have an integer element type, not ")
           << indices.getElementType();
  if (table.getRank() < 1)
    return emitOpError("gather_c2: the table (operand #0) must have rank >= 1, not ") << table;
  if (table.getDimSize(0) == 0)
    return emitOpError("gather_c2: the table (operand #0) has no rows to read: ") << table;
  SmallVector<int64_t> expected = indexedShape(indices, table);
  if (ArrayRef<int64_t>(expected) != out.getShape())
    return emitOpError("gather_c3: the result must have shape [")
           << expected << "] (indices.shape ++ table.shape[1:]) but has " << out;
  if (out.getElementType() != table.getElementType())
    return emitOpError("gather_c4: the result element type ")
           << out.getElementType() << " differs from the table's " << table.getElementType();
  return success();
}

/// scatter_add's and scatter_reduce's constraints c1-c4 (the same row
/// indexing), with `name` the constraints' prefix.
static LogicalResult verifyRowScatter(Operation *op, StringRef name, Value baseValue,
                                      Value indicesValue, Value updatesValue) {
  auto base = cast<RankedTensorType>(baseValue.getType());
  auto indices = cast<RankedTensorType>(indicesValue.getType());
  auto updates = cast<RankedTensorType>(updatesValue.getType());
  if (!isa<IntegerType>(indices.getElementType()))
    return op->emitOpError(name)
           << "_c1: indices (operand #1) must have an integer element type, not "
           << indices.getElementType();
  if (base.getRank() < 1)
    return op->emitOpError(name) << "_c2: base (operand #0) must have rank >= 1, not " << base;
  if (base.getDimSize(0) == 0)
    return op->emitOpError(name) << "_c2: base (operand #0) has no rows to write into: "
                                 << base;
  SmallVector<int64_t> expected = indexedShape(indices, base);
  if (ArrayRef<int64_t>(expected) != updates.getShape())
    return op->emitOpError(name) << "_c3: updates (operand #2) must have shape [" << expected
                                 << "] (indices.shape ++ base.shape[1:]) but has " << updates;
  if (op->getResult(0).getType() != base)
    return op->emitOpError(name) << "_c4: the result must have base's type " << base
                                 << ", not " << op->getResult(0).getType();
  if (updates.getElementType() != base.getElementType())
    return op->emitOpError(name) << "_c4: updates (operand #2) has element type "
                                 << updates.getElementType() << " but base has "
                                 << base.getElementType();
  return success();
}

LogicalResult ScatterAddOp::verify() {
  if (failed(verifyRowScatter(*this, "scatter_add", getBase(), getIndices(), getUpdates())))
    return failure();
  if (getBase().getType().getElementType().isInteger(1))
    return emitOpError("scatter_add_c5: cannot add i1 values; convert them to a number type first");
  return success();
}

LogicalResult ScatterReduceOp::verify() {
  if (failed(verifyRowScatter(*this, "scatter_reduce", getBase(), getIndices(), getUpdates())))
    return failure();
  if (getKind() == ReductionKind::sum)
    return emitOpError("scatter_reduce_c5: the kind must be max, min or prod, not sum "
                       "(scatter_add adds)");
  if (getBase().getType().getElementType().isInteger(1))
    return emitOpError("scatter_reduce_c5: i1 values are not combined here; convert them to a "
                       "number type first");
  return success();
}

/// The element of `v` when every element is that one constant, else null.
/// Looks through ops that only move the global value between layouts: the
/// partitioner places a constant operand with one (an all_slice when the
/// op's trailing dims are split), and it is still that constant. A factor
/// rule read again after partitioning must be the one propagation chose
/// (for the scatters, or the padding of uneven index shards would go
/// unmasked).
static Attribute splatElement(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<ReshardOp, ShardingConstraintOp, AllGatherOp, AllSliceOp, AllToAllOp,
             CollectivePermuteOp, BroadcastInDimOp, ReshapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  DenseElementsAttr value;
  if (!matchPattern(v, m_Constant(&value)) || !value.isSplat())
    return {};
  return value.getSplatValue<Attribute>();
}

bool mlir::garray::isAllZeros(Value v) {
  Attribute a = splatElement(v);
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValue().isZero();
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return i.getValue().isZero();
  return false;
}

bool ScatterAddOp::hasZeroBase() { return isAllZeros(getBase()); }

bool ScatterReduceOp::hasIdentityBase() {
  Attribute a = splatElement(getBase());
  if (!a)
    return false;
  Builder b(getContext());
  Type element = cast<RankedTensorType>(getBase().getType()).getElementType();
  return a == reductionIdentity(b, element, getKind());
}

TypedAttr mlir::garray::reductionIdentity(Builder &b, Type element, ReductionKind kind) {
  if (auto f = dyn_cast<FloatType>(element)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    switch (kind) {
    case ReductionKind::sum: return b.getFloatAttr(f, llvm::APFloat::getZero(sem));
    case ReductionKind::prod: return b.getFloatAttr(f, llvm::APFloat(sem, "1"));
    case ReductionKind::max: return b.getFloatAttr(f, llvm::APFloat::getInf(sem, /*Negative=*/true));
    case ReductionKind::min: return b.getFloatAttr(f, llvm::APFloat::getInf(sem, /*Negative=*/false));
    }
  }
  auto i = cast<IntegerType>(element);
  unsigned w = i.getWidth();
  if (w == 1)
    return b.getIntegerAttr(i, kind == ReductionKind::prod || kind == ReductionKind::min ? 1 : 0);
  switch (kind) {
  case ReductionKind::sum: return b.getIntegerAttr(i, llvm::APInt(w, 0));
  case ReductionKind::prod: return b.getIntegerAttr(i, llvm::APInt(w, 1));
  case ReductionKind::max: return b.getIntegerAttr(i, llvm::APInt::getSignedMinValue(w));
  case ReductionKind::min: return b.getIntegerAttr(i, llvm::APInt::getSignedMaxValue(w));
  }
  return {};
}
