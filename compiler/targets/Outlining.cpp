//===- Outlining.cpp - what a region-holding op reads from outside --------===//
#include "compiler/targets/Outlining.h"
#include "compiler/targets/CpuPasses.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

shardc::NestInputs shardc::nestInputs(Operation *nest) {
  NestInputs in;
  nest->walk([&](Operation *op) {
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      Region *home = def ? def->getParentRegion() : v.getParentRegion();
      if (nest->isAncestor(home->getParentOp()) && home->getParentOp() != nest->getParentOp())
        continue; // defined inside the nest
      if (def && def->hasTrait<OpTrait::ConstantLike>())
        in.constants.insert(def);
      else
        in.captured.insert(v);
    }
  });
  return in;
}

shardc::OutlinedFunction shardc::createOutlinedFunction(Operation *after, llvm::StringRef name,
                                                        Location loc, TypeRange leading,
                                                        const NestInputs &in,
                                                        SymbolTable &symbols) {
  SmallVector<Type> types(leading.begin(), leading.end());
  for (Value v : in.captured)
    types.push_back(v.getType());
  OpBuilder b(after);
  b.setInsertionPointAfter(after);
  OutlinedFunction out;
  out.fn = func::FuncOp::create(b, loc, name, b.getFunctionType(types, {}));
  out.fn.setPrivate();
  out.fn->setAttr(kOutlinedNestAttr, b.getUnitAttr());
  symbols.insert(out.fn); // renames on a clash
  Block *entry = out.fn.addEntryBlock();
  for (auto [value, arg] : llvm::zip(in.captured, entry->getArguments().drop_front(leading.size())))
    out.map.map(value, arg);
  OpBuilder inner = OpBuilder::atBlockBegin(entry);
  for (Operation *c : in.constants)
    inner.clone(*c, out.map);
  return out;
}
