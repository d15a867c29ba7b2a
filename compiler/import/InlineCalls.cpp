//===- InlineCalls.cpp - calls replaced by their callees' bodies ----------===//
//
// JAX puts helpers in private functions (a scan's step, jnp.where's
// `_where`) and calls them from anywhere, the body of a reduce_window or a
// sort comparator included. Two importer steps need such calls gone:
// unrolling a while loop (UnrollWhile.cpp) inlines the calls of each copy,
// and a call inside a one-region op's body is inlined before the module is
// verified at all: MLIR takes an unregistered op with one region for a
// possible symbol table, so the verifier would look the callee up in the
// body and fail.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"
#include "compiler/import/ImportStableHlo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

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
