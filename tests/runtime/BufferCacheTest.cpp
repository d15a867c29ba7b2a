// shardrt_buffer_alloc/free: what generated code's memref.alloc calls. Large
// blocks are kept when freed and handed out again for the same size.
#include "shardrt.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace {

bool aligned16(const void *p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

} // namespace

TEST_CASE("buffers of every size are usable and 16-byte aligned") {
  for (int64_t bytes : {int64_t{0}, int64_t{1}, int64_t{4096}, int64_t{(1 << 20) - 64},
                        int64_t{1} << 20, int64_t{5} << 20}) {
    auto *p = static_cast<unsigned char *>(shardrt_buffer_alloc(bytes));
    REQUIRE(p != nullptr);
    CHECK(aligned16(p));
    if (bytes > 0) {
      std::memset(p, 0x5a, static_cast<size_t>(bytes));
      CHECK(p[0] == 0x5a);
      CHECK(p[bytes - 1] == 0x5a);
    }
    shardrt_buffer_free(p);
  }
  shardrt_buffer_free(nullptr); // nothing, like free(NULL)
}

TEST_CASE("an impossible size gets NULL, not a crash") {
  CHECK(shardrt_buffer_alloc(-1) == nullptr);
  CHECK(shardrt_buffer_alloc(INT64_MAX) == nullptr);
}

TEST_CASE("a freed large block is reused for the same size, contents and all") {
  shardrt_buffer_cache_release();
  const int64_t bytes = int64_t{3} << 20;
  auto *first = static_cast<float *>(shardrt_buffer_alloc(bytes));
  REQUIRE(first != nullptr);
  first[12345] = 1.5f; // touched: its page stays resident in the cache
  shardrt_buffer_free(first);
  auto *again = static_cast<float *>(shardrt_buffer_alloc(bytes));
  CHECK(again == first);
  CHECK(again[12345] == 1.5f); // not remapped (a new mapping reads zeros)
  // A size up to an eighth smaller fits the same block; a larger one does not.
  shardrt_buffer_free(again);
  void *smaller = shardrt_buffer_alloc(bytes - bytes / 16);
  CHECK(smaller == first);
  void *larger = shardrt_buffer_alloc(bytes + (1 << 20));
  CHECK(larger != first);
  shardrt_buffer_free(smaller);
  shardrt_buffer_free(larger);
  shardrt_buffer_cache_release();
}

TEST_CASE("small blocks are not cached: malloc's arenas reuse them") {
  shardrt_buffer_cache_release();
  // Two live small blocks are distinct, and freeing one never hands a
  // large request the small block.
  void *a = shardrt_buffer_alloc(1000), *b = shardrt_buffer_alloc(1000);
  CHECK(a != b);
  shardrt_buffer_free(a);
  void *large = shardrt_buffer_alloc(int64_t{2} << 20);
  CHECK(large != a);
  shardrt_buffer_free(large);
  shardrt_buffer_free(b);
}

TEST_CASE("threads allocate and free concurrently without sharing a live block") {
  constexpr int kThreads = 4, kRounds = 200;
  std::vector<std::thread> threads;
  std::vector<int> bad(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &bad] {
      for (int r = 0; r < kRounds; ++r) {
        const int64_t bytes = (int64_t{1} << 20) + (r % 3) * 4096;
        auto *p = static_cast<int *>(shardrt_buffer_alloc(bytes));
        if (!p) {
          ++bad[t];
          continue;
        }
        const int64_t n = bytes / static_cast<int64_t>(sizeof(int));
        for (int64_t i = 0; i < n; i += 1024)
          p[i] = t * kRounds + r;
        for (int64_t i = 0; i < n; i += 1024)
          bad[t] += p[i] != t * kRounds + r;
        shardrt_buffer_free(p);
      }
    });
  for (std::thread &th : threads)
    th.join();
  for (int t = 0; t < kThreads; ++t)
    CHECK(bad[t] == 0);
  shardrt_buffer_cache_release();
}
