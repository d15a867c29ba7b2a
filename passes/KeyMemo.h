//===- KeyMemo.h - answers memoized by rule index and sharding ids --------===//
//
// Propagation's core step and insert-reshards' plan are pure functions of an
// op's factor rule and its tensors' shardings. Both passes key them by
// [rule index, one id or uniqued pointer per tensor] and compute each
// distinct key once. Programs visit long runs of ops with one rule and one
// key (a chain of one op on one layout), so each rule index also remembers
// its last key and answer, compared before hashing.
//
// Keys are copied into a bump allocator and answers kept in a deque, so both
// stay where they are while the map grows and "the last answer" is a plain
// pointer.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_KEYMEMO_H
#define SHARDC_PASSES_KEYMEMO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Allocator.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

namespace shardc {

/// Elem: an integer type; key[0] is the rule index.
template <typename Elem, typename Value> class KeyMemo {
public:
  /// The answer for `key`, from compute() the first time the key is seen.
  template <typename Compute> const Value &get(llvm::ArrayRef<Elem> key, Compute compute) {
    size_t rule = static_cast<size_t>(key.front());
    if (rule >= last.size())
      last.resize(rule + 1);
    Last &l = last[rule];
    if (l.value && l.key == key)
      return *l.value;
    auto it = map.find(key);
    if (it == map.end()) {
      Elem *stored = keys.Allocate<Elem>(key.size());
      std::copy(key.begin(), key.end(), stored);
      values.push_back(compute());
      it = map.try_emplace(llvm::ArrayRef<Elem>(stored, key.size()), &values.back()).first;
    }
    l = {it->first, it->second};
    return *l.value;
  }

private:
  struct KeyInfo : llvm::DenseMapInfo<llvm::ArrayRef<Elem>> {
    static unsigned getHashValue(llvm::ArrayRef<Elem> key) {
      uint64_t h = key.size();
      for (Elem x : key)
        h = (h ^ static_cast<uint64_t>(x)) * 0x100000001b3ULL;
      return static_cast<unsigned>(h ^ (h >> 29));
    }
  };
  struct Last {
    llvm::ArrayRef<Elem> key; // in `keys`
    const Value *value = nullptr;
  };

  llvm::DenseMap<llvm::ArrayRef<Elem>, const Value *, KeyInfo> map;
  std::deque<Value> values;
  llvm::BumpPtrAllocator keys;
  std::vector<Last> last; // per rule index
};

} // namespace shardc

#endif // SHARDC_PASSES_KEYMEMO_H
