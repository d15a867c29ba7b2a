//===- CallSiteLocations.cpp - helpers' ops located at their call ---------===//
//
// JAX puts library code in private functions (`_pad`, `floor_divide`,
// `_where`) whose ops carry only a name, `loc("reshape")`, while the call
// carries the user's line. The parser gives such ops their place in the
// model's text; an error on one (or on its copy, once the call is inlined)
// then named no line of the user's program. Each op of a private function
// located only in the model's text becomes `callsite(that at the call)`,
// the call being the first one met from the public functions, so
// diagnostics add "called from" the line that called the helper.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportStableHlo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace shardc {
namespace {

/// Whether `loc` names a file other than `model` (the user's source).
bool namesSource(Location loc, StringAttr model) {
  return loc->walk([&](Location l) {
              auto file = dyn_cast<FileLineColLoc>(l);
              return file && file.getFilename() != model ? WalkResult::interrupt()
                                                         : WalkResult::advance();
            })
      .wasInterrupted();
}

} // namespace

void locateAtCallSites(ModuleOp module) {
  // The module is located at the model's first line (ParseModel.cpp).
  auto top = dyn_cast<FileLineColLoc>(module.getLoc());
  if (!top)
    return;
  StringAttr model = top.getFilename();
  SymbolTable symbols(module);
  DenseMap<Operation *, Location> site; // private function -> its first call
  SmallVector<func::FuncOp> work;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic())
      work.push_back(func);
  while (!work.empty()) {
    func::FuncOp func = work.pop_back_val();
    if (auto it = site.find(func); it != site.end()) {
      Location at = it->second;
      func.walk([&](Operation *op) {
        if (op != func.getOperation() && !namesSource(op->getLoc(), model))
          op->setLoc(CallSiteLoc::get(op->getLoc(), at));
      });
    }
    // Calls read after their own locations were set: a helper's helper is
    // located at the user's line too.
    func.walk([&](func::CallOp call) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (callee && callee.isPrivate() && site.try_emplace(callee, call.getLoc()).second)
        work.push_back(callee);
    });
  }
}

} // namespace shardc
