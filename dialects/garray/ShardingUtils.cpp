//===- ShardingUtils.cpp - reading, writing and translating placements ----===//
//
// A value's sharding lives on its definition (see GArray.h). The translation
// to shardc::TensorSharding is the one place axis names become indices.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::garray;

ShardingAttr mlir::garray::getSharding(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!func || arg.getOwner() != &func.getBody().front())
      return {};
    return func.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(), kShardingAttrName);
  }
  Operation *def = value.getDefiningOp();
  // Every pass asks this per value: a registered op cannot have an inherent
  // attribute with a dotted name, so scan its (usually one- or two-entry)
  // discardable dictionary instead of getAttr's inherent-name check and
  // binary search. Unregistered ops keep getAttr.
  Attribute attr;
  if (def->isRegistered()) {
    for (NamedAttribute a : def->getRawDictionaryAttrs()) {
      // A sharding knows its dialect, which holds the uniqued name: a
      // pointer comparison instead of a string comparison per entry.
      if (auto s = dyn_cast<ShardingAttr>(a.getValue())) {
        if (a.getName() == static_cast<GArrayDialect &>(s.getDialect()).shardingName)
          return def->getNumResults() == 1 ? s : ShardingAttr();
        continue;
      }
      if (a.getName().getValue() == kShardingAttrName) {
        attr = a.getValue();
        break;
      }
    }
  } else {
    attr = def->getAttr(kShardingAttrName);
  }
  if (auto s = dyn_cast_or_null<ShardingAttr>(attr))
    return def->getNumResults() == 1 ? s : ShardingAttr();
  if (auto list = dyn_cast_or_null<ArrayAttr>(attr)) {
    unsigned i = cast<OpResult>(value).getResultNumber();
    return i < list.size() ? dyn_cast<ShardingAttr>(list[i]) : ShardingAttr();
  }
  return {};
}

bool mlir::garray::placesByHand(ModuleOp module) {
  return module
      .walk([](Operation *op) {
        return isa<ShardMapOp, ReshardOp>(op) || isGlobalCollective(op) ||
                       op->getName().getDialectNamespace() == "comm"
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

void mlir::garray::setSharding(Value value, ShardingAttr sharding) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
    func.setArgAttr(arg.getArgNumber(), kShardingAttrName, sharding);
    return;
  }
  Operation *def = value.getDefiningOp();
  if (def->getNumResults() == 1) {
    def->setAttr(kShardingAttrName, sharding);
    return;
  }
  SmallVector<Attribute> list(def->getNumResults(), Attribute());
  if (auto old = def->getAttrOfType<ArrayAttr>(kShardingAttrName))
    llvm::copy(old.getValue(), list.begin());
  list[cast<OpResult>(value).getResultNumber()] = sharding;
  for (Attribute &a : list)
    if (!a) // results not yet known: replicated placeholder on the same mesh
      a = ShardingAttr::get(sharding.getContext(), sharding.getMesh(), {}, {},
                            ReductionKind::sum);
  def->setAttr(kShardingAttrName, ArrayAttr::get(def->getContext(), list));
}

ShardingAttr mlir::garray::getResultSharding(func::FuncOp func, unsigned i) {
  return func.getResultAttrOfType<ShardingAttr>(i, kShardingAttrName);
}

/// SymbolTable::getNearestSymbolTable(from): `from` or its first ancestor
/// with the SymbolTable trait, null past an unregistered op with one region
/// (it may be an unknown symbol table). A func.func is stepped over without
/// searching its trait list: it is registered and never a symbol table; a
/// builtin.module is one without searching either (both tests are a TypeID
/// compare, where the trait search is a call per op the verifier checks).
static Operation *nearestSymbolTable(Operation *from) {
  static_assert(!func::FuncOp::hasTrait<OpTrait::SymbolTable>());
  static_assert(ModuleOp::hasTrait<OpTrait::SymbolTable>());
  auto maybeUnknownTable = [](Operation *op) {
    return op->getNumRegions() == 1 && !op->getDialect();
  };
  if (maybeUnknownTable(from))
    return nullptr;
  // An op without regions cannot be a table: start at its parent (the
  // verifier asks this for every placed op; the trait search is a call).
  if (from->getNumRegions() == 0 && !(from = from->getParentOp()))
    return nullptr;
  if (maybeUnknownTable(from))
    return nullptr;
  while (!isa<ModuleOp>(from) &&
         (isa<func::FuncOp>(from) || !from->hasTrait<OpTrait::SymbolTable>())) {
    from = from->getParentOp();
    if (!from || maybeUnknownTable(from))
      return nullptr;
  }
  return from;
}

MeshOp mlir::garray::lookupMesh(Operation *from, FlatSymbolRefAttr mesh) {
  // The answer of SymbolTable::lookupNearestSymbolFrom<MeshOp>, without its
  // per-call StringAttr::get("sym_name") (a hash and a context lock): the
  // verifier asks this for every placed op after every pass.
  Operation *table = nearestSymbolTable(from);
  if (!table || table->getNumRegions() == 0 || table->getRegion(0).empty())
    return {};
  // Like lookupSymbolIn: the first op with that symbol name, if a mesh.
  StringAttr name = mesh.getAttr();
  for (Operation &op : table->getRegion(0).front()) {
    if (auto m = dyn_cast<MeshOp>(op)) {
      if (m.getSymNameAttr() == name)
        return m;
    } else if (op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()) == name) {
      return {};
    }
  }
  return {};
}

