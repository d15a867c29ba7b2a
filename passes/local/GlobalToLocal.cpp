//===- GlobalToLocal.cpp - garray-global-to-local -------------------------===//
//
// The one place types change. Keeps:
//   - every tensor's new type is its local shape under the ceil layout of
//     its sharding; compute ops keep their semantics on local shapes (their
//     rules guarantee the local shapes agree), so they are retyped in place;
//   - global collectives become comm ops whose groups come from the mesh
//     (Mesh::groups: members ordered as their shards concatenate), or
//     their operand when each group has one member;
//   - an op whose attributes name global extents rewrites them for its local
//     types through LocalizeOpInterface (e.g. a slice's limit on a whole,
//     sharded dim), so it still verifies on local shapes;
//   - values that depend on the device keep their global meaning: an iota
//     along a sharded dim adds its shard's global offset;
//   - uneven shards (ceil layout) never let padding reach a result: an
//     operand read by a sharded Reduction factor is masked with the
//     reduction's identity, a full all_gather keeps the valid prefix, an
//     all_slice pads before it slices (UnevenShards.h);
//   - a garray.shard_map, whose operands now have its body's block types,
//     is replaced by its body (InlineShardMaps.h);
//   - afterwards no mesh, sharding or global collective remains (the next
//     pass, garray-verify-local, is the gate).
//
//===----------------------------------------------------------------------===//
#include "dialects/comm/Comm.h"
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"
#include "passes/local/InlineShardMaps.h"
#include "passes/local/LocalizeShift.h"
#include "passes/local/UnevenShards.h"
#include "passes/ShardingWriter.h"

