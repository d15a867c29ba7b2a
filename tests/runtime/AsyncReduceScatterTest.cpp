// Asynchronous reduce_scatter (shardrt_reduce_scatter_start/_done) on the
// threads backend: the same bits as the blocking reduce_scatter, pending
// beside asynchronous all-reduces of the same groups and finished in any
// order; groups of one copy; mismatched kinds, done with other buffers and
// members that never start are errors, never hangs.
#include "TestUtil.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <thread>

using namespace shardrt_test;
using Catch::Contains;

TEST_CASE("reduce_scatter start/done gives the blocking bits, beside a pending all_reduce") {
  for (int32_t n : {2, 3, 4, 8}) {
    // [outer, n * inner] in, [outer, inner] out: rows of a weight matrix
    // whose columns are scattered.
    const int64_t outer = 7, inner = 301;
    const int64_t inCount = outer * n * inner, outCount = outer * inner;
    std::vector<int64_t> world = iota(n);
    // Pairs (a 2-wide mesh's rows) when n is even, for a second group.
    std::vector<int64_t> pairs = iota(n);
    const int64_t pairSize = n % 2 == 0 ? 2 : 1;
    std::vector<std::vector<float>> in(n), blocking(n), async(n), pairIn(n), pairBlocking(n),
        pairAsync(n), reduced(n), reducedAsync(n);
    for (int32_t r = 0; r < n; ++r) {
      in[r] = randomFloats(10 + r, inCount);
      pairIn[r] = randomFloats(50 + r, 3 * pairSize * 64);
      blocking[r].assign(outCount, -1);
      async[r].assign(outCount, -2);
      pairBlocking[r].assign(3 * 64, -1);
      pairAsync[r].assign(3 * 64, -2);
      reduced[r] = reducedAsync[r] = randomFloats(90 + r, 999);
    }
    std::vector<int32_t> status(n, -1);
    shardrt_status s = runWorld(n, [&](shardrt_comm *comm) {
      int32_t r = shardrt_comm_rank(comm);
      int32_t st = shardrt_reduce_scatter(in[r].data(), blocking[r].data(), outer, inner,
                                          SHARDRT_F32, SHARDRT_SUM, world.data(), 1, n);
      st |= shardrt_reduce_scatter(pairIn[r].data(), pairBlocking[r].data(), 3, 64, SHARDRT_F32,
                                   SHARDRT_MAX, pairs.data(), n / pairSize, pairSize);
      st |= shardrt_all_reduce(reduced[r].data(), 999, SHARDRT_F32, SHARDRT_SUM, world.data(),
                               1, n);
      // Rank 0 starts late: the others are already waiting in done.
      if (r == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      int64_t a = shardrt_reduce_scatter_start(in[r].data(), async[r].data(), outer, inner,
                                               SHARDRT_F32, SHARDRT_SUM, world.data(), 1, n);
      int64_t b = shardrt_all_reduce_start(reducedAsync[r].data(), 999, SHARDRT_F32,
                                           SHARDRT_SUM, world.data(), 1, n);
      int64_t c = shardrt_reduce_scatter_start(pairIn[r].data(), pairAsync[r].data(), 3, 64,
                                               SHARDRT_F32, SHARDRT_MAX, pairs.data(),
                                               n / pairSize, pairSize);
      // A blocking collective while all three are pending.
      int32_t one = 1;
      st |= shardrt_all_reduce(&one, 1, SHARDRT_I32, SHARDRT_SUM, world.data(), 1, n);
      if (one != n)
        st |= 100;
      st |= shardrt_reduce_scatter_done(c, pairIn[r].data(), pairAsync[r].data());
      st |= shardrt_all_reduce_done(b);
      st |= shardrt_reduce_scatter_done(a, in[r].data(), async[r].data());
      status[r] = st;
      return st;
    });
    INFO("n=" << n << ": " << shardrt_last_error());
    REQUIRE(s == SHARDRT_OK);
    for (int32_t r = 0; r < n; ++r) {
      REQUIRE(status[r] == 0);
      REQUIRE(std::memcmp(async[r].data(), blocking[r].data(), outCount * 4) == 0);
      REQUIRE(std::memcmp(pairAsync[r].data(), pairBlocking[r].data(), 3 * 64 * 4) == 0);
      REQUIRE(std::memcmp(reducedAsync[r].data(), reduced[r].data(), 999 * 4) == 0);
    }
    // Against a reference: member r's block of the group's sum. The blocking
    // form sums in group order; in double the order does not matter at
    // this tolerance.
    for (int32_t r = 0; r < n; ++r)
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          double want = 0;
          for (int32_t m = 0; m < n; ++m)
            want += in[m][(o * n + r) * inner + i];
          REQUIRE(async[r][o * inner + i] == Approx(want).epsilon(1e-5).margin(1e-2));
        }
  }
}