FailureOr<shardc::Mesh> mlir::garray::toCoreMesh(MeshOp mesh) {
  shardc::Mesh m;
  for (auto [axis, size] : llvm::zip(mesh.getAxes(), mesh.getSizes())) {
    if (ShapedType::isDynamic(size))
      return mesh.emitError("mesh axis \"")
             << cast<StringAttr>(axis).getValue()
             << "\" has no size; give one with --mesh " << cast<StringAttr>(axis).getValue()
             << "=N";
    m.axes.push_back(cast<StringAttr>(axis).getValue().str());
    m.sizes.push_back(size);
  }
  return m;
}

shardc::Reduction mlir::garray::toCore(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::sum: return shardc::Reduction::Sum;
  case ReductionKind::max: return shardc::Reduction::Max;
  case ReductionKind::min: return shardc::Reduction::Min;
  case ReductionKind::prod: return shardc::Reduction::Prod;
  }
  return shardc::Reduction::Sum;
}

ReductionKind mlir::garray::fromCore(shardc::Reduction kind) {
  switch (kind) {
  case shardc::Reduction::Sum: return ReductionKind::sum;
  case shardc::Reduction::Max: return ReductionKind::max;
  case shardc::Reduction::Min: return ReductionKind::min;
  case shardc::Reduction::Prod: return ReductionKind::prod;
  }
  return ReductionKind::sum;
}

FailureOr<shardc::TensorSharding>
mlir::garray::toCore(ShardingAttr sharding, MeshOp mesh, unsigned rank,
                     function_ref<InFlightDiagnostic()> emitError) {
  shardc::TensorSharding t = shardc::TensorSharding::replicated(rank);
  auto axisOf = [&](StringAttr name) -> FailureOr<int> {
    int a = mesh.axisIndex(name.getValue());
    if (a < 0 && emitError)
      emitError() << "sharding_c3: \"" << name.getValue() << "\" is not an axis of mesh @"
                  << mesh.getSymName();
    return a < 0 ? FailureOr<int>(failure()) : FailureOr<int>(a);
  };
  if (sharding.getDims().size() > rank) {
    if (emitError)
      emitError() << "sharding_c2: the sharding has " << sharding.getDims().size()
                  << " entries but the value has rank " << rank;
    return failure();
  }
  for (unsigned d = 0; d < rank; ++d) {
    DimShardingAttr dim = sharding.getDim(d);
    t.dims[d].open = dim.getOpen();
    for (StringAttr name : dim.getAxes()) {
      FailureOr<int> a = axisOf(name);
      if (failed(a))
        return failure();
      t.dims[d].axes.push_back(*a);
    }
  }
  for (StringAttr name : sharding.getUnreduced()) {
    FailureOr<int> a = axisOf(name);
    if (failed(a))
      return failure();
    t.pending.push_back(*a);
  }
  t.pendingKind = toCore(sharding.getUnreducedKind());
  return t;
}

