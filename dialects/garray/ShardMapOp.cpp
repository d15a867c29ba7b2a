//===- ShardMapOp.cpp - garray.shard_map: a per-device region by symbol ---===//
//
// The op checks its own attributes (verify) and, once the module is whole,
// its body against them (verifySymbolUses): the blocks' types follow from
// the global types, the shardings and the mesh sizes, and every collective
// of the body must name the mesh's devices the way the runtime reads them
// (each device in exactly one group).
//
//===----------------------------------------------------------------------===//
#include "dialects/comm/Comm.h"
#include "dialects/garray/GArray.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::garray;

namespace {

/// Checks one boundary sharding (shard_map_c1) of `what`, of type `type`.
LogicalResult verifyBoundary(ShardMapOp op, Attribute attr, Type type, FlatSymbolRefAttr &mesh,
                             const Twine &what) {
  auto s = dyn_cast<ShardingAttr>(attr);
  if (!s)
    return op.emitOpError("shard_map_c1: the sharding of ") << what << " is " << attr
                                                            << ", not a #garray.sharding";
  if (failed(verifyShardingFor(
          s, type, op, [&]() { return op.emitOpError("shard_map_c1: "); }, what.str())))
    return failure();
  auto error = [&]() { return op.emitOpError("shard_map_c1: ") << what << " "; };
  if (s.isPending())
    return error() << "has sharding " << s << ", which is pending; a shard_map's arguments and "
                   << "results are whole values (reduce them in the body with comm.all_reduce)";
  for (DimShardingAttr d : s.getDims())
    if (d.getOpen() || d.getPriority() >= 0)
      return error() << "has sharding " << s << ", which has an open dim or a priority; a "
                     << "shard_map's blocks need closed shardings";
  if (mesh && mesh != s.getMesh())
    return error() << "is on mesh " << s.getMesh() << " but another boundary value is on "
                   << mesh << "; one shard_map runs on one mesh";
  mesh = s.getMesh();
  return success();
}

/// Checks that `ids` name devices of a `devices`-device mesh; for a grouped
/// collective also that its groups cover each device once.
LogicalResult verifyDevices(Operation *op, ArrayRef<int64_t> ids, int64_t devices, bool grouped,
                            ShardMapOp user) {
  for (int64_t id : ids)
    if (id < 0 || id >= devices)
      return op->emitOpError("names device ")
             << id << ", but the mesh of the shard_map that runs it (at "
             << locationText(user.getLoc()) << ") has " << devices << " devices (shard_map_c4)";
  // The comm op's own verifier has checked that its groups are disjoint:
  // as many ids as devices, all in range, cover each device once.
  if (grouped && static_cast<int64_t>(ids.size()) != devices)
    return op->emitOpError("has groups of ")
           << ids.size() << " devices in all, but every device of the " << devices
           << "-device mesh takes part in a collective, so the groups must cover each device "
              "once (shard_map_c4)";
  return success();
}

} // namespace

LogicalResult ShardMapOp::verify() {
  if (getInShardings().size() != getArgs().size())
    return emitOpError("shard_map_c1: ")
           << getInShardings().size() << " in_shardings for " << getArgs().size() << " arguments";
  if (getOutShardings().size() != getNumResults())
    return emitOpError("shard_map_c1: ") << getOutShardings().size() << " out_shardings for "
                                         << getNumResults() << " results";
  FlatSymbolRefAttr mesh;
  for (auto [i, v] : llvm::enumerate(getArgs()))
    if (failed(verifyBoundary(*this, getInShardings()[i], v.getType(), mesh,
                              "argument #" + Twine(i))))
      return failure();
  for (auto [i, r] : llvm::enumerate(getResults()))
    if (failed(verifyBoundary(*this, getOutShardings()[i], r.getType(), mesh,
                              "result #" + Twine(i))))
      return failure();
  return success();
}

FailureOr<RankedTensorType>
mlir::garray::shardMapBlockType(RankedTensorType global, ShardingAttr sharding, MeshOp mesh,
                                function_ref<InFlightDiagnostic()> error) {
  SmallVector<int64_t> shape(global.getShape());
  for (auto [d, size] : llvm::enumerate(shape)) {
    int64_t ways = 1;
    std::string axes;
    for (StringAttr axis : sharding.getDim(d).getAxes()) {
      int a = mesh.axisIndex(axis.getValue());
      if (a < 0)
        return error() << "\"" << axis.getValue() << "\" is not an axis of mesh @"
                       << mesh.getSymName();
      ways *= mesh.getSizes()[a];
      axes += (axes.empty() ? "\"" : ", \"") + axis.getValue().str() + "\"";
    }
    if (size % ways != 0)
      return error() << "dim " << d << " of size " << size << " does not divide over the "
                     << ways << " devices of mesh axes " << axes
                     << " (shard_map_c2); shard_map needs even blocks: pad the array to a "
                     << "multiple of " << ways;
    size /= ways;
  }
  return RankedTensorType::get(shape, global.getElementType());
}

