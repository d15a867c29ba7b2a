//===- GArrayOps.cpp - verifiers and custom assembly of garray ops --------===//
//
// Each verifier message starts with the constraint label from GArrayOps.td and
// names the operand, dimension or axis at fault.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/ElementwiseUtils.h"
#include "dialects/garray/GArray.h"
#include "dialects/garray/VerifyUtils.h"
#include "dialects/DeviceIds.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::garray;

// `%x : tensor<...> to #garray.sharding<...>`: the sharding comes last because
// MLIR's parser reads a `: type` right after a dialect attribute as that
// attribute's type.
static ParseResult parseShardingRef(OpAsmParser &parser, ShardingAttr &attr) {
  return parser.parseCustomAttributeWithFallback(attr, parser.getBuilder().getNoneType());
}

static void printShardingRef(OpAsmPrinter &p, Operation *, ShardingAttr attr) {
  p.printAttribute(attr);
}

#define GET_OP_CLASSES
#include "dialects/garray/GArrayOps.cpp.inc"

//===----------------------------------------------------------------------===//
// mesh
//===----------------------------------------------------------------------===//

ParseResult MeshOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name), result.attributes) ||
      parser.parseLSquare())
    return failure();
  SmallVector<Attribute> axes;
  SmallVector<int64_t> sizes;
  if (failed(parser.parseOptionalRSquare())) {
    do {
      std::string axis;
      if (parser.parseString(&axis) || parser.parseEqual())
        return failure();
      axes.push_back(parser.getBuilder().getStringAttr(axis));
      int64_t size = ShapedType::kDynamic;
      if (failed(parser.parseOptionalQuestion()) && parser.parseInteger(size))
        return failure();
      sizes.push_back(size);
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRSquare())
      return failure();
  }
  result.addAttribute(getAxesAttrName(result.name), parser.getBuilder().getArrayAttr(axes));
  result.addAttribute(getSizesAttrName(result.name),
                      parser.getBuilder().getDenseI64ArrayAttr(sizes));
  return parser.parseOptionalAttrDict(result.attributes);
}

void MeshOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printSymbolName(getSymName());
  p << " [";
  for (auto [i, axis] : llvm::enumerate(getAxes())) {
    if (i)
      p << ", ";
    p << axis << " = ";
    int64_t size = getSizes()[i];
    if (ShapedType::isDynamic(size))
      p << "?";
    else
      p << size;
  }
  p << "]";
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getSymNameAttrName(), getAxesAttrName(), getSizesAttrName()});
}

LogicalResult MeshOp::verify() {
  if (getAxes().empty())
    return emitOpError("mesh_c1: a mesh needs at least one axis");
  if (getAxes().size() != getSizes().size())
    return emitOpError("mesh_c1: ") << getAxes().size() << " axes but " << getSizes().size()
                                    << " sizes";
  llvm::SmallSet<StringRef, 8> seen;
  for (auto [axis, size] : llvm::zip(getAxes(), getSizes())) {
    StringRef name = cast<StringAttr>(axis).getValue();
    if (name.empty())
      return emitOpError("mesh_c2: axis names must be non-empty");
    if (!seen.insert(name).second)
      return emitOpError("mesh_c2: axis \"") << name << "\" is declared twice";
    if (!ShapedType::isDynamic(size) && size <= 0)
      return emitOpError("mesh_c3: axis \"") << name << "\" has size " << size
                                             << "; sizes must be positive";
  }
  // Collectives list their device groups explicitly and the runtime starts
  // a rank per device: past this the compile would run for minutes (or the
  // product overflow) rather than fail.
  int64_t devices = 1;
  for (int64_t size : getSizes()) {
    if (ShapedType::isDynamic(size))
      continue;
    if (size > kMaxMeshDevices || devices * size > kMaxMeshDevices)
      return emitOpError("mesh_c4: the mesh has more than ")
             << kMaxMeshDevices << " devices (sizes " << getSizes()
             << "); shardc compiles for at most " << kMaxMeshDevices
             << " devices: use smaller axis sizes";
    devices *= size;
  }
  return success();
}

