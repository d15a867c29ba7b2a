//===- ReadCollectives.cpp - collectives, halos and uneven gathers --------===//
#include "compiler/report/ReadCollectives.h"

#include "compiler/report/ReadSignature.h"
#include "dialects/comm/Comm.h"
#include "dialects/garray/GArray.h"
#include "sharding/Halo.h"
#include "sharding/ReshardPlan.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using mlir::garray::locationText;

namespace shardc {
namespace {

/// The permutes global-to-local will emit for a shift along a sharded dim
/// (sharding/Halo.h), recorded before they exist.
void readHalo(garray::ShiftOp shift, Signature &sig, const std::string &within) {
  auto type = cast<RankedTensorType>(shift.getType());
  garray::ShardingAttr a = garray::getSharding(shift.getResult());
  garray::MeshOp meshOp = a ? garray::lookupMesh(shift, a.getMesh()) : garray::MeshOp();
  if (!meshOp)
    return;
  FailureOr<TensorSharding> core = garray::toCore(a, meshOp, type.getRank());
  if (failed(core))
    return;
  int64_t dim = shift.getDim();
  const std::vector<int> &axes = core->dims[dim].axes;
  int64_t k = sig.mesh.product(axes);
  if (axes.empty() || k == 1)
    return;
  std::vector<int64_t> shape =
      localShape({type.getShape().begin(), type.getShape().end()}, *core, sig.mesh);
  for (const HaloPiece &p : haloPieces(shape[dim], shift.getOffset())) {
    if (p.distance == 0 || p.distance >= k || -p.distance >= k)
      continue;
    CollectiveRecord c;
    c.kind = "collective_permute";
    c.location = locationText(shift.getLoc());
    c.within = within;
    for (int axis : axes)
      c.axes.push_back(sig.mesh.axes[axis]);
    c.groupSize = k;
    c.reason = haloReason(dim, shift.getOffset(), p);
    llvm::raw_string_ostream os(c.valueType);
    os << type;
    std::vector<int64_t> piece = shape;
    piece[dim] = p.size;
    c.localInType = c.localOutType = localTypeText(piece, type.getElementType(), c.localInBytes);
    c.localOutBytes = c.bytesPerDevice = c.localInBytes;
    sig.collectives.push_back(std::move(c));
  }
}

/// The mesh axes whose groups `flat` (groups of `size`) are, or {} when
/// they are groups of no set of axes (a body may group devices freely).
std::vector<std::string> axesOfGroups(ArrayRef<int64_t> flat, int64_t size, const Mesh &mesh) {
  size_t n = mesh.axes.size();
  for (uint64_t set = 1; set < (uint64_t(1) << n) && n < 16; ++set) {
    std::vector<int> axes;
    for (size_t a = 0; a < n; ++a)
      if (set >> a & 1)
        axes.push_back(static_cast<int>(a));
    if (mesh.product(axes) != size)
      continue;
    std::vector<int64_t> want;
    for (const std::vector<int64_t> &g : mesh.groups(axes))
      want.insert(want.end(), g.begin(), g.end());
    if (llvm::equal(want, flat)) {
      std::vector<std::string> names;
      for (int a : axes)
        names.push_back(mesh.axes[a]);
      return names;
    }
  }
  return {};
}

/// The collectives a garray.shard_map's body issues itself (comm ops on
/// its blocks), each once per run of the shard_map, with bytes per device
/// by the same ring model as the planner's.
void readShardMap(garray::ShardMapOp map, Signature &sig, const std::string &within) {
  auto body =
      SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(map, map.getBodyAttr());
  if (!body)
    return;
  std::string where = "@" + body.getSymName().str() + " (the shard_map at " +
                      locationText(map.getLoc()) + ")" + (within.empty() ? "" : " in " + within);
  body.walk([&](Operation *op) {
    if (op->getName().getDialectNamespace() != "comm" ||
        isa<comm::DeviceValueOp, comm::AllSliceOp>(op))
      return;
    CollectiveRecord c;
    c.kind = op->getName().stripDialect().str();
    if (auto kind = op->getAttrOfType<garray::ReductionKindAttr>("kind"))
      c.reduction = garray::stringifyReductionKind(kind.getValue()).str();
    c.location = locationText(op->getLoc());
    c.within = where;
    c.reason = "written in the shard_map's body";
    auto in = cast<RankedTensorType>(op->getOperand(0).getType());
    auto out = cast<RankedTensorType>(op->getResult(0).getType());
    auto text = [](RankedTensorType t, int64_t &bytes) {
      return localTypeText({t.getShape().begin(), t.getShape().end()}, t.getElementType(),
                           bytes);
    };
    c.localInType = text(in, c.localInBytes);
    c.localOutType = text(out, c.localOutBytes);
    c.valueType = c.localInType;
    using Kind = CollectiveStep::Kind;
    Kind kind = isa<comm::AllReduceOp>(op)       ? Kind::AllReduce
                : isa<comm::AllGatherOp>(op)     ? Kind::AllGather
                : isa<comm::ReduceScatterOp>(op) ? Kind::ReduceScatter
                : isa<comm::AllToAllOp>(op)      ? Kind::AllToAll
                                                 : Kind::CollectivePermute;
    c.groupSize = 2; // a permute: a source and its target
    if (kind != Kind::CollectivePermute) {
      auto flat = op->getAttrOfType<DenseI64ArrayAttr>("groups");
      c.groupSize = op->getAttrOfType<IntegerAttr>("group_size").getInt();
      c.axes = axesOfGroups(flat.asArrayRef(), c.groupSize, sig.mesh);
      if (c.groupSize == 1)
        return;
    }
    c.bytesPerDevice = ringBytes(kind, c.groupSize, c.localInBytes, c.localOutBytes);
    sig.collectives.push_back(std::move(c));
  });
}

/// Uneven dims (ceil layout) change what global-to-local emits for a gather
/// or slice (passes/local/GlobalToLocal.cpp, localizeAllGather/AllSlice):
/// an all_gather concatenates padded blocks (`in` times the group), so its
/// local result is that, cropped afterwards; where blocks do not nest, the
/// dim goes through its whole form: a gather over every axis the operand
/// splits it on, then a free slice. This rewrites `c` to the comm op's local
/// types and bytes, and returns the extra gather a slice then needs.
std::optional<CollectiveRecord> unevenGather(Operation *op, garray::MeshOp meshOp,
                                             CollectiveRecord &c, const Signature &sig) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  auto coreOf = [&](Value v) {
    TensorSharding core = TensorSharding::replicated(type.getRank());
    if (garray::ShardingAttr a = garray::getSharding(v))
      if (FailureOr<TensorSharding> c = garray::toCore(a, meshOp, type.getRank()); succeeded(c))
        core = *c;
    return core;
  };
  int64_t dim = op->getAttrOfType<IntegerAttr>("dim").getInt(), n = type.getDimSize(dim);
  TensorSharding result = coreOf(op->getResult(0));
  std::vector<int> from = coreOf(op->getOperand(0)).dims[dim].axes, to = result.dims[dim].axes;
  int64_t sIn = shardSize(n, sig.mesh.product(from)), sOut = shardSize(n, sig.mesh.product(to));
  // Other dims keep the result's layout; `dim` is sized per collective.
  std::vector<int64_t> shape =
      localShape({type.getShape().begin(), type.getShape().end()}, result, sig.mesh);
  auto typeText = [&](int64_t size, int64_t &bytes) {
    std::vector<int64_t> s = shape;
    s[dim] = size;
    return localTypeText(s, type.getElementType(), bytes);
  };
  auto gatherRecord = [&](CollectiveRecord &r, const std::vector<int> &axes, int64_t out) {
    r.kind = "all_gather";
    r.axes.clear();
    for (int a : axes)
      r.axes.push_back(sig.mesh.axes[a]);
    r.groupSize = sig.mesh.product(axes);
    r.localInType = typeText(sIn, r.localInBytes);
    r.localOutType = typeText(out, r.localOutBytes);
    r.bytesPerDevice = (r.groupSize - 1) * r.localOutBytes / r.groupSize;
  };
  if (isa<garray::AllGatherOp>(op)) {
    int64_t g = sig.mesh.product(from) / sig.mesh.product(to);
    if (sIn * g == sOut || to.empty())
      gatherRecord(c, std::vector<int>(from.begin() + to.size(), from.end()), sIn * g);
    else
      gatherRecord(c, from, sIn * sig.mesh.product(from));
    return std::nullopt;
  }
  // all_slice: whole or nesting blocks are padded and sliced locally.
  int64_t g = sig.mesh.product(to) / sig.mesh.product(from);
  if (sIn == sOut * g || from.empty()) {
    c.localInType = typeText(sOut * g, c.localInBytes);
    return std::nullopt;
  }
  CollectiveRecord gather = c;
  gatherRecord(gather, from, sIn * sig.mesh.product(from));
  c.localInType = typeText(sOut * sig.mesh.product(to), c.localInBytes);
  return gather;
}

/// The collectives `func` runs, in program order, with those of the
/// functions it calls at each call (a callee's collectives run once per
/// call, so a helper called twice is listed twice, each naming its call).
/// `within` says where `func` sits ("" for the entry); `active` holds the
/// functions being read, so a recursive call is listed once, not unrolled.
void readCollectives(func::FuncOp func, Signature &sig, const std::string &within,
                     llvm::SmallPtrSetImpl<Operation *> &active) {
  active.insert(func);
  func.walk([&](Operation *op) {
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
      if (callee && !callee.isExternal() && !active.contains(callee))
        readCollectives(callee, sig,
                        "@" + callee.getSymName().str() + " (called at " +
                            locationText(call.getLoc()) + ")" +
                            (within.empty() ? "" : " in " + within),
                        active);
      return;
    }
    if (auto shift = dyn_cast<garray::ShiftOp>(op))
      return readHalo(shift, sig, within);
    if (auto map = dyn_cast<garray::ShardMapOp>(op))
      return readShardMap(map, sig, within);
    if (!garray::isGlobalCollective(op))
      return;
    CollectiveRecord c;
    c.within = within;
    c.kind = op->getName().stripDialect().str();
    if (auto kind = op->getAttrOfType<garray::ReductionKindAttr>("kind"))
      c.reduction = garray::stringifyReductionKind(kind.getValue()).str();
    c.location = locationText(op->getLoc());
    auto axes = op->getAttrOfType<ArrayAttr>("axes");
    c.groupSize = 1;
    for (Attribute a : axes) {
      std::string name = cast<StringAttr>(a).str();
      c.axes.push_back(name);
      for (size_t i = 0; i < sig.mesh.axes.size(); ++i)
        if (sig.mesh.axes[i] == name)
          c.groupSize *= sig.mesh.sizes[i];
    }
    if (auto bytes = op->getAttrOfType<IntegerAttr>("bytes_per_device"))
      c.bytesPerDevice = bytes.getInt();
    if (auto reason = op->getAttrOfType<StringAttr>("reason"))
      c.reason = reason.str();
    llvm::raw_string_ostream os(c.valueType);
    os << op->getResult(0).getType();
    // The local types global-to-local will give the comm op, from the
    // shardings before and after (values without one are replicated).
    auto meshRef = op->getAttrOfType<FlatSymbolRefAttr>("mesh");
    garray::MeshOp meshOp = meshRef ? garray::lookupMesh(op, meshRef) : garray::MeshOp();
    auto local = [&](Value v, std::string &text, int64_t &bytes) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || !meshOp || !t.getElementType().isIntOrFloat())
        return;
      TensorSharding s = TensorSharding::replicated(t.getRank());
      if (garray::ShardingAttr a = garray::getSharding(v))
        if (FailureOr<TensorSharding> core = garray::toCore(a, meshOp, t.getRank());
            succeeded(core))
          s = *core;
      text = localTypeText(localShape({t.getShape().begin(), t.getShape().end()}, s, sig.mesh),
                           t.getElementType(), bytes);
    };
    local(op->getOperand(0), c.localInType, c.localInBytes);
    local(op->getResult(0), c.localOutType, c.localOutBytes);
    // Groups of one member move nothing: garray-global-to-local leaves each
    // device its operand (when the local types agree, as they do), so the
    // program runs no such collective.
    if (c.groupSize == 1 && !isa<garray::CollectivePermuteOp>(op) &&
        c.localInType == c.localOutType)
      return;
    if (meshOp && isa<garray::AllGatherOp, garray::AllSliceOp>(op))
      if (std::optional<CollectiveRecord> gather = unevenGather(op, meshOp, c, sig))
        sig.collectives.push_back(std::move(*gather));
    sig.collectives.push_back(std::move(c));
  });
  active.erase(func);
}

} // namespace

