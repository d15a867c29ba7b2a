//===- ShardMapImport.cpp - JAX's shard_map as garray.shard_map -----------===//
//
// `jax.shard_map` lowers to an `sdy.manual_computation` whose region is the
// per-device program, with StableHLO collectives over explicit device
// groups (`replica_groups` of device ids, as `use_global_device_ids` reads
// them) and `partition_id` for `axis_index`:
//
//   %r = "sdy.manual_computation"(%x) <{in_shardings = #sdy.sharding_per_value<[...]>,
//            out_shardings = ..., manual_axes = #sdy<manual_axes{"data"}>}> ({
//     ^bb0(%b: tensor<2x4xf32>): ... "sdy.return"(%t) }) : (tensor<8x4xf32>) -> ...
//   -> %r = garray.shard_map @main_shard_map_0(%x) in [...] out [...]
//      func.func private @main_shard_map_0(%b: tensor<2x4xf32>) -> ... { ... }
//
// The region moves into its own private function, whose ops the driver
// then imports like any function's; there the collectives become comm ops
// (the builders below), which a local program has: the body is one
// already.
//
// A shard_map over some axes only (`axis_names`) leaves the others, the
// free axes, to the partitioner inside its body. garray.shard_map is
// manual over every axis, so such a body is read as one that is manual
// over every axis and holds whole values along the free ones: its
// shardings keep only their manual axes (JAX writes the free ones open,
// `{"data", ?}`), its sharding constraints (which can only name free axes)
// are dropped, and the inner shard_maps over the free axes that JAX writes
// for `axis_index` (no operands, whole results) are inlined. The results
// are the same; the body's work is repeated along the free axes instead of
// split over them (docs/import.md).
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"
#include "compiler/import/SdySharding.h"

#include "dialects/comm/Comm.h"
#include "dialects/garray/GArray.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::garray;

