//===- PendingUses.h - when a pending partial is reduced at once -*- C++ -*-===//
//
// A value left pending (each device holds a partial sum over some axes) is
// reduced either right after its definition, where every use then reads the
// reduced value, or later, by whatever consumes it. insert-reshards decides
// this per value and explain replays the decision; both ask this one
// function. It reduces at once when
//
//   1. some use cannot read the value pending (its rule does not pass
//      partials through that operand, or it has no rule: a call, a return);
//   2. two or more user ops would each carry it pending at its full size or
//      larger, on branches that never meet again in an op that carries a
//      partial (found by a bounded forward walk): each branch needs a
//      reduction of at least this size later, and one reduction now serves
//      them all. Adam reads a gradient for its first moment, its second
//      (through g * g) and the step: deferred, each branch would all-reduce
//      a gradient-sized value. Branches that rejoin (-s * k + s) need one
//      reduction after they meet, so they stay pending; one op reading the
//      value twice (x ++ x) is one branch.
//
//   3. its one user is a broadcast that carries it pending at twice its
//      size or more, and the chain of single carriers after that reaches a
//      use that needs it whole without shrinking back: reduced later, the
//      reduction would move the grown value. The backward pass of a mean
//      over 32 tokens broadcast a [512, 128] partial sum to [512, 32, 128]
//      and all-reduced that, 32 times the bytes, before a scatter-add.
//
// Otherwise a single full-size carrier (a chain of linear ops) keeps the
// value pending: the reduction may move past ops that shrink it (a
// reduce-sum) or fuse with others' (a pending sum added to a pending sum is
// reduced once).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PENDINGUSES_H
#define SHARDC_PASSES_PENDINGUSES_H

#include "passes/FactorRuleCache.h"

#include "mlir/IR/Value.h"

namespace shardc {

enum class PendingUse {
  KeptPending,     // every use reads it pending
  NeededWhole,     // case 1: `use` (set) needs it reduced
  SharedByCarriers // case 2: several uses would each carry it pending
};

struct PendingDecision {
  PendingUse kind = PendingUse::KeptPending;
  mlir::OpOperand *use = nullptr; // the first use that needs it whole (cases 1, 3)
  mlir::Operation *grownBy = nullptr; // case 3: the user that grows it
  unsigned carriers = 0;          // separate full-size branches (case 2)
};

/// What happens to pending value `v` (see above); rules come from `rules`.
PendingDecision decidePending(mlir::Value v, FactorRuleCache &rules);

} // namespace shardc

#endif
