//===- GlobalToLocal.cpp - garray-global-to-local -------------------------===//
//
// The one place types change. Keeps:
//   - every tensor's new type is its local shape under the ceil layout of
//     its sharding; compute ops keep their semantics on local shapes (their
//     rules guarantee the local shapes agree), so they are retyped in place;
//   - global collectives become comm ops whose groups come from the mesh
//     (Mesh::groups: members ordered as their shards concatenate);
//   - an op whose attributes name global extents rewrites them for its local
//     types through LocalizeOpInterface (e.g. a slice's limit on a whole,
//     sharded dim), so it still verifies on local shapes;
//   - values that depend on the device keep their global meaning: an iota
//     along a sharded dim adds its shard's global offset;
//   - afterwards no mesh, sharding or global collective remains (the next
//     pass, garray-verify-local, is the gate).
//
//===----------------------------------------------------------------------===//
#include "dialects/comm/Comm.h"
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"
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
      : func(func), mesh(mesh), core(core), writer(func.getContext()) {}

  LogicalResult run() {
    for (BlockArgument arg : func.getArguments()) {
      FailureOr<Type> t = localType(arg, func.getLoc(), "argument #" + std::to_string(arg.getArgNumber()));
      if (failed(t))
        return failure();
      arg.setType(*t);
    }
    LogicalResult ok = success();
    func.walk([&](Operation *op) {
      if (failed(ok))
        return;
      if (auto c = dyn_cast<AllReduceOp>(op))
        ok = replace(op, [&](OpBuilder &b, Type t) -> Operation * {
          auto [flat, size] = groups(c.getAxes());
          return comm::AllReduceOp::create(b, op->getLoc(), t, c.getKindAttr(), c.getOperand(),
                                           b.getDenseI64ArrayAttr(flat),
                                           b.getI64IntegerAttr(size));
        });
      else if (auto c = dyn_cast<AllGatherOp>(op))
        ok = replace(op, [&](OpBuilder &b, Type t) -> Operation * {
          auto [flat, size] = groups(c.getAxes());
          return comm::AllGatherOp::create(b, op->getLoc(), t, c.getOperand(), c.getDimAttr(),
                                           b.getDenseI64ArrayAttr(flat),
                                           b.getI64IntegerAttr(size));
        });
      else if (auto c = dyn_cast<AllSliceOp>(op))
        ok = replace(op, [&](OpBuilder &b, Type t) -> Operation * {
          auto [flat, size] = groups(c.getAxes());
          return comm::AllSliceOp::create(b, op->getLoc(), t, c.getOperand(), c.getDimAttr(),
                                          b.getDenseI64ArrayAttr(flat),
                                          b.getI64IntegerAttr(size));
        });
      else if (auto c = dyn_cast<ConstantOp>(op))
        ok = localizeConstant(c);
      else if (auto c = dyn_cast<IotaOp>(op))
        ok = localizeIota(c);
      else
        ok = retype(op);
    });
    if (failed(ok))
      return failure();
    func::ReturnOp ret;
    func.walk([&](func::ReturnOp r) {
      if (!ret)
        ret = r;
    });
    func.setType(FunctionType::get(func.getContext(), func.getBody().front().getArgumentTypes(),
                                   ret.getOperandTypes()));
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      func.removeArgAttr(i, kShardingAttrName);
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      func.removeResultAttr(i, StringAttr::get(func.getContext(), kShardingAttrName));
    return success();
  }

