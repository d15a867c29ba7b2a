// Shared loops: when a threads world's ranks are at least as many as cores,
// a rank's parallel loops are cut into chunks that its waiting peers run
// too. Every iteration still runs exactly once, the owner returns only when
// all have run, and a peer waiting in a collective does take chunks.
#include "shardrt.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

struct Loop {
  std::vector<std::atomic<int>> hits;
  std::thread::id owner;
  std::atomic<int> helped{0}; // chunks run by a thread other than the owner
  std::atomic<int> calls{0};
  int pauseMicros = 0;
  explicit Loop(int64_t n) : hits(n) {}
};

void body(void *ctx, int64_t begin, int64_t end) {
  auto *loop = static_cast<Loop *>(ctx);
  loop->calls++;
  if (std::this_thread::get_id() != loop->owner)
    loop->helped++;
  for (int64_t i = begin; i < end; ++i) {
    loop->hits[i]++;
    if (loop->pauseMicros)
      std::this_thread::sleep_for(std::chrono::microseconds(loop->pauseMicros));
  }
}

struct Shared {
  std::atomic<int> bad{0};
  std::atomic<int> helped{0};
  std::atomic<int> threadsPerRank{0};
  std::atomic<int> chunks{0}; // shardrt_loop_chunks() as a rank saw it
  std::atomic<int> calls{0};
};

/// Runs `fn` on every rank of a threads world with more ranks than cores
/// (so its ranks share their loops), with `shared` as its argument.
void runOnSharingWorld(shardrt_rank_fn fn, Shared &shared) {
  unsetenv("SHARDRT_THREADS");
  unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const int32_t ranks = std::max(2, shardrt_cpus_available() + 1);
  shardrt_world *world = shardrt_threads_create(ranks);
  REQUIRE(world);
  REQUIRE(shardrt_threads_run(world, fn, &shared) == SHARDRT_OK);
  shardrt_world_destroy(world);
}

} // namespace

TEST_CASE("ranks that share cores share their loops, and run each iteration once") {
  Shared shared;
  runOnSharingWorld(
              [](shardrt_comm *comm, void *user) -> int32_t {
                auto *s = static_cast<Shared *>(user);
                s->threadsPerRank = shardrt_threads_per_rank();
                // Rank 0 runs slow loops while the others wait for it in a
                // barrier, until one of them has run a chunk (or 20 s).
                if (shardrt_comm_rank(comm) == 0) {
                  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
                  while (s->helped == 0 && std::chrono::steady_clock::now() < until) {
                    Loop loop(64);
                    loop.owner = std::this_thread::get_id();
                    loop.pauseMicros = 20;
                    shardrt_parallel_for(64, body, &loop);
                    for (auto &h : loop.hits)
                      s->bad += h != 1;
                    s->helped += loop.helped;
                  }
                }
                if (shardrt_barrier_on(comm) != SHARDRT_OK)
                  return 1;
                // Then every rank posts loops at once; those done first help
                // the others from the barrier after them.
                for (int round = 0; round < 300; ++round) {
                  Loop loop(37 + round % 5);
                  loop.owner = std::this_thread::get_id();
                  shardrt_parallel_for(static_cast<int64_t>(loop.hits.size()), body, &loop);
                  for (auto &h : loop.hits)
                    s->bad += h != 1;
                }
                return shardrt_barrier_on(comm) == SHARDRT_OK ? 0 : 1;
              },
              shared);
  CHECK(shared.threadsPerRank == 1);
  CHECK(shared.bad == 0);
  CHECK(shared.helped > 0);
}

TEST_CASE("an own-threads loop is never shared, even while peers wait") {
  // shardrt_parallel_for_own: a rank without workers runs the loop on its
  // own thread in one call, while a peer waits in a barrier (which would
  // take chunks of a shared loop).
  Shared shared;
  runOnSharingWorld(
              [](shardrt_comm *comm, void *user) -> int32_t {
                auto *s = static_cast<Shared *>(user);
                if (shardrt_comm_rank(comm) == 0)
                  for (int round = 0; round < 20; ++round) {
                    Loop loop(64);
                    loop.owner = std::this_thread::get_id();
                    loop.pauseMicros = 20;
                    shardrt_parallel_for_own(64, body, &loop);
                    for (auto &h : loop.hits)
                      s->bad += h != 1;
                    s->helped += loop.helped;
                    s->calls += loop.calls;
                  }
                return shardrt_barrier_on(comm) == SHARDRT_OK ? 0 : 1;
              },
              shared);
  CHECK(shared.bad == 0);
  CHECK(shared.helped == 0);
  CHECK(shared.calls == 20);
}

TEST_CASE("a rank alone in its world runs a loop as one call") {
  unsetenv("SHARDRT_THREADS");
  shardrt_world *world = shardrt_threads_create(1);
  REQUIRE(world);
  setenv("SHARDRT_THREADS", "1", 1);
  Shared shared;
  REQUIRE(shardrt_threads_run(
              world,
              [](shardrt_comm *, void *user) -> int32_t {
                auto *s = static_cast<Shared *>(user);
                Loop loop(100);
                loop.owner = std::this_thread::get_id();
                shardrt_parallel_for(100, body, &loop);
                for (auto &h : loop.hits)
                  s->bad += h != 1;
                s->calls += loop.calls;
                s->chunks = static_cast<int>(shardrt_loop_chunks());
                return 0;
              },
              &shared) == SHARDRT_OK);
  unsetenv("SHARDRT_THREADS");
  shardrt_world_destroy(world);
  CHECK(shared.bad == 0);
  CHECK(shared.calls == 1);
  CHECK(shared.chunks == 1);
}

TEST_CASE("a rank that shares its loops cuts them into a shared loop's chunks") {
  // More than one (peers take them), and the same for every rank.
  Shared shared;
  runOnSharingWorld(
      [](shardrt_comm *, void *user) -> int32_t {
        auto *s = static_cast<Shared *>(user);
        int chunks = static_cast<int>(shardrt_loop_chunks());
        int expected = 0;
        s->chunks.compare_exchange_strong(expected, chunks);
        s->bad += chunks <= 1 || s->chunks != chunks;
        return 0;
      },
      shared);
  CHECK(shared.bad == 0);
  CHECK(shared.chunks > 1);
}

TEST_CASE("a host can ask whether a world of N ranks shares its loops") {
  // The test runs without SHARDRT_SHARE_LOOPS=0 (read once per process).
  REQUIRE(std::getenv("SHARDRT_SHARE_LOOPS") == nullptr);
  unsetenv("SHARDRT_THREADS");
  unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const int32_t cores = shardrt_cpus_available();
  CHECK(shardrt_threads_share_loops(1) == 0); // a rank alone has no peers
  // As many ranks as cores or more: one thread each, so they share.
  CHECK(shardrt_threads_share_loops(std::max(2, cores)) == 1);
  CHECK(shardrt_threads_share_loops(2 * cores + 1) == 1);
  // Fewer ranks than half the cores have kernel threads of their own.
  if (cores >= 4)
    CHECK(shardrt_threads_share_loops(2) == 0);
  // SHARDRT_THREADS decides the threads per rank, as for the runtime's loops.
  setenv("SHARDRT_THREADS", "2", 1);
  CHECK(shardrt_threads_share_loops(4 * cores) == 0);
  setenv("SHARDRT_THREADS", "1", 1);
  CHECK(shardrt_threads_share_loops(2) == 1);
  unsetenv("SHARDRT_THREADS");
}
