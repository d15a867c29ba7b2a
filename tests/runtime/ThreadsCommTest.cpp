// Threads backend: collectives over whole worlds and device groups, for every
// dtype and op, plus failure handling (abort, timeout, argument errors).
#include "TestUtil.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <cmath>
#include <random>
#include <thread>

using namespace shardrt_test;
using Catch::Contains;

namespace {

/// Runs one all_reduce of `count` elements on every rank of an n-rank world
/// over `groups`; returns each rank's buffer afterwards and checks statuses.
std::vector<std::vector<char>> reduceOnce(int32_t n, int32_t dtype, int32_t op, int64_t count,
                                          const std::vector<int64_t> &groups,
                                          int64_t groupSize) {
  const size_t es = shardrt_dtype_size(dtype);
  std::vector<std::vector<char>> bufs(n, std::vector<char>(count * es + 1));
  std::vector<int32_t> status(n, -1);
  shardrt_status s = runWorld(n, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    for (int64_t i = 0; i < count; ++i)
      storeValue(bufs[r].data(), i, dtype, reduceInput(op, dtype, r, i));
    status[r] = shardrt_all_reduce(bufs[r].data(), count, dtype, op, groups.data(),
                                   (int64_t)groups.size() / groupSize, groupSize);
    return status[r];
  });
  INFO(shardrt_last_error());
  REQUIRE(s == SHARDRT_OK);
  for (int32_t r = 0; r < n; ++r)
    REQUIRE(status[r] == SHARDRT_OK);
  return bufs;
}

} // namespace

TEST_CASE("all_reduce over the whole world: every dtype and op, 1 to 8 ranks") {
  for (int32_t n : {1, 2, 3, 4, 8}) {
    for (int32_t dtype : kAllDtypes) {
      for (int32_t op : kAllOps) {
        // 37 does not divide by 2, 3, 4 or 8, so the per-member slices are
        // uneven; 2 < 8 leaves some members with an empty slice.
        for (int64_t count : {int64_t(37), int64_t(2)}) {
          INFO("n=" << n << " dtype=" << shardrt_dtype_name(dtype) << " op=" << op
                    << " count=" << count);
          std::vector<int64_t> world = iota(n);
          auto bufs = reduceOnce(n, dtype, op, count, world, n);
          std::vector<char> expected(count * shardrt_dtype_size(dtype) + 1);
          for (int64_t i = 0; i < count; ++i)
            storeValue(expected.data(), i, dtype, reduceExpected(op, dtype, world, i));
          for (int32_t r = 0; r < n; ++r) {
            INFO("rank " << r);
            CHECK(std::memcmp(bufs[r].data(), expected.data(), expected.size() - 1) == 0);
          }
        }
      }
    }
  }
}

TEST_CASE("all_reduce over a 2x4 mesh: rows, columns, then both") {
  const std::vector<int64_t> rows = {0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<int64_t> cols = {0, 4, 1, 5, 2, 6, 3, 7};
  for (int32_t dtype : kAllDtypes) {
    for (int32_t op : kAllOps) {
      INFO("dtype=" << shardrt_dtype_name(dtype) << " op=" << op);
      auto byRow = reduceOnce(8, dtype, op, 11, rows, 4);
      auto byCol = reduceOnce(8, dtype, op, 11, cols, 2);
      for (int32_t r = 0; r < 8; ++r) {
        std::vector<int64_t> row, col;
        for (int64_t b = 0; b < 4; ++b)
          row.push_back((r / 4) * 4 + b);
        for (int64_t a = 0; a < 2; ++a)
          col.push_back(a * 4 + r % 4);
        for (int64_t i = 0; i < 11; ++i) {
          INFO("rank " << r << " element " << i);
          CHECK(loadValue(byRow[r].data(), i, dtype) == reduceExpected(op, dtype, row, i));
          CHECK(loadValue(byCol[r].data(), i, dtype) == reduceExpected(op, dtype, col, i));
        }
      }
    }
  }

  // Rows then columns sums over the whole mesh.
  std::vector<std::vector<int32_t>> bufs(8, std::vector<int32_t>(5));
  shardrt_status s = runWorld(8, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    for (int i = 0; i < 5; ++i)
      bufs[r][i] = r * 10 + i;
    int32_t st = shardrt_all_reduce(bufs[r].data(), 5, SHARDRT_I32, SHARDRT_SUM, rows.data(), 2, 4);
    if (st == 0)
      st = shardrt_all_reduce(bufs[r].data(), 5, SHARDRT_I32, SHARDRT_SUM, cols.data(), 4, 2);
    return st;
  });
  REQUIRE(s == SHARDRT_OK);
  for (int32_t r = 0; r < 8; ++r)
    for (int i = 0; i < 5; ++i)
      CHECK(bufs[r][i] == 280 + 8 * i);
}

