//===- GatherImport.cpp - the gathers and scatters of JAX's indexing ------===//
//
// StableHLO's gather and scatter are general index maps. Two shapes of
// them have cheaper forms than the general one, and the importer maps them
// so; every other gather and scatter is rows of a table (GatherRows.h).
//
//   One start for the whole result: `jnp.median`'s and `jnp.quantile`'s
//   pick of a sorted position, `jnp.take(x, i, axis=1)` with a scalar
//   `i`. The indices are one start vector (no batch dims); the result is
//   the slice at that start with the collapsed dims dropped, which is
//   dynamic_slice + reshape, and its gradient adds the window back:
//     gather  -> reshape(dynamic_slice(x, starts, slice_sizes))
//     scatter -> base + dynamic_update_slice(0, reshape(updates), starts),
//                or for `.at[i].set` dynamic_update_slice(base, ...)
//                (base alone where the window does not fit: skipped)
//
//   One element per batch position: `jnp.take_along_axis(x, idx, axis=a)`
//   with every other dim a batching dim (integer-label cross-entropy), or
//   `logp[jnp.arange(B), labels]`, whose start along dim 0 is an iota
//   over the batch and so a batching dim. It is built from elementwise ops
//   as a one-hot product, which is exact (one value plus zeros) and keeps
//   the batch dims sharded, with the index clamped as gather clamps it:
//     gather  -> sum_c select(iota_c == clamp(idx), x, 0)
//     scatter -> base + sum over non-batch index dims of
//                select(iota_c == idx, updates, 0)   (out of range: skipped)
//     set     -> select(iota_c == idx, updates, base) when each batch
//                position has one index (`.at[arange(B), labels].set`)
//
//   Rows of a table, everything else: `t[ids]` and its add-scatter,
//   `x[:, idx]`, `jnp.diagonal`, `m[jnp.triu_indices(n)]`, a vmapped
//   dynamic_slice. garray.gather reads them (both clamp the index into
//   range); a scatter skips an update whose window does not fit, which
//   garray's scatters (they clamp) are given as a zero or identity update:
//     add     -> garray.scatter_add
//     max/min/multiply (segment_max) -> garray.scatter_reduce
//     set     -> the last position naming each row (scatter_reduce <max> of
//                positions), whose rows of the updates are gathered.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/GatherRows.h"
#include "compiler/import/ImportOps.h"
#include "compiler/import/StableHloAttrText.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::garray;

