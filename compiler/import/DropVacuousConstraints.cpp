//===- DropVacuousConstraints.cpp - sharding constraints that say nothing -===//
//
// JAX writes `sdy.sharding_constraint`s that constrain nothing: on the
// scalars of a reducer's body (`[]`, in a psum or an argmax inside a
// shard_map over some axes), on a rank-0 value, and with every dim open
// and no axes (`[{?}, {?}]`, on the iota of its argmax). A scalar is whole
// on every device and an open dim with no axes leaves the propagation
// free, so each is its operand. They are removed before the import, so
// that a reducer body is one op again and an argmax's iota is an iota.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/ImportOps.h"
#include "compiler/import/SdySharding.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace shardc::import {
namespace {

/// Whether the constraint `op` constrains nothing; false for one the
/// importer should read (or report: a malformed or unreduced sharding).
bool vacuous(Operation *op) {
  Attribute attr = op->getAttr("sharding");
  if (!attr)
    return false;
  std::string text, error;
  llvm::raw_string_ostream(text) << attr;
  std::optional<SdySharding> s = parseSdySharding(text, error);
  if (op->getNumOperands() != 1 || op->getNumResults() != 1 || !s || !s->unreduced.empty())
    return false;
  // A reducer body's values are scalars, so this covers its constraints;
  // one on a whole tensor in a loop's or a branch's body stays.
  auto t = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (t && t.getRank() == 0)
    return true;
  return s->replicated.empty() &&
         llvm::all_of(s->dims, [](const SdyDim &d) { return d.open && d.axes.empty(); });
}

} // namespace

void dropVacuousConstraints(ModuleOp module) {
  SmallVector<Operation *> dropped;
  module.walk([&](Operation *op) {
    if (op->getName().getStringRef() == "sdy.sharding_constraint" && vacuous(op))
      dropped.push_back(op);
  });
  for (Operation *op : dropped) {
    op->getResult(0).replaceAllUsesWith(op->getOperand(0));
    op->erase();
  }
}

} // namespace shardc::import
