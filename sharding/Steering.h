//===- Steering.h - priorities and op classes, IR-free ----------*- C++ -*-===//
//
// The data garray-propagate steers by (docs/propagation.md), without IR so it
// is unit-tested directly:
//
//   - priorities: an annotated dim with priority N is a source from round N
//     on (kLastRound for dims without one); before its round it is closed and
//     empty, so the merge neither takes from it nor gives to it. An open dim
//     written without axes (`?`) has nothing to give: it is open from the
//     first round, like a dim nobody annotated (closed, it would keep out
//     what stronger rounds bring, and steer more than no annotation);
//   - op classes: within a round, pass-through rules (no Reduction factor,
//     every factor indexes a result) run before every other rule.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SHARDING_STEERING_H
#define SHARDC_SHARDING_STEERING_H

#include "sharding/FactorRule.h"

#include <cstdint>
#include <limits>

namespace shardc {

/// The round of a dim without a written priority: after every numbered one.
constexpr int64_t kLastRound = std::numeric_limits<int64_t>::max();
/// The largest priority a user may write: numbers stop well before
/// kLastRound, the round of dims without one.
constexpr int64_t kMaxPriority = (int64_t(1) << 31) - 1;

/// An open dim written without axes (`?`): open in every round.
bool isOpenEmpty(const DimSharding &d);

/// `full` as a source in `round`: dims with `priority[d] > round` are closed
/// and empty, except open dims without axes (isOpenEmpty); the pending axes
/// are kept.
TensorSharding activeInRound(const TensorSharding &full, const std::vector<int64_t> &priority,
                             int64_t round);

/// Which ops a propagation sub-round visits, in order (kSubRounds).
enum class OpClass { PassThrough, Any };
constexpr OpClass kSubRounds[] = {OpClass::PassThrough, OpClass::Any};

/// No Reduction factor, and every factor indexes some result.
bool isPassThrough(const FactorRule &rule);

} // namespace shardc

#endif // SHARDC_SHARDING_STEERING_H
