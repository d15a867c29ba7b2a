// The ceil layout of shardrt_layout.h, the one definition the compiler and
// the runtime share: checked exhaustively for every n <= 300 over every
// k <= 70 shards, and at the edges of int64_t against 128-bit arithmetic.
#include "shardrt_layout.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

namespace {

/// The layout's definition, in 128-bit arithmetic that cannot overflow.
struct Reference {
  __int128 size, offset, valid;
};

Reference reference(int64_t n, int64_t k, int64_t i) {
  __int128 s = k <= 1 ? n : (static_cast<__int128>(n) + k - 1) / k;
  __int128 offset = static_cast<__int128>(i) * s;
  if (offset > n)
    offset = n;
  __int128 valid = n - offset < s ? n - offset : s;
  return {s, offset, valid};
}

void checkAgainstReference(int64_t n, int64_t k, int64_t i) {
  Reference r = reference(n, k, i);
  CHECK(shardrt_shard_size(n, k) == static_cast<int64_t>(r.size));
  CHECK(shardrt_shard_offset(n, k, i) == static_cast<int64_t>(r.offset));
  CHECK(shardrt_shard_valid(n, k, i) == static_cast<int64_t>(r.valid));
}

} // namespace

TEST_CASE("the ceil layout partitions every dimension exactly", "[layout]") {
  for (int64_t n = 0; n <= 300; ++n)
    for (int64_t k = 1; k <= 70; ++k) {
      int64_t s = shardrt_shard_size(n, k);
      // The least padding that gives every shard the same size.
      REQUIRE(s * k >= n);
      if (n > 0 && k > 1)
        REQUIRE((s - 1) * k < n);
      int64_t next = 0, total = 0;
      bool shortSeen = false;
      for (int64_t i = 0; i < k; ++i) {
        int64_t offset = shardrt_shard_offset(n, k, i);
        int64_t valid = shardrt_shard_valid(n, k, i);
        INFO("n=" << n << " k=" << k << " i=" << i);
        // Contiguous, in device order, each within its padded block.
        REQUIRE(offset == next);
        REQUIRE(valid >= 0);
        REQUIRE(valid <= s);
        // Full shards first; after the first short one, only empty ones.
        if (shortSeen)
          REQUIRE(valid == 0);
        shortSeen |= valid < s;
        next = offset + valid;
        total += valid;
        checkAgainstReference(n, k, i);
      }
      REQUIRE(total == n);
    }
}

TEST_CASE("the ceil layout does not overflow at the edges of int64_t", "[layout]") {
  const int64_t max = std::numeric_limits<int64_t>::max();
  for (int64_t n : {max, max - 1, max / 2, max / 2 + 1, int64_t{1} << 62})
    for (int64_t k : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{7}, int64_t{1} << 31,
                      max / 2, max / 3 + 1, max - 1, max})
      for (int64_t i : {int64_t{0}, int64_t{1}, k / 2, k - 2, k - 1})
        if (i >= 0 && i < k) {
          INFO("n=" << n << " k=" << k << " i=" << i);
          checkAgainstReference(n, k, i);
        }
}

TEST_CASE("the ceil layout's worked examples", "[layout]") {
  // 5 over 4 is 2, 2, 1, 0; 2 over 4 is 1, 1, 0, 0; one shard holds all.
  CHECK(shardrt_shard_size(5, 4) == 2);
  CHECK(shardrt_shard_valid(5, 4, 0) == 2);
  CHECK(shardrt_shard_valid(5, 4, 2) == 1);
  CHECK(shardrt_shard_valid(5, 4, 3) == 0);
  CHECK(shardrt_shard_offset(5, 4, 3) == 5);
  CHECK(shardrt_shard_valid(2, 4, 1) == 1);
  CHECK(shardrt_shard_valid(2, 4, 2) == 0);
  CHECK(shardrt_shard_size(9, 1) == 9);
}
