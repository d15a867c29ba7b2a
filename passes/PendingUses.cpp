//===- PendingUses.cpp - when a pending partial is reduced at once --------===//
#include "passes/PendingUses.h"

#include "sharding/FactorMerge.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"

using namespace mlir;

namespace shardc {

namespace {

int64_t elementsOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() ? t.getNumElements() : -1;
}

/// How many ops the walk of case 2 visits for one value before it gives up
/// (and keeps the value pending, as without the walk): bounded work per
/// value keeps insert-reshards linear in the program.
constexpr int kWalkBudget = 256;

/// Whether `op` may read operand `i` pending.
bool passesPending(OpOperand &use, FactorRuleCache &rules) {
  const CachedRule *rule = rules.lookup(use.getOwner());
  return rule && mayStayPending(rule->rule.pending, use.getOperandNumber());
}

/// The number of branches among `carriers` that never meet again in an op
/// that can carry a partial (an add of two pending sums joins two branches
/// into one reduction); 0 when the walk ran out of budget.
unsigned separateBranches(ArrayRef<Operation *> carriers, FactorRuleCache &rules) {
  llvm::EquivalenceClasses<unsigned> branches;
  llvm::DenseMap<Operation *, unsigned> reachedBy;
  int budget = kWalkBudget;
  for (unsigned i = 0; i < carriers.size(); ++i) {
    branches.insert(i);
    SmallVector<Operation *> work{carriers[i]};
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      auto [it, fresh] = reachedBy.try_emplace(op, i);
      if (!fresh) {
        branches.unionSets(i, it->second);
        continue;
      }
      if (--budget == 0)
        return 0;
      for (Value r : op->getResults())
        for (OpOperand &use : r.getUses())
          if (passesPending(use, rules))
            work.push_back(use.getOwner());
    }
  }
  unsigned n = 0;
  for (auto it = branches.begin(); it != branches.end(); ++it)
    n += (*it)->isLeader();
  return n;
}

} // namespace

PendingDecision decidePending(Value v, FactorRuleCache &rules) {
  PendingDecision d;
  int64_t size = elementsOf(v);
  SmallVector<Operation *> carriers; // one per user op: x ++ x is one branch
  for (OpOperand &use : v.getUses()) {
    if (!passesPending(use, rules)) {
      d.kind = PendingUse::NeededWhole;
      d.use = &use;
      return d;
    }
    Operation *user = use.getOwner();
    if (size >= 0 && !llvm::is_contained(carriers, user) &&
        llvm::any_of(user->getResults(), [&](Value r) { return elementsOf(r) >= size; }))
      carriers.push_back(user);
  }
  if (carriers.size() < 2)
    return d;
  d.carriers = separateBranches(carriers, rules);
  if (d.carriers >= 2)
    d.kind = PendingUse::SharedByCarriers;
  return d;
}

} // namespace shardc
