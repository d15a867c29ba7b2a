//===- EndlessRecursion.cpp - functions that never return ------------------===//
#include "passes/verify/EndlessRecursion.h"

#include "dialects/garray/GArray.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

using namespace mlir;

namespace shardc {
namespace {

/// The function an op of an entry block runs on every call, if any.
StringAttr calledName(Operation &op) {
  if (auto call = dyn_cast<func::CallOp>(op))
    return call.getCalleeAttr().getAttr();
  if (auto map = dyn_cast<garray::ShardMapOp>(op))
    return map.getBodyAttr().getAttr();
  return {};
}

/// Depth-first over unconditional calls; `path` holds the functions whose
/// calls are being followed, in order.
class CycleFinder {
public:
  explicit CycleFinder(ModuleOp module) : symbols(module) {}

  bool ok = true;

  void visit(func::FuncOp func) {
    if (state.lookup(func) == Done || func.isExternal())
      return;
    state[func] = OnPath;
    path.push_back(func);
    for (Operation &op : func.getBody().front()) {
      StringAttr name = calledName(op);
      auto callee = name ? symbols.lookup<func::FuncOp>(name) : func::FuncOp();
      if (!callee)
        continue;
      if (state.lookup(callee) == OnPath)
        report(op, callee);
      else
        visit(callee);
    }
    path.pop_back();
    state[func] = Done;
  }

private:
  enum State { Unseen, OnPath, Done };

  void report(Operation &op, func::FuncOp callee) {
    std::string cycle;
    bool in = false;
    for (func::FuncOp f : path) {
      in = in || f == callee;
      if (in)
        cycle += "@" + f.getSymName().str() + " -> ";
    }
    cycle += "@" + callee.getSymName().str();
    op.emitError("@") << callee.getSymName() << " calls itself on every path (" << cycle
                      << "), so it never returns: running it would recurse until the stack "
                         "overflows; call it under an scf.if that can stop the recursion, or "
                         "remove the call";
    ok = false;
  }

  SymbolTable symbols;
  llvm::DenseMap<Operation *, State> state;
  SmallVector<func::FuncOp> path;
};

} // namespace

LogicalResult refuseEndlessRecursion(ModuleOp module) {
  CycleFinder finder(module);
  for (auto func : module.getOps<func::FuncOp>())
    finder.visit(func);
  return success(finder.ok);
}

} // namespace shardc
