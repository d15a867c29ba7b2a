//===- FactorRuleCache.cpp - one FactorRule per distinct op signature -----===//
#include "passes/FactorRuleCache.h"
#include "sharding/Steering.h"

#include <algorithm>

using namespace mlir;

namespace shardc {

const CachedRule &FactorRuleCache::add(FactorRule rule) {
  bool passThrough = isPassThrough(rule);
  entries.push_back({std::move(rule), static_cast<unsigned>(entries.size()), passThrough});
  return entries.back();
}

const CachedRule &FactorRuleCache::get(garray::ShardingRuleOpInterface rop) {
  return *lookup(rop.getOperation());
}

const CachedRule *FactorRuleCache::lookup(Operation *op) {
  if (op->getNumRegions() != 0) {
    auto rop = dyn_cast<garray::ShardingRuleOpInterface>(op);
    return rop ? &add(rop.getFactorRule()) : nullptr;
  }
  // Programs repeat a few signatures next to each other (a chain alternating
  // add and sub): the recently found entries are compared with the op
  // itself before a key is built and hashed. Only ops with a rule have
  // entries: a hit needs no interface lookup.
  for (unsigned i : recent)
    if (i != kNone && keys[i].matches(op))
      return &entries[i];
  auto rop = dyn_cast<garray::ShardingRuleOpInterface>(op);
  if (!rop)
    return nullptr;
  Key &k = scratch;
  k.name = op->getName().getAsOpaquePointer();
  // Inherent attributes stored as properties are hashed and compared in
  // place (building an attribute from them per op cost more than the rule).
  k.propertiesOf = op->getPropertiesStorageSize() ? op : nullptr;
  k.attrs = op->getRawDictionaryAttrs();
  k.numOperands = op->getNumOperands();
  k.zeroOperands = garray::zeroOperandMask(op);
  k.types.clear();
  for (Value v : op->getOperands())
    k.types.push_back(v.getType());
  for (Value v : op->getResults())
    k.types.push_back(v.getType());
  // Every part is a uniqued pointer: a cheap mix is enough (llvm::hash_combine
  // cost more than the rest of the lookup).
  uintptr_t h = reinterpret_cast<uintptr_t>(k.name);
  auto mix = [&](const void *p) { h = h * 31 + (reinterpret_cast<uintptr_t>(p) >> 4); };
  if (k.propertiesOf)
    h = h * 31 + static_cast<size_t>(op->hashProperties());
  mix(k.attrs.getAsOpaquePointer());
  for (Type t : k.types)
    mix(t.getAsOpaquePointer());
  h = h * 31 + k.numOperands;
  h = h * 31 + k.zeroOperands;
  // DenseMap<unsigned> reserves ~0u and ~0u - 1 (empty, tombstone keys).
  unsigned key = static_cast<unsigned>(h ^ (h >> 32));
  auto &bucket = byHash[key >= ~0u - 1 ? 0 : key];
  for (unsigned i : bucket)
    if (keys[i].matches(op)) {
      remember(i);
      return &entries[i];
    }
  // keys is indexed like entries; region ops (not keyed) get an empty key.
  keys.resize(entries.size());
  keys.push_back(k);
  bucket.push_back(static_cast<unsigned>(entries.size()));
  remember(static_cast<unsigned>(entries.size()));
  return &add(rop.getFactorRule());
}

void FactorRuleCache::remember(unsigned i) {
  std::move_backward(recent.begin(), recent.end() - 1, recent.end());
  recent.front() = i;
}

const CachedRule &FactorRuleCache::identity(RankedTensorType type, size_t numTensors) {
  auto [it, inserted] =
      identities.try_emplace({type, static_cast<unsigned>(numTensors)}, entries.size());
  if (!inserted)
    return entries[it->second];
  return add(FactorRuleBuilder::elementwise({type.getShape().begin(), type.getShape().end()},
                                            numTensors - 1, {}));
}

} // namespace shardc
