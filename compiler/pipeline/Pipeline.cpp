//===- Pipeline.cpp - the phases, narrated --------------------------------===//
//
// Each phase is a short pass list with the reason for every pass beside it.
// Signature and report are read off the IR at the phase boundary where they
// are exact: placements after partitioning (before types go local), the
// collectives with their reasons and byte costs right after they are planned.
//
//===----------------------------------------------------------------------===//
#include "compiler/pipeline/Pipeline.h"

#include "compiler/registration/RegisterUpstream.h"
#include "compiler/targets/CpuTarget.h"
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"
#include "sharding/Halo.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>

using namespace mlir;
using mlir::garray::locationText;

namespace shardc {

std::optional<Phase> parsePhase(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Phase>>(name)
      .Case("global", Phase::Global)
      .Case("propagated", Phase::Propagated)
      .Case("partitioned", Phase::Partitioned)
      .Case("local", Phase::Local)
      .Case("llvm", Phase::LLVM)
      .Default(std::nullopt);
}

void registerCompilerDialects(DialectRegistry &registry) {
  registerUpstreamDialects(registry);
  garray::registerShardcDialects(registry);
}

namespace {

std::string dtypeName(Type t) {
  if (t.isF32()) return "f32";
  if (t.isF64()) return "f64";
  if (t.isF16()) return "f16";
  if (t.isBF16()) return "bf16";
  if (t.isInteger(64)) return "i64";
  if (t.isInteger(32)) return "i32";
  if (t.isInteger(8)) return "i8";
  if (t.isInteger(1)) return "bool";
  return "";
}

LogicalResult run(ModuleOp module, llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  // Idempotent; without it applyPassManagerCLOptions fails silently for hosts
  // that never registered the pass-manager options.
  registerPassManagerCLOptions();
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  build(pm);
  return pm.run(module);
}

/// Programs are garray ops, with func, cf and scf around them (and ops
/// that bufferize as they are: arith.constant, tensor.extract). An
/// elementwise op of another dialect on tensors (arith.addf for garray.add,
/// math.exp for garray.exp) passed propagation as an op without a rule on
/// whole values, but nothing lowers it, and bufferization failed on it with
/// "op was not bufferized". Said here, by name, with the fix.
LogicalResult checkLowerable(ModuleOp module) {
  WalkResult walked = module.walk([](Operation *op) {
    Dialect *dialect = op->getDialect();
    StringRef ns = dialect ? dialect->getNamespace() : "";
    if (llvm::is_contained({"garray", "comm"}, ns) || !op->hasTrait<OpTrait::Elementwise>())
      return WalkResult::advance();
    auto isTensor = [](Type t) { return isa<TensorType>(t); };
    if (llvm::none_of(op->getOperandTypes(), isTensor) &&
        llvm::none_of(op->getResultTypes(), isTensor))
      return WalkResult::advance();
    op->emitError("'") << op->getName()
                       << "' on tensors is not an op shardc compiles (it has no sharding rule "
                          "and no lowering); write the computation with garray ops, e.g. "
                          "garray.add for arith.addf";
    return WalkResult::interrupt();
  });
  return failure(walked.wasInterrupted());
}

FailureOr<func::FuncOp> findEntry(ModuleOp module, llvm::StringRef name) {
  if (!name.empty()) {
    auto f = module.lookupSymbol<func::FuncOp>(name.starts_with("@") ? name.drop_front() : name);
    if (f && f.isExternal())
      return f.emitError("--entry @")
             << f.getSymName() << " is a declaration (no body): name a function with a body";
    if (!f) {
      std::string defined;
      for (auto g : module.getOps<func::FuncOp>())
        if (!g.isExternal())
          defined += (defined.empty() ? "@" : ", @") + g.getSymName().str();
      return module.emitError("--entry: no function named '")
             << name << "' to compile; the model defines "
             << (defined.empty() ? "no function with a body" : defined);
    }
    return f;
  }
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    return main;
  func::FuncOp only;
  for (auto f : module.getOps<func::FuncOp>())
    if (f.isPublic() && !f.isExternal()) {
      if (only)
        return module.emitError("several public functions and none named 'main'; name the "
                                "entry with --entry");
      only = f;
    }
  if (!only)
    return module.emitError("the model has no function to compile");
  return only;
}

/// Reads names, dtypes, shapes and placements off the partitioned entry.
LogicalResult readSignature(func::FuncOp func, Signature &sig) {
  garray::MeshOp mesh;
  for (unsigned i = 0; i < func.getNumArguments() && !mesh; ++i)
    if (auto s = garray::getSharding(func.getArgument(i)))
      mesh = garray::lookupMesh(func, s.getMesh());
  for (unsigned i = 0; i < func.getNumResults() && !mesh; ++i)
    if (auto s = garray::getResultSharding(func, i))
      mesh = garray::lookupMesh(func, s.getMesh());
  if (!mesh) {
    // Nothing placed: every value is replicated. With exactly one mesh in the
    // module, still run on all its devices (each computes the whole program).
    auto meshes = func->getParentOfType<ModuleOp>().getOps<garray::MeshOp>();
    if (std::distance(meshes.begin(), meshes.end()) == 1)
      mesh = *meshes.begin();
  }
  if (mesh) {
    FailureOr<Mesh> m = garray::toCoreMesh(mesh);
    if (failed(m))
      return failure();
    sig.mesh = *m;
  } else {
    sig.mesh.axes = {"devices"};
    sig.mesh.sizes = {1};
  }
  auto describe = [&](Type type, garray::ShardingAttr s, std::string name,
                      std::string what) -> FailureOr<TensorSignature> {
    auto t = dyn_cast<RankedTensorType>(type);
    if (!t || !t.hasStaticShape())
      return func.emitError() << what << " must be a tensor with a static shape, not " << type;
    TensorSignature ts;
    ts.name = std::move(name);
    ts.dtype = dtypeName(t.getElementType());
    if (ts.dtype.empty())
      return func.emitError() << what << " has element type " << t.getElementType()
                              << ", which the runtime cannot exchange";
    ts.shape.assign(t.getShape().begin(), t.getShape().end());
    ts.sharding = s && mesh ? *garray::toCore(s, mesh, t.getRank())
                            : TensorSharding::replicated(t.getRank());
    for (DimSharding &d : ts.sharding.dims)
      d.open = false;
    ts.localShape = localShape(ts.shape, ts.sharding, sig.mesh);
    ts.spec = ts.sharding.str(sig.mesh);
    return ts;
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto name = func.getArgAttrOfType<StringAttr>(i, "garray.name");
    FailureOr<TensorSignature> t =
        describe(func.getArgument(i).getType(), garray::getSharding(func.getArgument(i)),
                 name ? name.str() : "arg" + std::to_string(i),
                 name ? "argument '" + name.str() + "'" : "argument #" + std::to_string(i));
    if (failed(t))
      return failure();
    sig.inputs.push_back(std::move(*t));
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    auto name = func.getResultAttrOfType<StringAttr>(i, "garray.name");
    FailureOr<TensorSignature> t =
        describe(func.getResultTypes()[i], garray::getResultSharding(func, i),
                 name ? name.str() : "result" + std::to_string(i),
                 name ? "result '" + name.str() + "'" : "result #" + std::to_string(i));
    if (failed(t))
      return failure();
    sig.outputs.push_back(std::move(*t));
  }
  // Two arguments or results with one name could not be told apart on the
  // command line.
  for (auto *list : {&sig.inputs, &sig.outputs})
    for (size_t a = 0; a < list->size(); ++a)
      for (size_t b = a + 1; b < list->size(); ++b)
        if ((*list)[a].name == (*list)[b].name)
          return func.emitError() << "two " << (list == &sig.inputs ? "arguments" : "results")
                                  << " are named '" << (*list)[a].name
                                  << "'; give each a distinct garray.name";
  return success();
}

/// The text of a local tensor type and its size in bytes, as reports print.
std::string localTypeText(llvm::ArrayRef<int64_t> shape, Type element, int64_t &bytes) {
  bytes = std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  for (int64_t d : shape)
    bytes *= d;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << RankedTensorType::get(shape, element);
  return text;
}

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
    if (!garray::isGlobalCollective(op))
      return;
    CollectiveRecord c;
    c.within = within;
    c.kind = op->getName().stripDialect().str();
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
    if (meshOp && isa<garray::AllGatherOp, garray::AllSliceOp>(op))
      if (std::optional<CollectiveRecord> gather = unevenGather(op, meshOp, c, sig))
        sig.collectives.push_back(std::move(*gather));
    sig.collectives.push_back(std::move(c));
  });
  active.erase(func);
}

