//===- FactorMerge.h - project shardings onto factors and back --*- C++ -*-===//
//
// The propagation core, with no IR. One step on one op:
//
//   1. project   each tensor's sharding onto the rule's factors
//                (X: P("data", None) with ([i,k],[k])->([i]) gives i={data});
//   2. merge     per factor, the candidates into one axis list;
//   3. project back onto every tensor, extending only *open* dims.
//
// Merge policy (deterministic, documented in docs/propagation.md):
//   - candidates are the non-empty axis lists the tensors give a factor;
//   - if they are all prefixes of the longest, the longest wins;
//   - otherwise (a conflict) their longest common prefix wins, so neither
//     side is silently preferred; the conflict is reshard-ed later;
//   - a NeedReplication factor is never sharded;
//   - an axis claimed by two factors stays with the lower-numbered factor.
//
// Monotonic: a dim only ever grows by appending axes, so a worklist over these
// steps reaches a fixed point.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SHARDING_FACTORMERGE_H
#define SHARDC_SHARDING_FACTORMERGE_H

#include "sharding/FactorRule.h"

#include <optional>

namespace shardc {

/// Axes per factor (empty = replicated along that factor).
using FactorAxes = std::vector<std::vector<int>>;

/// The axes tensor `t`'s sharding puts on each factor; nullopt for factors
/// that do not index `t`.
std::vector<std::optional<std::vector<int>>>
projectToFactors(const FactorRule &rule, size_t t, const TensorSharding &sharding,
                 const Mesh &mesh);

/// The merge policy on one factor's (or one dim's) candidate axis lists: the
/// longest if every candidate is a prefix of it, else their longest common
/// prefix. Empty candidates agree with everything. Of no order.
std::vector<int> mergeAxisLists(const std::vector<const std::vector<int> *> &candidates);
/// Merges the projections of `tensors` (nullptr = not known yet).
FactorAxes mergeFactors(const FactorRule &rule,
                        const std::vector<const TensorSharding *> &tensors, const Mesh &mesh);

/// The factor axes an op runs with, given the final shardings of its
/// operands and results: a result is computed in the layout it has, so the
/// factors indexing a result take its axes (not NeedReplication ones, which
/// are computed whole); every other factor takes the operands' merge
/// (mergeFactors) up to the first axis already used. Reduction factors with
/// axes are what leaves the results partial sums.
FactorAxes executionAxes(const FactorRule &rule, const std::vector<TensorSharding> &operands,
                         const std::vector<TensorSharding> &results, const Mesh &mesh);

/// An axis operand `t` holds on its dim `dim` that the op, run with factor
/// axes `axes` (executionAxes), does not split that dim by
/// (projectFromFactors lacks it there), and where the op uses it instead.
/// insert-reshards' reason for moving the operand and explain's remark on
/// the result both start from it, so they say it alike.
struct MovedAxis {
  size_t dim;
  int axis;
  /// In words: "result dim 1" (" of result #r" when the op has several), "a
  /// dim it reduces, where operand #0 holds it (its dim 1)", or "" when the
  /// op is not split by the axis.
  std::string where;
  /// When the op splits a result dim by it: which result, which dim.
  int usedByResult = -1;
  int usedForDim = -1;
};
std::vector<MovedAxis> movedAxes(const FactorRule &rule, const FactorAxes &axes,
                                 const std::vector<TensorSharding> &operands, size_t t,
                                 const Mesh &mesh);
/// An operand that splits a factor by axes another operand's split of it
/// neither extends nor is a prefix of (nested axes merge into one split):
/// the two cannot both stay, whichever the op keeps.
struct RivalSplit {
  size_t operand; // its index
  size_t dim;     // its dim on the factor
  std::vector<int> axes;
  std::vector<int> against; // operand t's axes on the factor
};
/// The first operand other than `t` whose split of factor `f` rivals
/// operand t's (over dims that are that factor alone); none if all agree.
std::optional<RivalSplit> rivalSplit(const FactorRule &rule,
                                     const std::vector<TensorSharding> &operands, size_t t, int f);
/// Mesh axes as users write them: "data", "model".
std::string axisList(const Mesh &mesh, const std::vector<int> &axes);

/// How pending (unreduced) operands pass through an op run with factor axes
/// `axes` (executionAxes), by its rule's PendingFlow: which operands stay
/// pending (`keep`; the others are reduced before the op), and what its
/// results are then pending over: the kept operands' axes, then those of its
/// sharded reduction factors. `repeated[i]`: operand i's value fills another
/// slot too (an op that keeps one operand pending reduces it for the other
/// slot anyway, so does not keep it; one that keeps all keeps it).
/// Shared by insert-reshards (which places the reductions) and explain
/// (which says what each device holds).
struct PendingThrough {
  /// Why a pending operand is not kept (reduced before the op).
  enum class Reduced {
    Kept,        // kept, or not pending at all
    NoFlow,      // the op passes no partial sum through (PendingFlow::None)
    OtherKind,   // pending over another reduction than the op is linear in
    AxesTaken,   // its axes also split the op's own factors
    NotAllSame,  // AllSame: operand `other` is not pending over the same axes
    NotThisSlot, // OneOf: this operand slot may not stay pending
    Repeated,    // OneOf: the value fills another slot, where it is reduced
    OtherKept,   // OneOf: operand `other` stays pending instead
  };
  struct Why {
    Reduced reason = Reduced::Kept;
    int other = -1;
  };
  std::vector<bool> keep;
  std::vector<Why> why; // per operand
  std::vector<int> pending; // the results'
  Reduction kind = Reduction::Sum;
  /// A kept pending operand and the reduction factors of different kinds:
  /// not expressible (an internal error where it happens).
  bool mixed = false;
};
PendingThrough pendingThrough(const FactorRule &rule, const std::vector<TensorSharding> &operands,
                              const FactorAxes &axes, const std::vector<bool> &repeated,
                              const Mesh &mesh);
/// Whether operand `i` of an op with pending flow `flow` may be read while
/// still pending, whatever the other operands are (insert-reshards reduces a
/// pending value right after its op when some use may not).
bool mayStayPending(const PendingFlow &flow, unsigned i);

/// The sharding the factor axes imply for tensor `t` (dims only, all closed).
TensorSharding projectFromFactors(const FactorRule &rule, size_t t, const FactorAxes &axes,
                                  const Mesh &mesh);

/// `current` with every open dim extended toward `proposed` where `proposed`
/// extends it (keeps its prefix); closed dims are never changed. Returns true
/// if anything changed.
bool extendOpenDims(TensorSharding &current, const TensorSharding &proposed);

/// One propagation step on an op: merges all tensors (nullptr allowed for
/// unknown ones, which then receive a fully open sharding before extension)
/// and extends the open dims of each. Returns the indices that changed.
std::vector<size_t> propagateStep(const FactorRule &rule,
                                  std::vector<std::optional<TensorSharding>> &tensors,
                                  const Mesh &mesh);

} // namespace shardc

#endif // SHARDC_SHARDING_FACTORMERGE_H