namespace shardc::import {

namespace {

/// Marks an outlined body until the import ends, with its mesh's device
/// count: the collective builders accept only ops inside one.
constexpr llvm::StringLiteral kBodyAttr = "shardc.shard_map_devices";

/// The Shardy shardings of `attr` (`in_shardings` / `out_shardings`),
/// `count` of them; an error on `op` otherwise.
FailureOr<std::vector<SdySharding>> readShardings(Operation *op, StringRef attr, size_t count) {
  std::optional<std::string> text = readAttrText(op, attr);
  if (!text)
    return failure();
  std::string error;
  std::optional<std::vector<SdySharding>> all = parseSdyShardingPerValue(*text, error);
  if (!all)
    return op->emitError() << "`" << attr << "` of this shard_map: " << error;
  if (all->size() != count)
    return op->emitError() << "`" << attr << "` of this shard_map lists " << all->size()
                           << " shardings for " << count << " values";
  return std::move(*all);
}

/// `all` (read from `attr`) as garray shardings, every one on `meshName`.
FailureOr<SmallVector<Attribute>> toGArray(Operation *op, StringRef attr,
                                           const std::vector<SdySharding> &all,
                                           StringRef meshName) {
  SmallVector<Attribute> out;
  for (auto [i, s] : llvm::enumerate(all)) {
    if (!s.unreduced.empty())
      return op->emitError() << "value #" << i << " of this shard_map's `" << attr
                             << "` is unreduced over \"" << s.unreduced.front()
                             << "\"; shardc's shard_map returns whole values (psum in the body)";
    if (s.mesh != meshName)
      return op->emitError() << "value #" << i << " of this shard_map's `" << attr
                             << "` is on mesh @" << s.mesh << ", another is on @" << meshName
                             << "; one shard_map runs on one mesh";
    Attribute a = parseAttribute("#garray.sharding<@" + s.mesh + ", " + garraySpec(s) + ">",
                                 op->getContext());
    if (!a)
      return op->emitError() << "value #" << i << " of this shard_map's `" << attr
                             << "` has no garray counterpart";
    out.push_back(a);
  }
  return out;
}

/// The axes of `mesh` that `manual` leaves out: those of more than one
/// device, or with `singletons` every one.
std::vector<std::string> freeAxes(MeshOp mesh, const std::vector<std::string> &manual,
                                  bool singletons = false) {
  std::vector<std::string> free;
  for (auto [axis, size] : llvm::zip(mesh.getAxes(), mesh.getSizes())) {
    std::string name = cast<StringAttr>(axis).getValue().str();
    if ((size > 1 || singletons) && !llvm::is_contained(manual, name))
      free.push_back(name);
  }
  return free;
}

/// `all` (read from `attr` of `op`, a shard_map over the `manual` axes) with
/// only its manual axes, closed and without priorities: where the body runs
/// per device over every axis, the free axes split nothing. A free axis
/// major to a manual one in a dim would make each device's block a strided
/// part of the manual block; that is an error on `op` (a free axis of one
/// device splits nothing and may lie anywhere).
LogicalResult keepManualAxes(Operation *op, StringRef attr, std::vector<SdySharding> &all,
                             MeshOp mesh, const std::vector<std::string> &free) {
  std::vector<std::string> splitting;
  for (auto [axis, size] : llvm::zip(mesh.getAxes(), mesh.getSizes()))
    if (size > 1 && llvm::is_contained(free, cast<StringAttr>(axis).getValue().str()))
      splitting.push_back(cast<StringAttr>(axis).getValue().str());
  for (auto [i, s] : llvm::enumerate(all)) {
    for (auto [d, dim] : llvm::enumerate(s.dims)) {
      std::vector<std::string> kept;
      const std::string *firstFree = nullptr;
      for (const std::string &axis : dim.axes) {
        if (!llvm::is_contained(free, axis)) {
          if (firstFree)
            return op->emitError()
                   << "dim " << d << " of value #" << i << " of this shard_map's `" << attr
                   << "` splits over free axis \"" << *firstFree << "\" before manual axis \""
                   << axis << "\"; list the manual axes first, or map over every axis";
          kept.push_back(axis); // a manual axis (or none of the mesh's: parsing reports it)
        } else if (!firstFree && llvm::is_contained(splitting, axis)) {
          firstFree = &axis;
        }
      }
      dim.axes = std::move(kept);
      dim.open = false;
      dim.priority = -1;
    }
    s.replicated.clear();
  }
  return success();
}

/// The first shard_map in `region`, outer ones before those they hold.
Operation *firstManualComputation(Region &region) {
  Operation *found = nullptr;
  region.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->getName().getStringRef() != "sdy.manual_computation")
      return WalkResult::advance();
    found = op;
    return WalkResult::interrupt();
  });
  return found;
}

/// Whether `s` names no mesh axis: a whole value on every device.
bool namesNoAxis(const SdySharding &s) {
  return s.unreduced.empty() &&
         llvm::all_of(s.dims, [](const SdyDim &d) { return d.axes.empty(); });
}