void readCollectives(func::FuncOp entry, Signature &sig) {
  llvm::SmallPtrSet<Operation *, 8> active;
  readCollectives(entry, sig, "", active);
}

/// Peak live bytes per device of the partitioned entry, read where every
/// value's sharding is known and types are still global. Arguments are live
/// for the whole function; an op's results from the op to their last use (by
/// the entry-block op that encloses the use), results of the function to the
/// end. A value's bytes are its local (ceil layout) shape times its element
/// size; values without a sharding are replicated. Non-tensor values count 0.
/// A call adds, at its program point, its callee's temporaries (its peak
/// without its arguments and returned values, which the caller counts);
/// callees are estimated the same way, once each (a recursive call adds
/// nothing more: its depth is not known).
struct FunctionMemory {
  int64_t peak = 0;
  /// The peak of what lives only inside the function: neither its
  /// arguments (the caller's operands) nor the values it returns (the
  /// call's results), which the caller counts.
  int64_t temporaries = 0;
  std::vector<MemoryValue> largest;
  /// The largest of those temporaries (what a caller lists of the callee).
  std::vector<MemoryValue> largestTemporaries;
};
using CalleePeaks = llvm::DenseMap<Operation *, std::optional<FunctionMemory>>;
/// What the user annotated, read before propagation writes a sharding on
/// every value: the entry's arguments (by number) and ops anywhere.
struct UserPlaced {
  Operation *entryFunc = nullptr;
  std::vector<bool> arguments;
  llvm::DenseSet<Operation *> ops;
  Operation *entry() const { return entryFunc; }
};