void readCollectives(func::FuncOp entry, Signature &sig) {
  llvm::SmallPtrSet<Operation *, 8> active;
  readCollectives(entry, sig, "", active);
}

void readCombined(ModuleOp module, llvm::StringRef entry, Signature &sig) {
  module.walk([&](comm::AllReduceOp op) {
    auto parts = op->getAttrOfType<ArrayAttr>("parts");
    if (!parts)
      return;
    CombinedCollective c;
    c.reduction = garray::stringifyReductionKind(op.getKind()).str();
    int64_t bytes = 0;
    c.localType = localTypeText(
        llvm::to_vector(cast<RankedTensorType>(op.getType()).getShape()),
        cast<RankedTensorType>(op.getType()).getElementType(), bytes);
    c.bytes = bytes;
    c.groupSize = op.getGroupSize();
    auto fn = op->getParentOfType<func::FuncOp>();
    if (fn && fn.getSymName() != entry)
      c.within = "@" + fn.getSymName().str();
    for (Attribute a : parts) {
      auto d = dyn_cast<DictionaryAttr>(a);
      if (!d)
        continue;
      CombinedCollective::Part p;
      if (auto s = d.getAs<StringAttr>("location"))
        p.location = s.str();
      if (auto s = d.getAs<StringAttr>("reason"))
        p.reason = s.str();
      if (auto t = d.getAs<TypeAttr>("type")) {
        llvm::raw_string_ostream os(p.localType);
        t.getValue().print(os);
      }
      if (auto b = d.getAs<IntegerAttr>("bytes"))
        p.bytes = b.getInt();
      c.parts.push_back(std::move(p));
    }
    sig.combined.push_back(std::move(c));
  });
}

} // namespace shardc