/// Inlines each shard_map nested in `outer` (over `manual`, of `mesh`) that
/// is manual over the axes `outer` leaves free and moves only whole values,
/// as JAX writes `axis_index` inside a shard_map over some axes: once the
/// outer body runs per device over every axis, the inner one is its own
/// body. Any other nested shard_map is an error.
LogicalResult inlineCompletingBodies(Operation *outer, MeshOp mesh,
                                     const std::vector<std::string> &manual) {
  for (;;) {
    Operation *inner = firstManualComputation(outer->getRegion(0));
    if (!inner)
      return success();
    auto refuse = [&]() {
      return inner->emitError()
             << "a shard_map inside a shard_map over some mesh axes only is supported when it "
                "is manual over the other axes and takes and returns whole values (as "
                "`axis_index` is written); map the outer one over every axis instead";
    };
    std::optional<std::string> manualText = readAttrText(inner, "manual_axes");
    std::string error;
    std::optional<std::vector<std::string>> innerManual =
        manualText ? parseSdyManualAxes(*manualText, error) : std::nullopt;
    if (!innerManual || inner->getNumRegions() != 1 ||
        !llvm::hasSingleElement(inner->getRegion(0)) ||
        llvm::any_of(attributesOf(inner), [](NamedAttribute a) {
          return !llvm::is_contained({"in_shardings", "out_shardings", "manual_axes"},
                                     a.getName().getValue());
        }))
      return refuse();
    std::vector<std::string> both = manual;
    both.insert(both.end(), innerManual->begin(), innerManual->end());
    if (!freeAxes(mesh, both).empty())
      return refuse();
    for (auto [attr, count] : {std::pair{"in_shardings", inner->getNumOperands()},
                               std::pair{"out_shardings", inner->getNumResults()}}) {
      FailureOr<std::vector<SdySharding>> all = readShardings(inner, attr, count);
      if (failed(all))
        return failure();
      if (!llvm::all_of(*all, namesNoAxis))
        return refuse();
    }
    Block &block = inner->getRegion(0).front();
    Operation *ret = block.getTerminator();
    if (!ret || ret->getName().getStringRef() != "sdy.return" ||
        ret->getNumOperands() != inner->getNumResults())
      return refuse();
    for (auto [arg, operand] : llvm::zip(block.getArguments(), inner->getOperands()))
      arg.replaceAllUsesWith(operand);
    inner->replaceAllUsesWith(ret->getOperands());
    ret->erase();
    inner->getBlock()->getOperations().splice(inner->getIterator(), block.getOperations());
    inner->erase();
  }
}

/// The body of a shard_map over some axes only, now read as one over every
/// axis: its sharding constraints and op shardings can only name free
/// axes, which split nothing in it; they go.
void dropFreeAxisShardings(Region &body) {
  SmallVector<Operation *> constraints;
  body.walk([&](Operation *op) {
    op->removeDiscardableAttr("sdy.sharding");
    if (op->getName().getStringRef() == "sdy.sharding_constraint" && op->getNumOperands() == 1 &&
        op->getNumResults() == 1)
      constraints.push_back(op);
  });
  for (Operation *op : constraints) {
    op->getResult(0).replaceAllUsesWith(op->getOperand(0));
    op->erase();
  }
}

