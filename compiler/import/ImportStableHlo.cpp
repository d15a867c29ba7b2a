//===- ImportStableHlo.cpp - JAX's StableHLO + Shardy, as garray ----------===//
//
// The driver: the mesh, each function's signature (shardings, names,
// donation) and a walk over its body that replaces every op through the
// op table (ImportOps.h). It checks what every entry relies on first: each
// operand and result is a static tensor of an element type garray has, and
// the op carries no attribute the entry does not read.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportStableHlo.h"
#include "compiler/import/ImportOps.h"
#include "compiler/import/SdySharding.h"

#include "dialects/garray/GArray.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;
using namespace mlir::garray;

namespace shardc {

std::string jaxPathToName(const std::string &path) {
  llvm::StringRef p(path);
  size_t head = p.find_first_of("[.");
  std::string out = p.substr(0, head).str();
  bool resultRoot = out == "result";
  p = head == llvm::StringRef::npos ? llvm::StringRef() : p.substr(head);
  while (!p.empty()) {
    std::string key;
    if (p.consume_front(".")) {
      size_t end = p.find_first_of("[.");
      key = p.substr(0, end).str();
      p = end == llvm::StringRef::npos ? llvm::StringRef() : p.substr(end);
    } else if (p.consume_front("[")) {
      size_t end = p.find(']');
      if (end == llvm::StringRef::npos)
        return "";
      llvm::StringRef k = p.substr(0, end).trim();
      p = p.substr(end + 1);
      if (k.size() >= 2 && (k.front() == '\'' || k.front() == '"') && k.back() == k.front())
        k = k.drop_front().drop_back();
      else if (resultRoot && llvm::all_of(k, llvm::isDigit) && !k.empty()) {
        out += k.str(); // result[0] -> result0
        resultRoot = false;
        continue;
      }
      key = k.str();
    } else {
      return "";
    }
    resultRoot = false;
    out += "." + key;
  }
  bool ok = !out.empty() && out.size() <= 200 && out[0] != '.';
  for (char c : out)
    ok = ok && (llvm::isAlnum(c) || c == '_' || c == '-' || c == '.');
  return ok ? out : "";
}

namespace {

using import::OpImport;
using import::Values;

/// Attributes that say how XLA should lay out, place or annotate a value,
/// not what it is: ignored.
bool isIgnorable(llvm::StringRef name) {
  return name == "mhlo.layout_mode" || name == "mhlo.memory_kind" ||
         name == "mhlo.frontend_attributes" || name == "jax.global_constant";
}

std::string textOf(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

class Importer {
public:
  explicit Importer(ModuleOp module) : module_(module), b_(module.getContext()) {}

  LogicalResult run();

private:
  LogicalResult importMesh(Operation *op);
  FailureOr<Attribute> sharding(Location loc, Attribute sdy, llvm::StringRef what);
  LogicalResult importSignature(func::FuncOp func);
  LogicalResult importBody(func::FuncOp func);
  LogicalResult importOp(Operation *op);
  LogicalResult checkTypes(Operation *op);

  ModuleOp module_;
  OpBuilder b_;
};

LogicalResult Importer::importMesh(Operation *op) {
  auto name = op->getAttrOfType<StringAttr>("sym_name");
  Attribute meshAttr = op->getAttr("mesh");
  if (!name || !meshAttr)
    return op->emitError() << "'sdy.mesh' needs `sym_name` and `mesh` attributes";
  for (NamedAttribute a : import::attributesOf(op))
    if (a.getName() != "sym_name" && a.getName() != "mesh" && a.getName() != "stablehlo.mesh")
      return op->emitError() << "attribute `" << a.getName().str() << "` of 'sdy.mesh' is not "
                                "supported";
  std::string error;
  std::optional<SdyMesh> mesh = parseSdyMesh(textOf(meshAttr), error);
  if (!mesh)
    return op->emitError() << "mesh @" << name.getValue() << ": " << error;
  if (mesh->axes.empty())
    return op->emitError() << "mesh @" << name.getValue()
                           << " has no axes; garray needs at least one (use a mesh of one "
                              "axis of size 1 for a single device)";
  b_.setInsertionPoint(op);
  SmallVector<llvm::StringRef> axes(mesh->axes.begin(), mesh->axes.end());
  MeshOp::create(b_, op->getLoc(), name, b_.getStrArrayAttr(axes),
                 b_.getDenseI64ArrayAttr(mesh->sizes));
  op->erase();
  return success();
}

FailureOr<Attribute> Importer::sharding(Location loc, Attribute sdy, llvm::StringRef what) {
  std::string text = textOf(sdy), error;
  std::optional<SdySharding> s = parseSdySharding(text, error);
  if (!s)
    return emitError(loc) << "sdy.sharding of " << what << ": " << error;
  std::string garray = "#garray.sharding<@" + s->mesh + ", " + garraySpec(*s) + ">";
  Attribute attr = parseAttribute(garray, module_.getContext());
  if (!attr)
    return emitError(loc) << "sdy.sharding of " << what << " (" << text
                          << ") has no garray counterpart";
  return attr;
}

/// A pytree path split at its root: `params['W']` -> (`params`, `['W']`);
/// `result[1]['W']` -> (`result[1]`, `['W']`), a result's root being its
/// top-level output.
std::pair<std::string, std::string> splitPath(llvm::StringRef path, bool result) {
  size_t cut = path.find('[');
  if (result && cut != llvm::StringRef::npos)
    cut = path.find(']', cut);
  if (cut == llvm::StringRef::npos)
    return {path.str(), ""};
  if (result)
    ++cut;
  return {path.take_front(cut).str(), path.drop_front(cut).str()};
}

/// Pairs donated arguments with their next values by pytree path, where
/// JAX's own pairing says less:
///  - JAX pairs a donated argument with the first result of its type, which
///    need not be its next value: a step returning `(metrics, params)` whose
///    metrics log an update shaped like a weight had that metric fed back as
///    the weight. When exactly one result of the argument's type has the
///    argument's path below the roots (`params['W']`, `result[1]['W']`),
///    that result is its next value.
///  - `donate_argnums` donates whole arguments, but JAX drops the donation
///    of a leaf it cannot alias (its result is placed differently): that
///    leaf is still state. An undonated argument whose root has donated
///    leaves pairs with the one result of its type and path under the
///    result those leaves pair with.
/// Whether result `r` of `func` can carry argument `i` to the next step:
/// the same type and the same unsigned reading.
bool sameKind(func::FuncOp func, unsigned i, unsigned r) {
  return func.getResultTypes()[r] == func.getArgumentTypes()[i] &&
         bool(func.getResultAttr(r, kUnsignedAttrName)) ==
             bool(func.getArgAttr(i, kUnsignedAttrName));
}

void pairByPath(func::FuncOp func, std::vector<int64_t> &donatedTo) {
  if (func.getBody().empty())
    return;
  unsigned nArgs = func.getNumArguments(), nResults = func.getNumResults();
  std::vector<std::pair<std::string, std::string>> args(nArgs), results(nResults);
  for (unsigned i = 0; i < nArgs; ++i)
    if (auto nameLoc = dyn_cast<NameLoc>(func.getArgument(i).getLoc()))
      args[i] = splitPath(nameLoc.getName().getValue(), /*result=*/false);
  for (unsigned r = 0; r < nResults; ++r)
    if (auto info = func.getResultAttrOfType<StringAttr>(r, "jax.result_info"))
      results[r] = splitPath(info.getValue(), /*result=*/true);
  // The one result of argument i's type and path (under `root` if given).
  auto onlyMatch = [&](unsigned i, const std::string *root) -> std::optional<unsigned> {
    std::optional<unsigned> only;
    for (unsigned r = 0; r < nResults; ++r)
      if (results[r].second == args[i].second && (!root || results[r].first == *root) &&
          sameKind(func, i, r)) {
        if (only)
          return std::nullopt;
        only = r;
      }
    return only;
  };
  auto taken = [&](unsigned r) { return llvm::is_contained(donatedTo, static_cast<int64_t>(r)); };
  for (unsigned i = 0; i < nArgs; ++i) {
    if (donatedTo[i] < 0 || args[i].second.empty())
      continue;
    if (std::optional<unsigned> r = onlyMatch(i, nullptr); r && !taken(*r))
      donatedTo[i] = *r;
  }
  for (unsigned i = 0; i < nArgs; ++i) {
    if (donatedTo[i] >= 0 || args[i].second.empty())
      continue;
    const std::string *root = nullptr;
    for (unsigned j = 0; j < nArgs && !root; ++j)
      if (donatedTo[j] >= 0 && args[j].first == args[i].first &&
          results[donatedTo[j]].second == args[j].second)
        root = &results[donatedTo[j]].first;
    if (!root)
      continue;
    if (std::optional<unsigned> r = onlyMatch(i, root); r && !taken(*r))
      donatedTo[i] = *r;
  }
}

LogicalResult Importer::importSignature(func::FuncOp func) {
  bool named = func.isPublic();
  unsigned nArgs = func.getNumArguments(), nResults = func.getNumResults();
  std::vector<std::string> argNames(nArgs), resultNames(nResults);
  std::vector<int64_t> donatedTo(nArgs, -1); // result index, or -2: donor, result unknown
  auto fail = [&](const Twine &msg) { return func.emitError() << msg; };

  for (unsigned i = 0; i < nArgs; ++i) {
    NamedAttrList kept;
    std::string what = "argument #" + std::to_string(i) + " of @" + func.getSymName().str();
    Location loc = func.getBody().empty() ? func.getLoc() : func.getArgument(i).getLoc();
    // JAX names an argument by a location with no place in a file: errors
    // about it point at its function instead.
    if (auto nameLoc = dyn_cast<NameLoc>(loc); nameLoc && isa<UnknownLoc>(nameLoc.getChildLoc()))
      loc = NameLoc::get(nameLoc.getName(), func.getLoc());
    if (auto nameLoc = dyn_cast<NameLoc>(loc); nameLoc && named) {
      argNames[i] = jaxPathToName(nameLoc.getName().str());
      if (!argNames[i].empty())
        what = "argument '" + nameLoc.getName().str() + "'";
    }
    DictionaryAttr argAttrs = func.getArgAttrDict(i);
    for (NamedAttribute a : argAttrs ? argAttrs.getValue() : ArrayRef<NamedAttribute>()) {
      llvm::StringRef n = a.getName().getValue();
      if (n == "sdy.sharding") {
        FailureOr<Attribute> s = sharding(loc, a.getValue(), what);
        if (failed(s))
          return failure();
        kept.set(kShardingAttrName, *s);
      } else if (n == "tf.aliasing_output") {
        auto k = dyn_cast<IntegerAttr>(a.getValue());
        if (!k || k.getInt() < 0 || k.getInt() >= nResults)
          return fail("tf.aliasing_output of " + what + " must name a result");
        donatedTo[i] = k.getInt();
      } else if (n == "jax.buffer_donor") {
        donatedTo[i] = -2;
      } else if (n == kUnsignedAttrName) {
        kept.append(a); // set by unsignedToSignless
      } else if (n == "mhlo.sharding") {
        return emitError(loc) << "mhlo.sharding (a GSPMD sharding string) on " << what
                              << " is not supported: shardc reads Shardy shardings; lower with "
                                 "Shardy on (JAX's default, jax_use_shardy_partitioner)";
      } else if (!isIgnorable(n)) {
        return emitError(loc) << "attribute `" << n << "` on " << what
                              << " is not supported (shardc reads sdy.sharding, "
                                 "tf.aliasing_output, jax.buffer_donor, and ignores mhlo "
                                 "layout and memory attributes)";
      }
    }
    func.setArgAttrs(i, kept.getDictionary(func.getContext()));
  }
  // Donated arguments without a stated result alias the first later unused
  // result of their type, in order, as XLA pairs them.
  std::vector<bool> aliased(nResults, false);
  for (int64_t r : donatedTo)
    if (r >= 0)
      aliased[r] = true;
  for (unsigned i = 0; i < nArgs; ++i) {
    if (donatedTo[i] != -2)
      continue;
    donatedTo[i] = -1;
    for (unsigned r = 0; r < nResults; ++r)
      if (!aliased[r] && sameKind(func, i, r)) {
        aliased[r] = true;
        donatedTo[i] = r;
        break;
      }
  }
  pairByPath(func, donatedTo);
  for (unsigned r = 0; r < nResults; ++r) {
    NamedAttrList kept;
    std::string what = "result #" + std::to_string(r) + " of @" + func.getSymName().str();
    DictionaryAttr resultAttrs = func.getResultAttrDict(r);
    for (NamedAttribute a : resultAttrs ? resultAttrs.getValue() : ArrayRef<NamedAttribute>()) {
      llvm::StringRef n = a.getName().getValue();
      if (n == "sdy.sharding") {
        FailureOr<Attribute> s = sharding(func.getLoc(), a.getValue(), what);
        if (failed(s))
          return failure();
        kept.set(kShardingAttrName, *s);
      } else if (n == kUnsignedAttrName) {
        kept.append(a); // set by unsignedToSignless
      } else if (n == "jax.result_info") {
        if (auto info = dyn_cast<StringAttr>(a.getValue()); info && named)
          resultNames[r] = jaxPathToName(info.str());
      } else if (n == "mhlo.sharding") {
        return fail("mhlo.sharding (a GSPMD sharding string) on " + what +
                    " is not supported: shardc reads Shardy shardings");
      } else if (!isIgnorable(n)) {
        return fail("attribute `" + n + "` on " + what + " is not supported");
      }
    }
    func.setResultAttrs(r, kept.getDictionary(func.getContext()));
  }
  // A donated argument's result replaces it, step after step: where JAX
  // left the result's sharding to the compiler, it keeps the argument's, so
  // the state keeps one layout between steps (XLA aliases the two buffers
  // only when their shardings agree, too).
  for (unsigned i = 0; i < nArgs; ++i)
    if (donatedTo[i] >= 0 && !func.getResultAttr(donatedTo[i], kShardingAttrName))
      if (Attribute s = func.getArgAttr(i, kShardingAttrName))
        func.setResultAttr(donatedTo[i], kShardingAttrName, s);
  if (!named)
    return success();
  for (unsigned i = 0; i < nArgs; ++i)
    if (donatedTo[i] >= 0 && !argNames[i].empty())
      resultNames[donatedTo[i]] = argNames[i];
  // `argJ` names the J-th argument by position: a real name that is another
  // argument's positional name would make `--in argJ=` ambiguous. (Results
  // need no such check: JAX's `result[1]` is the second top-level output,
  // named result1 wherever it is in the flat list, and real names win.)
  auto positional = [](const std::string &name, llvm::StringRef prefix, unsigned count,
                       unsigned self) -> std::optional<unsigned> {
    llvm::StringRef n(name);
    unsigned j;
    if (n.consume_front(prefix) && !n.getAsInteger(10, j) && j < count && j != self)
      return j;
    return std::nullopt;
  };
  for (unsigned i = 0; i < nArgs; ++i)
    if (auto j = positional(argNames[i], "arg", nArgs, i))
      return fail("argument #" + Twine(i) + " is named '" + argNames[i] + "', the positional "
                  "name of argument #" + Twine(*j) + "; rename one of them in JAX");
  // Names are unique among the arguments and among the results; each named
  // one gets its garray.name.
  auto writeNames = [&](const std::vector<std::string> &names, const char *kind,
                        auto setName) -> LogicalResult {
    std::map<std::string, unsigned> seen;
    for (unsigned k = 0; k < names.size(); ++k) {
      if (names[k].empty())
        continue;
      auto [it, fresh] = seen.emplace(names[k], k);
      if (!fresh)
        return fail(Twine(kind) + " #" + Twine(it->second) + " and #" + Twine(k) +
                    " are both named '" + names[k] + "'; give them different names in JAX");
      setName(k, b_.getStringAttr(names[k]));
    }
    return success();
  };
  if (failed(writeNames(argNames, "arguments",
                        [&](unsigned k, StringAttr n) { func.setArgAttr(k, "garray.name", n); })))
    return failure();
  return writeNames(resultNames, "results",
                    [&](unsigned k, StringAttr n) { func.setResultAttr(k, "garray.name", n); });
}

LogicalResult Importer::checkTypes(Operation *op) {
  auto check = [&](Type t, const char *what, unsigned i) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor)
      return op->emitError() << what << " #" << i << " of '" << op->getName() << "' has type " << t
                             << "; shardc imports ranked tensors only";
    if (!tensor.hasStaticShape())
      return op->emitError() << what << " #" << i << " of '" << op->getName() << "' has the "
                             << "dynamic shape " << t
                             << "; shardc imports static shapes only (export with concrete "
                                "shapes, not jax.export's symbolic ones)";
    Type e = tensor.getElementType();
    bool ok = e.isF16() || e.isBF16() || e.isF32() || e.isF64() ||
              (e.isSignlessInteger() && llvm::is_contained({1u, 8u, 16u, 32u, 64u},
                                                           e.getIntOrFloatBitWidth()));
    if (!ok)
      return op->emitError() << what << " #" << i << " of '" << op->getName()
                             << "' has element type " << e
                             << ", which garray does not have (f16, bf16, f32, f64, i1, i8, "
                                "i16, i32, i64)";
    return success();
  };
  for (auto [i, t] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(t, "operand", i)))
      return failure();
  for (auto [i, t] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(t, "result", i)))
      return failure();
  return success();
}