TEST_CASE("all_reduce sums floats in group order, bitwise identical on every rank") {
  for (int32_t n : {2, 3, 8}) { // 2: the one-pass pair kernel
    for (bool reversed : {false, true}) {
      std::vector<int64_t> group = iota(n);
      if (reversed)
        std::reverse(group.begin(), group.end());
      const int64_t count = 1001;
      std::vector<std::vector<float>> f32(n, std::vector<float>(count));
      std::vector<std::vector<double>> f64(n, std::vector<double>(count));
      std::vector<std::vector<uint16_t>> f16(n, std::vector<uint16_t>(count));
      for (int32_t r = 0; r < n; ++r) {
        std::mt19937 gen(1234 + r);
        std::uniform_real_distribution<double> dist(-1e3, 1e3);
        for (int64_t i = 0; i < count; ++i) {
          f64[r][i] = dist(gen) * std::pow(10.0, (int)(i % 7) - 3);
          f32[r][i] = static_cast<float>(f64[r][i]);
          f16[r][i] = shardrt::floatToHalf(static_cast<float>(dist(gen)));
        }
      }
      auto in32 = f32;
      auto in64 = f64;
      auto in16 = f16;
      shardrt_status s = runWorld(n, [&](shardrt_comm *comm) {
        int32_t r = shardrt_comm_rank(comm);
        int32_t st = shardrt_all_reduce(f32[r].data(), count, SHARDRT_F32, SHARDRT_SUM,
                                        group.data(), 1, n);
        if (!st)
          st = shardrt_all_reduce(f64[r].data(), count, SHARDRT_F64, SHARDRT_SUM, group.data(), 1, n);
        if (!st)
          st = shardrt_all_reduce(f16[r].data(), count, SHARDRT_F16, SHARDRT_SUM, group.data(), 1, n);
        return st;
      });
      REQUIRE(s == SHARDRT_OK);
      for (int64_t i = 0; i < count; ++i) {
        float e32 = in32[group[0]][i];
        double e64 = in64[group[0]][i];
        float e16 = shardrt::halfToFloat(in16[group[0]][i]);
        for (int32_t m = 1; m < n; ++m) {
          e32 += in32[group[m]][i];
          e64 += in64[group[m]][i];
          e16 += shardrt::halfToFloat(in16[group[m]][i]);
        }
        uint16_t h16 = shardrt::floatToHalf(e16);
        for (int32_t r = 0; r < n; ++r) {
          INFO("n=" << n << " reversed=" << reversed << " i=" << i << " rank=" << r);
          REQUIRE(std::memcmp(&f32[r][i], &e32, 4) == 0);
          REQUIRE(std::memcmp(&f64[r][i], &e64, 8) == 0);
          REQUIRE(f16[r][i] == h16);
        }
      }
    }
  }
}

TEST_CASE("all_reduce: NaN propagates through max and min, integers wrap") {
  std::vector<std::vector<float>> fbuf(2, std::vector<float>(2));
  std::vector<std::vector<int8_t>> ibuf(2, std::vector<int8_t>(1));
  std::vector<int64_t> world = iota(2);
  shardrt_status s = runWorld(2, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    fbuf[r] = {r == 1 ? NAN : 1.0f, r == 0 ? NAN : 1.0f};
    ibuf[r] = {100};
    int32_t st = shardrt_all_reduce(fbuf[r].data(), 1, SHARDRT_F32, SHARDRT_MAX, world.data(), 1, 2);
    if (!st)
      st = shardrt_all_reduce(fbuf[r].data() + 1, 1, SHARDRT_F32, SHARDRT_MIN, world.data(), 1, 2);
    if (!st)
      st = shardrt_all_reduce(ibuf[r].data(), 1, SHARDRT_I8, SHARDRT_SUM, world.data(), 1, 2);
    return st;
  });
  REQUIRE(s == SHARDRT_OK);
  for (int r = 0; r < 2; ++r) {
    CHECK(std::isnan(fbuf[r][0]));
    CHECK(std::isnan(fbuf[r][1]));
    CHECK(ibuf[r][0] == -56); // 200 wraps in int8
  }
}