LogicalResult outlineOne(Operation *op, SymbolTable &symbols) {
  for (NamedAttribute a : attributesOf(op))
    if (!llvm::is_contained({"in_shardings", "out_shardings", "manual_axes"},
                            a.getName().getValue()))
      return op->emitError() << "attribute `" << a.getName().getValue()
                             << "` of 'sdy.manual_computation' is not supported";
  if (!isa_and_nonnull<func::FuncOp>(op->getParentOp()))
    return op->emitError() << "a shard_map inside another op's region (a loop, a branch, "
                              "another shard_map) is not supported; call it at the top of "
                              "the jitted function";
  if (op->getNumRegions() != 1 || !llvm::hasSingleElement(op->getRegion(0)))
    return op->emitError() << "'sdy.manual_computation' needs one region of one block";
  FailureOr<std::vector<SdySharding>> inSdy =
      readShardings(op, "in_shardings", op->getNumOperands());
  if (failed(inSdy))
    return failure();
  FailureOr<std::vector<SdySharding>> outSdy =
      readShardings(op, "out_shardings", op->getNumResults());
  if (failed(outSdy))
    return failure();
  if (inSdy->empty() && outSdy->empty())
    return op->emitError() << "this shard_map has no arguments and no results";
  // Its mesh: the one its first sharding names (toGArray checks the rest).
  const std::string &meshName = (inSdy->empty() ? *outSdy : *inSdy).front().mesh;
  auto mesh = symbols.lookup<MeshOp>(meshName);
  if (!mesh)
    return op->emitError() << "this shard_map names mesh @" << meshName
                           << ", which the module does not declare";
  std::optional<std::string> manualText = readAttrText(op, "manual_axes");
  if (!manualText)
    return failure();
  std::string error;
  std::optional<std::vector<std::string>> manual = parseSdyManualAxes(*manualText, error);
  if (!manual)
    return op->emitError() << "`manual_axes` of this shard_map: " << error;
  int64_t devices = 1;
  for (int64_t size : mesh.getSizes())
    devices *= size;
  // A free axis of one device (the model axis of a 2x1 mesh) splits
  // nothing, but JAX still writes the shardings open along it.
  if (std::vector<std::string> free = freeAxes(mesh, *manual, /*singletons=*/true);
      !free.empty()) {
    if (failed(keepManualAxes(op, "in_shardings", *inSdy, mesh, free)) ||
        failed(keepManualAxes(op, "out_shardings", *outSdy, mesh, free)))
      return failure();
    if (failed(inlineCompletingBodies(op, mesh, *manual)))
      return failure();
    dropFreeAxisShardings(op->getRegion(0));
  }
  FailureOr<SmallVector<Attribute>> in = toGArray(op, "in_shardings", *inSdy, meshName);
  if (failed(in))
    return failure();
  FailureOr<SmallVector<Attribute>> out = toGArray(op, "out_shardings", *outSdy, meshName);
  if (failed(out))
    return failure();

  auto parent = cast<func::FuncOp>(op->getParentOp());
  Block &block = op->getRegion(0).front();
  Operation *ret = block.getTerminator();
  if (!ret || ret->getName().getStringRef() != "sdy.return")
    return op->emitError() << "the body of this shard_map ends without 'sdy.return'";
  OpBuilder b(op->getContext());
  b.setInsertionPointAfter(parent);
  auto body = func::FuncOp::create(
      b, op->getLoc(), (parent.getSymName() + "_shard_map").str(),
      b.getFunctionType(block.getArgumentTypes(), ret->getOperandTypes()));
  body.setPrivate();
  body->setAttr(kBodyAttr, b.getI64IntegerAttr(devices));
  symbols.insert(body); // renamed when the name is taken: _0, _1, ...
  body.getBody().takeBody(op->getRegion(0));
  b.setInsertionPoint(ret);
  func::ReturnOp::create(b, ret->getLoc(), ret->getOperands());
  ret->erase();

  b.setInsertionPoint(op);
  auto map = ShardMapOp::create(b, op->getLoc(), op->getResultTypes(),
                                FlatSymbolRefAttr::get(body.getSymNameAttr()),
                                op->getOperands(), b.getArrayAttr(*in), b.getArrayAttr(*out));
  op->replaceAllUsesWith(map.getResults());
  op->erase();
  return success();
}

/// The device count of the shard_map body `op` is in; an error on `op`
/// (nullopt) when it is in none.
std::optional<int64_t> bodyDevices(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  auto devices = func ? func->getAttrOfType<IntegerAttr>(kBodyAttr) : IntegerAttr();
  if (!devices) {
    op->emitError() << "'" << op->getName()
                    << "' outside a shard_map is not supported: shardc derives the collectives "
                       "of a jitted program from its shardings";
    return std::nullopt;
  }
  return devices.getInt();
}

/// Whether the collective `op` is outside any shard_map and over groups
/// of one device, or pairs of a device with itself: on a one-device mesh
/// JAX inlines a shard_map's body and leaves its collectives so. Each is
/// its operand there.
bool alone(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func || func->getAttr(kBodyAttr))
    return false;
  if (auto groups = dyn_cast_or_null<DenseIntElementsAttr>(op->getAttr("replica_groups")))
    return groups.getType().getRank() == 2 && groups.getType().getDimSize(1) == 1;
  auto pairs = dyn_cast_or_null<DenseIntElementsAttr>(op->getAttr("source_target_pairs"));
  if (!pairs || pairs.getType().getRank() != 2 || pairs.getType().getDimSize(1) != 2)
    return false;
  auto ids = llvm::to_vector(pairs.getValues<APInt>());
  for (size_t i = 0; i + 1 < ids.size(); i += 2)
    if (ids[i] != ids[i + 1])
      return false;
  return true;
}