TEST_CASE("an asynchronous reduce_scatter over groups of one copies, with nothing pending") {
  const int32_t n = 3;
  std::vector<int64_t> singles = iota(n);
  std::vector<std::vector<int32_t>> in(n), out(n);
  std::vector<int64_t> request(n, -1);
  std::vector<int32_t> status(n, -1);
  shardrt_status s = runWorld(n, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    in[r] = {r, r + 1, r + 2, r + 3};
    out[r].assign(4, -1);
    request[r] = shardrt_reduce_scatter_start(in[r].data(), out[r].data(), 2, 2, SHARDRT_I32,
                                              SHARDRT_SUM, singles.data(), n, 1);
    status[r] = shardrt_reduce_scatter_done(request[r], in[r].data(), out[r].data());
    return status[r];
  });
  REQUIRE(s == SHARDRT_OK);
  for (int32_t r = 0; r < n; ++r) {
    CHECK(request[r] == 0);
    CHECK(status[r] == SHARDRT_OK);
    CHECK(out[r] == in[r]);
  }
}

TEST_CASE("asynchronous reduce_scatter errors: mismatched kinds, other buffers, a request "
          "finished as another kind's, no start") {
  std::vector<int64_t> world = iota(2);
  std::vector<int32_t> done(2, -1);
  shardrt_status s = runWorld(2, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    float in[4] = {1, 2, 3, 4}, out[2] = {0, 0};
    if (r == 0) {
      int64_t q = shardrt_reduce_scatter_start(in, out, 1, 2, SHARDRT_F32, SHARDRT_SUM,
                                               world.data(), 1, 2);
      done[r] = shardrt_reduce_scatter_done(q, in, out);
    } else {
      int64_t q = shardrt_all_reduce_start(in, 4, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, 2);
      done[r] = shardrt_all_reduce_done(q);
    }
    return 0;
  });
  CHECK(s == SHARDRT_ERR_ARGUMENT);
  CHECK_THAT(shardrt_last_error(), Contains("collective mismatch over group [0,1]"));
  CHECK_THAT(shardrt_last_error(), Contains("reduce_scatter(outer=1, inner=2, f32, sum)"));
  CHECK(done[0] != SHARDRT_OK);
  CHECK(done[1] != SHARDRT_OK);

  s = runWorld(2, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    float in[4] = {1, 2, 3, 4}, out[2] = {0, 0}, other[2] = {0, 0};
    int64_t q =
        shardrt_reduce_scatter_start(in, out, 1, 2, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, 2);
    done[r] = shardrt_reduce_scatter_done(q, in, r == 1 ? other : out);
    return done[r];
  });
  CHECK(s != SHARDRT_OK);
  CHECK(done[1] == SHARDRT_ERR_ARGUMENT);
  CHECK_THAT(shardrt_last_error(), Contains("reduce_scatter_done: request 1 was started with "
                                            "other buffers"));

  // A reduce-scatter's request finished as an all-reduce's.
  s = runWorld(2, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    float in[4] = {1, 2, 3, 4}, out[2] = {0, 0};
    int64_t q =
        shardrt_reduce_scatter_start(in, out, 1, 2, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, 2);
    done[r] = r == 0 ? shardrt_all_reduce_done(q) : shardrt_reduce_scatter_done(q, in, out);
    return done[r];
  });
  CHECK(s != SHARDRT_OK);
  CHECK(done[0] == SHARDRT_ERR_ARGUMENT);
  CHECK_THAT(shardrt_last_error(),
             Contains("all_reduce_done: 1 is not a pending all_reduce request of this rank"));

  unsetenv("SHARDRT_TIMEOUT_S");
  std::vector<int64_t> three = iota(3);
  auto start = std::chrono::steady_clock::now();
  s = runWorld(3, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    if (r == 2)
      return 0;
    float in[3] = {1, 2, 3}, out[1] = {0};
    int64_t q =
        shardrt_reduce_scatter_start(in, out, 1, 1, SHARDRT_F32, SHARDRT_SUM, three.data(), 1, 3);
    return shardrt_reduce_scatter_done(q, in, out);
  });
  CHECK(elapsedSeconds(start) < 10);
  CHECK(s == SHARDRT_ERR_ABORTED);
  CHECK_THAT(shardrt_last_error(),
             Contains("asynchronous reduce_scatter over group [0,1,2] cannot complete: rank 2 "
                      "returned from its rank function without starting it"));
}