TEST_CASE("all_gather: every dtype, outer > 1, whole worlds and groups") {
  const int64_t outer = 3, inner = 2;
  for (const GroupCase &c : kGroupCases) {
    for (int32_t dtype : kAllDtypes) {
      INFO("n=" << c.n << " groups=" << c.groups.size() / c.groupSize << "x" << c.groupSize
                << " dtype=" << shardrt_dtype_name(dtype));
      const size_t es = shardrt_dtype_size(dtype);
      const int64_t g = c.groupSize;
      auto inByte = [&](int64_t r, int64_t o, int64_t i, size_t k) {
        return static_cast<char>(r * 31 + o * 7 + i * 3 + k + 1);
      };
      std::vector<std::vector<char>> in(c.n, std::vector<char>(outer * inner * es));
      std::vector<std::vector<char>> out(c.n, std::vector<char>(outer * g * inner * es, 'x'));
      for (int32_t r = 0; r < c.n; ++r)
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i)
            for (size_t k = 0; k < es; ++k)
              in[r][(o * inner + i) * es + k] = inByte(r, o, i, k);
      shardrt_status s = runWorld(c.n, [&](shardrt_comm *comm) {
        int32_t r = shardrt_comm_rank(comm);
        return shardrt_all_gather(in[r].data(), out[r].data(), outer, inner, dtype, c.groups.data(),
                                  (int64_t)c.groups.size() / g, g);
      });
      INFO(shardrt_last_error());
      REQUIRE(s == SHARDRT_OK);
      for (int32_t r = 0; r < c.n; ++r) {
        int64_t position;
        const int64_t *members = groupOf(c, r, &position);
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t m = 0; m < g; ++m)
            for (int64_t i = 0; i < inner; ++i)
              for (size_t k = 0; k < es; ++k) {
                INFO("rank " << r << " o=" << o << " m=" << m << " i=" << i);
                REQUIRE(out[r][((o * g + m) * inner + i) * es + k] ==
                        inByte(members[m], o, i, k));
              }
      }
    }
  }
}

TEST_CASE("groups of one are no-ops; ranks outside every group may skip") {
  std::vector<std::vector<float>> buf(4, std::vector<float>(3));
  std::vector<std::vector<float>> out(4, std::vector<float>(3, -1));
  const std::vector<int64_t> singles = {3, 2, 1, 0};
  const std::vector<int64_t> pair = {1, 3};
  shardrt_status s = runWorld(4, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    buf[r] = {float(r), float(r + 1), float(r + 2)};
    int32_t st = shardrt_all_reduce(buf[r].data(), 3, SHARDRT_F32, SHARDRT_SUM, singles.data(), 4, 1);
    if (!st)
      st = shardrt_all_gather(buf[r].data(), out[r].data(), 1, 3, SHARDRT_F32, singles.data(), 4, 1);
    // Only ranks 1 and 3 are in the one group listed.
    if (!st && (r == 1 || r == 3))
      st = shardrt_all_reduce(buf[r].data(), 3, SHARDRT_F32, SHARDRT_SUM, pair.data(), 1, 2);
    return st;
  });
  INFO(shardrt_last_error());
  REQUIRE(s == SHARDRT_OK);
  for (int r = 0; r < 4; ++r) {
    CHECK(out[r] == std::vector<float>{float(r), float(r + 1), float(r + 2)});
    if (r == 1 || r == 3)
      CHECK(buf[r] == std::vector<float>{4, 6, 8});
    else
      CHECK(buf[r] == std::vector<float>{float(r), float(r + 1), float(r + 2)});
  }
}

