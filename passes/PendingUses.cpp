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

/// Case 3: `v`'s users are one broadcast that carries it pending at least
/// kGrowth times larger (a concatenation of it with itself stays one
/// branch, as in case 2), and the chain of single linear carriers after it
/// reaches a use that needs it whole without ever shrinking back below
/// that. Returns that use, or null.
constexpr int64_t kGrowth = 2;
OpOperand *neededWholeAfterGrowth(Value v, Operation *carrier, FactorRuleCache &rules) {
  int64_t size = elementsOf(v);
  Operation *op = carrier;
  for (int budget = kWalkBudget; budget > 0; --budget) {
    if (op->getNumResults() != 1)
      return nullptr;
    Value r = op->getResult(0);
    int64_t grown = elementsOf(r);
    if (size < 0 || grown < 0 || grown < kGrowth * size || r.use_empty())
      return nullptr;
    Operation *next = r.getUses().begin()->getOwner();
    for (OpOperand &use : r.getUses()) {
      if (!passesPending(use, rules))
        return &use;
      if (use.getOwner() != next)
        return nullptr; // branches: case 2 decides them where they split
    }
    op = next;
  }
  return nullptr;
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
  if (carriers.size() == 1 && isa<mlir::garray::BroadcastInDimOp>(carriers[0]) &&
      llvm::all_of(v.getUses(), [&](OpOperand &use) { return use.getOwner() == carriers[0]; })) {
    if (OpOperand *needs = neededWholeAfterGrowth(v, carriers[0], rules)) {
      d.kind = PendingUse::NeededWhole;
      d.use = needs;
      d.grownBy = carriers[0];
    }
    return d;
  }
  if (carriers.size() < 2)
    return d;
  d.carriers = separateBranches(carriers, rules);
  if (d.carriers >= 2)
    d.kind = PendingUse::SharedByCarriers;
  return d;
}

} // namespace shardc
