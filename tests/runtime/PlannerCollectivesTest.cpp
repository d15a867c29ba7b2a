// Threads backend: the reshard planner's collectives (reduce_scatter,
// all_to_all, collective_permute) over whole worlds and 2-D mesh groups, for
// every dtype, plus their failure handling (abort, mismatch, bad arguments).
#include "TestUtil.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <functional>
#include <thread>

using namespace shardrt_test;
using Catch::Contains;

TEST_CASE("reduce_scatter: every dtype and op, whole worlds and 2-D groups") {
  const int64_t outer = 2, inner = 3;
  for (const GroupCase &c : kGroupCases)
    for (int32_t dtype : kAllDtypes)
      for (int32_t op : kAllOps) {
        INFO("n=" << c.n << " groups=" << c.groups.size() / c.groupSize << "x" << c.groupSize
                  << " dtype=" << shardrt_dtype_name(dtype) << " op=" << op);
        const size_t es = shardrt_dtype_size(dtype);
        const int64_t g = c.groupSize, inCount = outer * g * inner;
        std::vector<std::vector<char>> in(c.n, std::vector<char>(inCount * es));
        std::vector<std::vector<char>> out(c.n, std::vector<char>(outer * inner * es + 1, 'x'));
        for (int32_t r = 0; r < c.n; ++r)
          for (int64_t k = 0; k < inCount; ++k)
            storeValue(in[r].data(), k, dtype, reduceInput(op, dtype, r, k));
        shardrt_status s = runWorld(c.n, [&](shardrt_comm *comm) {
          int32_t r = shardrt_comm_rank(comm);
          return shardrt_reduce_scatter(in[r].data(), out[r].data(), outer, inner, dtype, op,
                                        c.groups.data(), (int64_t)c.groups.size() / g, g);
        });
        INFO(shardrt_last_error());
        REQUIRE(s == SHARDRT_OK);
        for (int32_t r = 0; r < c.n; ++r) {
          int64_t p;
          const int64_t *m = groupOf(c, r, &p);
          std::vector<int64_t> members(m, m + g);
          for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i) {
              INFO("rank " << r << " o=" << o << " i=" << i);
              CHECK(loadValue(out[r].data(), o * inner + i, dtype) ==
                    reduceExpected(op, dtype, members, (o * g + p) * inner + i));
            }
          CHECK(out[r].back() == 'x'); // nothing written past the output
        }
      }
}

TEST_CASE("reduce_scatter sums floats in group order, like all_reduce") {
  // Values whose float sum depends on the order: the result must be the
  // left-to-right sum in group order on every member.
  const std::vector<int64_t> groups = {3, 1, 0, 2};
  const int64_t inner = 5, g = 4;
  std::vector<std::vector<float>> in(4, std::vector<float>(g * inner));
  std::vector<std::vector<float>> out(4, std::vector<float>(inner));
  for (int r = 0; r < 4; ++r)
    for (int64_t k = 0; k < g * inner; ++k)
      in[r][k] = (r % 2 ? 1e8f : 1.0f) * (1.0f + 0.37f * r + 0.11f * k) * (r == 3 ? -1 : 1);
  REQUIRE(runWorld(4, [&](shardrt_comm *comm) {
            int32_t r = shardrt_comm_rank(comm);
            return shardrt_reduce_scatter(in[r].data(), out[r].data(), 1, inner, SHARDRT_F32,
                                          SHARDRT_SUM, groups.data(), 1, g);
          }) == SHARDRT_OK);
  for (int r = 0; r < 4; ++r) {
    int64_t p = std::find(groups.begin(), groups.end(), r) - groups.begin();
    for (int64_t i = 0; i < inner; ++i) {
      float acc = in[groups[0]][p * inner + i];
      for (int64_t m = 1; m < g; ++m)
        acc += in[groups[m]][p * inner + i];
      CHECK(std::memcmp(&acc, &out[r][i], sizeof acc) == 0);
    }
  }
}