/// Whether every mesh of the module holding `op` has one device.
bool oneDevice(Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  bool any = false, one = true;
  for (auto mesh : module.getOps<MeshOp>()) {
    any = true;
    for (int64_t size : mesh.getSizes())
      one &= size == 1;
  }
  return any && one;
}

/// `replica_groups` as comm's flat groups and group size; an error on `op`
/// when they are not device ids in groups of one size.
std::optional<std::pair<SmallVector<int64_t>, int64_t>> readGroups(Operation *op,
                                                                   bool needGlobalIds) {
  if (needGlobalIds && !op->getAttr("use_global_device_ids")) {
    op->emitError() << "'" << op->getName() << "' without `use_global_device_ids` groups "
                    << "replicas, not devices; shardc reads shard_map's collectives, which JAX "
                       "writes over device ids";
    return std::nullopt;
  }
  auto groups = dyn_cast_or_null<DenseIntElementsAttr>(op->getAttr("replica_groups"));
  if (!groups || groups.getType().getRank() != 2 || groups.getNumElements() == 0) {
    op->emitError() << "'" << op->getName()
                    << "' needs `replica_groups`, a non-empty 2-D list of device ids";
    return std::nullopt;
  }
  SmallVector<int64_t> flat;
  for (const APInt &id : groups.getValues<APInt>())
    flat.push_back(id.getSExtValue());
  return std::make_pair(flat, groups.getType().getDimSize(1));
}

/// The reduction a collective's combiner body computes on operand `v`;
/// an error on `op` (naming the JAX calls it serves, `jax`) when it is not
/// one add, multiply, maximum or minimum.
std::optional<ReductionKind> reductionOf(Operation *op, Value v, const char *jax) {
  std::optional<ReductionKind> kind =
      op->getNumRegions() == 1 && !op->getRegion(0).empty()
          ? combinerKind(op->getRegion(0).front(), tensorType(v).getElementType())
          : std::nullopt;
  if (!kind)
    op->emitError() << "'" << op->getName() << "' combines with other than one add, multiply, "
                    << "maximum or minimum (" << jax << ")";
  return kind;
}

} // namespace

LogicalResult outlineManualComputations(ModuleOp module) {
  std::optional<SymbolTable> symbols;
  for (;;) {
    // The outermost first: outlining one can inline the shard_maps nested
    // in it (inlineCompletingBodies), so each is looked up afresh.
    Operation *next = firstManualComputation(module.getBodyRegion());
    if (!next)
      return success();
    if (!symbols)
      symbols.emplace(module);
    if (failed(outlineOne(next, *symbols)))
      return failure();
  }
}

void dropShardMapMarks(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>())
    func->removeAttr(kBodyAttr);
}

FailureOr<Values> importAllReduce(Operation *op, OpEmitter &e) {
  if (alone(op))
    return Values(op->getOperands());
  if (!bodyDevices(op))
    return failure();
  auto groups = readGroups(op, /*needGlobalIds=*/true);
  if (!groups)
    return failure();
  Values out;
  for (Value v : op->getOperands()) {
    std::optional<ReductionKind> kind = reductionOf(op, v, "psum, pmax, pmin");
    if (!kind)
      return failure();
    out.push_back(comm::AllReduceOp::create(e.b, e.loc, v.getType(), *kind, v, groups->first,
                                            groups->second));
  }
  return out;
}

