//===- FactorRule.h - per-op sharding semantics as data ---------*- C++ -*-===//
//
// Every compute op answers one question: which *factors* (einsum letters) index
// each of its operand and result dimensions. Propagation, reshard insertion and
// global-to-local read only this rule; none of them switches on op kinds.
//
//   dot_general  ([i,k],[k,j])->([i,j])     k is a reduction factor
//   reduce sum   ([i,j])->([i])              j is a reduction factor
//   add          ([i,j],[i,j])->([i,j])
//   broadcast    ([j])->([i,j])              i only indexes the result
//
// A dimension may hold several factors, major to minor (a reshape that merges
// two dims: ([i,j])->([ij]) is written ([i,j])->([i j])). Sharding a
// *reduction* factor leaves each device with a partial result: the result is
// then *pending* over those axes with the rule's `reduction` kind.
//
// Pending values flow through ops that are linear in them (see PendingFlow);
// every other consumer forces the reduction first. Why data and not a switch:
// a new op is one rule in FactorRules.cpp, and everything downstream follows.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SHARDING_FACTORRULE_H
#define SHARDC_SHARDING_FACTORRULE_H

#include "sharding/Sharding.h"

#include <string>
#include <algorithm>
#include <vector>

namespace shardc {

enum class FactorKind {
  /// Indexes results: sharding it splits the work and the results.
  Parallel,
  /// Summed/maxed away: sharding it leaves pending partial results.
  Reduction,
  /// Must stay whole on every device (e.g. the dim a sort or a softmax's
  /// normalisation runs along when no cheaper rule exists).
  NeedReplication,
};

/// How pending (unreduced) operands may pass through an op unreduced.
struct PendingFlow {
  enum class Mode {
    /// Any pending operand is reduced first (non-linear ops: exp, compare...).
    None,
    /// Every operand of `operands` (all when empty) pending over the same
    /// axes with `kind`, and no other operand pending: the result is pending
    /// too (add/sub for sum, max for max, min for min; select's branches,
    /// which a replicated predicate picks between elementwise).
    AllSame,
    /// Exactly one operand, from `operands`, may be pending with `kind`; the
    /// others must be reduced (mul, div's numerator, dot, reduce-sum, neg).
    OneOf,
  };
  Mode mode = Mode::None;
  Reduction kind = Reduction::Sum;
  std::vector<int> operands;
  /// Whether operand `i` is one `mode` lets stay pending.
  bool inFlow(int i) const {
    return mode != Mode::None &&
           ((mode == Mode::AllSame && operands.empty()) ||
            std::find(operands.begin(), operands.end(), i) != operands.end());
  }
};

struct FactorRule {
  using DimFactors = std::vector<int>;           // factors of one dim
  using TensorFactors = std::vector<DimFactors>; // one per dim

  std::vector<int64_t> factorSizes;
  std::vector<FactorKind> kinds;
  std::vector<TensorFactors> operands;
  std::vector<TensorFactors> results;
  /// What a sharded Reduction factor leaves pending.
  Reduction reduction = Reduction::Sum;
  PendingFlow pending;

  size_t numFactors() const { return factorSizes.size(); }
  /// Operands then results, as one list (propagation treats them alike).
  size_t numTensors() const { return operands.size() + results.size(); }
  const TensorFactors &tensor(size_t t) const {
    return t < operands.size() ? operands[t] : results[t - operands.size()];
  }
  bool isResult(size_t t) const { return t >= operands.size(); }
  /// "([i,k],[k,j])->([i,j]) reduction={k}"
  std::string str() const;
  /// "" when well formed, else what is wrong (for op verifiers and tests).
  std::string validate() const;
};

/// Builds a rule from per-dim factor lists; factors are created on first use
/// with the size of the dim that introduces them.
///
///   FactorRuleBuilder b;
///   int i = b.factor(M), k = b.factor(K, FactorKind::Reduction), j = b.factor(N);
///   b.operand({{i}, {k}}).operand({{k}, {j}}).result({{i}, {j}});
class FactorRuleBuilder {
public:
  int factor(int64_t size, FactorKind kind = FactorKind::Parallel);
  FactorRuleBuilder &operand(FactorRule::TensorFactors dims);
  FactorRuleBuilder &result(FactorRule::TensorFactors dims);
  FactorRuleBuilder &reduction(Reduction r);
  FactorRuleBuilder &pending(PendingFlow flow);
  /// Operands and results share factors dim by dim (elementwise ops).
  static FactorRule elementwise(const std::vector<int64_t> &shape, size_t numOperands,
                                PendingFlow flow);
  FactorRule build() { return std::move(rule); }

private:
  FactorRule rule;
};

} // namespace shardc

#endif // SHARDC_SHARDING_FACTORRULE_H