TEST_CASE("all_to_all: every dtype, split and concat views, whole worlds and 2-D groups") {
  // A piece of 6 elements, seen as 2x3 on the split side and 3x2 on the
  // concat side (a split of dim 1 and a concat of dim 0 of some tensor).
  const int64_t so = 2, si = 3, co = 3, ci = 2;
  for (const GroupCase &c : kGroupCases)
    for (int32_t dtype : kAllDtypes) {
      INFO("n=" << c.n << " groups=" << c.groups.size() / c.groupSize << "x" << c.groupSize
                << " dtype=" << shardrt_dtype_name(dtype));
      const size_t es = shardrt_dtype_size(dtype);
      const int64_t g = c.groupSize, count = so * g * si;
      auto byteOf = [&](int64_t r, int64_t k, size_t b) {
        return static_cast<char>(r * 53 + k * 5 + b + 1);
      };
      std::vector<std::vector<char>> in(c.n, std::vector<char>(count * es));
      std::vector<std::vector<char>> out(c.n, std::vector<char>(count * es + 1, 'x'));
      for (int32_t r = 0; r < c.n; ++r)
        for (int64_t k = 0; k < count; ++k)
          for (size_t b = 0; b < es; ++b)
            in[r][k * es + b] = byteOf(r, k, b);
      shardrt_status s = runWorld(c.n, [&](shardrt_comm *comm) {
        int32_t r = shardrt_comm_rank(comm);
        return shardrt_all_to_all(in[r].data(), out[r].data(), so, si, co, ci, dtype,
                                  c.groups.data(), (int64_t)c.groups.size() / g, g);
      });
      INFO(shardrt_last_error());
      REQUIRE(s == SHARDRT_OK);
      for (int32_t r = 0; r < c.n; ++r) {
        int64_t p;
        const int64_t *members = groupOf(c, r, &p);
        for (int64_t m = 0; m < g; ++m)
          for (int64_t k = 0; k < so * si; ++k) {
            // Element k of the piece member m sends to position p ...
            int64_t src = ((k / si) * g + p) * si + k % si;
            // ... lands at element k of block m of the concat view.
            int64_t dst = ((k / ci) * g + m) * ci + k % ci;
            for (size_t b = 0; b < es; ++b) {
              INFO("rank " << r << " from member " << m << " k=" << k);
              REQUIRE(out[r][dst * es + b] == byteOf(members[m], src, b));
            }
          }
        CHECK(out[r].back() == 'x');
      }
    }
}

TEST_CASE("collective_permute: shifts, swaps, self pairs, non-targets and bystanders") {
  for (int32_t n : {1, 2, 3, 4, 8}) {
    struct Case {
      std::string name;
      std::vector<int64_t> pairs;
    };
    std::vector<Case> cases;
    Case shift{"shift", {}}, reverse{"reverse", {}}, partial{"partial", {}};
    for (int64_t r = 0; r < n; ++r) {
      shift.pairs.insert(shift.pairs.end(), {r, (r + 1) % n});
      reverse.pairs.insert(reverse.pairs.end(), {r, n - 1 - r});
    }
    // 0 -> n-1 only: rank n-1 receives, rank 0 gets zeros (no source), the
    // others take no part (and skip the call).
    partial.pairs = {0, n - 1};
    cases = {shift, reverse, partial};
    for (const Case &c : cases)
      for (int32_t dtype : {SHARDRT_F32, SHARDRT_F16, SHARDRT_I64, SHARDRT_BOOL}) {
        INFO("n=" << n << " " << c.name << " dtype=" << shardrt_dtype_name(dtype));
        const size_t es = shardrt_dtype_size(dtype);
        const int64_t count = 7, numPairs = (int64_t)c.pairs.size() / 2;
        std::vector<std::vector<char>> in(n, std::vector<char>(count * es));
        std::vector<std::vector<char>> out(n, std::vector<char>(count * es + 1, 'x'));
        for (int32_t r = 0; r < n; ++r)
          for (size_t b = 0; b < in[r].size(); ++b)
            in[r][b] = static_cast<char>(r * 17 + b + 1);
        auto named = [&](int64_t r) {
          for (int64_t id : c.pairs)
            if (id == r)
              return true;
          return false;
        };
        shardrt_status s = runWorld(n, [&](shardrt_comm *comm) {
          int32_t r = shardrt_comm_rank(comm);
          if (!named(r))
            return 0; // bystanders may skip
          return shardrt_collective_permute(in[r].data(), out[r].data(), count, dtype,
                                            c.pairs.data(), numPairs);
        });
        INFO(shardrt_last_error());
        REQUIRE(s == SHARDRT_OK);
        for (int32_t r = 0; r < n; ++r) {
          INFO("rank " << r);
          if (!named(r)) {
            CHECK(out[r][0] == 'x');
            continue;
          }
          int64_t source = -1;
          for (int64_t k = 0; k < numPairs; ++k)
            if (c.pairs[2 * k + 1] == r)
              source = c.pairs[2 * k];
          std::vector<char> want = source >= 0 ? in[source] : std::vector<char>(count * es, 0);
          CHECK(std::memcmp(out[r].data(), want.data(), want.size()) == 0);
          CHECK(out[r].back() == 'x');
        }
      }
  }
}