TEST_CASE("many collectives in a row reuse the rendezvous correctly") {
  const std::vector<int64_t> rows = {0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<int64_t> cols = {0, 4, 1, 5, 2, 6, 3, 7};
  std::vector<int64_t> result(8, 0), gathered(8, 0);
  std::vector<int32_t> bad(8, 0);
  shardrt_status s = runWorld(8, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    for (int iter = 0; iter < 2000; ++iter) {
      bool byRow = iter % 3 != 0;
      std::vector<int64_t> v(1 + iter % 9, r + iter);
      int32_t st = shardrt_all_reduce(v.data(), (int64_t)v.size(), SHARDRT_I64, SHARDRT_SUM,
                                      byRow ? rows.data() : cols.data(), byRow ? 2 : 4,
                                      byRow ? 4 : 2);
      if (st)
        return st;
      int64_t expect = 0;
      for (int64_t m = 0; m < (byRow ? 4 : 2); ++m)
        expect += (byRow ? (r / 4) * 4 + m : m * 4 + r % 4) + iter;
      for (int64_t x : v)
        bad[r] += x != expect;
      // A barrier over the world straight before a collective over the same
      // group: members leave a barrier without draining, so the next call
      // must not disturb the slots a slower member is still checking.
      if ((st = shardrt_barrier_on(comm)))
        return st;
      int64_t mine = r, all[8];
      if ((st = shardrt_all_gather(&mine, all, 1, 1, SHARDRT_I64, rows.data(), 1, 8)))
        return st;
      for (int m = 0; m < 8; ++m)
        bad[r] += all[m] != m;
      if ((st = shardrt_barrier_on(comm)))
        return st;
    }
    result[r] = 1;
    return 0;
  });
  INFO(shardrt_last_error());
  REQUIRE(s == SHARDRT_OK);
  for (int r = 0; r < 8; ++r) {
    CHECK(result[r] == 1);
    CHECK(bad[r] == 0);
  }
}

TEST_CASE("current communicator, ranks, barrier and the _on variants") {
  CHECK(shardrt_current() == nullptr);
  CHECK(shardrt_rank() == -1);
  CHECK_THAT(shardrt_last_error(), Contains("no communicator"));
  const int n = 4;
  std::vector<int64_t> rankSeen(n, -1), sizeSeen(n, -1), before(n, 0), after(n, 0);
  std::vector<int> currentOk(n, 0);
  std::vector<float> sums(n, 0);
  std::vector<int64_t> world = iota(n);
  shardrt_status s = runWorld(n, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    currentOk[r] = shardrt_current() == comm;
    rankSeen[r] = shardrt_rank();
    sizeSeen[r] = shardrt_comm_size(comm);
    before[r] = 1;
    int32_t st = shardrt_barrier_on(comm);
    // After the barrier every rank's write above is visible.
    for (int m = 0; m < n; ++m)
      after[r] += before[m];
    sums[r] = float(r);
    if (!st)
      st = shardrt_all_reduce_on(comm, &sums[r], 1, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, n);
    return st;
  });
  REQUIRE(s == SHARDRT_OK);
  CHECK(std::string(shardrt_last_error()).empty());
  for (int r = 0; r < n; ++r) {
    CHECK(currentOk[r] == 1);
    CHECK(rankSeen[r] == r);
    CHECK(sizeSeen[r] == n);
    CHECK(after[r] == n);
    CHECK(sums[r] == 6.0f);
  }
  CHECK(shardrt_current() == nullptr);

  float x = 1;
  CHECK(shardrt_all_reduce(&x, 1, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, 1) ==
        SHARDRT_ERR_ARGUMENT);
  CHECK_THAT(shardrt_last_error(), Contains("no communicator"));
}

TEST_CASE("a failing rank aborts collectives that wait for it, without a hang") {
  unsetenv("SHARDRT_TIMEOUT_S");
  std::vector<int32_t> status(4, -1);
  std::vector<int64_t> world = iota(4);
  auto start = std::chrono::steady_clock::now();
  shardrt_status s = runWorld(4, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    if (r == 3) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      return 1;
    }
    float v = 1;
    status[r] = shardrt_all_reduce(&v, 1, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, 4);
    // Later collectives fail at once, too.
    if (status[r] == SHARDRT_ERR_ABORTED)
      status[r] = shardrt_all_gather(&v, &v, 1, 1, SHARDRT_F32, world.data() + r, 1, 1);
    return status[r];
  });
  CHECK(elapsedSeconds(start) < 10);
  CHECK(s == SHARDRT_ERR_ARGUMENT); // the value rank 3 returned, kept as a status
  CHECK_THAT(shardrt_last_error(), Contains("rank 3: rank function returned 1"));
  for (int r = 0; r < 3; ++r)
    CHECK(status[r] == SHARDRT_ERR_ABORTED);
}

