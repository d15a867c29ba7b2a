//===- InlineCalls.cpp - calls replaced by their callees' bodies ----------===//
//
// JAX puts helpers in private functions (a scan's step, jnp.where's
// `_where`) and calls them from anywhere, the body of a reduce_window or a
// sort comparator included. Two importer steps need such calls gone:
// unrolling a while loop (UnrollWhile.cpp) inlines the calls of each copy,
// and a call inside a one-region op's body is inlined before the module is
// verified at all: MLIR takes an unregistered op with one region for a
// possible symbol table, so the verifier would look the callee up in the
// body and fail. Since both steps (and locating helpers' ops at their
// call sites) run on a module not yet verified, checkCalls first verifies
// each function alone and checks each call against its callee.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"
#include "compiler/import/ImportStableHlo.h"
#include "sharding/Limits.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

namespace shardc {
namespace import {

SmallVector<Value> inlineCall(func::CallOp call, SymbolTable &symbols) {
  auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
  if (!callee || callee.isExternal() || !llvm::hasSingleElement(callee.getBody()))
    return SmallVector<Value>(call.getResults());
  Block &body = callee.getBody().front();
  OpBuilder b(call);
  IRMapping map;
  map.map(body.getArguments(), call.getOperands());
  SmallVector<func::CallOp> nested;
  for (Operation &op : body.without_terminator())
    if (auto copy = dyn_cast<func::CallOp>(b.clone(op, map)))
      nested.push_back(copy);
  SmallVector<Value> results;
  for (Value v : body.getTerminator()->getOperands())
    results.push_back(map.lookupOrDefault(v));
  for (auto [result, value] : llvm::zip(call.getResults(), results))
    result.replaceAllUsesWith(value);
  call.erase();
  // A nested call's results may be among `results`: follow the replacement.
  for (func::CallOp c : nested) {
    SmallVector<Value> from(c.getResults());
    SmallVector<Value> to = inlineCall(c, symbols);
    for (Value &r : results)
      for (auto [f, t] : llvm::zip(from, to))
        if (r == f)
          r = t;
  }
  return results;
}

} // namespace import

namespace {

/// Whether `call` passes and returns the callee's types; an error if not.
LogicalResult matchesCallee(func::CallOp call, func::FuncOp callee) {
  FunctionType type = callee.getFunctionType();
  if (TypeRange(call.getOperandTypes()) == TypeRange(type.getInputs()) &&
      TypeRange(call.getResultTypes()) == TypeRange(type.getResults()))
    return success();
  return call.emitOpError() << "has type " << call.getCalleeType() << " but @"
                            << callee.getSymName() << " has type " << type
                            << "; a call passes and returns exactly its callee's types";
}

/// Follows calls depth-first; `onPath` holds the functions whose calls are
/// being followed, so a call to one of them closes a cycle.
struct CallChecker {
  SymbolTable &symbols;
  DenseSet<Operation *> onPath, done;

  LogicalResult check(func::CallOp call) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCalleeAttr().getAttr());
    if (!callee)
      return call.emitOpError() << "calls @" << call.getCallee()
                                << ", which is not a function of this module; a JAX export "
                                   "holds every function it calls, so export the model again";
    if (failed(matchesCallee(call, callee)))
      return failure();
    if (static_cast<int64_t>(onPath.size()) >= kMaxCallDepth)
      return call.emitOpError() << "nests calls deeper than " << kMaxCallDepth
                                << " functions; shardc refuses such a model (JAX's helpers "
                                   "call one another a few levels deep)";
    if (onPath.contains(callee))
      return call.emitOpError() << "calls @" << callee.getSymName()
                                << " recursively; the importer inlines helper functions, so it "
                                   "refuses recursion (JAX exports none: write the loop with "
                                   "lax.fori_loop or lax.scan)";
    return checkBody(callee);
  }

  LogicalResult checkBody(func::FuncOp func) {
    if (done.contains(func))
      return success();
    // The verifier takes an op of an unknown dialect for a possible
    // terminator; inlining reads the callee's results off a func.return.
    for (Block &block : func.getBody()) {
      Operation *last = block.empty() ? nullptr : &block.back();
      if (last && !last->isRegistered())
        return last->emitError("'") << last->getName() << "' ends the body of @"
                                    << func.getSymName()
                                    << ", where a func.return of its results belongs";
    }
    onPath.insert(func);
    WalkResult walked = func.walk([&](func::CallOp call) {
      return failed(check(call)) ? WalkResult::interrupt() : WalkResult::advance();
    });
    onPath.erase(func);
    done.insert(func);
    return failure(walked.wasInterrupted());
  }
};

} // namespace

LogicalResult checkCalls(ModuleOp module) {
  // Each top-level op alone: only the module would check symbol uses.
  for (Operation &op : module.getBody()->getOperations())
    if (failed(verify(&op)))
      return failure();
  SymbolTable symbols(module);
  CallChecker checker{symbols, {}, {}};
  for (auto func : module.getOps<func::FuncOp>())
    if (failed(checker.checkBody(func)))
      return failure();
  // Calls in no function (in a top-level op of another dialect).
  WalkResult walked = module.walk([&](func::CallOp call) {
    if (call->getParentOfType<func::FuncOp>())
      return WalkResult::advance();
    return failed(checker.check(call)) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(walked.wasInterrupted());
}

void inlineCallsInBodies(ModuleOp module) {
  SymbolTable symbols(module);
  SmallVector<func::CallOp> calls;
  module.walk([&](func::CallOp call) {
    if (!isa<func::FuncOp>(call->getParentOp()))
      calls.push_back(call);
  });
  for (func::CallOp call : calls)
    import::inlineCall(call, symbols);
}

} // namespace shardc