TEST_CASE("collective_permute over a 2x2 mesh: the planner's (x,y) -> (y,x) reorder") {
  // Blocks of P(("x","y")) -> P(("y","x")): devices 1 and 2 swap, 0 and 3 keep.
  const std::vector<int64_t> pairs = {0, 0, 2, 1, 1, 2, 3, 3};
  std::vector<std::vector<int32_t>> in(4, std::vector<int32_t>(3)), out(4, std::vector<int32_t>(3));
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 3; ++i)
      in[r][i] = r * 10 + i;
  REQUIRE(runWorld(4, [&](shardrt_comm *comm) {
            int32_t r = shardrt_comm_rank(comm);
            return shardrt_collective_permute(in[r].data(), out[r].data(), 3, SHARDRT_I32,
                                              pairs.data(), 4);
          }) == SHARDRT_OK);
  CHECK(out[0] == in[0]);
  CHECK(out[1] == in[2]);
  CHECK(out[2] == in[1]);
  CHECK(out[3] == in[3]);
}

TEST_CASE("planner collectives: a failing peer aborts them without a hang") {
  unsetenv("SHARDRT_TIMEOUT_S");
  const std::vector<int64_t> world = {0, 1, 2, 3};
  const std::vector<int64_t> shift = {0, 1, 1, 2, 2, 3, 3, 0};
  for (int which = 0; which < 3; ++which) {
    INFO("collective " << which);
    std::vector<int32_t> status(4, -1);
    auto start = std::chrono::steady_clock::now();
    shardrt_status s = runWorld(4, [&](shardrt_comm *comm) {
      int32_t r = shardrt_comm_rank(comm);
      if (r == 2) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return 1;
      }
      float in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
      if (which == 0)
        status[r] = shardrt_reduce_scatter(in, out, 1, 2, SHARDRT_F32, SHARDRT_SUM,
                                           world.data(), 1, 4);
      else if (which == 1)
        status[r] = shardrt_all_to_all(in, out, 1, 2, 1, 2, SHARDRT_F32, world.data(), 1, 4);
      else
        status[r] = shardrt_collective_permute(in, out, 8, SHARDRT_F32, shift.data(), 4);
      return status[r];
    });
    CHECK(elapsedSeconds(start) < 10);
    CHECK(s != SHARDRT_OK);
    CHECK_THAT(shardrt_last_error(), Contains("rank 2"));
    for (int r : {0, 1, 3})
      CHECK(status[r] == SHARDRT_ERR_ABORTED);
  }
}

TEST_CASE("planner collectives: members that disagree get a mismatch error") {
  const std::vector<int64_t> world = {0, 1};
  std::vector<int32_t> status(2, -1);
  shardrt_status s = runWorld(2, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    float in[12] = {}, out[12];
    // Same piece size, different views: a mismatch, not a silent reshuffle.
    status[r] = r == 0 ? shardrt_all_to_all(in, out, 2, 3, 3, 2, SHARDRT_F32, world.data(), 1, 2)
                       : shardrt_all_to_all(in, out, 2, 3, 2, 3, SHARDRT_F32, world.data(), 1, 2);
    return status[r];
  });
  CHECK(s == SHARDRT_ERR_ARGUMENT);
  CHECK_THAT(shardrt_last_error(), Contains("collective mismatch"));
  CHECK_THAT(shardrt_last_error(), Contains("all_to_all(split=2x3, concat=3x2"));

  // Permutes whose members disagree on the pairs.
  const std::vector<int64_t> a = {0, 1, 1, 0}, b = {1, 0, 0, 1};
  s = runWorld(2, [&](shardrt_comm *comm) {
    int32_t r = shardrt_comm_rank(comm);
    float in[2] = {}, out[2];
    return shardrt_collective_permute(in, out, 2, SHARDRT_F32, (r == 0 ? a : b).data(), 2);
  });
  CHECK(s == SHARDRT_ERR_ARGUMENT);
  CHECK_THAT(shardrt_last_error(), Contains("collective_permute"));
}

