//===- Outlining.cpp - what a region-holding op reads from outside --------===//
#include "compiler/targets/Outlining.h"

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