ShardingAttr mlir::garray::fromCore(MLIRContext *ctx, FlatSymbolRefAttr mesh,
                                    const shardc::Mesh &coreMesh,
                                    const shardc::TensorSharding &sharding) {
  auto name = [&](int a) { return StringAttr::get(ctx, coreMesh.axes[a]); };
  SmallVector<DimShardingAttr> dims;
  for (const shardc::DimSharding &d : sharding.dims) {
    SmallVector<StringAttr> axes;
    for (int a : d.axes)
      axes.push_back(name(a));
    dims.push_back(DimShardingAttr::get(ctx, axes, d.open));
  }
  SmallVector<StringAttr> pending;
  for (int a : sharding.pending)
    pending.push_back(name(a));
  return ShardingAttr::get(ctx, mesh, dims, pending, fromCore(sharding.pendingKind));
}

static constexpr llvm::StringLiteral kDerivedKey = "shardc.derived";

Location mlir::garray::derivedLoc(Location from, const llvm::Twine &label) {
  MLIRContext *ctx = from.getContext();
  auto metadata = DictionaryAttr::get(
      ctx, {NamedAttribute(StringAttr::get(ctx, kDerivedKey), StringAttr::get(ctx, label))});
  return FusedLoc::get({from}, metadata, ctx);
}

Location mlir::garray::derivedFrom(Operation *op) {
  return derivedLoc(op->getLoc(), "from " + op->getName().getStringRef());
}

std::string mlir::garray::derivedLabel(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (auto metadata = dyn_cast_or_null<DictionaryAttr>(fused.getMetadata()))
      if (auto label = metadata.getAs<StringAttr>(kDerivedKey))
        return label.str();
  return "";
}

std::string mlir::garray::locationText(Location loc) {
  if (std::string label = derivedLabel(loc); !label.empty())
    return locationText(cast<FusedLoc>(loc).getLocations().front()) + " [" + label + "]";
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return locationText(fused.getLocations().front());
  if (auto name = dyn_cast<NameLoc>(loc))
    return locationText(name.getChildLoc());
  // A traced program (JAX) nests the user's line in call sites: the callee
  // is where the op was written, the callers are the tracing machinery.
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return locationText(call.getCallee());
  // A range (`file:3:5 to :9`) is named by where it starts.
  if (auto file = dyn_cast<FileLineColRange>(loc))
    return (file.getFilename().str() + ":" + std::to_string(file.getStartLine()) + ":" +
            std::to_string(file.getStartColumn()));
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

std::string mlir::garray::writtenSpec(ShardingAttr sharding) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << Attribute(sharding); // #garray.sharding<@mesh, P(...)...>
  size_t start = text.find(", P(");
  if (start == std::string::npos || text.back() != '>')
    return text;
  return text.substr(start + 2, text.size() - start - 3);
}

/// What toCore checks (at most `rank` entries, every name an axis of
/// `mesh`), without allocating: names are uniqued StringAttrs.
static bool namesMeshAxesOnly(ShardingAttr sharding, MeshOp mesh, int64_t rank) {
  ArrayRef<DimShardingAttr> dims = sharding.getDims();
  if (static_cast<int64_t>(dims.size()) > rank)
    return false;
  ArrayRef<Attribute> axes = mesh.getAxes().getValue();
  auto isAxis = [&](StringAttr name) {
    for (Attribute a : axes)
      if (a == name)
        return true;
    return false;
  };
  for (DimShardingAttr dim : dims)
    for (StringAttr name : dim.getAxes())
      if (!isAxis(name))
        return false;
  for (StringAttr name : sharding.getUnreduced())
    if (!isAxis(name))
      return false;
  return true;
}