LogicalResult Importer::importOp(Operation *op) {
  llvm::StringRef name = op->getName().getStringRef();
  if (isa<func::CallOp, func::ReturnOp, ShardMapOp>(op)) // a shard_map: outlined already
    return checkTypes(op);
  if (failed(checkTypes(op)))
    return failure();
  b_.setInsertionPoint(op);
  OpEmitter e{b_, op->getLoc()};
  Values results;
  if (name == "sdy.sharding_constraint") {
    Attribute s = op->getAttr("sharding");
    if (op->getNumOperands() != 1 || op->getNumResults() != 1 || !s ||
        import::attributesOf(op).size() != 1)
      return op->emitError() << "'sdy.sharding_constraint' needs one operand and a `sharding`";
    FailureOr<Attribute> garray = sharding(op->getLoc(), s, "a sharding_constraint");
    if (failed(garray))
      return failure();
    results.push_back(ShardingConstraintOp::create(b_, op->getLoc(), op->getOperand(0),
                                                   cast<ShardingAttr>(*garray)));
  } else {
    const OpImport *entry = import::lookupOpImport(name);
    if (!entry)
      return op->emitError() << "'" << name << "' has no garray counterpart, so shardc cannot "
                                "import this program; "
                             << import::supportedOpsSummary();
    Attribute opSharding;
    for (NamedAttribute a : import::attributesOf(op)) {
      llvm::StringRef n = a.getName().getValue();
      if (n == "sdy.sharding" && op->getNumResults() == 1)
        opSharding = a.getValue();
      else if (n == "mhlo.sharding")
        return op->emitError() << "mhlo.sharding (a GSPMD sharding string) on '" << name
                               << "' is not supported: shardc reads Shardy shardings";
      else if (!isIgnorable(n) && !llvm::is_contained(entry->attrs, n))
        return op->emitError() << "attribute `" << n << "` of '" << name
                               << "' is not supported by the importer";
    }
    if (op->getNumRegions() && name != "stablehlo.reduce" && name != "stablehlo.scatter" &&
        name != "stablehlo.reduce_window" && name != "stablehlo.select_and_scatter" &&
        name != "stablehlo.all_reduce" && name != "stablehlo.reduce_scatter")
      return op->emitError() << "'" << name << "' with a region is not supported";
    FailureOr<Values> built = entry->build(op, e);
    if (failed(built))
      return failure();
    results = std::move(*built);
    if (opSharding) {
      FailureOr<Attribute> garray = sharding(op->getLoc(), opSharding, "'" + name.str() + "'");
      if (failed(garray))
        return failure();
      results[0] = ShardingConstraintOp::create(b_, op->getLoc(), results[0],
                                                cast<ShardingAttr>(*garray));
    }
  }
  if (results.size() != op->getNumResults())
    return op->emitError() << "internal error: the importer built " << results.size()
                           << " values for " << op->getNumResults() << " results";
  for (auto [from, to] : llvm::zip(op->getResults(), results)) {
    if (!to) // a result the builder skipped because nothing uses it
      continue;
    if (to.getType() != from.getType())
      return op->emitError() << "internal error: the import of '" << name << "' has type "
                             << to.getType() << " for a result of type " << from.getType();
    from.replaceAllUsesWith(to);
  }
  op->erase();
  return success();
}