FunctionMemory functionMemory(func::FuncOp func, const Signature &sig,
                              const UserPlaced &userPlaced, CalleePeaks &callees,
                              size_t keep);

void readMemory(func::FuncOp func, Signature &sig, const UserPlaced &userPlaced,
                size_t keep = 5) {
  CalleePeaks callees;
  callees[func] = std::nullopt; // in progress: a call back into it adds nothing
  FunctionMemory m = functionMemory(func, sig, userPlaced, callees, keep);
  sig.memory = MemoryEstimate();
  sig.memory.known = true;
  sig.memory.peakBytesPerDevice = m.peak;
  sig.memory.largest = std::move(m.largest);
}

FunctionMemory functionMemory(func::FuncOp func, const Signature &sig,
                              const UserPlaced &userPlaced, CalleePeaks &callees,
                              size_t keep) {
  FunctionMemory mem;
  if (func.getBody().empty())
    return mem;
  // Program points: the function's top-level ops, block after block in
  // region order. Within a block a value lives from its op to its last use;
  // a value used in another block, or passed along a branch, is counted
  // live at every point (an over- rather than an underestimate: which
  // blocks run, in which order and how often, is not known here). Branch
  // arguments alias what is passed and are not counted again.
  Region &body = func.getBody();
  llvm::DenseMap<Operation *, int64_t> index;
  int64_t n = 0;
  for (Operation &op : body.getOps())
    index[&op] = n++;
  garray::MeshOp meshOp;
  if (!sig.mesh.axes.empty())
    for (auto m : func->getParentOfType<ModuleOp>().getOps<garray::MeshOp>()) {
      FailureOr<Mesh> core = garray::toCoreMesh(m);
      if (succeeded(core) && core->axes == sig.mesh.axes)
        meshOp = m;
    }
  struct Live {
    MemoryValue value;
    int64_t from, to; // program points [from, to]
    bool temporary;   // neither an argument nor a returned value
    Value source = {}; // this function's value (its `why` is worded once kept)
  };
  std::vector<Live> values;
  // Why a value is whole over some mesh axis, in the user's terms.
  // A collective (or reshard) made for a constraint or reshard the user
  // wrote: its reason says so (passes/collectives/InsertReshards.cpp).
  auto userAsked = [](Operation *def) {
    auto reason = def ? def->getAttrOfType<StringAttr>("reason") : StringAttr();
    return reason && (reason.getValue().starts_with(garray::kConstraintReasonPrefix) ||
                      reason.getValue().starts_with(garray::kWrittenReshardReasonPrefix));
  };
  // The sharding group `v` belongs to, -1 if none.
  auto groupOf = [&](Value v) -> int64_t {
    IntegerAttr id;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner()->isEntryBlock() && arg.getOwner()->getParentOp() == func)
        id = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), garray::kGroupAttrName);
    } else {
      id = v.getDefiningOp()->getAttrOfType<IntegerAttr>(garray::kGroupAttrName);
    }
    return id ? id.getInt() : -1;
  };
  // The value a chain of collectives starts from (the layout a value had
  // before partitioning moved it).
  auto beforeCollectives = [](Value v) {
    for (Operation *d = v.getDefiningOp(); d && garray::isGlobalCollective(d);
         d = v.getDefiningOp())
      v = d->getOperand(0);
    return v;
  };
  // Whether `s` splits some dim over one of `axes` (mesh axis names).
  auto usesAny = [](garray::ShardingAttr s, ArrayRef<std::string> axes) {
    return s && llvm::any_of(s.getDims(), [&](garray::DimShardingAttr d) {
             return llvm::any_of(d.getAxes(), [&](StringAttr a) {
               return llvm::is_contained(axes, a.getValue());
             });
           });
  };
  // `axes`: the mesh axes `v` is whole over; the reason is about them.
  std::function<std::string(Value, ArrayRef<std::string>)> whyWhole =
      [&](Value v, ArrayRef<std::string> axes) -> std::string {
    auto arg = dyn_cast<BlockArgument>(v);
    Operation *def = v.getDefiningOp();
    bool annotated = arg ? func == userPlaced.entry() && arg.getOwner()->isEntryBlock() &&
                               arg.getArgNumber() < userPlaced.arguments.size() &&
                               userPlaced.arguments[arg.getArgNumber()]
                         : userPlaced.ops.contains(def);
    if (annotated)
      return "its annotation places it so";
    if (int64_t group = groupOf(v); group >= 0)
      return "its sharding group " + std::to_string(group) +
             " gives it the layout of the group's members (`shardc explain` says which "
             "annotation decides it)";
    if (userAsked(def))
      return "its annotation places it so: " + def->getAttrOfType<StringAttr>("reason").str();
    if (def && garray::isGlobalCollective(def)) {
      // Partitioning gathered these axes only if the value it moved had
      // them; else the moved value was already whole over them.
      Value source = beforeCollectives(v);
      if (!usesAny(garray::getSharding(source), axes)) {
        std::string from;
        if (Operation *d = source.getDefiningOp()) {
          from = "'" + d->getName().getStringRef().str() + "' at " + locationText(d->getLoc());
        } else {
          auto a = cast<BlockArgument>(source);
          auto name = a.getOwner()->getParentOp() == func
                          ? func.getArgAttrOfType<StringAttr>(a.getArgNumber(), "garray.name")
                          : StringAttr();
          from = (name ? "argument '" + name.str() + "'"
                       : "argument #" + std::to_string(a.getArgNumber())) +
                 " at " + locationText(a.getLoc());
        }
        return "a copy of " + from + " in another layout, which was already whole over these axes: " +
               whyWhole(source, axes);
      }
      auto reason = def->getAttrOfType<StringAttr>("reason");
      return "partitioning made it so for an op that needs it" +
             (reason ? ": " + reason.str() : std::string());
    }
    // Operands of an elementwise op (every operand dim maps to the result's
    // dim) that reach it in different layouts: propagation keeps what they
    // share (the conflict policy), here not these axes.
    auto layoutText = [&](garray::ShardingAttr s) {
      FailureOr<TensorSharding> c =
          meshOp ? garray::toCore(s, meshOp, static_cast<unsigned>(s.getDims().size()))
                 : FailureOr<TensorSharding>(failure());
      if (failed(c))
        return garray::writtenSpec(s);
      c->pending.clear();
      return c->str(sig.mesh);
    };
    auto splits = [](garray::ShardingAttr s) {
      return llvm::any_of(s.getDims(), [](garray::DimShardingAttr d) { return !d.getAxes().empty(); });
    };
    auto ruled = dyn_cast_or_null<garray::ShardingRuleOpInterface>(def);
    FactorRule rule = ruled ? ruled.getFactorRule() : FactorRule();
    bool elementwise = ruled && rule.results.size() == 1 && rule.operands.size() > 1 &&
                       llvm::all_of(rule.operands, [&](const FactorRule::TensorFactors &t) {
                         return t == rule.results.front();
                       });
    if (elementwise) {
      // The layout an operand had before partitioning gathered it for the
      // op (the program is partitioned here).
      garray::ShardingAttr seen;
      for (Value operand : def->getOperands()) {
        auto s = garray::getSharding(beforeCollectives(operand));
        if (!s)
          continue;
        // Layouts only: a partial sum next to a whole value is no conflict;
        // and a conflict over other axes is not why these are unused.
        if (seen && s.getDims() != seen.getDims() && splits(s) &&
            (usesAny(s, axes) || usesAny(seen, axes)))
          return "its operands reach '" + def->getName().getStringRef().str() + "' at " +
                 garray::locationText(def->getLoc()) + " in different layouts, " +
                 layoutText(seen) + " and " + layoutText(s) +
                 ", and propagation keeps only what they share (`shardc explain` says where "
                 "each comes from)";
        if (splits(s))
          seen = seen ? seen : s;
      }
    }
    if (arg && !annotated)
      return "it is not annotated, and no annotation that reaches it splits it over these "
             "axes (`shardc explain` says what reaches it)";
    return "propagation gave it the layout that reaches it, which does not split it over "
           "these axes (`shardc explain` says where that layout comes from)";
  };
  // The function's returned values with their names (filled below, before
  // any add): neither they nor the arguments are temporaries.
  llvm::DenseMap<Value, std::string> resultNames;
  auto add = [&](Value v, std::string name, Location loc, int64_t from, int64_t to) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape() || !t.getElementType().isIntOrFloat())
      return;
    MemoryValue m;
    m.name = std::move(name);
    m.location = locationText(loc);
    m.dtype = dtypeName(t.getElementType());
    if (m.dtype.empty()) {
      llvm::raw_string_ostream os(m.dtype);
      os << t.getElementType();
    }
    m.shape.assign(t.getShape().begin(), t.getShape().end());
    TensorSharding sharding = TensorSharding::replicated(t.getRank());
    if (garray::ShardingAttr s = garray::getSharding(v); s && meshOp)
      if (FailureOr<TensorSharding> c = garray::toCore(s, meshOp, t.getRank()); succeeded(c))
        sharding = *c;
    for (DimSharding &d : sharding.dims)
      d.open = false;
    m.localShape = localShape(m.shape, sharding, sig.mesh);
    m.spec = sharding.str(sig.mesh);
    int64_t bytes = (t.getElementType().getIntOrFloatBitWidth() + 7) / 8;
    for (int64_t d : m.localShape)
      bytes *= d;
    m.localBytes = bytes;
    std::vector<int> used = sharding.usedAxes();
    for (size_t a = 0; a < sig.mesh.axes.size(); ++a) {
      if (sig.mesh.sizes[a] <= 1 || llvm::is_contained(used, static_cast<int>(a)))
        continue;
      if (m.unusedAxes.empty())
        // The largest unsplit dimension that the axis divides, else the
        // largest one at least as long as the axis.
        for (size_t d = 0; d < m.shape.size(); ++d) {
          if (!sharding.dims[d].axes.empty() || m.shape[d] < sig.mesh.sizes[a])
            continue;
          auto better = [&](size_t x, int y) {
            bool dx = m.shape[x] % sig.mesh.sizes[a] == 0,
                 dy = m.shape[y] % sig.mesh.sizes[a] == 0;
            return dx != dy ? dx : m.shape[x] > m.shape[y];
          };
          if (m.suggestedDim < 0 || better(d, m.suggestedDim))
            m.suggestedDim = static_cast<int>(d);
        }
      m.unusedAxes.push_back(sig.mesh.axes[a]);
    }
    Operation *def = v.getDefiningOp();
    m.gathered = def && isa<garray::AllGatherOp, garray::AllReduceOp>(def) && !userAsked(def);
    m.group = groupOf(v);
    values.push_back({std::move(m), from, to, !isa<BlockArgument>(v) && !resultNames.count(v), v});
  };
  // The returned values (of every return), with their names.
  for (Block &block : body)
    if (auto ret = dyn_cast<func::ReturnOp>(block.getTerminator()))
      for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
        auto name = func.getResultAttrOfType<StringAttr>(i, "garray.name");
        resultNames.try_emplace(v, name ? "result '" + name.str() + "'"
                                        : "result #" + std::to_string(i));
      }
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto name = func.getArgAttrOfType<StringAttr>(i, "garray.name");
    add(func.getArgument(i), name ? "argument '" + name.str() + "'" : "argument #" + std::to_string(i),
        func.getArgument(i).getLoc(), 0, n);
  }
  for (Operation &op : body.getOps())
    for (OpResult r : op.getResults()) {
      int64_t from = index[&op], to = from;
      for (Operation *user : r.getUsers()) {
        Operation *top = body.findAncestorOpInRegion(*user);
        if (!top)
          continue;
        // Blocks need not be written in the order they run: a value that
        // leaves its block is counted live at every program point.
        bool leavesBlock = top->getBlock() != op.getBlock() || top->getNumSuccessors() > 0;
        if (leavesBlock)
          from = 0;
        to = std::max(to, isa<func::ReturnOp>(top) || leavesBlock ? n : index[top]);
      }
      auto named = resultNames.find(r);
      std::string name = named != resultNames.end()
                             ? named->second
                             : op.getName().getStringRef().str() +
                                   (op.getNumResults() > 1
                                        ? " result #" + std::to_string(r.getResultNumber())
                                        : "");
      add(r, std::move(name), op.getLoc(), from, to);
    }
  // Sweep the program points: +bytes where a value starts, -bytes after it ends.
  std::vector<int64_t> delta(n + 2, 0), tempDelta(n + 2, 0);
  for (const Live &l : values) {
    delta[l.from] += l.value.localBytes;
    delta[l.to + 1] -= l.value.localBytes;
    if (l.temporary) {
      tempDelta[l.from] += l.value.localBytes;
      tempDelta[l.to + 1] -= l.value.localBytes;
    }
  }
  // A call holds its callee's temporaries while it runs.
  for (Operation &op : body.getOps()) {
    auto call = dyn_cast<func::CallOp>(op);
    if (!call)
      continue;
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
    if (!callee || callee.isExternal())
      continue;
    bool first = callees.try_emplace(callee, std::nullopt).second;
    if (first) {
      // Estimated once; in progress (nullopt) while it is. The map may grow
      // meanwhile, so the result is stored by key afterwards.
      FunctionMemory inner = functionMemory(callee, sig, userPlaced, callees, keep);
      callees[callee] = std::move(inner);
    }
    const std::optional<FunctionMemory> &inner = callees.find(callee)->second;
    if (!inner)
      continue;
    for (std::vector<int64_t> *d : {&delta, &tempDelta}) {
      (*d)[index[&op]] += inner->temporaries;
      (*d)[index[&op] + 1] -= inner->temporaries;
    }
    // The callee's largest temporaries compete for the list, named with it
    // (its arguments and results are the caller's operands and results).
    if (first)
      for (const MemoryValue &v : inner->largestTemporaries) {
        Live l{v, index[&op], index[&op], /*temporary=*/true};
        l.value.name += " in @" + callee.getSymName().str();
        values.push_back(std::move(l));
      }
  }
  int64_t live = 0, temps = 0;
  for (int64_t p = 0; p <= n; ++p) {
    mem.peak = std::max(mem.peak, live += delta[p]);
    mem.temporaries = std::max(mem.temporaries, temps += tempDelta[p]);
  }
  std::stable_sort(values.begin(), values.end(), [](const Live &a, const Live &b) {
    return a.value.localBytes > b.value.localBytes;
  });
  // Why a kept value is whole is worded for the kept ones only (it reads
  // the op's factor rule: on a 100k-op program, a tenth of the compile).
  for (Live &l : values) {
    bool kept = mem.largest.size() < keep || (l.temporary && mem.largestTemporaries.size() < keep);
    if (kept && l.source && !l.value.unusedAxes.empty() && l.value.why.empty())
      l.value.why = whyWhole(l.source, l.value.unusedAxes);
    if (mem.largest.size() < keep)
      mem.largest.push_back(l.value);
    if (l.temporary && mem.largestTemporaries.size() < keep)
      mem.largestTemporaries.push_back(l.value);
  }
  return mem;
}

} // namespace