#include "mlir/IR/Builders.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYGLOBALTOLOCAL
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {

class FunctionToLocal {
public:
  FunctionToLocal(func::FuncOp func, MeshOp mesh, const shardc::Mesh &core)
      : func(func), mesh(mesh), core(core), writer(func.getContext(), /*dropGroups=*/true) {}

  LogicalResult run() {
    // Masks are planned while the program is still global (shardings and
    // global shapes on every value) and applied as each op is localized.
    DenseMap<Operation *, SmallVector<shardc::PaddingMask>> masks;
    shardc::EvenSplitMemo even;
    // Most programs split every dim evenly: one look at each value says
    // no op needs a mask, where planning looks at every use.
    auto plan = [&](Operation *op) {
      FailureOr<SmallVector<shardc::PaddingMask>> m =
          shardc::planPaddingMasks(op, mesh, core, &even);
      if (failed(m))
        return WalkResult::interrupt();
      if (!m->empty())
        masks[op] = std::move(*m);
      return WalkResult::advance();
    };
    WalkResult planned = shardc::allSplitEvenly(func, mesh, core, even) ? WalkResult::advance()
                                                                        : func.walk(plan);
    if (planned.wasInterrupted())
      return failure();
    for (BlockArgument arg : func.getArguments())
      arg.setType(localType(arg));
    LogicalResult ok = success();
    func::ReturnOp ret; // the first return, for the function type
    func.walk([&](Operation *op) {
      if (failed(ok))
        return;
      if (auto r = dyn_cast<func::ReturnOp>(op); r && !ret)
        ret = r;
      if (auto it = masks.find(op); it != masks.end()) {
        OpBuilder b(op);
        for (const shardc::PaddingMask &m : it->second)
          op->setOperand(m.operand, shardc::maskPadding(b, op->getLoc(),
                                                        op->getOperand(m.operand), m));
        masks.erase(it);
      }
      // A collective of zero elements moves nothing (and its uneven crop
      // would be an empty slice): its local result is an empty constant.
      if (isGlobalCollective(op) &&
          cast<RankedTensorType>(op->getResult(0).getType()).getNumElements() == 0)
        ok = replace(op, [&](OpBuilder &b, Type t) -> Operation * {
          return ConstantOp::create(
              b, op->getLoc(), DenseElementsAttr::get(cast<ShapedType>(t), ArrayRef<Attribute>()));
        });
      // Over mesh axes of size 1 (a "model" axis of 1 on a data x model
      // mesh), each group has one member: every device's result is its
      // operand, and a collective would only copy it and hold up the work
      // after it.
      else if (inGroupsOfOne(op) && localType(op->getResult(0)) == op->getOperand(0).getType()) {
        op->getResult(0).replaceAllUsesWith(op->getOperand(0));
        op->erase();
      } else if (auto c = dyn_cast<AllReduceOp>(op))
        ok = replace(op, [&](OpBuilder &b, Type t) -> Operation * {
          auto [flat, size] = groups(c.getAxes());
          return comm::AllReduceOp::create(b, op->getLoc(), t, c.getKindAttr(), c.getOperand(),
                                           b.getDenseI64ArrayAttr(flat),
                                           b.getI64IntegerAttr(size));
        });
      else if (auto c = dyn_cast<AllGatherOp>(op))
        ok = localizeAllGather(c);
      else if (auto c = dyn_cast<AllSliceOp>(op))
        ok = localizeAllSlice(c);
      else if (auto c = dyn_cast<ReduceScatterOp>(op))
        ok = replace(op, [&](OpBuilder &b, Type t) -> Operation * {
          auto [flat, size] = groups(c.getAxes());
          return comm::ReduceScatterOp::create(b, op->getLoc(), t, c.getKindAttr(),
                                               c.getOperand(), c.getDimAttr(),
                                               b.getDenseI64ArrayAttr(flat),
                                               b.getI64IntegerAttr(size));
        });
      else if (auto c = dyn_cast<AllToAllOp>(op))
        ok = replace(op, [&](OpBuilder &b, Type t) -> Operation * {
          auto [flat, size] = groups(c.getAxes());
          return comm::AllToAllOp::create(b, op->getLoc(), t, c.getOperand(),
                                          c.getSplitDimAttr(), c.getConcatDimAttr(),
                                          b.getDenseI64ArrayAttr(flat),
                                          b.getI64IntegerAttr(size));
        });
      else if (auto c = dyn_cast<CollectivePermuteOp>(op))
        ok = replace(op, [&](OpBuilder &b, Type t) -> Operation * {
          return comm::CollectivePermuteOp::create(b, op->getLoc(), t, c.getOperand(),
                                                   c.getPairsAttr());
        });
      else if (auto c = dyn_cast<ConstantOp>(op))
        ok = localizeConstant(c);
      else if (auto c = dyn_cast<IotaOp>(op))
        ok = localizeIota(c);
      else if (auto c = dyn_cast<ShiftOp>(op))
        ok = localizeShiftOp(c);
      else
        ok = retype(op);
    });
    if (failed(ok))
      return failure();
    func.setType(FunctionType::get(func.getContext(), func.getBody().front().getArgumentTypes(),
                                   ret.getOperandTypes()));
    // All at once: removing one argument's at a time rewrites every
    // argument's dictionary each time (ShardingWriter.h).
    writer.setArguments(func, SmallVector<Attribute>(func.getNumArguments()));
    writer.setResults(func, SmallVector<Attribute>(func.getNumResults()));
    return success();
  }

private:
  /// `v`'s type on one device: its padded block under the ceil layout
  /// (shardc::localShape), which every sharding has.
  Type localType(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    ShardingAttr s = getSharding(v);
    if (!t || !s)
      return v.getType();
    // A program has few distinct (type, sharding) pairs, and neighbours
    // repeat one: compute each once, and look again only for a new pair.
    if (t == lastGlobal.first && s == lastGlobal.second)
      return lastLocal;
    auto [it, inserted] = localTypes.try_emplace({t, s}, Type());
    if (inserted)
      it->second = RankedTensorType::get(
          shardc::localShape(t.getShape().vec(), *toCore(s, mesh, t.getRank()), core),
          t.getElementType());
    lastGlobal = {t, s};
    lastLocal = it->second;
    return it->second;
  }

  /// The device groups of a collective over mesh axes `axes` (indices), as
  /// the comm ops take them: every group's members in one list, and the
  /// size of a group.
  std::pair<SmallVector<int64_t>, int64_t> groups(const std::vector<int> &axes) {
    SmallVector<int64_t> flat;
    auto gs = core.groups(axes);
    for (auto &g : gs)
      flat.append(g.begin(), g.end());
    return {flat, gs.empty() ? 0 : static_cast<int64_t>(gs[0].size())};
  }
  std::pair<SmallVector<int64_t>, int64_t> groups(ArrayAttr axes) {
    std::vector<int> list;
    for (Attribute a : axes)
      list.push_back(mesh.axisIndex(cast<StringAttr>(a).getValue()));
    return groups(list);
  }

  /// Whether `op` is a global collective other than a permute whose groups
  /// have one member each.
  bool inGroupsOfOne(Operation *op) {
    auto axes = op->getAttrOfType<ArrayAttr>("axes");
    return isGlobalCollective(op) && !isa<CollectivePermuteOp>(op) && axes &&
           groups(axes).second == 1;
  }

  LogicalResult replace(Operation *op, function_ref<Operation *(OpBuilder &, Type)> build) {
    OpBuilder b(op);
    Operation *created = build(b, localType(op->getResult(0)));
    if (Attribute reason = op->getAttr("reason"))
      created->setAttr("reason", reason);
    op->replaceAllUsesWith(created);
    op->erase();
    return success();
  }

  // A sharded constant never moves data: a splat becomes a local splat; any
  // other value is materialised whole and each device keeps its blocks.
  LogicalResult localizeConstant(ConstantOp c) {
    ShardingAttr s = getSharding(c.getResult());
    Type local = localType(c.getResult());
    c->removeAttr(kShardingAttrName);
    if (!s || local == c.getType())
      return success();
    auto value = cast<DenseElementsAttr>(c.getValue());
    if (value.empty()) { // no elements, no blocks to keep
      c.setValueAttr(DenseElementsAttr::get(cast<ShapedType>(local), ArrayRef<Attribute>()));
      c.getResult().setType(cast<RankedTensorType>(local));
      return success();
    }
    if (value.isSplat()) {
      c.setValueAttr(DenseElementsAttr::get(cast<ShapedType>(local),
                                            value.getSplatValue<Attribute>()));
      c.getResult().setType(cast<RankedTensorType>(local));
      return success();
    }
    shardc::TensorSharding core_s = *toCore(s, mesh, c.getType().getRank());
    OpBuilder b(c);
    b.setInsertionPointAfter(c);
    Value cur = c.getResult();
    for (size_t d = 0; d < core_s.dims.size(); ++d)
      if (!core_s.dims[d].axes.empty())
        cur = sliceWholeDim(b, c.getLoc(), cur, d, core_s.dims[d].axes);
    c.getResult().replaceAllUsesExcept(cur, cur.getDefiningOp() == c ? nullptr
                                                                     : firstSliceOf(cur, c));
    return success();
  }

  // An iota counts from 0 on every device; indices must stay global, so where
  // its `dim` is sharded each device adds its shard's global start, read from
  // a per-device table (comm.device_value) and broadcast.
  LogicalResult localizeIota(IotaOp iota) {
    ShardingAttr s = getSharding(iota.getResult());
    if (failed(retype(iota)))
      return failure();
    if (!s)
      return success();
    auto local = cast<RankedTensorType>(iota.getType());
    int64_t dim = iota.getDim();
    shardc::TensorSharding core_s = *toCore(s, mesh, local.getRank());
    const std::vector<int> &axes = core_s.dims[dim].axes;
    if (axes.empty())
      return success();
    SmallVector<int64_t> offsets;
    for (int64_t d = 0, n = core.deviceCount(); d < n; ++d)
      offsets.push_back(core.indexInGroup(d, axes) * local.getDimSize(dim));
    OpBuilder b(iota);
    b.setInsertionPointAfter(iota);
    Location loc = iota.getLoc();
    auto scalar = RankedTensorType::get({}, local.getElementType());
    Value offset = comm::DeviceValueOp::create(b, loc, scalar, b.getDenseI64ArrayAttr(offsets));
    Value spread = BroadcastInDimOp::create(b, loc, local, offset, b.getDenseI64ArrayAttr({}));
    Value global = AddOp::create(b, loc, iota.getResult(), spread);
    iota.getResult().replaceAllUsesExcept(global, global.getDefiningOp());
    return success();
  }

  // A shift along a sharded dim exchanges halos (passes/local/LocalizeShift.h).
  LogicalResult localizeShiftOp(ShiftOp shift) {
    ShardingAttr s = getSharding(shift.getResult());
    int64_t globalSize = shift.getType().getDimSize(shift.getDim());
    if (failed(retype(shift)))
      return failure();
    if (!s)
      return success();
    shardc::TensorSharding core_s = *toCore(s, mesh, shift.getType().getRank());
    const std::vector<int> &axes = core_s.dims[shift.getDim()].axes;
    if (axes.empty())
      return success();
    return shardc::localizeShift(shift, axes, core, globalSize);
  }

  /// Keeps this device's block of the whole dim `dim` of `whole` over
  /// `axes`: pads the dim to k * ceil(n/k) (zeros; the padding is never
  /// read, UnevenShards.h) and lets comm.all_slice keep block i.
  Value sliceWholeDim(OpBuilder &b, Location loc, Value whole, int64_t dim,
                      const std::vector<int> &axes) {
    auto type = cast<RankedTensorType>(whole.getType());
    int64_t n = type.getDimSize(dim), k = core.product(axes), s = shardc::shardSize(n, k);
    Value cur = padDim(b, loc, whole, dim, k * s);
    auto [flat, size] = groups(axes);
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] = s;
    return comm::AllSliceOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()),
                                    cur, b.getI64IntegerAttr(dim), b.getDenseI64ArrayAttr(flat),
                                    b.getI64IntegerAttr(size));
  }

  /// `v` with dim `dim` grown to `size` by zeros at the end (or `v`).
  static Value padDim(OpBuilder &b, Location loc, Value v, int64_t dim, int64_t size) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getDimSize(dim) == size)
      return v;
    SmallVector<int64_t> low(type.getRank(), 0), high(type.getRank(), 0), shape(type.getShape());
    high[dim] = size - type.getDimSize(dim);
    shape[dim] = size;
    auto scalar = RankedTensorType::get({}, type.getElementType());
    Value zero = ConstantOp::create(
        b, loc, DenseElementsAttr::get(scalar, b.getZeroAttr(type.getElementType())));
    return PadOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), v, zero,
                         b.getDenseI64ArrayAttr(low), b.getDenseI64ArrayAttr(high));
  }

  /// Axes of dim `dim` of a global value (none when it is whole).
  std::vector<int> axesOf(Value globalValue, int64_t dim) {
    ShardingAttr s = getSharding(globalValue);
    if (!s)
      return {};
    auto t = cast<RankedTensorType>(globalValue.getType());
    return toCore(s, mesh, t.getRank())->dims[dim].axes;
  }

  /// The valid elements [0, n) of a dim from its padded blocks over `axes`:
  /// comm.all_gather of the blocks (the ceil layout puts the valid elements
  /// first), then a slice when the blocks were padded.
  Value gatherWholeDim(OpBuilder &b, Location loc, Value local, int64_t dim, int64_t n,
                       const std::vector<int> &axes) {
    auto type = cast<RankedTensorType>(local.getType());
    auto [flat, size] = groups(axes);
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] *= size;
    Value cur = comm::AllGatherOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()),
                                          local, b.getI64IntegerAttr(dim),
                                          b.getDenseI64ArrayAttr(flat), b.getI64IntegerAttr(size));
    if (shape[dim] == n)
      return cur;
    SmallVector<int64_t> start(shape.size(), 0), limit(shape), strides(shape.size(), 1);
    limit[dim] = n;
    shape[dim] = n;
    return SliceOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), cur,
                           b.getDenseI64ArrayAttr(start), b.getDenseI64ArrayAttr(limit),
                           b.getDenseI64ArrayAttr(strides));
  }

  /// Moves dim `dim` (global size n) from blocks over `from` to blocks over
  /// `to` through the whole dim: gather it (keeping [0, n)), then slice it
  /// (padded to k * ceil(n/k)). Used where uneven blocks do not nest (5 over
  /// ("data", "model") = 2x2 is blocks of 2; over "data" blocks of 3), so a
  /// partial gather or slice would misplace elements; it moves more data than
  /// the partial collective would.
  Value throughWholeDim(OpBuilder &b, Location loc, Value local, int64_t dim, int64_t n,
                        const std::vector<int> &from, const std::vector<int> &to) {
    Value cur = from.empty() ? local : gatherWholeDim(b, loc, local, dim, n, from);
    return to.empty() ? cur : sliceWholeDim(b, loc, cur, dim, to);
  }

  // Gathering padded blocks: the group's blocks concatenate to g * s_in
  // elements. That is exact when the blocks nest (g * s_in = s_out, always
  // for dims that divide) and, for a full gather, after keeping the valid
  // prefix [0, n); otherwise the dim goes through its whole form.
  LogicalResult localizeAllGather(AllGatherOp c) {
    auto [flat, size] = groups(c.getAxes());
    int64_t dim = c.getDim();
    auto in = cast<RankedTensorType>(c.getOperand().getType()); // already local
    int64_t n = c.getType().getDimSize(dim);
    std::vector<int> to = axesOf(c.getResult(), dim), from = to, gathered;
    for (Attribute a : c.getAxes())
      gathered.push_back(mesh.axisIndex(cast<StringAttr>(a).getValue()));
    from.insert(from.end(), gathered.begin(), gathered.end());
    int64_t sOut = shardc::shardSize(n, core.product(to)), concat = in.getDimSize(dim) * size;
    OpBuilder b(c);
    Location loc = c.getLoc();
    Value cur;
    if (concat == sOut || to.empty())
      cur = gatherWholeDim(b, loc, c.getOperand(), dim, concat == sOut ? sOut : n, gathered);
    else
      cur = throughWholeDim(b, loc, c.getOperand(), dim, n, from, to);
    // The first collective created carries the reshard's reason.
    if (Attribute reason = c->getAttr("reason"))
      for (Operation *op = cur.getDefiningOp(); op; op = op->getOperand(0).getDefiningOp())
        if (isa<comm::AllGatherOp>(op)) {
          op->setAttr("reason", reason);
          break;
        }
    c.getResult().replaceAllUsesWith(cur);
    c.erase();
    return success();
  }

  // Slicing: a whole dim is padded to g * s_out first; a dim already split is
  // sliced further when the blocks nest (s_in = g * s_out), else it goes
  // through its whole form.
  LogicalResult localizeAllSlice(AllSliceOp c) {
    auto [flat, size] = groups(c.getAxes());
    int64_t dim = c.getDim();
    auto in = cast<RankedTensorType>(c.getOperand().getType()); // already local
    int64_t n = c.getType().getDimSize(dim);
    // The planner slices over minor axes: `to` is the operand's axes, then
    // the op's.
    std::vector<int> to = axesOf(c.getResult(), dim);
    if (to.size() < c.getAxes().size())
      return c.emitError() << "all_slice over " << c.getAxes() << " of a dim placed over "
                           << to.size() << " axes";
    std::vector<int> from(to.begin(), to.begin() + (to.size() - c.getAxes().size()));
    int64_t sOut = shardc::shardSize(n, core.product(to));
    OpBuilder b(c);
    Location loc = c.getLoc();
    Operation *created;
    if (in.getDimSize(dim) == sOut * size || from.empty()) {
      Value padded = padDim(b, loc, c.getOperand(), dim, sOut * size);
      auto out = cast<RankedTensorType>(localType(c.getResult()));
      created = comm::AllSliceOp::create(b, loc, out, padded, c.getDimAttr(),
                                         b.getDenseI64ArrayAttr(flat), b.getI64IntegerAttr(size));
    } else {
      created = throughWholeDim(b, loc, c.getOperand(), dim, n, from, to).getDefiningOp();
    }
    if (Attribute reason = c->getAttr("reason"))
      created->setAttr("reason", reason);
    c.getResult().replaceAllUsesWith(created->getResult(0));
    c.erase();
    return success();
  }

  /// The first all_slice in the chain ending at `last` that reads `c`.
  static Operation *firstSliceOf(Value last, ConstantOp c) {
    Operation *op = last.getDefiningOp();
    while (op->getOperand(0).getDefiningOp() != c)
      op = op->getOperand(0).getDefiningOp();
    return op;
  }

  LogicalResult retype(Operation *op) {
    for (OpResult r : op->getResults())
      r.setType(localType(r));
    writer.remove(op);
    // Attributes that name global extents (a slice's limit) follow the types.
    // Whether an op kind has any is asked of its interface map once per
    // run of ops of that kind.
    if (op->getName() != lastRetyped) {
      lastRetyped = op->getName();
      lastLocalizes = isa<LocalizeOpInterface>(op);
    }
    if (lastLocalizes)
      return cast<LocalizeOpInterface>(op).localizeAttributes();
    return success();
  }

  func::FuncOp func;
  MeshOp mesh;
  const shardc::Mesh &core;
  shardc::ShardingWriter writer; // drops garray.sharding (and groups) without re-uniquing per op
  llvm::DenseMap<std::pair<Type, Attribute>, Type> localTypes;
  std::pair<Type, Attribute> lastGlobal; // localType's last answer
  Type lastLocal;
  std::optional<OperationName> lastRetyped; // retype's last op kind
  bool lastLocalizes = false;
};

