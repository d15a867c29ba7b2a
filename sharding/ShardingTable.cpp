//===- ShardingTable.cpp - interned shardings ------------------------------===//
#include "sharding/ShardingTable.h"

namespace shardc {

namespace {
void mix(size_t &h, size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }
} // namespace

size_t hashSharding(const TensorSharding &s) {
  size_t h = s.dims.size();
  for (const DimSharding &d : s.dims) {
    mix(h, d.open ? 0x51 : 0x17);
    mix(h, d.axes.size());
    for (int a : d.axes)
      mix(h, static_cast<size_t>(a));
  }
  mix(h, static_cast<size_t>(s.pendingKind));
  for (int a : s.pending)
    mix(h, static_cast<size_t>(a) + 0x1000);
  return h;
}

bool sameSharding(const TensorSharding &a, const TensorSharding &b) {
  return a.dims == b.dims && a.pending == b.pending && a.pendingKind == b.pendingKind;
}

ShardingTable::ShardingTable() { shardings.emplace_back(); }

ShardingTable::Id ShardingTable::intern(const TensorSharding &s) {
  size_t h = hashSharding(s);
  auto [begin, end] = byHash.equal_range(h);
  for (auto it = begin; it != end; ++it)
    if (sameSharding(shardings[it->second], s))
      return it->second;
  Id id = static_cast<Id>(shardings.size());
  shardings.push_back(s);
  byHash.emplace(h, id);
  return id;
}

} // namespace shardc
