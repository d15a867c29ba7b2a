//===- InputContract.cpp - what a model may contain, checked first ---------===//
#include "passes/verify/InputContract.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <limits>
#include <string>

using namespace mlir;

namespace shardc {

std::optional<int64_t> tensorBytes(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape())
    return std::nullopt;
  int64_t bits = t.getElementType().isIntOrFloat() ? t.getElementType().getIntOrFloatBitWidth() : 8;
  std::optional<int64_t> bytes = std::max<int64_t>(1, bits / 8);
  for (int64_t d : t.getShape())
    if (!bytes || !(bytes = checkedMul(*bytes, d)))
      return std::nullopt;
  return bytes;
}

namespace {

/// Why `op`'s dialect is not part of a model, or "" when it is. `inBody`:
/// `op` is in the body of a garray.shard_map, a local program, where comm's
/// collectives are the model's own.
std::string foreignOp(Operation *op, bool inBody) {
  StringRef dialect = op->getName().getDialectNamespace();
  if (!op->isRegistered())
    return "is not an op any dialect registers";
  if (llvm::is_contained({"builtin", "func", "garray", "cf", "scf"}, dialect))
    return "";
  if (dialect == "comm" && inBody)
    return "";
  if (dialect == "comm")
    return "is a collective of a local program: a model writes it only in the body of a "
           "garray.shard_map (a private function the shard_map names); elsewhere shardc "
           "derives the collectives from the shardings";
  if (llvm::is_contained({"arith", "math", "tensor"}, dialect)) {
    auto isTensor = [](Type t) { return isa<TensorType>(t); };
    bool onTensors =
        llvm::any_of(op->getOperandTypes(), isTensor) || llvm::any_of(op->getResultTypes(), isTensor);
    if (!onTensors && dialect != "tensor")
      return "";
    StringRef name = op->getName().getStringRef();
    if (name == "arith.constant" || name == "tensor.extract")
      return "";
    return "on tensors is not an op shardc compiles (it has no sharding rule and no lowering); "
           "write the computation with garray ops, e.g. garray.add for arith.addf";
  }
  return kNotAModelOp;
}

std::string limitText(int64_t limit) {
  int log = 0;
  while ((int64_t(1) << log) < limit)
    ++log;
  return "2^" + std::to_string(log);
}

/// "" when `type` is within the size limits, else what exceeds which.
std::string sizeProblem(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t)
    return "";
  for (auto [d, size] : llvm::enumerate(t.getShape()))
    if (!ShapedType::isDynamic(size) && size > kMaxDimSize)
      return "dim " + std::to_string(d) + " has size " + std::to_string(size) +
             ", past shardc's limit of " + limitText(kMaxDimSize) + " elements per dimension";
  if (!t.hasStaticShape())
    return "";
  std::optional<int64_t> bytes = tensorBytes(t);
  if (!bytes)
    return "its size in bytes does not fit in 64 bits";
  if (*bytes > kMaxTensorBytes)
    return "its " + std::to_string(*bytes) + " bytes are past shardc's limit of " +
           limitText(kMaxTensorBytes) + " bytes (4 TiB) per tensor";
  return "";
}

/// The element count of a statically shaped tensor, or nullopt (also
/// when it does not fit in 64 bits).
std::optional<int64_t> staticElements(RankedTensorType t) {
  if (!t.hasStaticShape())
    return std::nullopt;
  std::optional<int64_t> n = 1;
  for (int64_t d : t.getShape())
    if (!(n = checkedMul(*n, d)))
      return std::nullopt;
  return n;
}

std::string typeText(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

} // namespace

LogicalResult verifyInputContract(ModuleOp module) {
  bool ok = true;
  int64_t constantElements = 0; // all constants so far, within the limits
  auto checkValue = [&](Type type, Location loc, const std::string &what) {
    std::string p = sizeProblem(type);
    if (p.empty())
      return;
    emitError(loc) << what << " has type " << typeText(type) << ": " << p
                   << "; split the model's arrays into smaller ones";
    ok = false;
  };
  // The functions shard_maps run (read from the generic attribute: the
  // module has not been verified).
  llvm::DenseSet<StringAttr> bodies;
  module->walk([&](Operation *op) {
    if (op->getName().getStringRef() == "garray.shard_map")
      if (auto body = dyn_cast_or_null<FlatSymbolRefAttr>(op->getAttr("body")))
        bodies.insert(body.getAttr());
  });
  StringAttr inBody; // the shard_map body being walked, if any
  module->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto f = dyn_cast<func::FuncOp>(op))
      inBody = bodies.contains(f.getSymNameAttr()) ? f.getSymNameAttr() : StringAttr();
    std::string foreign = foreignOp(op, bool(inBody));
    if (!foreign.empty()) {
      op->emitError("'") << op->getName() << "' " << foreign;
      ok = false;
      return WalkResult::skip(); // its regions are not a model's either
    }
    std::string name = op->getName().getStringRef().str();
    for (OpResult r : op->getResults())
      checkValue(r.getType(), op->getLoc(),
                 "result #" + std::to_string(r.getResultNumber()) + " of '" + name + "'");
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument a : block.getArguments())
          checkValue(a.getType(), a.getLoc(),
                     "argument #" + std::to_string(a.getArgNumber()) +
                         (isa<func::FuncOp>(op) ? " of @" + cast<func::FuncOp>(op).getSymName().str()
                                                : " of a block in '" + name + "'"));
    if (auto f = dyn_cast<func::FuncOp>(op))
      for (auto [i, t] : llvm::enumerate(f.getFunctionType().getResults()))
        checkValue(t, f.getLoc(), "result #" + std::to_string(i) + " of @" + f.getSymName().str());
    // A constant is materialized by the compiler: past the limit, compile
    // memory grows with the model's size, not its text.
    StringRef opName = op->getName().getStringRef();
    if ((opName == "garray.constant" || opName == "arith.constant") && op->getNumResults() == 1)
      if (auto t = dyn_cast<RankedTensorType>(op->getResult(0).getType()))
        if (std::optional<int64_t> n = staticElements(t); n && *n > kMaxConstantElements) {
          op->emitError("'") << opName << "' of type " << typeText(t) << " holds " << *n
                             << " elements, past shardc's limit of "
                             << limitText(kMaxConstantElements)
                             << " per constant; build it from a scalar constant with "
                                "garray.broadcast_in_dim (or garray.iota)";
          ok = false;
        } else if (n && (constantElements += *n) > kMaxModelConstantElements) {
          op->emitError("'") << opName << "' brings the model's constants to "
                             << constantElements << " elements, past shardc's limit of "
                             << limitText(kMaxModelConstantElements)
                             << " in all; build large constants from scalars with "
                                "garray.broadcast_in_dim (or garray.iota)";
          ok = false;
          return WalkResult::interrupt(); // one error says it
        }
    return WalkResult::advance();
  });
  return success(ok);
}

} // namespace shardc