/// Removes every `garray.sharding_group` of `func` (arguments and ops).
void dropGroups(func::FuncOp func) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, kGroupAttrName))
      func.removeArgAttr(i, kGroupAttrName);
  func.walk([&](Operation *op) { op->removeAttr(kGroupAttrName); });
}

struct GlobalToLocal : shardc::impl::GArrayGlobalToLocalBase<GlobalToLocal> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      MeshOp mesh;
      for (unsigned i = 0; i < func.getNumArguments() && !mesh; ++i)
        if (auto s = func.getArgAttrOfType<ShardingAttr>(i, kShardingAttrName))
          mesh = lookupMesh(func, s.getMesh());
      // Arguments name the mesh in most programs; only otherwise is the body
      // searched, up to the first placed op.
      if (!mesh)
        func.walk([&](Operation *op) {
          if (auto s = op->getAttrOfType<ShardingAttr>(kShardingAttrName))
            if ((mesh = lookupMesh(func, s.getMesh())))
              return WalkResult::interrupt();
          return WalkResult::advance();
        });
      if (!mesh) {
        // Nothing placed (no annotation reached it): its values are
        // already local, but a sharding group on them belongs to the global
        // program too.
        dropGroups(func);
        continue;
      }
      FailureOr<shardc::Mesh> core = toCoreMesh(mesh);
      if (failed(core) || failed(FunctionToLocal(func, mesh, *core).run()))
        return signalPassFailure();
    }
    if (failed(shardc::inlineShardMaps(module)))
      return signalPassFailure();
    for (MeshOp mesh : llvm::make_early_inc_range(module.getOps<MeshOp>()))
      mesh.erase();
  }
};
} // namespace