LogicalResult mlir::garray::verifyShardingFor(ShardingAttr sharding, Type type, Operation *scope,
                                              function_ref<InFlightDiagnostic()> emitError,
                                              StringRef what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return emitError() << what << " is placed on a mesh but has type " << type
                       << ", not a ranked tensor";
  MeshOp mesh = lookupMesh(scope, sharding.getMesh());
  if (!mesh)
    return emitError() << what << " names mesh " << sharding.getMesh()
                       << ", but no garray.mesh with that name is in scope";
  auto withWhat = [&]() {
    InFlightDiagnostic d = emitError();
    d << what << ": ";
    return d;
  };
  ArrayRef<int64_t> shape = tensor.getShape();
  for (auto [d, size] : llvm::enumerate(shape))
    if (ShapedType::isDynamic(size))
      return emitError() << what << ": sharding_c4: dim " << d
                         << " is dynamic; placed values need static shapes";
  // The verifier runs this on every placed op after every pass: answer the
  // common case (valid) without building a TensorSharding; toCore below
  // words the error.
  if (namesMeshAxesOnly(sharding, mesh, shape.size()))
    return success();
  FailureOr<shardc::TensorSharding> core = toCore(sharding, mesh, tensor.getRank(), withWhat);
  if (failed(core))
    return failure();
  // Sizes need not divide over their axes: shards follow the ceil layout and
  // the padding of uneven shards is masked in the local program
  // (passes/local/UnevenShards.h).
  return success();
}

//===----------------------------------------------------------------------===//
// Discardable attributes, verified wherever they appear
//===----------------------------------------------------------------------===//

/// A sharding group id: a non-negative signless integer (or index) that
/// fits in 63 bits. Ids are read as int64: a wider one, an i1, or a
/// negative or narrow one that sign-extends (3 : i2 is -1) would alias
/// another group, and -1 means "no group" to the memory estimate.
static LogicalResult verifyGroupId(Attribute value, Location loc, StringRef what) {
  auto id = dyn_cast<IntegerAttr>(value);
  auto type = id ? dyn_cast<IntegerType>(id.getType()) : IntegerType();
  bool ok = id && ((type && type.isSignless() && type.getWidth() >= 2 &&
                    type.getWidth() <= 64) ||
                   id.getType().isIndex()) &&
            !id.getValue().isNegative();
  if (!ok)
    return emitError(loc) << "garray.sharding_group on " << what << " is " << value
                          << "; a group id is a non-negative integer of at most 64 bits, e.g. "
                             "0 : i64";
  return success();
}

/// Where a group may be: on a tensor argument of a function with a body, or
/// on an op whose results are all tensors; a group anywhere else would tie
/// nothing (or a non-tensor), silently.
static LogicalResult verifyGroupPlace(Operation *op) {
  if (op->getNumResults() == 0)
    return op->emitError() << "garray.sharding_group on '" << op->getName()
                           << "', which has no results, ties nothing: put it on "
                           << (isa<func::ReturnOp>(op) ? "the op that makes the returned value"
                                                       : "an op's result")
                           << ", or on an argument";
  if (!llvm::all_of(op->getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); }))
    return op->emitError() << "garray.sharding_group must be on a tensor argument or an op whose "
                              "results are tensors, not on '"
                           << op->getName() << "' with results of types "
                           << op->getResultTypes();
  return success();
}

static LogicalResult verifyPlacementAttr(Operation *scope, NamedAttribute attr, Type type,
                                         Location loc, StringRef what) {
  if (attr.getName() == kGroupAttrName)
    return verifyGroupId(attr.getValue(), loc, what);
  if (attr.getName() == "garray.name") {
    if (!isa<StringAttr>(attr.getValue()))
      return emitError(loc) << "garray.name on " << what << " must be a string";
    return success();
  }
  if (attr.getName() == kUnsignedAttrName) {
    auto t = dyn_cast<RankedTensorType>(type);
    unsigned width = t && t.getElementType().isSignlessInteger()
                         ? t.getElementType().getIntOrFloatBitWidth()
                         : 0;
    bool exchanged = width == 8 || width == 16 || width == 32 || width == 64;
    if (!isa<UnitAttr>(attr.getValue()) || !exchanged)
      return emitError(loc) << kUnsignedAttrName << " on " << what
                            << " must be a unit attribute on a tensor of i8, i16, i32 or i64 "
                               "(read and written as u8, u16, u32 or u64), not on "
                            << type;
    return success();
  }
  if (attr.getName() != kShardingAttrName)
    return success();
  auto sharding = dyn_cast<ShardingAttr>(attr.getValue());
  if (!sharding)
    return emitError(loc) << kShardingAttrName << " on " << what
                          << " must be a #garray.sharding attribute";
  return verifyShardingFor(sharding, type, scope, [&] { return emitError(loc); }, what);
}