TEST_CASE("an abort in one group releases every group on the mesh") {
  const std::vector<int64_t> rows = {0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<int64_t> cols = {0, 4, 1, 5, 2, 6, 3, 7};
  std::vector<int32_t> last(8, -1);
  auto start = std::chrono::steady_clock::now();
  shardrt_status s = runWorld(8, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    if (r == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return 7; // not a shardrt_status: reported as an abort
    }
    double v = r;
    int32_t st = SHARDRT_OK;
    if (r >= 4)
      st = shardrt_all_reduce(&v, 1, SHARDRT_F64, SHARDRT_SUM, rows.data(), 2, 4);
    if (!st)
      st = shardrt_all_reduce(&v, 1, SHARDRT_F64, SHARDRT_SUM, cols.data(), 4, 2);
    if (!st)
      st = shardrt_barrier_on(comm);
    last[r] = st;
    return st;
  });
  CHECK(elapsedSeconds(start) < 10);
  CHECK(s == SHARDRT_ERR_ABORTED);
  CHECK_THAT(shardrt_last_error(), Contains("rank 0: rank function returned 7"));
  for (int r = 1; r < 8; ++r)
    CHECK(last[r] == SHARDRT_ERR_ABORTED);
}

TEST_CASE("shardrt_abort releases peers and names the rank and reason") {
  std::vector<int32_t> status(3, -1);
  std::vector<int64_t> world = iota(3);
  shardrt_status s = runWorld(3, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    if (r == 2) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      shardrt_abort(comm, "bad batch");
      return 0;
    }
    int32_t in = r, out[3];
    status[r] = shardrt_all_gather(&in, out, 1, 1, SHARDRT_I32, world.data(), 1, 3);
    return 0;
  });
  CHECK(s == SHARDRT_ERR_ABORTED);
  CHECK(std::string(shardrt_last_error()) == "rank 2: bad batch");
  CHECK(status[0] == SHARDRT_ERR_ABORTED);
  CHECK(status[1] == SHARDRT_ERR_ABORTED);
}

TEST_CASE("a rank that returns without joining a collective fails it at once") {
  unsetenv("SHARDRT_TIMEOUT_S");
  std::vector<int64_t> world = iota(4);
  auto start = std::chrono::steady_clock::now();
  shardrt_status s = runWorld(4, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    if (r == 3)
      return 0;
    int32_t v = 1;
    return shardrt_all_reduce(&v, 1, SHARDRT_I32, SHARDRT_SUM, world.data(), 1, 4);
  });
  CHECK(elapsedSeconds(start) < 10);
  CHECK(s == SHARDRT_ERR_ABORTED);
  CHECK_THAT(shardrt_last_error(),
             Contains("collective all_reduce over group [0,1,2,3] cannot complete: rank 3 "
                      "returned from its rank function without joining it"));
}

TEST_CASE("a collective times out after SHARDRT_TIMEOUT_S") {
  setenv("SHARDRT_TIMEOUT_S", "0.2", 1);
  std::vector<int32_t> status(4, -1), later(4, -1);
  std::vector<int64_t> world = iota(4);
  auto start = std::chrono::steady_clock::now();
  shardrt_status s = runWorld(4, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    if (r == 3) { // alive but late: only the timeout can tell
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      return 0;
    }
    float v = 1;
    status[r] = shardrt_all_reduce(&v, 1, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, 4);
    auto t = std::chrono::steady_clock::now();
    later[r] = shardrt_all_reduce(&v, 1, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, 4);
    if (elapsedSeconds(t) > 0.1)
      later[r] = -2; // must fail at once, not wait again
    return status[r];
  });
  unsetenv("SHARDRT_TIMEOUT_S");
  double elapsed = elapsedSeconds(start);
  CHECK(elapsed >= 0.2);
  CHECK(elapsed < 10);
  CHECK(s == SHARDRT_ERR_ABORTED);
  CHECK_THAT(shardrt_last_error(),
             Contains("collective all_reduce over group [0,1,2,3] timed out after 0.2 s "
                      "waiting for ranks 3"));
  CHECK_THAT(shardrt_last_error(), Catch::StartsWith("rank "));
  for (int r = 0; r < 3; ++r) {
    CHECK(status[r] == SHARDRT_ERR_ABORTED);
    CHECK(later[r] == SHARDRT_ERR_ABORTED);
  }
}

