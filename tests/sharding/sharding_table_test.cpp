// ShardingTable: equal shardings share one id, different ones do not, ids
// stay valid as the table grows, and kUnknown is never handed out.
#include "sharding/ShardingTable.h"

#include <catch2/catch.hpp>

using namespace shardc;

namespace {
TensorSharding make(std::vector<std::vector<int>> dims, std::vector<int> pending = {},
                    bool open = false, Reduction kind = Reduction::Sum) {
  TensorSharding s;
  for (auto &axes : dims)
    s.dims.push_back({axes, open});
  s.pending = std::move(pending);
  s.pendingKind = kind;
  return s;
}
} // namespace

TEST_CASE("ShardingTable interns equal shardings to one id") {
  ShardingTable table;
  ShardingTable::Id a = table.intern(make({{0}, {}}));
  CHECK(a != ShardingTable::kUnknown);
  CHECK(table.intern(make({{0}, {}})) == a);
  // Every field distinguishes: axes, their order, openness, pending axes and kind, rank.
  std::vector<TensorSharding> others = {
      make({{1}, {}}),          make({{}, {0}}),          make({{0, 1}, {}}),
      make({{1, 0}, {}}),       make({{0}, {}}, {}, true), make({{0}, {}}, {1}),
      make({{0}, {}}, {1}, false, Reduction::Max),         make({{0}}),
  };
  std::vector<ShardingTable::Id> ids;
  for (const TensorSharding &s : others) {
    ShardingTable::Id id = table.intern(s);
    CHECK(id != a);
    CHECK(id != ShardingTable::kUnknown);
    for (ShardingTable::Id seen : ids)
      CHECK(id != seen);
    ids.push_back(id);
  }
  CHECK(table.size() == others.size() + 2); // + a + the kUnknown placeholder
}

TEST_CASE("ShardingTable references stay valid as it grows") {
  ShardingTable table;
  ShardingTable::Id first = table.intern(make({{0}}));
  const TensorSharding &ref = table.get(first);
  for (int i = 1; i <= 1000; ++i) // 1000 distinct shardings (the table does not validate)
    CHECK(table.intern(make({{}}, {i})) == static_cast<ShardingTable::Id>(i + 1));
  CHECK(ref.dims.size() == 1);
  CHECK(ref.dims[0].axes == std::vector<int>{0});
  CHECK(sameSharding(table.get(first), make({{0}})));
}
