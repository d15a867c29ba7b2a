//===- ShardingTable.h - interned shardings: one small id each --*- C++ -*-===//
//
// Passes that visit every value of a large program keep one TensorSharding
// per value and redo the same core computation on the same few shardings over
// and over: a 100k-op elementwise chain has 100k values but one or two
// distinct shardings. Interning gives each distinct sharding a small id, so
//
//   - per-value state is one integer (no vectors copied per visit), and
//   - a pure function of shardings (a propagation step, a consistency plan)
//     can be memoized by the ids of its inputs.
//
// Equal shardings (dims with axes and openness, pending axes, pending kind)
// get equal ids; references returned by get() stay valid as the table grows.
// Id 0 is reserved for "no sharding known yet".
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SHARDING_SHARDINGTABLE_H
#define SHARDC_SHARDING_SHARDINGTABLE_H

#include "sharding/Sharding.h"

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

namespace shardc {

class ShardingTable {
public:
  using Id = uint32_t;
  /// Stands for "not known yet"; never returned by intern().
  static constexpr Id kUnknown = 0;

  ShardingTable();
  /// The id of `s`, adding it on first sight.
  Id intern(const TensorSharding &s);
  /// The sharding of `id` (not kUnknown). Stable: the table never moves it.
  const TensorSharding &get(Id id) const { return shardings[id]; }
  /// Number of ids handed out, kUnknown included.
  size_t size() const { return shardings.size(); }

private:
  std::deque<TensorSharding> shardings; // [kUnknown] is a placeholder
  std::unordered_multimap<size_t, Id> byHash;
};

/// Hash and equality of the full sharding (what intern() compares).
size_t hashSharding(const TensorSharding &s);
bool sameSharding(const TensorSharding &a, const TensorSharding &b);

} // namespace shardc

#endif // SHARDC_SHARDING_SHARDINGTABLE_H
