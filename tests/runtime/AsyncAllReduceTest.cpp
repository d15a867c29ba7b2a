// Asynchronous all_reduce (shardrt_all_reduce_start/_done) on the threads
// backend: the same bits as the blocking all_reduce, several pending at once
// and finished in any order, interleaved with blocking collectives; early
// members go on while a late one starts; mismatches, ranks that never
// start, timeouts and unknown requests are errors, never hangs.
#include "TestUtil.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <thread>

using namespace shardrt_test;
using Catch::Contains;

TEST_CASE("start/done gives the blocking all_reduce's bits, several pending, any order") {
  for (int32_t n : {2, 3, 4, 8}) {
    const int64_t count = 40000; // several of the reducer's chunks
    std::vector<int64_t> world = iota(n);
    // Rows of a 2-wide mesh when n is even: groups of two, for a second
    // pending reduction over other groups.
    std::vector<int64_t> pairs = iota(n);
    int64_t pairSize = n % 2 == 0 ? 2 : 1;
    std::vector<std::vector<float>> blockingA(n), asyncA(n), blockingB(n), asyncB(n);
    for (int32_t r = 0; r < n; ++r) {
      blockingA[r] = asyncA[r] = randomFloats(10 + r, count);
      blockingB[r] = asyncB[r] = randomFloats(100 + r, 777);
    }
    std::vector<int32_t> status(n, -1);
    shardrt_status s = runWorld(n, [&](shardrt_comm *comm) {
      int32_t r = shardrt_comm_rank(comm);
      int32_t st = shardrt_all_reduce(blockingA[r].data(), count, SHARDRT_F32, SHARDRT_SUM,
                                      world.data(), 1, n);
      st |= shardrt_all_reduce(blockingB[r].data(), 777, SHARDRT_F32, SHARDRT_MAX,
                               pairs.data(), n / pairSize, pairSize);
      // Rank 0 starts late: the others are already waiting in done.
      if (r == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      int64_t a = shardrt_all_reduce_start(asyncA[r].data(), count, SHARDRT_F32, SHARDRT_SUM,
                                           world.data(), 1, n);
      int64_t b = shardrt_all_reduce_start(asyncB[r].data(), 777, SHARDRT_F32, SHARDRT_MAX,
                                           pairs.data(), n / pairSize, pairSize);
      // A blocking collective while both are pending.
      int32_t one = 1;
      st |= shardrt_all_reduce(&one, 1, SHARDRT_I32, SHARDRT_SUM, world.data(), 1, n);
      if (one != n)
        st |= 100;
      st |= shardrt_all_reduce_done(b); // finished in the other order
      st |= shardrt_all_reduce_done(a);
      status[r] = st;
      return st;
    });
    INFO("n=" << n << ": " << shardrt_last_error());
    REQUIRE(s == SHARDRT_OK);
    for (int32_t r = 0; r < n; ++r) {
      REQUIRE(status[r] == 0);
      REQUIRE(std::memcmp(asyncA[r].data(), blockingA[r].data(), count * 4) == 0);
      REQUIRE(std::memcmp(asyncB[r].data(), blockingB[r].data(), 777 * 4) == 0);
    }
  }
}

TEST_CASE("many asynchronous all-reduces in a row, every numeric dtype, and groups of one") {
  for (int32_t dtype : kAllDtypes) {
    if (dtype == SHARDRT_BOOL)
      continue; // sums of bools saturate; the dtype tests cover them
    const int32_t n = 4;
    std::vector<int64_t> world = iota(n), singles = iota(n);
    const size_t es = shardrt_dtype_size(dtype);
    std::vector<std::vector<char>> bufs(n, std::vector<char>(5 * es));
    std::vector<int32_t> status(n, -1);
    std::vector<int64_t> singleRequest(n, -1);
    shardrt_status s = runWorld(n, [&](shardrt_comm *comm) {
      int32_t r = shardrt_comm_rank(comm);
      int32_t st = 0;
      for (int round = 0; round < 50; ++round) {
        for (int64_t i = 0; i < 5; ++i)
          storeValue(bufs[r].data(), i, dtype, (r + i + round) % 3);
        int64_t q = shardrt_all_reduce_start(bufs[r].data(), 5, dtype, SHARDRT_SUM,
                                             world.data(), 1, n);
        st |= shardrt_all_reduce_done(q);
      }
      singleRequest[r] = shardrt_all_reduce_start(bufs[r].data(), 5, dtype, SHARDRT_SUM,
                                                  singles.data(), n, 1);
      st |= shardrt_all_reduce_done(singleRequest[r]);
      status[r] = st;
      return st;
    });
    INFO(shardrt_dtype_name(dtype) << ": " << shardrt_last_error());
    REQUIRE(s == SHARDRT_OK);
    for (int32_t r = 0; r < n; ++r) {
      CHECK(status[r] == 0);
      CHECK(singleRequest[r] == 0); // nothing pending for a group of one
      for (int64_t i = 0; i < 5; ++i) {
        double want = 0;
        for (int32_t m = 0; m < n; ++m)
          want += (m + i + 49) % 3;
        CHECK(loadValue(bufs[r].data(), i, dtype) == want);
      }
    }
  }
}

TEST_CASE("an asynchronous all_reduce some member never starts fails, without a hang") {
  unsetenv("SHARDRT_TIMEOUT_S");
  std::vector<int64_t> world = iota(4);
  std::vector<int32_t> status(4, -1);
  auto start = std::chrono::steady_clock::now();
  shardrt_status s = runWorld(4, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    if (r == 3)
      return 0;
    float v = 1;
    int64_t q = shardrt_all_reduce_start(&v, 1, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, 4);
    status[r] = shardrt_all_reduce_done(q);
    return status[r];
  });
  CHECK(elapsedSeconds(start) < 10);
  CHECK(s == SHARDRT_ERR_ABORTED);
  CHECK_THAT(shardrt_last_error(),
             Contains("asynchronous all_reduce over group [0,1,2,3] cannot complete: rank 3 "
                      "returned from its rank function without starting it"));
  for (int r = 0; r < 3; ++r)
    CHECK(status[r] == SHARDRT_ERR_ABORTED);
}