LogicalResult ShardMapOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto fn = symbols.lookupNearestSymbolFrom<func::FuncOp>(*this, getBodyAttr());
  if (!fn || fn.isExternal() || fn.isPublic())
    return emitOpError("shard_map_c3: no private function @")
           << getBody() << " with a body to run on each device";
  // Run by anything else, the body would be a global function with local
  // collectives in it.
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(fn, fn->getParentOp()))
    for (const SymbolTable::SymbolUse &use : *uses)
      if (!isa<ShardMapOp>(use.getUser()))
        return emitOpError("shard_map_c3: @")
               << getBody() << " is also used by '" << use.getUser()->getName() << "' at "
               << locationText(use.getUser()->getLoc()) << "; a shard_map's body is a local program that only "
               << "shard_maps may run";
  if (getArgs().empty() && getNumResults() == 0)
    return success();
  ShardingAttr first = getArgs().empty() ? getOutSharding(0) : getInSharding(0);
  MeshOp mesh = lookupMesh(*this, first.getMesh());
  if (!mesh)
    return emitOpError("names mesh ") << first.getMesh() << ", but no garray.mesh of that name "
                                      << "is in scope";
  if (!mesh.isFullySized())
    return emitOpError("shard_map_c2: mesh @")
           << mesh.getSymName() << " has a size left to --mesh, but a shard_map's body is "
           << "written for fixed block shapes; write the mesh's sizes";
  FunctionType type = fn.getFunctionType();
  if (type.getNumInputs() != getArgs().size() || type.getNumResults() != getNumResults())
    return emitOpError("shard_map_c3: @")
           << getBody() << " has type " << type << ", which does not take " << getArgs().size()
           << " blocks and return " << getNumResults();
  auto check = [&](Type global, ShardingAttr s, Type block, const Twine &what) -> LogicalResult {
    auto error = [&]() { return emitOpError("") << what << ": "; };
    FailureOr<RankedTensorType> want =
        shardMapBlockType(cast<RankedTensorType>(global), s, mesh, error);
    if (failed(want))
      return failure();
    if (*want != block)
      return emitOpError("shard_map_c3: ")
             << what << " has the block type " << *want << " on each device, but @" << getBody()
             << " has " << block << " there";
    return success();
  };
  for (auto [i, v] : llvm::enumerate(getArgs()))
    if (failed(check(v.getType(), getInSharding(i), type.getInput(i), "argument #" + Twine(i))))
      return failure();
  for (auto [i, r] : llvm::enumerate(getResults()))
    if (failed(check(r.getType(), getOutSharding(i), type.getResult(i), "result #" + Twine(i))))
      return failure();
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (fn.getArgAttr(i, kShardingAttrName))
      return emitOpError("shard_map_c5: argument #")
             << i << " of @" << getBody() << " has a sharding; a shard_map's body takes blocks";
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    if (fn.getResultAttr(i, kShardingAttrName))
      return emitOpError("shard_map_c5: result #")
             << i << " of @" << getBody() << " has a sharding; a shard_map's body returns blocks";
  int64_t devices = 1;
  for (int64_t size : mesh.getSizes())
    devices *= size;
  WalkResult walked = fn.walk([&](Operation *op) {
    LogicalResult ok = success();
    if (auto c = dyn_cast<comm::AllReduceOp>(op))
      ok = verifyDevices(op, c.getGroups(), devices, true, *this);
    else if (auto c = dyn_cast<comm::AllGatherOp>(op))
      ok = verifyDevices(op, c.getGroups(), devices, true, *this);
    else if (auto c = dyn_cast<comm::AllSliceOp>(op))
      ok = verifyDevices(op, c.getGroups(), devices, true, *this);
    else if (auto c = dyn_cast<comm::ReduceScatterOp>(op))
      ok = verifyDevices(op, c.getGroups(), devices, true, *this);
    else if (auto c = dyn_cast<comm::AllToAllOp>(op))
      ok = verifyDevices(op, c.getGroups(), devices, true, *this);
    else if (auto c = dyn_cast<comm::CollectivePermuteOp>(op))
      ok = verifyDevices(op, c.getPairs(), devices, false, *this);
    else if (auto c = dyn_cast<comm::DeviceValueOp>(op);
             c && static_cast<int64_t>(c.getValues().size()) != devices)
      ok = op->emitOpError("has a table of ")
           << c.getValues().size() << " entries, one per device, but the mesh of the shard_map "
           << "that runs it has " << devices << " devices (shard_map_c4)";
    else if (isa<ShardMapOp>(op))
      ok = op->emitOpError("is nested in the body of another shard_map; a body is already "
                           "per device");
    else if (isa<ShardingConstraintOp, ReshardOp>(op) || isGlobalCollective(op) ||
             op->hasAttr(kShardingAttrName))
      ok = op->emitOpError("places a value on a mesh in the body of a shard_map, which is "
                           "per device: its values are blocks, and its collectives are comm "
                           "ops over device ids (shard_map_c5)");
    return failed(ok) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(walked.wasInterrupted());
}