LogicalResult GArrayDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() != shardingName) {
    if (attr.getName() != kGroupAttrName)
      return success();
    if (failed(verifyGroupId(attr.getValue(), op->getLoc(), op->getName().getStringRef())))
      return failure();
    return verifyGroupPlace(op);
  }
  if (auto list = dyn_cast<ArrayAttr>(attr.getValue())) {
    if (list.size() != op->getNumResults())
      return op->emitError() << kShardingAttrName << " lists " << list.size()
                             << " shardings for " << op->getNumResults() << " results";
    for (auto [i, s] : llvm::enumerate(list))
      if (failed(verifyPlacementAttr(op, NamedAttribute(attr.getName(), s),
                                     op->getResult(i).getType(), op->getLoc(),
                                     "result #" + std::to_string(i))))
        return failure();
    return success();
  }
  if (op->getNumResults() != 1)
    return op->emitError() << "a single " << kShardingAttrName << " needs an op with one result";
  auto sharding = dyn_cast<ShardingAttr>(attr.getValue());
  if (!sharding)
    return verifyPlacementAttr(op, attr, op->getResult(0).getType(), op->getLoc(), "the result");
  return verifyShardingFor(sharding, op->getResult(0).getType(), op,
                           [&] { return emitError(op->getLoc()); }, "the result");
}

LogicalResult GArrayDialect::verifyRegionArgAttribute(Operation *op, unsigned region,
                                                      unsigned argIndex, NamedAttribute attr) {
  Region &r = op->getRegion(region);
  auto func = dyn_cast<func::FuncOp>(op);
  if (func && attr.getName() == kGroupAttrName) {
    // A declaration's arguments are whole at every call: a group there ties
    // nothing (and a member of another type would go unchecked).
    if (r.empty())
      return op->emitError() << "garray.sharding_group on argument #" << argIndex << " of @"
                             << func.getSymName()
                             << ", a declaration (no body): calls to it take whole values, so "
                                "the group ties nothing there; drop it, or give @"
                             << func.getSymName() << " a body";
    if (!isa<RankedTensorType>(func.getArgumentTypes()[argIndex]))
      return op->emitError() << "garray.sharding_group on argument #" << argIndex << " of @"
                             << func.getSymName() << ", of type "
                             << func.getArgumentTypes()[argIndex]
                             << ": only tensors can share a sharding";
  }
  if (r.empty())
    return success();
  BlockArgument arg = r.front().getArgument(argIndex);
  std::string what = "argument #" + std::to_string(argIndex);
  if (auto func = dyn_cast<func::FuncOp>(op))
    if (auto name = func.getArgAttrOfType<StringAttr>(argIndex, "garray.name"))
      what = "argument '" + name.str() + "'";
  return verifyPlacementAttr(op, attr, arg.getType(), arg.getLoc(), what);
}

LogicalResult GArrayDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                         unsigned resultIndex,
                                                         NamedAttribute attr) {
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    return success();
  if (attr.getName() == kGroupAttrName)
    return func.emitError() << "garray.sharding_group on result #" << resultIndex << " of @"
                            << func.getSymName()
                            << " is not supported: put it on the op that makes the returned "
                               "value, or on an argument";
  std::string what = "result #" + std::to_string(resultIndex);
  if (auto name = func.getResultAttrOfType<StringAttr>(resultIndex, "garray.name"))
    what = "result '" + name.str() + "'";
  return verifyPlacementAttr(op, attr, func.getResultTypes()[resultIndex], op->getLoc(), what);
}