TEST_CASE("planner collectives: argument errors name the argument") {
  const std::vector<int64_t> world = {0, 1};
  struct Case {
    const char *expect;
    std::function<int32_t(float *, float *)> call;
  };
  const std::vector<int64_t> twiceSource = {0, 1, 0, 0}, outOfWorld = {0, 5};
  std::vector<Case> cases = {
      {"reduce_scatter: op 9 is not a shardrt_reduce_op",
       [&](float *in, float *out) {
         return shardrt_reduce_scatter(in, out, 1, 1, SHARDRT_F32, 9, world.data(), 1, 2);
       }},
      {"reduce_scatter: outer = -1",
       [&](float *in, float *out) {
         return shardrt_reduce_scatter(in, out, -1, 1, SHARDRT_F32, 0, world.data(), 1, 2);
       }},
      {"all_to_all: a piece is split_outer 2 x split_inner 2 = 4 elements but concat_outer 1 "
       "x concat_inner 3 = 3",
       [&](float *in, float *out) {
         return shardrt_all_to_all(in, out, 2, 2, 1, 3, SHARDRT_F32, world.data(), 1, 2);
       }},
      {"all_to_all: in is NULL",
       [&](float *, float *out) {
         return shardrt_all_to_all(nullptr, out, 1, 1, 1, 1, SHARDRT_F32, world.data(), 1, 2);
       }},
      {"collective_permute: rank 0 is a source in two pairs",
       [&](float *in, float *out) {
         return shardrt_collective_permute(in, out, 1, SHARDRT_F32, twiceSource.data(), 2);
       }},
      {"collective_permute: pairs[1] = 5 is not a rank of this world",
       [&](float *in, float *out) {
         return shardrt_collective_permute(in, out, 1, SHARDRT_F32, outOfWorld.data(), 1);
       }},
  };
  for (const Case &c : cases) {
    INFO(c.expect);
    shardrt_status s = runWorld(2, [&](shardrt_comm *) {
      float in[8] = {}, out[8];
      return c.call(in, out);
    });
    CHECK(s == SHARDRT_ERR_ARGUMENT);
    CHECK_THAT(shardrt_last_error(), Contains(c.expect));
  }
}

TEST_CASE("the symbol table lists the planner collectives") {
  std::vector<std::string> names;
  for (const shardrt_symbol *s = shardrt_symbols(); s->name; ++s)
    names.push_back(s->name);
  for (const char *want :
       {"shardrt_reduce_scatter", "shardrt_all_to_all", "shardrt_collective_permute"})
    CHECK(std::find(names.begin(), names.end(), want) != names.end());
  for (const shardrt_symbol *s = shardrt_symbols(); s->name; ++s) {
    if (std::string(s->name) == "shardrt_reduce_scatter")
      CHECK(s->address == reinterpret_cast<void *>(&shardrt_reduce_scatter));
    if (std::string(s->name) == "shardrt_all_to_all")
      CHECK(s->address == reinterpret_cast<void *>(&shardrt_all_to_all));
    if (std::string(s->name) == "shardrt_collective_permute")
      CHECK(s->address == reinterpret_cast<void *>(&shardrt_collective_permute));
  }
}

TEST_CASE("planner collectives time out after SHARDRT_TIMEOUT_S") {
  setenv("SHARDRT_TIMEOUT_S", "0.2", 1);
  const std::vector<int64_t> shift = {0, 1, 1, 2, 2, 3, 3, 0}, world = {0, 1, 2, 3};
  for (int which = 0; which < 2; ++which) {
    std::vector<int32_t> status(4, -1);
    auto start = std::chrono::steady_clock::now();
    shardrt_status s = runWorld(4, [&](shardrt_comm *comm) {
      int32_t r = shardrt_comm_rank(comm);
      if (r == 3) { // alive but late: only the timeout can tell
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        return 0;
      }
      float in[4] = {1, 2, 3, 4}, out[4];
      status[r] = which == 0
                      ? shardrt_collective_permute(in, out, 4, SHARDRT_F32, shift.data(), 4)
                      : shardrt_all_to_all(in, out, 1, 1, 1, 1, SHARDRT_F32, world.data(), 1, 4);
      return status[r];
    });
    double elapsed = elapsedSeconds(start);
    CHECK(elapsed >= 0.2);
    CHECK(elapsed < 10);
    CHECK(s == SHARDRT_ERR_ABORTED);
    CHECK_THAT(shardrt_last_error(),
               Contains(std::string("collective ") +
                        (which == 0 ? "collective_permute" : "all_to_all") +
                        " over group [0,1,2,3] timed out after 0.2 s waiting for ranks 3"));
    for (int r = 0; r < 3; ++r)
      CHECK(status[r] == SHARDRT_ERR_ABORTED);
  }
  unsetenv("SHARDRT_TIMEOUT_S");
}
