//===- EndlessRecursion.cpp - functions that never return ------------------===//
#include "passes/verify/EndlessRecursion.h"

#include "dialects/garray/GArray.h"
#include "sharding/Limits.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <optional>
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
    // Deeper chains were refused by checkCallDepth; this bounds the stack.
    if (state.lookup(func) == Done || func.isExternal() || static_cast<int64_t>(path.size()) > kMaxCallDepth)
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

/// The longest chain of calls (anywhere in a body, conditional or not)
/// below each function, memoized; a call back into the path is not
/// followed. The walk descends at most kMaxCallDepth levels.
class DepthChecker {
public:
  explicit DepthChecker(ModuleOp module) : symbols(module) {}

  /// The depth below `func` reached from `level` levels of calls; nullopt
  /// (after an error at the call) when a chain goes past the limit.
  std::optional<int64_t> depth(func::FuncOp func, int64_t level) {
    if (auto it = memo.find(func); it != memo.end())
      return it->second;
    if (func.isExternal() || onPath.contains(func))
      return 0;
    onPath.insert(func);
    int64_t below = 0;
    WalkResult walked = func.walk([&](Operation *op) {
      StringAttr name = calledName(*op);
      auto callee = name ? symbols.lookup<func::FuncOp>(name) : func::FuncOp();
      if (!callee)
        return WalkResult::advance();
      std::optional<int64_t> d =
          level + 1 > kMaxCallDepth ? std::nullopt : depth(callee, level + 1);
      if (d && level + 1 + *d <= kMaxCallDepth) {
        below = std::max<int64_t>(below, 1 + *d);
        return WalkResult::advance();
      }
      if (!reported) {
        op->emitError("calls nest deeper than ")
            << kMaxCallDepth << " functions here; shardc refuses such a model (a model's "
            << "helpers call one another a few levels deep)";
        reported = true;
      }
      return WalkResult::interrupt();
    });
    onPath.erase(func);
    if (walked.wasInterrupted())
      return std::nullopt;
    memo[func] = below;
    return below;
  }

private:
  SymbolTable symbols;
  llvm::DenseMap<Operation *, int64_t> memo;
  llvm::DenseSet<Operation *> onPath;
  bool reported = false;
};

} // namespace

// Two walks over two graphs: the depth counts every call, the cycles only
// the calls an entry block always makes. One memoized walk over all calls
// cannot find the cycles too: where f calls g under an scf.if and also
// through h unconditionally (f -> h -> g -> f), it reaches g first through
// the conditional call, marks it done, and never sees the unconditional
// cycle.
LogicalResult refuseEndlessRecursion(ModuleOp module) {
  DepthChecker depths(module);
  for (auto func : module.getOps<func::FuncOp>())
    if (!depths.depth(func, 0))
      return failure();
  CycleFinder finder(module);
  for (auto func : module.getOps<func::FuncOp>())
    finder.visit(func);
  return success(finder.ok);
}

} // namespace shardc
