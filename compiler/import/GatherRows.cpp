//===- GatherRows.cpp - any gather or scatter as rows of a table ----------===//
//
// See GatherRows.h for the form. The transposes and reshapes here move
// whole dims and add or drop unit dims only, so each is a relabelling the
// propagation can follow.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/GatherRows.h"
#include "compiler/import/ImportOps.h"

#include "llvm/ADT/STLExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::garray;

namespace shardc::import {

namespace {

Value splatInt(OpEmitter &e, RankedTensorType t, int64_t v) {
  return filledConstant(e, t, e.b.getIntegerAttr(t.getElementType(), v));
}

/// The permutation that sorts `keys` (stable), as positions.
SmallVector<int64_t> sortedOrder(ArrayRef<int64_t> keys) {
  SmallVector<int64_t> order = llvm::to_vector(llvm::seq<int64_t>(0, keys.size()));
  llvm::stable_sort(order, [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
  return order;
}

/// Component `k` of the index vectors, over the batch shape: a piece of a
/// concatenate along the vector dim when the indices are one (JAX builds
/// them so), else a slice.
Value component(OpEmitter &e, Value indices, int64_t ivd, int64_t k, RankedTensorType batch) {
  RankedTensorType t = tensorType(indices);
  if (ivd == t.getRank())
    return indices;
  if (auto cat = indices.getDefiningOp<ConcatenateOp>();
      cat && cat.getDim() == ivd && llvm::all_of(cat.getInputs(), [&](Value v) {
        return tensorType(v).getDimSize(ivd) == 1;
      }))
    return e.reshape(cat.getInputs()[k], batch);
  if (t.getDimSize(ivd) == 1)
    return e.reshape(indices, batch);
  return e.reshape(e.slice(indices, ivd, k, k + 1), batch);
}

bool distinctIn(ArrayRef<int64_t> dims, int64_t rank) {
  llvm::SmallDenseSet<int64_t> seen;
  return llvm::all_of(dims, [&](int64_t d) { return d >= 0 && d < rank && seen.insert(d).second; });
}

} // namespace

FailureOr<RowsForm> readAsRows(Operation *op, OpEmitter &e, Value operand, Value indices,
                               const IndexMap &m, ArrayRef<int64_t> window, bool wantFits) {
  RankedTensorType ot = tensorType(operand), it = tensorType(indices);
  int64_t rank = ot.getRank(), iRank = it.getRank(), ivd = m.indexVectorDim;
  Type el = it.getElementType();
  if (!el.isSignlessInteger() || el.isInteger(1))
    return op->emitError() << "indices of type " << it << " are not supported (signless integers)";
  int64_t k = static_cast<int64_t>(m.indexMap.size());
  if (ivd < 0 || ivd > iRank || (ivd < iRank ? it.getDimSize(ivd) != k : k != 1))
    return op->emitError() << "index_vector_dim " << ivd << " must hold one index per "
                           << "start_index_map entry (" << k << ")";
  SmallVector<int64_t> allIndexed(m.indexMap);
  llvm::append_range(allIndexed, m.operandBatching);
  SmallVector<int64_t> batchDims; // index dims other than ivd
  for (int64_t d = 0; d < iRank; ++d)
    if (d != ivd)
      batchDims.push_back(d);
  bool valid = static_cast<int64_t>(window.size()) == rank && distinctIn(allIndexed, rank) &&
               m.operandBatching.size() == m.indicesBatching.size() &&
               distinctIn(m.indicesBatching, iRank) &&
               !llvm::is_contained(m.indicesBatching, ivd) &&
               distinctIn(m.collapsedDims, rank);
  for (int64_t d = 0; valid && d < rank; ++d)
    valid = window[d] >= 0 && window[d] <= ot.getDimSize(d);
  for (int64_t d : llvm::concat<const int64_t>(m.collapsedDims, m.operandBatching))
    valid = valid && window[d] == 1;
  for (auto [o, i] : llvm::zip(m.operandBatching, m.indicesBatching))
    valid = valid && ot.getDimSize(o) == it.getDimSize(i);
  if (!valid)
    return op->emitError() << "the index dimension numbers must name distinct operand dims "
                              "in range, batching dims of equal sizes in pairs, and windows "
                              "of size 1 in collapsed and batching dims";
  RowsForm f;
  f.operand = operand;
  f.window.assign(window.begin(), window.end());
  for (int64_t d : batchDims)
    f.batchShape.push_back(it.getDimSize(d));
  auto batchType = RankedTensorType::get(f.batchShape, el);
  auto batchPos = [&](int64_t indexDim) { return indexDim - (indexDim > ivd ? 1 : 0); };

  // The start of each indexed dim, over Bs.
  DenseMap<int64_t, Value> start;
  for (auto [j, d] : llvm::enumerate(m.indexMap))
    start[d] = component(e, indices, ivd, static_cast<int64_t>(j), batchType);
  for (auto [o, i] : llvm::zip(m.operandBatching, m.indicesBatching))
    start[o] = IotaOp::create(e.b, e.loc, batchType, e.b.getI64IntegerAttr(batchPos(i)));
  for (int64_t d = 0; d < rank; ++d)
    (start.count(d) ? f.indexed : f.rest).push_back(d);
  for (int64_t d : f.indexed)
    if (window[d] > 1)
      f.wide.push_back(d);

  // The table: rest dims cut to their window, indexed dims first, flattened.
  SmallVector<int64_t> limit(ot.getShape());
  for (int64_t d : f.rest)
    limit[d] = window[d];
  f.cutOperand = stridedSlice(e, operand, SmallVector<int64_t>(rank, 0), limit,
                              SmallVector<int64_t>(rank, 1));
  SmallVector<int64_t> perm(f.indexed);
  llvm::append_range(perm, f.rest);
  int64_t n = 1;
  for (int64_t d : f.indexed)
    n *= ot.getDimSize(d);
  SmallVector<int64_t> tableShape = {n};
  for (int64_t d : f.rest)
    tableShape.push_back(window[d]);
  f.table = e.reshape(transposed(e, f.cutOperand, perm),
                      RankedTensorType::get(tableShape, ot.getElementType()));

  // The rows, in a type that holds N.
  Type rowEl = el;
  if (el.getIntOrFloatBitWidth() < 64 &&
      n - 1 > (int64_t{1} << (el.getIntOrFloatBitWidth() - 1)) - 1)
    rowEl = e.b.getI64Type();
  SmallVector<int64_t> rowShape(f.batchShape);
  for (int64_t d : f.wide)
    rowShape.push_back(window[d]);
  auto rowType = RankedTensorType::get(rowShape, rowEl);
  auto batchRowType = RankedTensorType::get(f.batchShape, rowEl);
  SmallVector<int64_t> toRows = llvm::to_vector(llvm::seq<int64_t>(0, f.batchShape.size()));
  Value rows;
  int64_t stride = n;
  for (int64_t d : f.indexed) {
    int64_t size = ot.getDimSize(d);
    stride /= size;
    Value s = e.convert(start[d], batchRowType);
    // One indexed dim of window 1 is clamped by garray's row ops already.
    if (f.indexed.size() > 1 || window[d] > 1)
      s = ClampOp::create(e.b, e.loc, batchRowType, splatInt(e, batchRowType, 0), s,
                          splatInt(e, batchRowType, size - window[d]));
    Value term = e.broadcast(s, rowType, toRows);
    if (window[d] > 1) {
      int64_t w = static_cast<int64_t>(f.batchShape.size()) + (llvm::find(f.wide, d) - f.wide.begin());
      term = e.add(term, IotaOp::create(e.b, e.loc, rowType, e.b.getI64IntegerAttr(w)));
    }
    if (stride != 1)
      term = e.mul(term, splatInt(e, rowType, stride));
    rows = rows ? e.add(rows, term) : term;
  }
  // No start_index_map and no batching dims: every position reads row 0.
  f.rows = rows ? rows : splatInt(e, rowType, 0);

  if (wantFits) {
    auto boolType = RankedTensorType::get(f.batchShape, e.b.getI1Type());
    for (int64_t d : m.indexMap) {
      Value s = start[d];
      Value lo = e.compare(ComparisonDirection::ge, s, splatInt(e, batchType, 0));
      Value hi = e.compare(ComparisonDirection::le, s,
                           splatInt(e, batchType, ot.getDimSize(d) - window[d]));
      Value both = AndOp::create(e.b, e.loc, boolType, lo, hi);
      f.fits = f.fits ? AndOp::create(e.b, e.loc, boolType, f.fits, both).getResult() : both;
    }
  }
  return f;
}

namespace {

/// The operand dims a gather's result or a scatter's updates carry as
/// window dims: neither collapsed nor batching, in order.
SmallVector<int64_t> windowOperandDims(const IndexMap &m, int64_t rank) {
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(m.collapsedDims, d) && !llvm::is_contained(m.operandBatching, d))
      dims.push_back(d);
  return dims;
}

/// The dims of the rows form past Bs (wide then rest) sorted by operand dim.
SmallVector<int64_t> formDims(const RowsForm &f) {
  SmallVector<int64_t> dims(f.wide);
  llvm::append_range(dims, f.rest);
  return dims;
}

/// Where each of a result's (or updates') dims lies in Bs ++ the `carried`
/// operand dims: those at m.windowDims' positions, Bs in the others.
FailureOr<SmallVector<int64_t>> placeDims(Operation *op, const IndexMap &m, const RowsForm &f,
                                          ArrayRef<int64_t> carried, int64_t rank) {
  int64_t batchRank = static_cast<int64_t>(f.batchShape.size());
  int64_t windows = static_cast<int64_t>(carried.size());
  if (static_cast<int64_t>(m.windowDims.size()) != windows || batchRank + windows != rank ||
      !distinctIn(m.windowDims, rank) || !llvm::is_sorted(m.windowDims))
    return op->emitError() << "the window dims (" << m.windowDims.size()
                           << ") must be increasing positions, one per operand dim neither "
                              "collapsed nor batching ("
                           << windows << "), beside " << batchRank << " index dims";
  SmallVector<int64_t> place(rank);
  int64_t nextBatch = 0, nextWindow = batchRank;
  for (int64_t p = 0; p < rank; ++p)
    place[p] = llvm::is_contained(m.windowDims, p) ? nextWindow++ : nextBatch++;
  return place;
}

SmallVector<int64_t> inverse(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inv[p] = static_cast<int64_t>(i);
  return inv;
}

/// Bs ++ the given operand dims' windows, of element type `el`.
RankedTensorType windowsType(const RowsForm &f, ArrayRef<int64_t> dims, Type el) {
  SmallVector<int64_t> shape(f.batchShape);
  for (int64_t d : dims)
    shape.push_back(f.window[d]);
  return RankedTensorType::get(shape, el);
}

} // namespace

FailureOr<Value> gatherRows(Operation *op, OpEmitter &e, const RowsForm &f, const IndexMap &m) {
  RankedTensorType rt = tensorType(op->getResult(0));
  int64_t batchRank = static_cast<int64_t>(f.batchShape.size());
  SmallVector<int64_t> windows = windowOperandDims(m, tensorType(f.operand).getRank());
  FailureOr<SmallVector<int64_t>> place = placeDims(op, m, f, windows, rt.getRank());
  if (failed(place))
    return failure();
  Type el = rt.getElementType();
  SmallVector<int64_t> gatheredShape(tensorType(f.rows).getShape());
  for (int64_t d : f.rest)
    gatheredShape.push_back(f.window[d]);
  Value gathered = GatherOp::create(e.b, e.loc, RankedTensorType::get(gatheredShape, el), f.table,
                                    f.rows);
  // Wide and rest dims into operand order, then units added (indexed dims
  // kept as window dims) and dropped (collapsed rest dims).
  SmallVector<int64_t> dims = formDims(f), order = sortedOrder(dims);
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, batchRank));
  for (int64_t i : order)
    perm.push_back(batchRank + i);
  Value inOrder = transposed(e, gathered, perm);
  Value windowed = e.reshape(inOrder, windowsType(f, windows, el));
  Value result = transposed(e, windowed, *place);
  if (tensorType(result) != rt)
    return op->emitError() << "the gather's result type " << rt << " is not its operand's "
                           << "windows at its indices (" << tensorType(result) << ")";
  return result;
}