FailureOr<Values> importAllGather(Operation *op, OpEmitter &e) {
  if (alone(op))
    return Values(op->getOperands());
  std::optional<int64_t> dim = bodyDevices(op) ? readI64(op, "all_gather_dim") : std::nullopt;
  auto groups = dim ? readGroups(op, /*needGlobalIds=*/true) : std::nullopt;
  if (!groups)
    return failure();
  Values out;
  for (auto [v, r] : llvm::zip(op->getOperands(), op->getResults()))
    out.push_back(comm::AllGatherOp::create(e.b, e.loc, r.getType(), v, *dim, groups->first,
                                            groups->second));
  return out;
}

FailureOr<Values> importReduceScatter(Operation *op, OpEmitter &e) {
  if (alone(op))
    return Values(op->getOperands());
  std::optional<int64_t> dim =
      bodyDevices(op) ? readI64(op, "scatter_dimension") : std::nullopt;
  auto groups = dim ? readGroups(op, /*needGlobalIds=*/true) : std::nullopt;
  if (!groups)
    return failure();
  Value v = op->getOperand(0);
  std::optional<ReductionKind> kind = reductionOf(op, v, "psum_scatter");
  if (!kind)
    return failure();
  return Values{comm::ReduceScatterOp::create(e.b, e.loc, op->getResult(0).getType(), *kind, v,
                                              *dim, groups->first, groups->second)};
}

FailureOr<Values> importAllToAll(Operation *op, OpEmitter &e) {
  if (alone(op))
    return Values(op->getOperands());
  if (!bodyDevices(op))
    return failure();
  std::optional<int64_t> split = readI64(op, "split_dimension");
  std::optional<int64_t> concat = split ? readI64(op, "concat_dimension") : std::nullopt;
  std::optional<int64_t> count = concat ? readI64(op, "split_count") : std::nullopt;
  auto groups = count ? readGroups(op, /*needGlobalIds=*/false) : std::nullopt;
  if (!groups)
    return failure();
  if (*count != groups->second)
    return op->emitError() << "'stablehlo.all_to_all' splits into " << *count
                           << " pieces for groups of " << groups->second;
  if (*split == *concat)
    return op->emitError() << "'stablehlo.all_to_all' with split_dimension equal to "
                              "concat_dimension is not supported; split one dim and "
                              "concatenate another";
  Values out;
  for (auto [v, r] : llvm::zip(op->getOperands(), op->getResults()))
    out.push_back(comm::AllToAllOp::create(e.b, e.loc, r.getType(), v, *split, *concat,
                                           groups->first, groups->second));
  return out;
}

FailureOr<Values> importCollectivePermute(Operation *op, OpEmitter &e) {
  if (alone(op))
    return Values(op->getOperands());
  if (!bodyDevices(op))
    return failure();
  auto pairs = dyn_cast_or_null<DenseIntElementsAttr>(op->getAttr("source_target_pairs"));
  if (!pairs || pairs.getType().getRank() != 2 || pairs.getType().getDimSize(1) != 2 ||
      pairs.getNumElements() == 0)
    return op->emitError() << "'stablehlo.collective_permute' needs `source_target_pairs`, a "
                              "non-empty list of (source, target) device ids";
  SmallVector<int64_t> flat;
  for (const APInt &id : pairs.getValues<APInt>())
    flat.push_back(id.getSExtValue());
  return Values{comm::CollectivePermuteOp::create(e.b, e.loc, op->getResult(0).getType(),
                                                  op->getOperand(0), flat)};
}

FailureOr<Values> importPartitionId(Operation *op, OpEmitter &e) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (func && !func->getAttr(kBodyAttr) && oneDevice(op))
    return Values{filledConstant(e, tensorType(op->getResult(0)),
                                 e.b.getIntegerAttr(tensorType(op->getResult(0)).getElementType(), 0))};
  std::optional<int64_t> devices = bodyDevices(op);
  if (!devices)
    return failure();
  SmallVector<int64_t> ids(*devices);
  for (int64_t d = 0; d < *devices; ++d)
    ids[d] = d;
  return Values{comm::DeviceValueOp::create(e.b, e.loc, op->getResult(0).getType(), ids)};
}

} // namespace shardc::import