TEST_CASE("a timeout racing a late arrival either commits or gives up, never half") {
  // Rank 0 waits a few hundred microseconds at most; rank 1 arrives after a
  // delay around that bound. Either the all-reduce commits (both buffers
  // summed) or rank 0 takes its arrival back before rank 1 can commit (both
  // buffers untouched, both ranks fail). The buffers live on each rank's
  // stack frame, so the sanitizer builds catch a peer reading one after its
  // rank has returned.
  setenv("SHARDRT_TIMEOUT_S", "0.0002", 1);
  int committed = 0, gaveUp = 0;
  for (int iter = 0; iter < 200; ++iter) {
    std::vector<int32_t> status(2, -1);
    std::vector<std::vector<float>> seen(2);
    shardrt_status s = runWorld(2, [&](shardrt_comm *comm) {
      int32_t r = shardrt_comm_rank(comm);
      std::vector<float> v(64, float(r + 1));
      if (r == 1) {
        auto until = std::chrono::steady_clock::now() +
                     std::chrono::microseconds(200 + 5 * (iter % 80));
        while (std::chrono::steady_clock::now() < until) {
        }
      }
      const int64_t group[] = {0, 1};
      status[r] = shardrt_all_reduce_on(comm, v.data(), 64, SHARDRT_F32, SHARDRT_SUM, group, 1, 2);
      seen[r] = v;
      return status[r];
    });
    if (s == SHARDRT_OK) {
      ++committed;
      for (int r = 0; r < 2; ++r)
        CHECK(seen[r] == std::vector<float>(64, 3.0f));
    } else {
      ++gaveUp;
      CHECK(s == SHARDRT_ERR_ABORTED);
      for (int r = 0; r < 2; ++r) {
        CHECK(status[r] == SHARDRT_ERR_ABORTED);
        CHECK(seen[r] == std::vector<float>(64, float(r + 1)));
      }
    }
  }
  unsetenv("SHARDRT_TIMEOUT_S");
  INFO("committed " << committed << ", gave up " << gaveUp);
  CHECK(committed + gaveUp == 200);
}

TEST_CASE("SHARDRT_TIMEOUT_S must be a positive number") {
  for (const char *bad : {"abc", "0", "-1", "5s"}) {
    setenv("SHARDRT_TIMEOUT_S", bad, 1);
    int ran = 0;
    shardrt_status s = runWorld(2, [&](shardrt_comm *) {
      ran = 1; // never reached
      return 0;
    });
    CHECK(s == SHARDRT_ERR_ARGUMENT);
    CHECK(ran == 0);
    CHECK_THAT(shardrt_last_error(), Contains("SHARDRT_TIMEOUT_S='" + std::string(bad) + "'"));
  }
  unsetenv("SHARDRT_TIMEOUT_S");
}

namespace {
/// Rank 0 makes the call `bad`; every other rank makes a valid all_reduce
/// over the world.  Returns run's status; `message` gets the run's error.
template <typename F>
shardrt_status rejectOnRankZero(int32_t n, F bad, std::vector<int32_t> *others, std::string *message) {
  std::vector<int64_t> world = iota(n);
  others->assign(n, -1);
  shardrt_status s = runWorld(n, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    if (r == 0)
      return bad();
    float v = 1;
    (*others)[r] = shardrt_all_reduce(&v, 1, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, n);
    return (*others)[r];
  });
  *message = shardrt_last_error();
  return s;
}
} // namespace