namespace shardc::import {

namespace {

std::optional<IndexMap> readIndexMap(Operation *op, StringRef attr, StringRef kind,
                                     ArrayRef<StringRef> names) {
  std::optional<std::string> text = readAttrText(op, attr);
  if (!text)
    return std::nullopt;
  std::string error;
  std::optional<StableHloFields> f = parseStableHloFields(*text, error);
  if (!f || f->kind != kind) {
    op->emitError() << attr << ": " << (f ? "expected #stablehlo." + kind.str() + "<...>" : error);
    return std::nullopt;
  }
  for (auto &[name, _] : f->fields)
    if (!llvm::is_contained(names, name)) {
      op->emitError() << attr << " field `" << name << "` is not supported";
      return std::nullopt;
    }
  IndexMap m;
  auto get = [&](StringRef name) {
    const std::vector<int64_t> &v = f->list(name.str());
    return SmallVector<int64_t>(v.begin(), v.end());
  };
  m.windowDims = get(names[0]);
  m.collapsedDims = get(names[1]);
  m.operandBatching = get(names[2]);
  m.indicesBatching = get(names[3]);
  m.indexMap = get(names[4]);
  const std::vector<int64_t> &ivd = f->list(names[5].str());
  m.indexVectorDim = ivd.empty() ? 0 : ivd[0];
  return m;
}

/// The indices without their index-vector dim (which must hold one index),
/// and the map from the original index dims to the new ones.
FailureOr<Value> scalarIndices(Operation *op, OpEmitter &e, Value indices, IndexMap &m) {
  RankedTensorType t = tensorType(indices);
  if (!t.getElementType().isSignlessInteger() || t.getElementType().isInteger(1))
    return op->emitError() << "indices of type " << t << " are not supported (signless integers)";
  if (m.indexMap.size() != 1)
    return op->emitError() << "each index must pick one operand dimension; this one picks "
                           << m.indexMap.size();
  int64_t ivd = m.indexVectorDim;
  if (ivd < 0 || ivd > t.getRank() || (ivd < t.getRank() && t.getDimSize(ivd) != 1))
    return op->emitError() << "index_vector_dim " << ivd << " must be the indices' rank or a "
                              "dimension of size 1";
  for (int64_t &d : m.indicesBatching) {
    if (d == ivd || d < 0 || d >= t.getRank())
      return op->emitError() << "an indices batching dimension " << d << " is out of range";
    d -= d > ivd ? 1 : 0;
  }
  if (ivd == t.getRank())
    return indices;
  SmallVector<int64_t> shape(t.getShape());
  shape.erase(shape.begin() + ivd);
  return e.reshape(indices, RankedTensorType::get(shape, t.getElementType()));
}

Value splatOf(OpEmitter &e, RankedTensorType t, int64_t v) {
  Type el = t.getElementType();
  Attribute a = isa<FloatType>(el) ? Attribute(e.b.getFloatAttr(el, v))
                                   : Attribute(e.b.getIntegerAttr(el, v));
  return filledConstant(e, t, a);
}

/// Whether the operand dims are exactly the batching dims plus `a`.
bool batchingCoversAllBut(const IndexMap &m, int64_t rank, int64_t a) {
  SmallVector<int64_t> all(m.operandBatching);
  all.push_back(a);
  llvm::sort(all);
  return llvm::equal(all, llvm::seq<int64_t>(0, rank)) &&
         m.operandBatching.size() == m.indicesBatching.size();
}

/// `iota_c == idx` over `S ++ [C]`, with the index broadcast along c.
Value oneHot(OpEmitter &e, Value idx, int64_t c) {
  RankedTensorType it = tensorType(idx);
  SmallVector<int64_t> shape(it.getShape());
  shape.push_back(c);
  auto t = RankedTensorType::get(shape, it.getElementType());
  Value wide = e.broadcast(idx, t, llvm::to_vector(llvm::seq<int64_t>(0, it.getRank())));
  Value iota = IotaOp::create(e.b, e.loc, t, e.b.getI64IntegerAttr(it.getRank()));
  return e.compare(ComparisonDirection::eq, wide, iota);
}

/// For each operand dim, the dim of `S ++ [C]` it lines up with.
SmallVector<int64_t> operandToOneHot(const IndexMap &m, int64_t rank, int64_t a, int64_t sRank) {
  SmallVector<int64_t> dims(rank);
  for (int64_t d = 0; d < rank; ++d)
    dims[d] = d == a ? sRank
                     : m.indicesBatching[llvm::find(m.operandBatching, d) -
                                         m.operandBatching.begin()];
  return dims;
}

constexpr StringRef kGatherNames[] = {"offset_dims",    "collapsed_slice_dims",
                                      "operand_batching_dims", "start_indices_batching_dims",
                                      "start_index_map", "index_vector_dim"};
constexpr StringRef kScatterNames[] = {
    "update_window_dims",           "inserted_window_dims",         "input_batching_dims",
    "scatter_indices_batching_dims", "scatter_dims_to_operand_dims", "index_vector_dim"};

/// The indices are a single start vector: no dims but the index-vector dim.
bool singleStart(const IndexMap &m, RankedTensorType indices) {
  int64_t rank = indices.getRank();
  return m.operandBatching.empty() &&
         (rank == 0 || (rank == 1 && m.indexVectorDim == 0));
}

/// Index `k` of a start vector (rank 0 or 1) as a rank-0 value; a constant
/// stays one, so that the slice is static.
Value startAt(OpEmitter &e, Value indices, int64_t k) {
  RankedTensorType t = tensorType(indices);
  auto scalar = RankedTensorType::get({}, t.getElementType());
  if (t.getRank() == 0)
    return indices;
  if (auto c = indices.getDefiningOp<ConstantOp>())
    if (auto values = dyn_cast<DenseIntElementsAttr>(c.getValue()))
      return ConstantOp::create(
          e.b, e.loc,
          DenseElementsAttr::get(scalar, values.getValues<APInt>()[static_cast<uint64_t>(k)]));
  if (t.getDimSize(0) == 1)
    return e.reshape(indices, scalar);
  Value one = SliceOp::create(e.b, e.loc, RankedTensorType::get({1}, t.getElementType()), indices,
                              e.b.getDenseI64ArrayAttr({k}), e.b.getDenseI64ArrayAttr({k + 1}),
                              e.b.getDenseI64ArrayAttr({1}));
  return e.reshape(one, scalar);
}

/// The start of each operand dim that start_index_map names, from a start
/// vector (rank 0 or 1), null for the other dims; false when the map does
/// not name one distinct dim in [0, rank) per index.
bool readStarts(OpEmitter &e, Value indices, const IndexMap &m, int64_t rank,
                SmallVectorImpl<Value> &starts) {
  RankedTensorType it = tensorType(indices);
  int64_t k = it.getRank() == 0 ? 1 : it.getDimSize(0);
  if (static_cast<int64_t>(m.indexMap.size()) != k)
    return false;
  starts.assign(rank, Value());
  for (auto [j, d] : llvm::enumerate(m.indexMap)) {
    if (d < 0 || d >= rank || starts[d])
      return false;
    starts[d] = startAt(e, indices, static_cast<int64_t>(j));
  }
  return true;
}

/// A gather of one slice (see the file comment): the slice at the start
/// the indices give along start_index_map, zero (a null start) elsewhere.
FailureOr<Values> gatherOneSlice(Operation *op, OpEmitter &e, const IndexMap &m,
                                 ArrayRef<int64_t> sizes) {
  Value table = op->getOperand(0), indices = op->getOperand(1);
  RankedTensorType tt = tensorType(table), it = tensorType(indices);
  RankedTensorType rt = tensorType(op->getResult(0));
  int64_t rank = tt.getRank();
  if (!it.getElementType().isSignlessInteger() || it.getElementType().isInteger(1))
    return op->emitError() << "indices of type " << it << " are not supported (signless integers)";
  bool windowsInOrder = llvm::equal(m.windowDims, llvm::seq<int64_t>(0, rt.getRank()));
  SmallVector<Value> starts;
  bool mapValid =
      static_cast<int64_t>(sizes.size()) == rank && readStarts(e, indices, m, rank, starts);
  for (int64_t d : m.collapsedDims)
    mapValid &= d >= 0 && d < rank && sizes[d] == 1;
  if (!mapValid || !windowsInOrder)
    return op->emitError() << "a gather of one start vector is supported as one slice: "
                              "start_index_map naming distinct operand dims, one per index, "
                              "collapsed dims of size 1 and offset dims 0, 1, ... in order";
  FailureOr<Value> slice = dynamicSlice(op, e, table, starts, sizes);
  if (failed(slice))
    return failure();
  return Values{e.reshape(*slice, rt)};
}

/// A scatter of one window at one start vector: with `add` (the gradient
/// of a gather of one slice: jnp.median's pick of a sorted position),
/// `base` plus the window written at the start into zeros; otherwise
/// (`.at[i].set`) `base` with the window written there. `base` alone when
/// the window does not fit (StableHLO skips such an update).
FailureOr<Values> scatterOneSlice(Operation *op, OpEmitter &e, const IndexMap &m, bool add) {
  Value base = op->getOperand(0), indices = op->getOperand(1), updates = op->getOperand(2);
  RankedTensorType bt = tensorType(base), it = tensorType(indices), ut = tensorType(updates);
  int64_t rank = bt.getRank();
  if (!it.getElementType().isSignlessInteger() || it.getElementType().isInteger(1))
    return op->emitError() << "indices of type " << it << " are not supported (signless integers)";
  // The window: inserted dims of size 1, the others the update's, in order.
  SmallVector<int64_t> window;
  int64_t next = 0;
  bool valid = llvm::equal(m.windowDims, llvm::seq<int64_t>(0, ut.getRank()));
  for (int64_t d = 0; valid && d < rank; ++d) {
    if (llvm::is_contained(m.collapsedDims, d))
      window.push_back(1);
    else if (next < ut.getRank())
      window.push_back(ut.getDimSize(next++));
    else
      valid = false;
  }
  valid &= next == ut.getRank();
  SmallVector<Value> starts;
  valid = valid && readStarts(e, indices, m, rank, starts);
  for (int64_t d = 0; valid && d < rank; ++d)
    valid = window[d] <= bt.getDimSize(d);
  if (!valid)
    return op->emitError() << "a scatter of one start vector is supported as one window: "
                              "scatter_dims_to_operand_dims naming distinct operand dims, one "
                              "per index, inserted dims of size 1 and update window dims 0, "
                              "1, ... in order";
  auto wt = RankedTensorType::get(window, bt.getElementType());
  FailureOr<Value> placed =
      dynamicUpdateSlice(op, e, add ? splatOf(e, bt, 0) : base, e.reshape(updates, wt), starts);
  if (failed(placed))
    return failure();
  // In range along every indexed dim: 0 <= start <= dim - window.
  Value fits;
  for (int64_t d = 0; d < rank; ++d) {
    if (!starts[d])
      continue;
    RankedTensorType st = tensorType(starts[d]);
    Value lo = e.compare(ComparisonDirection::ge, starts[d], splatOf(e, st, 0));
    Value hi = e.compare(ComparisonDirection::le, starts[d],
                         splatOf(e, st, bt.getDimSize(d) - window[d]));
    Value both = AndOp::create(e.b, e.loc, lo.getType(), lo, hi);
    fits = fits ? AndOp::create(e.b, e.loc, both.getType(), fits, both).getResult() : both;
  }
  Value written = add ? e.add(base, *placed) : *placed;
  if (!fits)
    return Values{written};
  return Values{e.select(e.broadcastScalar(fits, RankedTensorType::get(bt.getShape(),
                                                                        e.b.getI1Type())),
                         written, base)};
}

/// The index dim along which `v` counts 0, 1, 2, ...: an iota, through
/// broadcasts, reshapes that add or drop unit dims, widening converts and
/// JAX's wrap of negative indices (`select(i < 0, i + n, i)`, which never
/// fires on an iota); nullopt otherwise.
std::optional<int64_t> iotaDim(Value v) {
  RankedTensorType t = tensorType(v);
  if (!t.getElementType().isSignlessInteger())
    return std::nullopt;
  if (auto iota = v.getDefiningOp<IotaOp>())
    return static_cast<int64_t>(iota.getDim());
  if (auto c = v.getDefiningOp<ConvertOp>()) {
    Type from = tensorType(c.getOperand()).getElementType();
    if (!from.isSignlessInteger() ||
        from.getIntOrFloatBitWidth() > t.getElementType().getIntOrFloatBitWidth())
      return std::nullopt;
    return iotaDim(c.getOperand());
  }
  if (auto b = v.getDefiningOp<BroadcastInDimOp>()) {
    std::optional<int64_t> d = iotaDim(b.getOperand());
    if (!d)
      return std::nullopt;
    int64_t to = b.getDims()[*d];
    if (tensorType(b.getOperand()).getDimSize(*d) != t.getDimSize(to))
      return std::nullopt;
    return to;
  }
  if (auto r = v.getDefiningOp<ReshapeOp>()) {
    RankedTensorType from = tensorType(r.getOperand());
    std::optional<int64_t> d = iotaDim(r.getOperand());
    auto nonUnit = [](RankedTensorType x) {
      SmallVector<int64_t> dims;
      for (int64_t i = 0; i < x.getRank(); ++i)
        if (x.getDimSize(i) != 1)
          dims.push_back(i);
      return dims;
    };
    SmallVector<int64_t> a = nonUnit(from), b = nonUnit(t);
    if (!d || from.getDimSize(*d) == 1 || a.size() != b.size() ||
        !llvm::all_of(llvm::zip(a, b), [&](auto p) {
          return from.getDimSize(std::get<0>(p)) == t.getDimSize(std::get<1>(p));
        }))
      return std::nullopt;
    return b[llvm::find(a, *d) - a.begin()];
  }
  if (auto s = v.getDefiningOp<SelectOp>()) {
    auto lt = s.getPred().getDefiningOp<CompareOp>();
    if (lt && lt.getDirection() == ComparisonDirection::lt && lt.getLhs() == s.getOnFalse() &&
        isSplat(lt.getRhs(), 0))
      return iotaDim(s.getOnFalse());
  }
  return std::nullopt;
}

/// A gather or scatter that reads or writes one element per batch
/// position (see the file comment): its index map with one start, in dim
/// `a`, every other operand dim batching, the indices holding that start,
/// and the position of a unit window dim kept for `a` (a vmapped `v[l]`),
/// which the one-hot form drops and adds back.
struct AlongBatch {
  IndexMap m;
  Value indices;
  std::optional<int64_t> unit;
};

bool takesAlongBatch(IndexMap &m, ArrayRef<int64_t> window, int64_t rank,
                     std::optional<int64_t> &unit) {
  if (m.indexMap.size() != 1 || static_cast<int64_t>(window.size()) != rank ||
      llvm::any_of(window, [](int64_t w) { return w != 1; }))
    return false;
  int64_t a = m.indexMap[0];
  if (a < 0 || a >= rank || !batchingCoversAllBut(m, rank, a))
    return false;
  if (m.collapsedDims == SmallVector<int64_t>{a})
    return m.windowDims.empty();
  if (!m.collapsedDims.empty() || m.windowDims.size() != 1)
    return false;
  unit = m.windowDims[0];
  m.windowDims.clear();
  m.collapsedDims = {a};
  return true;
}

/// `m` as one element per batch position, itself or with the starts that
/// are iotas over an index dim (of the indexed dim's size) made batching
/// dims; nullopt when neither is.
std::optional<AlongBatch> alongBatch(const IndexMap &m, Value operand, Value indices,
                                     ArrayRef<int64_t> window) {
  RankedTensorType ot = tensorType(operand), it = tensorType(indices);
  // Batching pairs of unequal sizes are for readAsRows to report.
  for (auto [o, i] : llvm::zip(m.operandBatching, m.indicesBatching))
    if (o < 0 || o >= ot.getRank() || i < 0 || i >= it.getRank() ||
        ot.getDimSize(o) != it.getDimSize(i))
      return std::nullopt;
  AlongBatch same{m, indices, std::nullopt};
  if (takesAlongBatch(same.m, window, ot.getRank(), same.unit))
    return same;
  int64_t ivd = m.indexVectorDim;
  auto cat = indices.getDefiningOp<ConcatenateOp>();
  if (ivd >= it.getRank() || !cat || cat.getDim() != ivd ||
      cat.getInputs().size() != m.indexMap.size() ||
      llvm::any_of(cat.getInputs(), [&](Value v) { return tensorType(v).getDimSize(ivd) != 1; }))
    return std::nullopt;
  AlongBatch absorbed{m, Value(), std::nullopt};
  absorbed.m.indexMap.clear();
  for (auto [j, d] : llvm::enumerate(m.indexMap)) {
    Value piece = cat.getInputs()[j];
    std::optional<int64_t> i = iotaDim(piece);
    bool batch = i && *i != ivd && d >= 0 && d < ot.getRank() &&
                 static_cast<int64_t>(window.size()) == ot.getRank() && window[d] == 1 &&
                 llvm::is_contained(m.collapsedDims, d) &&
                 !llvm::is_contained(absorbed.m.indicesBatching, *i) &&
                 it.getDimSize(*i) == ot.getDimSize(d);
    if (batch) {
      absorbed.m.operandBatching.push_back(d);
      absorbed.m.indicesBatching.push_back(*i);
      llvm::erase(absorbed.m.collapsedDims, d);
    } else {
      absorbed.m.indexMap.push_back(d);
      absorbed.indices = piece;
    }
  }
  if (absorbed.m.indexMap.size() != 1 || absorbed.m.operandBatching.size() == m.operandBatching.size() ||
      !takesAlongBatch(absorbed.m, window, ot.getRank(), absorbed.unit))
    return std::nullopt;
  return absorbed;
}

/// `t` without dim `unit`, if any.
RankedTensorType withoutUnit(RankedTensorType t, std::optional<int64_t> unit) {
  if (!unit)
    return t;
  SmallVector<int64_t> shape(t.getShape());
  shape.erase(shape.begin() + *unit);
  return RankedTensorType::get(shape, t.getElementType());
}

} // namespace

FailureOr<Values> importGather(Operation *op, OpEmitter &e) {
  std::optional<IndexMap> m = readIndexMap(op, "dimension_numbers", "gather", kGatherNames);
  std::optional<SmallVector<int64_t>> sizes =
      m ? readI64Array(op, "slice_sizes") : std::nullopt;
  if (!sizes)
    return failure();
  Value table = op->getOperand(0), indices = op->getOperand(1);
  if (singleStart(*m, tensorType(indices)))
    return gatherOneSlice(op, e, *m, *sizes);
  std::optional<AlongBatch> along = alongBatch(*m, table, indices, *sizes);
  if (!along) {
    FailureOr<RowsForm> f = readAsRows(op, e, table, indices, *m, *sizes, /*wantFits=*/false);
    if (failed(f))
      return failure();
    FailureOr<Value> rows = gatherRows(op, e, *f, *m);
    if (failed(rows))
      return failure();
    return Values{*rows};
  }
  // One element per batch position, as a one-hot sum (exact).
  RankedTensorType tt = tensorType(table), resultType = tensorType(op->getResult(0));
  RankedTensorType rt = withoutUnit(resultType, along->unit);
  FailureOr<Value> idx = scalarIndices(op, e, along->indices, along->m);
  if (failed(idx))
    return failure();
  int64_t a = along->m.indexMap[0], sRank = tensorType(*idx).getRank();
  int64_t c = tt.getDimSize(a);
  RankedTensorType it = tensorType(*idx);
  Value lo = splatOf(e, it, 0), hi = splatOf(e, it, c - 1);
  Value clamped = ClampOp::create(e.b, e.loc, it, lo, *idx, hi);
  Value hot = oneHot(e, clamped, c);
  auto wideType = RankedTensorType::get(tensorType(hot).getShape(), tt.getElementType());
  Value wide =
      broadcastAnyOrder(e, table, wideType, operandToOneHot(along->m, tt.getRank(), a, sRank));
  Value picked = e.select(hot, wide, splatOf(e, wideType, 0));
  Value sum = ReduceOp::create(e.b, e.loc, rt, ReductionKindAttr::get(e.b.getContext(),
                                                                       ReductionKind::sum),
                               picked, e.b.getDenseI64ArrayAttr({sRank}), UnitAttr());
  return Values{e.reshape(sum, resultType)};
}

namespace {

/// `base.at[idx].set(updates)` on whole rows, with the updates outside
/// `inRange` skipped: each row takes the update at the last index position
/// (row-major) that names it, as XLA's CPU scatter applies updates in
/// order. That position is a max-scatter of the positions (-1: none),
/// whose rows are then gathered from the updates.
Value scatterSetRows(OpEmitter &e, Value base, Value idx, Value inRange, Value updates) {
  RankedTensorType bt = tensorType(base), it = tensorType(idx), ut = tensorType(updates);
  int64_t positions = it.getNumElements(), v = bt.getDimSize(0);
  auto i64 = e.b.getI64Type();
  auto flatPositions = RankedTensorType::get({positions}, i64);
  Value position = e.reshape(IotaOp::create(e.b, e.loc, flatPositions, e.b.getI64IntegerAttr(0)),
                             it.clone(i64));
  Value none = splatOf(e, it.clone(i64), -1);
  Value kept = e.select(inRange, position, none);
  auto rowsType = RankedTensorType::get({v}, i64);
  Value last = ScatterReduceOp::create(e.b, e.loc, rowsType, ReductionKind::max,
                                       splatOf(e, rowsType, -1), idx, kept);
  SmallVector<int64_t> flatShape = {positions};
  llvm::append_range(flatShape, bt.getShape().drop_front());
  Value flatUpdates = e.reshape(updates, RankedTensorType::get(flatShape, ut.getElementType()));
  // gather clamps a row of -1 to 0; the select below drops it.
  Value picked = GatherOp::create(e.b, e.loc, bt, flatUpdates, last);
  Value written = e.compare(ComparisonDirection::ge, last, splatOf(e, rowsType, 0));
  Value writtenRows = e.broadcast(written, bt.clone(e.b.getI1Type()), {0});
  return e.select(writtenRows, picked, base);
}

/// A max- or min-scatter of booleans (`.at[ids].max` of a mask, or an OR,
/// AND or multiply body): an OR, or an AND, of each row's updates into
/// `base`.
/// garray's scatter_reduce takes numbers, so the updates become i8, false
/// -128 and true 127 (an update left out, its row out of range, is
/// false for an OR and true for an AND). They are scattered onto the
/// identity of the reduction (-128 for max, 127 for min), which lets the
/// scatter stay partial over a sharded index dim like a float segment_max
/// and be completed by one all-reduce of a byte per element, as XLA moves
/// the booleans; a row that no update names keeps the identity. The rows
/// are then compared with 0 and ORed, or ANDed, into `base`.
Value scatterBooleans(OpEmitter &e, ReductionKind kind, Value base, Value idx, Value keep,
                      Value updates) {
  RankedTensorType ut = tensorType(updates);
  Value kept = e.select(keep, updates, splatOf(e, ut, kind == ReductionKind::min ? 1 : 0));
  auto bytes = [&](RankedTensorType t) { return t.clone(e.b.getI8Type()); };
  Value wide = e.select(kept, splatOf(e, bytes(ut), 127), splatOf(e, bytes(ut), -128));
  RankedTensorType bt = bytes(tensorType(base));
  Value identity = filledConstant(e, bt, reductionIdentity(e.b, bt.getElementType(), kind));
  Value reduced = ScatterReduceOp::create(e.b, e.loc, bt, kind, identity, idx, wide);
  Value hit = e.compare(ComparisonDirection::gt, reduced, splatOf(e, bt, 0));
  if (kind == ReductionKind::max)
    return OrOp::create(e.b, e.loc, base, hit);
  return AndOp::create(e.b, e.loc, base, hit);
}

} // namespace

namespace {

/// The window of a scatter's updates per operand dim of `base`: 1 in the
/// inserted and batching dims, the updates' window dims in order in the
/// others.
FailureOr<SmallVector<int64_t>> scatterWindow(Operation *op, const IndexMap &m,
                                              RankedTensorType bt, RankedTensorType ut) {
  SmallVector<int64_t> window;
  size_t next = 0;
  for (int64_t d = 0; d < bt.getRank(); ++d) {
    if (llvm::is_contained(m.collapsedDims, d) || llvm::is_contained(m.operandBatching, d)) {
      window.push_back(1);
      continue;
    }
    if (next >= m.windowDims.size())
      break;
    int64_t p = m.windowDims[next++];
    if (p < 0 || p >= ut.getRank())
      break;
    window.push_back(ut.getDimSize(p));
  }
  if (static_cast<int64_t>(window.size()) != bt.getRank() || next != m.windowDims.size())
    return op->emitError() << "update_window_dims must name one dim of the updates for each "
                              "operand dim neither inserted nor batching";
  return window;
}

/// A scatter of one element per batch position: an add (the gradient of
/// take_along_axis) or, when each batch position has one index, a set
/// (`.at[jnp.arange(B), labels].set`); nullopt for other kinds.
std::optional<Value> scatterAlongBatch(OpEmitter &e, const AlongBatch &along, Value base,
                                       Value idx, Value updates, bool sets, ReductionKind kind) {
  RankedTensorType bt = tensorType(base);
  int64_t a = along.m.indexMap[0], sRank = tensorType(idx).getRank();
  SmallVector<int64_t> summed, kept;
  for (int64_t d = 0; d < sRank; ++d)
    (llvm::is_contained(along.m.indicesBatching, d) ? kept : summed).push_back(d);
  if (sets ? !summed.empty() : kind != ReductionKind::sum)
    return std::nullopt;
  updates = e.reshape(updates, withoutUnit(tensorType(updates), along.unit));
  int64_t c = bt.getDimSize(a);
  Value hot = oneHot(e, idx, c); // no clamp: an out-of-range index matches nothing
  auto wideType = RankedTensorType::get(tensorType(hot).getShape(), bt.getElementType());
  Value wide = e.broadcast(updates, wideType, llvm::to_vector(llvm::seq<int64_t>(0, sRank)));
  // Sum over the index dims that are not batching dims; what is left lines
  // up with the operand's batching dims (in index order) and then c.
  SmallVector<int64_t> keptShape;
  for (int64_t d : kept)
    keptShape.push_back(tensorType(hot).getDimSize(d));
  keptShape.push_back(c);
  auto keptType = RankedTensorType::get(keptShape, bt.getElementType());
  auto reduced = [&](Value v) -> Value {
    if (summed.empty())
      return e.reshape(v, RankedTensorType::get(keptShape, getElementTypeOrSelf(v.getType())));
    return ReduceOp::create(e.b, e.loc, keptType,
                            ReductionKindAttr::get(e.b.getContext(), ReductionKind::sum), v,
                            e.b.getDenseI64ArrayAttr(summed), UnitAttr())
        .getResult();
  };
  // Operand dim d sits at position perm[d] of the reduced one-hot.
  SmallVector<int64_t> toOneHot = operandToOneHot(along.m, bt.getRank(), a, sRank), perm;
  for (int64_t d = 0; d < bt.getRank(); ++d)
    perm.push_back(d == a ? static_cast<int64_t>(kept.size())
                          : llvm::find(kept, toOneHot[d]) - kept.begin());
  auto placed = [&](Value v) { return transposed(e, v, perm); };
  if (sets)
    return e.select(placed(reduced(hot)), placed(reduced(wide)), base);
  return e.add(base, placed(reduced(e.select(hot, wide, splatOf(e, wideType, 0)))));
}

/// A scatter through the rows form: updates whose window does not fit are
/// made no-ops, as StableHLO skips them.
FailureOr<Value> scatterRows(Operation *op, OpEmitter &e, const RowsForm &f, Value updates,
                             bool sets, std::optional<ReductionKind> kind) {
  Value table = f.table, rows = f.rows;
  RankedTensorType rt = tensorType(rows), ut = tensorType(updates);
  int64_t rowRank = rt.getRank();
  auto toRows = llvm::to_vector(llvm::seq<int64_t>(0, f.batchShape.size()));
  Value fits = e.broadcast(f.fits, rt.clone(e.b.getI1Type()), toRows);
  if (sets)
    return rowsAsOperand(op, e, f, scatterSetRows(e, table, rows, fits, updates));
  Value mask = e.broadcast(fits, ut.clone(e.b.getI1Type()),
                           llvm::to_vector(llvm::seq<int64_t>(0, rowRank)));
  Value scattered;
  if (*kind == ReductionKind::sum) {
    Value kept = e.select(mask, updates, splatOf(e, ut, 0));
    scattered = ScatterAddOp::create(e.b, e.loc, table.getType(), table, rows, kept);
  } else if (ut.getElementType().isInteger(1)) {
    scattered = scatterBooleans(e, *kind, table, rows, mask, updates);
  } else {
    Value identity = filledConstant(e, ut, reductionIdentity(e.b, ut.getElementType(), *kind));
    Value kept = e.select(mask, updates, identity);
    scattered = ScatterReduceOp::create(e.b, e.loc, table.getType(), *kind, table, rows, kept);
  }
  return rowsAsOperand(op, e, f, scattered);
}

} // namespace

FailureOr<Values> importScatter(Operation *op, OpEmitter &e) {
  std::optional<IndexMap> m =
      readIndexMap(op, "scatter_dimension_numbers", "scatter", kScatterNames);
  if (!m)
    return failure();
  if (op->getNumOperands() != 3 || op->getNumResults() != 1 || op->getNumRegions() != 1 ||
      !llvm::hasSingleElement(op->getRegion(0)))
    return op->emitError() << "a scatter of one operand with one body is supported";
  Value base = op->getOperand(0), indices = op->getOperand(1), updates = op->getOperand(2);
  RankedTensorType bt = tensorType(base);
  Block &body = op->getRegion(0).front();
  for (BlockArgument arg : body.getArguments())
    if (auto t = dyn_cast<RankedTensorType>(arg.getType()); !t || t.getRank() != 0)
      return op->emitError() << "the scatter body's arguments must be scalar tensors";
  // `.at[...].set`: the body returns the update. At one start vector the
  // window is written there (x.at[:, 0].set(0), a cache row at a runtime
  // position).
  bool sets = body.getNumArguments() == 2 && body.back().getNumOperands() == 1 &&
              body.back().getOperand(0) == body.getArgument(1);
  bool one = singleStart(*m, tensorType(indices));
  if (sets && one)
    return scatterOneSlice(op, e, *m, /*add=*/false);
  std::optional<ReductionKind> kind = combinerKind(body, bt.getElementType());
  if (!sets && !kind)
    return op->emitError() << "only add-, multiply-, max- and min-scatters (`.at[...].add`, "
                              "`.mul`, `.max`, `.min`, jax.ops.segment_sum/prod/max/min) and "
                              "sets (`.at[...].set`) are supported; this scatter's body does "
                              "something else";
  // A product of booleans is their AND (XLA's multiply of PRED).
  if (kind && *kind == ReductionKind::prod && bt.getElementType().isInteger(1))
    kind = ReductionKind::min;
  if (!sets && *kind == ReductionKind::sum && one)
    return scatterOneSlice(op, e, *m, /*add=*/true);
  FailureOr<SmallVector<int64_t>> window = scatterWindow(op, *m, bt, tensorType(updates));
  if (failed(window))
    return failure();
  if (std::optional<AlongBatch> along = alongBatch(*m, base, indices, *window)) {
    FailureOr<Value> idx = scalarIndices(op, e, along->indices, along->m);
    if (failed(idx))
      return failure();
    if (std::optional<Value> r = scatterAlongBatch(e, *along, base, *idx, updates, sets,
                                                   kind.value_or(ReductionKind::sum)))
      return Values{*r};
  }
  FailureOr<RowsForm> f = readAsRows(op, e, base, indices, *m, *window, /*wantFits=*/true);
  if (failed(f))
    return failure();
  FailureOr<Value> rowUpdates = updatesAsRows(op, e, *f, *m, updates);
  if (failed(rowUpdates))
    return failure();
  FailureOr<Value> r = scatterRows(op, e, *f, *rowUpdates, sets, kind);
  if (failed(r))
    return failure();
  return Values{*r};
}

} // namespace shardc::import