int MeshOp::axisIndex(StringRef name) {
  for (auto [i, axis] : llvm::enumerate(getAxes()))
    if (cast<StringAttr>(axis).getValue() == name)
      return static_cast<int>(i);
  return -1;
}

bool MeshOp::isFullySized() {
  return llvm::none_of(getSizes(), [](int64_t s) { return ShapedType::isDynamic(s); });
}

//===----------------------------------------------------------------------===//
// constant
//===----------------------------------------------------------------------===//

ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  Attribute value;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseAttribute(value))
    return failure();
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed)
    return parser.emitError(parser.getCurrentLocation(),
                            "constant_c1: expected a typed value such as dense<1.0> : tensor<f32>");
  result.addAttribute("value", value);
  result.addTypes(typed.getType());
  return success();
}

void ConstantOp::print(OpAsmPrinter &p) {
  p.printOptionalAttrDict((*this)->getAttrs(), {"value"});
  p << " " << getValue();
}

LogicalResult ConstantOp::verify() {
  auto elements = dyn_cast<DenseElementsAttr>(getValue());
  if (!elements)
    return emitOpError("constant_c1: the value must be a dense elements attribute");
  if (elements.getType() != getType())
    return emitOpError("constant_c1: the value has type ")
           << elements.getType() << " but the result has type " << getType();
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// sharding_constraint / reshard
//===----------------------------------------------------------------------===//

/// Whether `written`, a garray.sharding on a constraint or reshard, places
/// the result where `target` does: the same mesh, the same pending axes and
/// kind, the same axes on every dim, open where the target is open. (A
/// closed dim where the target's is open would say the result cannot grow
/// while propagation grows it; where it extends an open dim of a
/// constraint, it writes the target extended and closed, and the same
/// placement, so its own output always agrees.) Priorities do not matter.
static bool agreesWithTarget(ShardingAttr written, ShardingAttr target, unsigned rank) {
  ArrayRef<StringAttr> pending = target.getUnreduced();
  if (written.getMesh() != target.getMesh() || written.getUnreduced().size() != pending.size() ||
      !llvm::all_of(written.getUnreduced(),
                    [&](StringAttr a) { return llvm::is_contained(pending, a); }) ||
      (target.isPending() && written.getUnreducedKind() != target.getUnreducedKind()))
    return false;
  for (unsigned d = 0; d < rank; ++d) {
    if (written.getDim(d).getAxes() != target.getDim(d).getAxes() ||
        written.getDim(d).getOpen() != target.getDim(d).getOpen())
      return false;
  }
  return true;
}

/// sharding_constraint_c2 / reshard_c3: the op's result has one placement.
static LogicalResult verifyWrittenPlacement(Operation *op, ShardingAttr target, StringRef label) {
  auto written = op->getAttrOfType<ShardingAttr>(kShardingAttrName);
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (!written || agreesWithTarget(written, target, type.getRank()))
    return success();
  return op->emitOpError(label) << ": its " << kShardingAttrName << " " << written
                                << " places the result differently from the target " << target
                                << "; the target is the result's placement: drop the "
                                << kShardingAttrName << " attribute or make it equal the target";
}

LogicalResult ShardingConstraintOp::verify() {
  if (failed(verifyShardingFor(
          getSharding(), getType(), *this, [&] { return emitOpError(); },
          "sharding_constraint_c1: the constraint")))
    return failure();
  return verifyWrittenPlacement(*this, getSharding(), "sharding_constraint_c2");
}

LogicalResult ReshardOp::verify() {
  // A reshard moves data to one layout: nothing is left for propagation to
  // decide (open dims) or to weigh (priorities).
  if (llvm::any_of(getSharding().getDims(),
                   [](DimShardingAttr d) { return d.getOpen() || d.hasPriority(); }))
    return emitOpError("reshard_c2: the target ")
           << getSharding() << " is not exact: a reshard's target has no open dims ('?') and "
              "no priorities ('pN'); use garray.sharding_constraint to steer propagation";
  if (failed(verifyShardingFor(
          getSharding(), getType(), *this, [&] { return emitOpError(); }, "reshard_c1: the target")))
    return failure();
  return verifyWrittenPlacement(*this, getSharding(), "reshard_c3");
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

static LogicalResult verifyCollectiveAxes(Operation *op, StringRef label,
                                          FlatSymbolRefAttr meshRef, ArrayAttr axes,
                                          SmallVectorImpl<StringRef> &names) {
  MeshOp mesh = lookupMesh(op, meshRef);
  if (!mesh)
    return op->emitOpError(label) << ": no garray.mesh named " << meshRef;
  if (axes.empty())
    return op->emitOpError(label) << ": axes must not be empty";
  llvm::SmallSet<StringRef, 8> seen;
  for (Attribute a : axes) {
    StringRef name = cast<StringAttr>(a).getValue();
    if (mesh.axisIndex(name) < 0)
      return op->emitOpError(label) << ": \"" << name << "\" is not an axis of mesh " << meshRef;
    if (!seen.insert(name).second)
      return op->emitOpError(label) << ": axis \"" << name << "\" is listed twice";
    names.push_back(name);
  }
  return success();
}

static bool contains(ArrayRef<StringAttr> list, StringRef name) {
  return llvm::any_of(list, [&](StringAttr a) { return a.getValue() == name; });
}

LogicalResult AllReduceOp::verify() {
  SmallVector<StringRef> names;
  if (failed(verifyCollectiveAxes(*this, "all_reduce_c1", getMeshAttr(), getAxes(), names)))
    return failure();
  if (ShardingAttr s = garray::getSharding(getOperand())) {
    for (StringRef n : names)
      if (!contains(s.getUnreduced(), n))
        return emitOpError("all_reduce_c2: the operand is not unreduced over mesh axis \"")
               << n << "\"";
    if (s.getUnreducedKind() != getKind())
      return emitOpError("all_reduce_c2: the operand is a pending ")
             << stringifyReductionKind(s.getUnreducedKind()) << " but this reduces with "
             << stringifyReductionKind(getKind());
  }
  return success();
}

static LogicalResult verifyDim(Operation *op, StringRef label, int64_t dim, Type type) {
  int64_t rank = cast<RankedTensorType>(type).getRank();
  if (dim < 0 || dim >= rank)
    return op->emitOpError(label) << ": dim " << dim << " is out of range for rank " << rank;
  return success();
}

LogicalResult AllGatherOp::verify() {
  SmallVector<StringRef> names;
  if (failed(verifyCollectiveAxes(*this, "all_gather_c1", getMeshAttr(), getAxes(), names)) ||
      failed(verifyDim(*this, "all_gather_c1", getDim(), getType())))
    return failure();
  if (ShardingAttr s = garray::getSharding(getOperand())) {
    ArrayRef<StringAttr> dimAxes = s.getDim(getDim()).getAxes();
    bool trailing = dimAxes.size() >= names.size();
    for (size_t i = 0; trailing && i < names.size(); ++i)
      trailing = dimAxes[dimAxes.size() - names.size() + i].getValue() == names[i];
    if (!trailing)
      return emitOpError("all_gather_c2: axes must be the trailing axes of dim ")
             << getDim() << " of the operand's sharding " << s;
  }
  return success();
}

LogicalResult AllSliceOp::verify() {
  SmallVector<StringRef> names;
  if (failed(verifyCollectiveAxes(*this, "all_slice_c1", getMeshAttr(), getAxes(), names)) ||
      failed(verifyDim(*this, "all_slice_c1", getDim(), getType())))
    return failure();
  if (ShardingAttr s = garray::getSharding(getOperand()))
    for (StringRef n : names) {
      bool used = contains(s.getUnreduced(), n);
      for (DimShardingAttr d : s.getDims())
        used |= contains(d.getAxes(), n);
      if (used)
        return emitOpError("all_slice_c2: mesh axis \"")
               << n << "\" is already used by the operand's sharding " << s;
    }
  return success();
}

LogicalResult ReduceScatterOp::verify() {
  SmallVector<StringRef> names;
  if (failed(verifyCollectiveAxes(*this, "reduce_scatter_c1", getMeshAttr(), getAxes(), names)) ||
      failed(verifyDim(*this, "reduce_scatter_c1", getDim(), getType())))
    return failure();
  if (ShardingAttr s = garray::getSharding(getOperand())) {
    for (StringRef n : names)
      if (!contains(s.getUnreduced(), n))
        return emitOpError("reduce_scatter_c2: the operand is not unreduced over mesh axis \"")
               << n << "\"";
    if (s.getUnreducedKind() != getKind())
      return emitOpError("reduce_scatter_c2: the operand is a pending ")
             << stringifyReductionKind(s.getUnreducedKind()) << " but this reduces with "
             << stringifyReductionKind(getKind());
  }
  return success();
}

LogicalResult AllToAllOp::verify() {
  SmallVector<StringRef> names;
  if (failed(verifyCollectiveAxes(*this, "all_to_all_c1", getMeshAttr(), getAxes(), names)) ||
      failed(verifyDim(*this, "all_to_all_c1", getSplitDim(), getType())) ||
      failed(verifyDim(*this, "all_to_all_c1", getConcatDim(), getType())))
    return failure();
  if (getSplitDim() == getConcatDim())
    return emitOpError("all_to_all_c1: split_dim and concat_dim are both ") << getSplitDim();
  if (ShardingAttr s = garray::getSharding(getOperand())) {
    ArrayRef<StringAttr> dimAxes = s.getDim(getConcatDim()).getAxes();
    bool trailing = dimAxes.size() >= names.size();
    for (size_t i = 0; trailing && i < names.size(); ++i)
      trailing = dimAxes[dimAxes.size() - names.size() + i].getValue() == names[i];
    if (!trailing)
      return emitOpError("all_to_all_c2: axes must be the trailing axes of dim ")
             << getConcatDim() << " of the operand's sharding " << s;
  }
  return success();
}

LogicalResult CollectivePermuteOp::verify() {
  MeshOp mesh = lookupMesh(*this, getMeshAttr());
  if (!mesh)
    return emitOpError("collective_permute_c1: no garray.mesh named ") << getMeshAttr();
  llvm::SmallSet<StringRef, 8> seen;
  for (Attribute a : getAxes()) {
    StringRef name = cast<StringAttr>(a).getValue();
    if (mesh.axisIndex(name) < 0)
      return emitOpError("collective_permute_c1: \"")
             << name << "\" is not an axis of mesh " << getMeshAttr();
    if (!seen.insert(name).second)
      return emitOpError("collective_permute_c1: axis \"") << name << "\" is listed twice";
  }
  ArrayRef<int64_t> pairs = getPairs();
  if (pairs.size() % 2 != 0)
    return emitOpError("collective_permute_c2: pairs has ")
           << pairs.size() << " ids; it must list (source, target) pairs";
  int64_t devices = -1;
  if (mesh.isFullySized()) {
    devices = 1;
    for (int64_t s : mesh.getSizes())
      devices *= s;
  }
  std::vector<int64_t> sources, targets;
  sources.reserve(pairs.size() / 2);
  targets.reserve(pairs.size() / 2);
  for (size_t i = 0; i < pairs.size(); i += 2) {
    for (int64_t id : {pairs[i], pairs[i + 1]})
      if (id < 0 || (devices >= 0 && id >= devices))
        return emitOpError("collective_permute_c2: device ")
               << id << " is not a device of mesh " << getMeshAttr();
    sources.push_back(pairs[i]);
    targets.push_back(pairs[i + 1]);
  }
  for (auto [ids, role] : {std::pair{&sources, "source"}, std::pair{&targets, "target"}})
    if (std::optional<int64_t> repeat = shardc::repeatedDeviceId(std::move(*ids)))
      return emitOpError("collective_permute_c2: device ") << *repeat << " is a " << role
                                                            << " twice";
  return success();
}