TEST_CASE("argument errors abort the world with a message naming the argument") {
  float buf[4] = {};
  float out[16] = {};
  const std::vector<int64_t> ok = {0, 1, 2, 3};
  struct Case {
    const char *name;
    std::function<int32_t()> call;
    const char *message;
  };
  const std::vector<Case> cases = {
      {"null buf", [&] { return shardrt_all_reduce(nullptr, 4, SHARDRT_F32, SHARDRT_SUM, ok.data(), 1, 4); },
       "rank 0: all_reduce: buf is NULL with count 4"},
      {"negative count", [&] { return shardrt_all_reduce(buf, -1, SHARDRT_F32, SHARDRT_SUM, ok.data(), 1, 4); },
       "all_reduce: count is -1"},
      {"bad dtype", [&] { return shardrt_all_reduce(buf, 4, 99, SHARDRT_SUM, ok.data(), 1, 4); },
       "all_reduce: dtype 99 is not a shardrt_dtype"},
      {"bad op", [&] { return shardrt_all_reduce(buf, 4, SHARDRT_F32, 9, ok.data(), 1, 4); },
       "all_reduce: op 9 is not a shardrt_reduce_op"},
      {"null groups", [&] { return shardrt_all_reduce(buf, 4, SHARDRT_F32, SHARDRT_SUM, nullptr, 1, 4); },
       "groups is NULL"},
      {"group size 0", [&] { return shardrt_all_reduce(buf, 4, SHARDRT_F32, SHARDRT_SUM, ok.data(), 1, 0); },
       "group_size is 0"},
      {"no groups", [&] { return shardrt_all_reduce(buf, 4, SHARDRT_F32, SHARDRT_SUM, ok.data(), 0, 4); },
       "num_groups is 0"},
      {"too many ids", [&] { return shardrt_all_reduce(buf, 4, SHARDRT_F32, SHARDRT_SUM, ok.data(), 3, 2); },
       "groups lists 3 x 2 = 6 device ids but the world has 4 ranks"},
      {"id out of range", [&] {
         static const int64_t g[] = {0, 4};
         return shardrt_all_reduce(buf, 4, SHARDRT_F32, SHARDRT_SUM, g, 1, 2);
       },
       "groups[1] = 4 is not a rank of this world (0..3)"},
      {"duplicated id", [&] {
         static const int64_t g[] = {0, 1, 1, 2};
         return shardrt_all_reduce(buf, 4, SHARDRT_F32, SHARDRT_SUM, g, 2, 2);
       },
       "device 1 appears twice in groups (groups[1] and groups[2])"},
      {"caller in no group", [&] {
         static const int64_t g[] = {1, 2};
         return shardrt_all_reduce(buf, 4, SHARDRT_F32, SHARDRT_SUM, g, 1, 2);
       },
       "rank 0: all_reduce: rank 0 is in none of the 1 groups [1,2]"},
      {"gather negative outer", [&] { return shardrt_all_gather(buf, out, -1, 1, SHARDRT_F32, ok.data(), 1, 4); },
       "all_gather: outer = -1 and inner = 1 must both be >= 0"},
      {"gather null out", [&] { return shardrt_all_gather(buf, nullptr, 1, 4, SHARDRT_F32, ok.data(), 1, 4); },
       "all_gather: out is NULL"},
      {"gather caller in no group", [&] {
         static const int64_t g[] = {3, 2, 1};
         return shardrt_all_gather(buf, out, 1, 4, SHARDRT_F32, g, 1, 3);
       },
       "all_gather: rank 0 is in none of the 1 groups [3,2,1]"},
  };
  for (const Case &c : cases) {
    INFO(c.name);
    std::vector<int32_t> others;
    std::string message;
    shardrt_status s = rejectOnRankZero(4, c.call, &others, &message);
    CHECK(s == SHARDRT_ERR_ARGUMENT);
    CHECK_THAT(message, Contains(c.message));
    for (int r = 1; r < 4; ++r)
      CHECK(others[r] == SHARDRT_ERR_ABORTED);
  }
}

TEST_CASE("members that disagree about a collective get a mismatch error") {
  std::vector<int64_t> world = iota(2);
  SECTION("different counts") {
    shardrt_status s = runWorld(2, [&](shardrt_comm *comm) {
      float v[5] = {};
      int32_t r = shardrt_comm_rank(comm);
      return shardrt_all_reduce(v, 4 + r, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, 2);
    });
    CHECK(s == SHARDRT_ERR_ARGUMENT);
    CHECK_THAT(shardrt_last_error(),
               Contains("collective mismatch over group [0,1]: rank 0 called "
                        "all_reduce(count=4, f32, sum) but rank 1 called "
                        "all_reduce(count=5, f32, sum)"));
  }
  SECTION("different collectives") {
    shardrt_status s = runWorld(2, [&](shardrt_comm *comm) {
      float v[2] = {}, o[4];
      if (shardrt_comm_rank(comm) == 0)
        return shardrt_all_reduce(v, 2, SHARDRT_F32, SHARDRT_MAX, world.data(), 1, 2);
      return shardrt_all_gather(v, o, 1, 2, SHARDRT_F32, world.data(), 1, 2);
    });
    CHECK(s == SHARDRT_ERR_ARGUMENT);
    CHECK_THAT(shardrt_last_error(), Contains("collective mismatch"));
    CHECK_THAT(shardrt_last_error(), Contains("all_gather(outer=1, inner=2, f32)"));
  }
}