FailureOr<Value> updatesAsRows(Operation *op, OpEmitter &e, const RowsForm &f, const IndexMap &m,
                               Value updates) {
  RankedTensorType ut = tensorType(updates);
  int64_t batchRank = static_cast<int64_t>(f.batchShape.size());
  SmallVector<int64_t> windows = windowOperandDims(m, tensorType(f.operand).getRank());
  FailureOr<SmallVector<int64_t>> place = placeDims(op, m, f, windows, ut.getRank());
  if (failed(place))
    return failure();
  Type el = ut.getElementType();
  Value windowed = transposed(e, updates, inverse(*place));
  if (tensorType(windowed) != windowsType(f, windows, el))
    return op->emitError() << "the scatter's updates " << ut << " do not hold its windows at "
                           << "its indices";
  SmallVector<int64_t> dims = formDims(f), order = sortedOrder(dims), sortedDims;
  for (int64_t i : order)
    sortedDims.push_back(dims[i]);
  Value inOrder = e.reshape(windowed, windowsType(f, sortedDims, el));
  // inOrder's dims past Bs follow `order`; the form wants wide ++ rest.
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, batchRank));
  for (int64_t i : inverse(order))
    perm.push_back(batchRank + i);
  return transposed(e, inOrder, perm);
}

FailureOr<Value> rowsAsOperand(Operation *op, OpEmitter &e, const RowsForm &f, Value table) {
  RankedTensorType ct = tensorType(f.cutOperand);
  SmallVector<int64_t> perm(f.indexed), shape;
  llvm::append_range(perm, f.rest);
  for (int64_t d : perm)
    shape.push_back(ct.getDimSize(d));
  Value cut = transposed(
      e, e.reshape(table, RankedTensorType::get(shape, ct.getElementType())), inverse(perm));
  if (ct == tensorType(f.operand))
    return cut;
  return dynamicUpdateSlice(op, e, f.operand, cut,
                            SmallVector<Value>(ct.getRank(), Value()));
}

} // namespace shardc::import
