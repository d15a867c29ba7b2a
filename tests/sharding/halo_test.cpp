//===- halo_test.cpp - the pieces a shift reads from neighbouring shards --===//
#include "sharding/Halo.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace shardc;

TEST_CASE("halo: pieces rebuild every shard of a shift, for every offset and shard size",
          "[halo]") {
  // Simulate: a padded global array of k shards of s elements; shard j's
  // result from its pieces must equal x[j*s + t - offset] wherever that
  // index is inside [0, k*s) (the caller masks the rest).
  for (int64_t s : {1, 2, 3, 5})
    for (int64_t k : {1, 2, 3, 4})
      for (int64_t offset = -(k * s - 1); offset <= k * s - 1; ++offset) {
        std::vector<HaloPiece> pieces = haloPieces(s, offset);
        int64_t total = 0;
        for (const HaloPiece &p : pieces) {
          CHECK(p.size > 0);
          CHECK(p.start >= 0);
          CHECK(p.start + p.size <= s);
          total += p.size;
        }
        CHECK(total == s);
        CHECK(pieces.size() <= 2);
        for (int64_t j = 0; j < k; ++j) {
          int64_t t = 0;
          for (const HaloPiece &p : pieces)
            for (int64_t e = 0; e < p.size; ++e, ++t) {
              int64_t want = j * s + t - offset;
              if (want < 0 || want >= k * s)
                continue;
              int64_t from = j - p.distance;
              INFO("s " << s << " k " << k << " offset " << offset << " shard " << j << " t "
                        << t);
              CHECK(from >= 0);
              CHECK(from < k);
              CHECK(from * s + p.start + e == want);
            }
        }
      }
}

TEST_CASE("halo: a shift within one shard reads one neighbour", "[halo]") {
  std::vector<HaloPiece> right = haloPieces(4, 1);
  REQUIRE(right.size() == 2);
  CHECK(right[0].distance == 1);
  CHECK(right[0].start == 3);
  CHECK(right[0].size == 1);
  CHECK(right[1].distance == 0);
  std::vector<HaloPiece> whole = haloPieces(4, -4); // exactly one shard on
  REQUIRE(whole.size() == 1);
  CHECK(whole[0].distance == -1);
  CHECK(whole[0].size == 4);
  CHECK(haloReason(0, 1, right[0]).find("from the previous shard") != std::string::npos);
  CHECK(haloReason(0, -4, whole[0]).find("from the next shard") != std::string::npos);
  HaloPiece far{-3, 0, 2};
  CHECK(haloReason(1, -9, far).find("from the shard 3 positions after its own") !=
        std::string::npos);
}