TEST_CASE("a world can run again after a failure") {
  shardrt_world *world = shardrt_threads_create(3);
  REQUIRE(world != nullptr);
  static const int64_t all[] = {0, 1, 2};
  auto failing = [](shardrt_comm *comm, void *) -> int32_t {
    if (shardrt_comm_rank(comm) == 1)
      return 3;
    int32_t v = 1;
    return shardrt_all_reduce(&v, 1, SHARDRT_I32, SHARDRT_SUM, all, 1, 3);
  };
  auto good = [](shardrt_comm *comm, void *user) -> int32_t {
    int32_t v = 1;
    int32_t st = shardrt_all_reduce(&v, 1, SHARDRT_I32, SHARDRT_SUM, all, 1, 3);
    static_cast<std::atomic<int> *>(user)->fetch_add(v);
    (void)comm;
    return st;
  };
  CHECK(shardrt_threads_run(world, failing, nullptr) == SHARDRT_ERR_IO);
  CHECK_THAT(shardrt_last_error(), Contains("rank 1: rank function returned 3"));
  std::atomic<int> total{0};
  CHECK(shardrt_threads_run(world, good, &total) == SHARDRT_OK);
  CHECK(total.load() == 9);
  CHECK(std::string(shardrt_last_error()).empty());
  shardrt_world_destroy(world);

  CHECK(shardrt_threads_create(0) == nullptr);
  CHECK_THAT(shardrt_last_error(), Contains("num_ranks is 0"));
  CHECK(shardrt_threads_run(nullptr, good, nullptr) == SHARDRT_ERR_ARGUMENT);
}

TEST_CASE("the symbol table lists the functions generated code calls") {
  const shardrt_symbol *table = shardrt_symbols();
  REQUIRE(table != nullptr);
  std::map<std::string, void *> found;
  size_t n = 0;
  for (; table[n].name; ++n)
    found[table[n].name] = table[n].address;
  CHECK(table[n].address == nullptr);
  // rank, five collectives and the asynchronous all-reduce's and
  // reduce-scatter's starts and dones, the parallel loop in its two forms
  // and its chunk count, the buffer allocator's two functions, two
  // profiling probes, two bf16 soft-float helpers
  CHECK(n == 19);
  CHECK(found["shardrt_reduce_scatter_start"] ==
        reinterpret_cast<void *>(&shardrt_reduce_scatter_start));
  CHECK(found["shardrt_reduce_scatter_done"] ==
        reinterpret_cast<void *>(&shardrt_reduce_scatter_done));
  CHECK(found["shardrt_rank"] == reinterpret_cast<void *>(&shardrt_rank));
  CHECK(found["shardrt_all_reduce"] == reinterpret_cast<void *>(&shardrt_all_reduce));
  CHECK(found["shardrt_all_gather"] == reinterpret_cast<void *>(&shardrt_all_gather));
  CHECK(found["shardrt_parallel_for"] == reinterpret_cast<void *>(&shardrt_parallel_for));
  CHECK(found["shardrt_parallel_for_own"] == reinterpret_cast<void *>(&shardrt_parallel_for_own));
  CHECK(found["shardrt_loop_chunks"] == reinterpret_cast<void *>(&shardrt_loop_chunks));
  CHECK(found["shardrt_buffer_alloc"] == reinterpret_cast<void *>(&shardrt_buffer_alloc));
  CHECK(found["shardrt_buffer_free"] == reinterpret_cast<void *>(&shardrt_buffer_free));
  CHECK(found["shardrt_profile_begin"] == reinterpret_cast<void *>(&shardrt_profile_begin));
  CHECK(found["shardrt_profile_end"] == reinterpret_cast<void *>(&shardrt_profile_end));

  // Called through the table, as a JIT would.
  auto reduce = reinterpret_cast<decltype(&shardrt_all_reduce)>(found["shardrt_all_reduce"]);
  auto rankFn = reinterpret_cast<decltype(&shardrt_rank)>(found["shardrt_rank"]);
  std::vector<int64_t> got(2, -1), world = iota(2);
  shardrt_status s = runWorld(2, [&](shardrt_comm *) {
    int64_t r = rankFn();
    int64_t v = r + 1;
    int32_t st = reduce(&v, 1, SHARDRT_I64, SHARDRT_SUM, world.data(), 1, 2);
    got[r] = v;
    return st;
  });
  CHECK(s == SHARDRT_OK);
  CHECK(got == std::vector<int64_t>{3, 3});
}