LogicalResult Importer::importBody(func::FuncOp func) {
  if (func.isExternal())
    return func.emitError() << "@" << func.getSymName()
                            << " has no body; the importer needs every function defined";
  if (!llvm::hasSingleElement(func.getBody()))
    return func.emitError() << "@" << func.getSymName()
                            << " has several blocks; JAX's lowering has one per function";
  Block &body = func.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(body))
    if (failed(importOp(&op)))
      return failure();
  // The inits a reduce no longer needs, and the like: dead garray ops.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isOpTriviallyDead(&op))
      op.erase();
  return success();
}

LogicalResult Importer::run() {
  import::dropVacuousConstraints(module_);
  if (failed(import::unsignedToSignless(module_)) || failed(import::flattenCases(module_)) ||
      failed(import::sortsToNetworks(module_)) || failed(import::reduceWindowsToTaps(module_)) ||
      failed(import::unrollStaticWhileLoops(module_)) || failed(import::dropEmptyTensors(module_)))
    return failure();
  SmallVector<func::FuncOp> funcs;
  for (Operation &op : llvm::make_early_inc_range(module_.getBody()->getOperations())) {
    llvm::StringRef name = op.getName().getStringRef();
    if (name == "sdy.mesh") {
      if (failed(importMesh(&op)))
        return failure();
    } else if (auto func = dyn_cast<func::FuncOp>(op)) {
      funcs.push_back(func);
    } else {
      return op.emitError() << "'" << name << "' at module level is not supported (the importer "
                               "reads sdy.mesh and func.func)";
    }
  }
  // shard_map bodies become functions of their own, imported with the rest.
  if (failed(import::outlineManualComputations(module_)))
    return failure();
  funcs.assign(module_.getOps<func::FuncOp>().begin(), module_.getOps<func::FuncOp>().end());
  for (func::FuncOp func : funcs)
    if (failed(importSignature(func)) || failed(importBody(func)))
      return failure();
  import::dropShardMapMarks(module_);
  // Module attributes tell XLA how many partitions to compile for; the
  // garray mesh says that now.
  SmallVector<StringAttr> dropped;
  for (NamedAttribute a : module_->getAttrs())
    if (a.getName() != "sym_name")
      dropped.push_back(a.getName());
  for (StringAttr name : dropped)
    module_->removeAttr(name);
  return success();
}

} // namespace

LogicalResult importStableHlo(ModuleOp module) { return Importer(module).run(); }

SmallVector<Operation *> import::opsNamed(ModuleOp module, llvm::StringRef name) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) { // post-order: nested ops first
    if (op->getName().getStringRef() == name)
      ops.push_back(op);
  });
  return ops;
}

} // namespace shardc
