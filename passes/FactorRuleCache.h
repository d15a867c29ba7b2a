//===- FactorRuleCache.h - one FactorRule per distinct op signature -*- C++ -*-===//
//
// A factor rule is a pure function of what an op *is*: its name, its
// attributes (inherent properties and the discardable dictionary) and its
// operand and result types; of the values it reads only whether some are
// all zeros, for the few ops whose rule asks (garray::zeroOperandMask: a
// pending sum passes add/sub/select next to zeros), which is part of the key. Large programs
// repeat a few signatures many times (a 100k-op chain of `add`s on one type
// has one), so passes that visit every op ask this cache instead of
// ShardingRuleOpInterface::getFactorRule(), which builds the rule's vectors
// anew on each call.
//
// Each distinct rule gets a small `index`, so callers can memoize work that
// depends only on the rule and on interned shardings (ShardingTable.h).
// Ops with regions are not cached (their rule could depend on the body);
// they get a fresh entry per call. Entries live as long as the cache (one
// pass run); references stay valid. Properties are compared against the
// first op seen with them (no attribute is built per op), so the cache is
// for passes that do not change ops' properties while they use it.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_FACTORRULECACHE_H
#define SHARDC_PASSES_FACTORRULECACHE_H

#include "dialects/garray/GArray.h"
#include "sharding/FactorRule.h"

#include "llvm/ADT/DenseMap.h"

#include <array>
#include <deque>

namespace shardc {

struct CachedRule {
  FactorRule rule;
  /// Dense index of this entry in its cache (0, 1, 2, ...).
  unsigned index;
  /// shardc::isPassThrough(rule), computed once.
  bool passThrough;
};

class FactorRuleCache {
public:
  /// The rule of `op`.
  const CachedRule &get(mlir::garray::ShardingRuleOpInterface op);
  /// The rule of `op`, or null when it has no ShardingRuleOpInterface. An op
  /// like a recently seen one is answered without searching its interface
  /// map (a call per op on large programs).
  const CachedRule *lookup(mlir::Operation *op);
  /// The identity rule over `numTensors` values of `type` (ties, constraints,
  /// function-result sinks).
  const CachedRule &identity(mlir::RankedTensorType type, size_t numTensors);

private:
  struct Key {
    const void *name;
    mlir::Operation *propertiesOf; // an op with these properties; null: none
    mlir::DictionaryAttr attrs;
    llvm::SmallVector<mlir::Type, 4> types; // operands, then results
    unsigned numOperands;
    unsigned zeroOperands; // garray::zeroOperandMask
    /// Whether `op` has this key, read from the op in place (a key is built
    /// only for a new entry).
    bool matches(mlir::Operation *op) const {
      if (name != op->getName().getAsOpaquePointer() || attrs != op->getRawDictionaryAttrs() ||
          numOperands != op->getNumOperands() ||
          zeroOperands != mlir::garray::zeroOperandMask(op) ||
          types.size() != numOperands + op->getNumResults() ||
          !propertiesOf != !op->getPropertiesStorageSize())
        return false;
      const mlir::Type *t = types.begin();
      for (mlir::Value v : op->getOperands())
        if (*t++ != v.getType())
          return false;
      for (mlir::Value v : op->getResults())
        if (*t++ != v.getType())
          return false;
      return !propertiesOf ||
             op->getName().compareOpProperties(propertiesOf->getPropertiesStorage(),
                                               op->getPropertiesStorage());
    }
  };
  const CachedRule &add(FactorRule rule);
  /// Makes entry `i` the most recent of `recent`.
  void remember(unsigned i);

  std::deque<CachedRule> entries;
  std::vector<Key> keys; // keys[i] names buckets' entry i
  llvm::DenseMap<unsigned, llvm::SmallVector<unsigned, 1>> byHash;
  llvm::DenseMap<std::pair<mlir::Type, unsigned>, unsigned> identities;
  Key scratch;
  static constexpr unsigned kNone = ~0u;
  /// The most recently found keyed entries, newest first.
  std::array<unsigned, 4> recent = {kNone, kNone, kNone, kNone};
};

} // namespace shardc

#endif // SHARDC_PASSES_FACTORRULECACHE_H