std::string formatCollectiveReasons(const Signature &signature) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "collectives inserted by partitioning (" << signature.collectives.size() << "):\n";
  for (const CollectiveRecord &c : signature.collectives) {
    os << "  " << c.kind << " over (";
    llvm::interleaveComma(c.axes, os, [&](const std::string &a) { os << '"' << a << '"'; });
    os << ") at " << c.location << (c.within.empty() ? "" : " in " + c.within) << ": "
       << c.valueType << "\n";
    os << "    because: " << (c.reason.empty() ? "(no reason recorded)" : c.reason) << "\n";
  }
  return out;
}

std::optional<CompileResult> compileModule(ModuleOp module, const CompileOptions &options) {
  CompileResult result;
  auto stopHere = [&](Phase p) {
    if (options.emit != p)
      return false;
    if (options.emitStream)
      module.print(*options.emitStream);
    return true;
  };

  // Phase 0: the global program with the mesh sizes of this build, composites
  // decomposed (what --emit=global prints). Training steps are differentiated, on the global program (the
  // gradient is the derivative of what the user wrote, never a local
  // objective), and optimizer updates become plain garray ops, so every
  // later phase sees one ordinary global program.
  if (failed(run(module, [&](OpPassManager &pm) {
        // Composites first (a mean is a sum and a division by its global
        // count), so adjoints reuse the forward pass's sums instead of
        // recomputing them, and each is reduced across devices once.
        pm.addNestedPass<func::FuncOp>(createGArrayDecompose());
        pm.addPass(createGArrayAutodiff());
        pm.addNestedPass<func::FuncOp>(createGArrayExpandOptimizers());
        if (!options.meshSizes.empty()) {
          GArraySetMeshOptions o;
          o.sizes = options.meshSizes;
          pm.addPass(createGArraySetMesh(o));
        }
      })))
    return std::nullopt;
  FailureOr<func::FuncOp> entry = findEntry(module, options.entry);
  if (failed(entry))
    return std::nullopt;
  std::string entryName = entry->getSymName().str();
  if (stopHere(Phase::Global))
    return result;

  // What the user placed (propagation then places all).
  UserPlaced userPlaced;
  userPlaced.entryFunc = *entry;
  for (unsigned i = 0; i < entry->getNumArguments(); ++i)
    userPlaced.arguments.push_back(entry->getArgAttr(i, garray::kShardingAttrName) != nullptr);
  // Constraints and reshards are replaced during partitioning: their
  // collectives' reasons name them (userAsked below), not this set.
  module.walk([&](Operation *op) {
    if (!isa<garray::ShardingConstraintOp, garray::ReshardOp>(op) &&
        !op->getRawDictionaryAttrs().empty() && op->hasAttr(garray::kShardingAttrName))
      userPlaced.ops.insert(op);
  });

  // Phase 1: placements. Composites were decomposed in phase 0 (their global
  // denominators are constants before anything is sharded, and neither
  // autodiff nor the optimizer expansion emits one); stencils are read as
  // shifts, then propagation runs to a fixed point. With `explain`,
  // propagation also reports each value's provenance.
  if (failed(run(module, [&](OpPassManager &pm) {
        pm.addNestedPass<func::FuncOp>(createGArrayRecognizeShifts());
        GArrayPropagateOptions propagate;
        propagate.explain = options.explain;
        pm.addPass(createGArrayPropagate(propagate));
      })))
    return std::nullopt;
  if (stopHere(Phase::Propagated))
    return result;

  // Phase 2: partitioning. Reshards where an op's rule disagrees with its
  // operands (pending partials included), then the planner's collectives.
  if (failed(run(module, [](OpPassManager &pm) {
        pm.addPass(createGArrayInsertReshards());
        pm.addPass(createGArrayReshardToCollectives());
      })))
    return std::nullopt;
  if (failed(readSignature(*entry, result.signature)))
    return std::nullopt;
  readCollectives(*entry, result.signature);
  readMemory(*entry, result.signature, userPlaced);
  if (options.memoryBudget) {
    std::string over = memoryBudgetError(result.signature, *options.memoryBudget);
    if (!over.empty()) {
      if (!over.empty() && over.back() == '\n')
        over.pop_back();
      entry->emitError(over);
      return std::nullopt;
    }
  }
  result.signature.entry = entryName + kCpuEntrySuffix.str();
  if (stopHere(Phase::Partitioned))
    return result;

  // Phase 3: the local program; verify-local is the gate.
  if (failed(run(module, [](OpPassManager &pm) {
        pm.addPass(createGArrayGlobalToLocal());
        pm.addPass(createGArrayVerifyLocal());
      })))
    return std::nullopt;
  if (stopHere(Phase::Local))
    return result;

  // Phase 4: lowering. Compute to linalg (fused and bufferized by the CPU
  // target), collectives to runtime calls, then LLVM and machine code.
  if (failed(checkLowerable(module)))
    return std::nullopt;
  if (failed(run(module, [](OpPassManager &pm) {
        pm.addPass(createGArrayLowerToLinalg());
        pm.addPass(createCommLowerToRuntime());
      })))
    return std::nullopt;
  CpuTargetOptions cpu;
  cpu.cpu = options.cpu;
  if (failed(lowerToLLVMDialect(module, entryName, cpu)))
    return std::nullopt;
  if (options.emit == Phase::LLVM) {
    FailureOr<std::string> ir = emitLLVMIR(module, cpu);
    if (failed(ir))
      return std::nullopt;
    if (options.emitStream)
      *options.emitStream << *ir;
    return result;
  }
  FailureOr<std::string> object = emitObject(module, cpu);
  if (failed(object))
    return std::nullopt;
  result.object = std::move(*object);
  return result;
}

std::optional<CompileResult> compileText(llvm::StringRef text, llvm::StringRef bufferName,
                                         const CompileOptions &options,
                                         std::string &diagnostics) {
  DialectRegistry registry;
  registerCompilerDialects(registry);
  // One thread per context: callers often compile while ranks run as threads.
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);
  llvm::raw_string_ostream diag(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, bufferName),
                               llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, diag);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  if (!module)
    return std::nullopt;
  return compileModule(*module, options);
}

} // namespace shardc