TEST_CASE("an asynchronous all_reduce times out after SHARDRT_TIMEOUT_S") {
  setenv("SHARDRT_TIMEOUT_S", "0.2", 1);
  std::vector<int64_t> world = iota(3);
  auto start = std::chrono::steady_clock::now();
  shardrt_status s = runWorld(3, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    if (r == 2) { // alive but late
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      return 0;
    }
    float v = 1;
    int64_t q = shardrt_all_reduce_start(&v, 1, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, 3);
    return shardrt_all_reduce_done(q);
  });
  unsetenv("SHARDRT_TIMEOUT_S");
  CHECK(elapsedSeconds(start) >= 0.2);
  CHECK(elapsedSeconds(start) < 10);
  CHECK(s == SHARDRT_ERR_ABORTED);
  CHECK_THAT(shardrt_last_error(), Contains("timed out after 0.2 s waiting for ranks 2"));
}

TEST_CASE("mismatched starts, failed starts and unknown requests are errors") {
  std::vector<int64_t> world = iota(2);
  std::vector<int32_t> done(2, -1);
  shardrt_status s = runWorld(2, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    float v[2] = {1, 2};
    int64_t q = shardrt_all_reduce_start(v, r == 0 ? 1 : 2, SHARDRT_F32, SHARDRT_SUM,
                                         world.data(), 1, 2);
    done[r] = shardrt_all_reduce_done(q);
    return 0;
  });
  CHECK(s == SHARDRT_ERR_ARGUMENT);
  CHECK_THAT(shardrt_last_error(), Contains("collective mismatch over group [0,1]"));
  CHECK(done[0] != SHARDRT_OK);
  CHECK(done[1] != SHARDRT_OK);

  std::vector<int64_t> badStart(2, 0);
  std::vector<int32_t> unknown(2, 0);
  s = runWorld(2, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    float v = 1;
    if (r == 0)
      unknown[r] = shardrt_all_reduce_done(12345);
    else
      badStart[r] = shardrt_all_reduce_start(&v, -1, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, 2);
    return 0;
  });
  CHECK(s != SHARDRT_OK);
  CHECK((unknown[0] == SHARDRT_ERR_ARGUMENT || unknown[0] == SHARDRT_ERR_ABORTED));
  CHECK(badStart[1] == -1);
  CHECK(shardrt_all_reduce_done(-1) != SHARDRT_OK); // no communicator here either
}
