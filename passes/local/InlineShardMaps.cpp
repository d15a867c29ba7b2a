//===- InlineShardMaps.cpp - shard_map bodies into the local program ------===//
#include "passes/local/InlineShardMaps.h"

#include "dialects/garray/GArray.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::garray;

namespace shardc {

LogicalResult inlineShardMaps(ModuleOp module) {
  SmallVector<ShardMapOp> maps;
  module.walk([&](ShardMapOp map) { maps.push_back(map); });
  SymbolTable symbols(module);
  llvm::SetVector<func::FuncOp> bodies;
  for (ShardMapOp map : maps) {
    auto body = symbols.lookup<func::FuncOp>(map.getBody());
    FunctionType type = body.getFunctionType();
    auto mismatch = [&](const char *what, unsigned i, Type have, Type want) {
      return map.emitError("internal error: ")
             << what << " #" << i << " of this shard_map has the local type " << have
             << " but its body @" << map.getBody() << " takes " << want
             << "; its boundary was not kept at its shardings";
    };
    for (auto [i, v] : llvm::enumerate(map.getArgs()))
      if (v.getType() != type.getInput(i))
        return mismatch("argument", i, v.getType(), type.getInput(i));
    for (OpResult r : map.getResults())
      if (r.getType() != type.getResult(r.getResultNumber()))
        return mismatch("result", r.getResultNumber(), r.getType(),
                        type.getResult(r.getResultNumber()));
    IRMapping mapping;
    Block &entry = body.getBody().front();
    mapping.map(entry.getArguments(), map.getArgs());
    OpBuilder b(map);
    for (Operation &op : entry.without_terminator())
      b.clone(op, mapping);
    for (auto [r, v] : llvm::zip(map.getResults(), entry.getTerminator()->getOperands()))
      r.replaceAllUsesWith(mapping.lookupOrDefault(v));
    map.erase();
    bodies.insert(body);
  }
  for (func::FuncOp body : bodies)
    if (SymbolTable::symbolKnownUseEmpty(body, module))
      body.erase();
  return success();
}

} // namespace shardc