private:
  FailureOr<Type> localType(Value v, Location loc, const std::string &what) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    ShardingAttr s = getSharding(v);
    if (!t || !s)
      return v.getType();
    // A program has few distinct (type, sharding) pairs: compute each once.
    auto known = localTypes.find({t, s});
    if (known != localTypes.end())
      return known->second;
    shardc::TensorSharding core_s = *toCore(s, mesh, t.getRank());
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      int64_t parts = core.product(core_s.dims[d].axes);
      if (t.getDimSize(d) % parts != 0)
        return emitError(loc) << what << ": dim " << d << " of size " << t.getDimSize(d)
                              << " does not divide over its " << parts
                              << " shards; uneven shards are not supported yet";
      shape.push_back(t.getDimSize(d) / parts);
    }
    Type local = RankedTensorType::get(shape, t.getElementType());
    localTypes[{t, s}] = local;
    return local;
  }

  std::pair<SmallVector<int64_t>, int64_t> groups(ArrayAttr axes) {
    std::vector<int> list;
    for (Attribute a : axes)
      list.push_back(mesh.axisIndex(cast<StringAttr>(a).getValue()));
    SmallVector<int64_t> flat;
    auto gs = core.groups(list);
    for (auto &g : gs)
      flat.append(g.begin(), g.end());
    return {flat, gs.empty() ? 0 : static_cast<int64_t>(gs[0].size())};
  }

  LogicalResult replace(Operation *op, function_ref<Operation *(OpBuilder &, Type)> build) {
    FailureOr<Type> t = localType(op->getResult(0), op->getLoc(), "result");
    if (failed(t))
      return failure();
    OpBuilder b(op);
    Operation *created = build(b, *t);
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
    FailureOr<Type> local = localType(c.getResult(), c.getLoc(), "constant");
    if (failed(local))
      return failure();
    c->removeAttr(kShardingAttrName);
    if (!s || *local == c.getType())
      return success();
    auto value = cast<DenseElementsAttr>(c.getValue());
    if (value.isSplat()) {
      c.setValueAttr(DenseElementsAttr::get(cast<ShapedType>(*local),
                                            value.getSplatValue<Attribute>()));
      c.getResult().setType(cast<RankedTensorType>(*local));
      return success();
    }
    shardc::TensorSharding core_s = *toCore(s, mesh, c.getType().getRank());
    OpBuilder b(c);
    b.setInsertionPointAfter(c);
    Value cur = c.getResult();
    SmallVector<int64_t> shape(c.getType().getShape());
    for (size_t d = 0; d < core_s.dims.size(); ++d) {
      const std::vector<int> &axes = core_s.dims[d].axes;
      if (axes.empty())
        continue;
      shape[d] /= core.product(axes);
      SmallVector<int64_t> flat;
      auto gs = core.groups(axes);
      for (auto &g : gs)
        flat.append(g.begin(), g.end());
      auto type = RankedTensorType::get(shape, c.getType().getElementType());
      cur = comm::AllSliceOp::create(b, c.getLoc(), type, cur, b.getI64IntegerAttr(d),
                                     b.getDenseI64ArrayAttr(flat),
                                     b.getI64IntegerAttr(gs[0].size()));
    }
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

  /// The first all_slice in the chain ending at `last` that reads `c`.
  static Operation *firstSliceOf(Value last, ConstantOp c) {
    Operation *op = last.getDefiningOp();
    while (op->getOperand(0).getDefiningOp() != c)
      op = op->getOperand(0).getDefiningOp();
    return op;
  }

  LogicalResult retype(Operation *op) {
    for (OpResult r : op->getResults()) {
      FailureOr<Type> t =
          localType(r, op->getLoc(), "result #" + std::to_string(r.getResultNumber()));
      if (failed(t))
        return failure();
      r.setType(*t);
    }
    writer.remove(op);
    // Attributes that name global extents (a slice's limit) follow the types.
    if (auto localize = dyn_cast<LocalizeOpInterface>(op))
      return localize.localizeAttributes();
    return success();
  }

  func::FuncOp func;
  MeshOp mesh;
  const shardc::Mesh &core;
  shardc::ShardingWriter writer; // drops garray.sharding without re-uniquing per op
  llvm::DenseMap<std::pair<Type, Attribute>, Type> localTypes;
};

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
      func.walk([&](Operation *op) {
        if (auto s = op->getAttrOfType<ShardingAttr>(kShardingAttrName); s && !mesh)
          mesh = lookupMesh(func, s.getMesh());
      });
      if (!mesh)
        continue;
      FailureOr<shardc::Mesh> core = toCoreMesh(mesh);
      if (failed(core) || failed(FunctionToLocal(func, mesh, *core).run()))
        return signalPassFailure();
    }
    for (MeshOp mesh : llvm::make_early_inc_range(module.getOps<MeshOp>()))
      mesh.erase();
  }
};
} // namespace
