// shardrt_parallel_for: every iteration runs exactly once, in chunks that
// depend only on the count and the pool size; nested loops run inline;
// pools are per rank thread, sized by SHARDRT_THREADS or cores / ranks, and
// reused by later rank threads.
#include "shardrt.h"

#include <catch2/catch.hpp>

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Marks {
  std::vector<std::atomic<int>> hits;
  std::vector<std::atomic<int>> chunkOf; // which call's `begin` covered it
  explicit Marks(int64_t n) : hits(n), chunkOf(n) {}
};

void mark(void *ctx, int64_t begin, int64_t end) {
  auto *m = static_cast<Marks *>(ctx);
  for (int64_t i = begin; i < end; ++i) {
    m->hits[i]++;
    m->chunkOf[i] = static_cast<int>(begin);
  }
}

/// Runs `fn` on a fresh thread (a fresh pool) with SHARDRT_THREADS=threads.
template <typename Fn> void onThreadWith(int threads, Fn fn) {
  setenv("SHARDRT_THREADS", std::to_string(threads).c_str(), 1);
  std::thread t(fn);
  t.join();
  unsetenv("SHARDRT_THREADS");
}

} // namespace

TEST_CASE("parallel_for runs every iteration once, in count * t / T chunks") {
  for (int threads : {1, 2, 3, 4, 7}) {
    INFO("SHARDRT_THREADS=" << threads);
    onThreadWith(threads, [&] {
      CHECK(shardrt_threads_per_rank() == threads);
      for (int64_t count : {0, 1, 2, 3, 5, 8, 13, 100, 1001}) {
        INFO("count " << count);
        Marks m(count);
        shardrt_parallel_for(count, mark, &m);
        for (int64_t i = 0; i < count; ++i) {
          CHECK(m.hits[i] == 1);
          // The chunk holding i starts at count * t / T for its t.
          int64_t t = 0;
          while (t + 1 < threads && count * (t + 1) / threads <= i)
            ++t;
          CHECK(m.chunkOf[i] == (count == 1 ? 0 : count * t / threads));
        }
        // Back to back loops reuse the pool.
        shardrt_parallel_for(count, mark, &m);
        for (int64_t i = 0; i < count; ++i)
          CHECK(m.hits[i] == 2);
      }
    });
  }
}

TEST_CASE("many back-to-back loops, some while workers spin, some after they sleep") {
  // With a core per thread, workers spin a while for the next loop before
  // they sleep, and the caller spins for them: loops that follow at once
  // meet spinning workers, loops after a pause sleeping ones. Every
  // iteration of every loop runs once, and each loop ends only when all of
  // it has run.
  for (int threads : {2, 3}) {
    INFO("SHARDRT_THREADS=" << threads);
    onThreadWith(threads, [&] {
      Marks m(37);
      for (int round = 1; round <= 2000; ++round) {
        shardrt_parallel_for(37, mark, &m);
        if (round % 500 == 0)
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
        bool all = true;
        for (int64_t i = 0; i < 37; ++i)
          all &= m.hits[i] == round;
        REQUIRE(all);
      }
    });
  }
}

namespace {

/// Holds the thread that receives SIGUSR1 until `released`: a worker that
/// the scheduler does not run.
std::atomic<bool> held{false}, released{false};
void holdThread(int) {
  held.store(true);
  while (!released.load())
    sched_yield();
}

struct Runners {
  std::atomic<int> chunks{0};
  std::atomic<int> byOthers{0}; // chunks run on another thread than `caller`
  pthread_t caller;
  std::atomic<bool> otherSeen{false};
  pthread_t other;
  bool slow = false;
};

void recordRunner(void *ctx, int64_t, int64_t) {
  auto *r = static_cast<Runners *>(ctx);
  r->chunks++;
  if (r->slow) // long enough for the worker to claim a chunk meanwhile
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  if (!pthread_equal(pthread_self(), r->caller)) {
    r->byOthers++;
    r->other = pthread_self();
    r->otherSeen.store(true);
  }
}

/// Runs slow two-chunk loops on the calling thread's pool until a worker
/// has taken a chunk (it claims one while the caller's sleeps); returns
/// that worker, or nullopt after 200 loops.
std::optional<pthread_t> workerTakingAChunk() {
  Runners r;
  r.caller = pthread_self();
  r.slow = true;
  for (int i = 0; i < 200 && !r.otherSeen.load(); ++i)
    shardrt_parallel_for(2, recordRunner, &r);
  if (!r.otherSeen.load())
    return std::nullopt;
  return r.other;
}

} // namespace

TEST_CASE("a sleeping worker that does not wake leaves its chunk to the caller") {
  // The caller claims the chunks of workers that were asleep when the loop
  // was published, so a loop finishes even while such a worker cannot run
  // (here: held in a signal handler, entered while it sleeps). Before, the
  // caller waited for that worker's chunk.
  struct sigaction action {};
  action.sa_handler = holdThread;
  sigemptyset(&action.sa_mask);
  struct sigaction previous {};
  REQUIRE(sigaction(SIGUSR1, &action, &previous) == 0);
  onThreadWith(2, [] {
    std::optional<pthread_t> worker = workerTakingAChunk();
    REQUIRE(worker);
    // Past its spin (100 us), the worker sleeps.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    held.store(false);
    released.store(false);
    REQUIRE(pthread_kill(*worker, SIGUSR1) == 0);
    while (!held.load())
      std::this_thread::yield();
    Runners alone;
    alone.caller = pthread_self();
    alone.slow = true;
    for (int i = 0; i < 5; ++i)
      shardrt_parallel_for(64, recordRunner, &alone);
    CHECK(alone.chunks == 10);
    CHECK(alone.byOthers == 0);
    released.store(true);
    // Released, the worker takes chunks again.
    CHECK(workerTakingAChunk());
  });
  sigaction(SIGUSR1, &previous, nullptr);
}

namespace {

/// A number per thread that ran a chunk, other than the loop's caller:
/// thread_local, so a new thread always gets a new one.
std::atomic<int> nextThreadId{1};
thread_local int threadId = 0;
struct Helpers {
  pthread_t caller;
  std::atomic<int> seen{0}; // the id of a helper that ran a chunk, or 0
};
void noteHelper(void *ctx, int64_t, int64_t) {
  auto *h = static_cast<Helpers *>(ctx);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  if (pthread_equal(pthread_self(), h->caller))
    return;
  if (!threadId)
    threadId = nextThreadId++;
  h->seen.store(threadId);
}

/// The id of a worker of the calling thread's pool, found by running slow
/// two-chunk loops until one takes a chunk; 0 if none did in 200 loops.
int poolWorkerId() {
  Helpers h;
  h.caller = pthread_self();
  for (int i = 0; i < 200 && !h.seen.load(); ++i)
    shardrt_parallel_for(2, noteHelper, &h);
  return h.seen.load();
}

} // namespace

TEST_CASE("a pool outlives its rank thread: the next thread reuses its workers") {
  // `shardc run --steps` starts each step's rank threads afresh; their
  // pools must not be made anew each time (a new worker misses most of a
  // step's loops).
  int first = 0, second = 0, other = 0;
  onThreadWith(2, [&] { first = poolWorkerId(); });
  onThreadWith(2, [&] { second = poolWorkerId(); });
  REQUIRE(first != 0);
  CHECK(second == first);
  // A pool of another size is another pool.
  onThreadWith(3, [&] { other = poolWorkerId(); });
  CHECK(other != 0);
  CHECK(other != first);
}

TEST_CASE("a parallel loop inside a body runs inline") {
  onThreadWith(3, [] {
    struct Outer {
      Marks inner{60};
    } outer;
    shardrt_parallel_for(
        3,
        [](void *ctx, int64_t begin, int64_t end) {
          auto *o = static_cast<Outer *>(ctx);
          for (int64_t b = begin; b < end; ++b) {
            struct Slice {
              Marks *m;
              int64_t base;
            } slice{&o->inner, b * 20};
            shardrt_parallel_for(
                20,
                [](void *c, int64_t lo, int64_t hi) {
                  auto *s = static_cast<Slice *>(c);
                  mark(s->m, s->base + lo, s->base + hi);
                },
                &slice);
          }
        },
        &outer);
    for (int64_t i = 0; i < 60; ++i)
      CHECK(outer.inner.hits[i] == 1);
  });
}

TEST_CASE("loop chunks: the pool's threads, before and after its first loop; 1 in a body") {
  for (int threads : {1, 2, 3}) {
    INFO("SHARDRT_THREADS=" << threads);
    onThreadWith(threads, [&] {
      // A thread of no world runs its loops alone or on a pool of its own.
      CHECK(shardrt_loop_chunks() == threads);
      Marks m(8);
      shardrt_parallel_for(8, mark, &m);
      CHECK(shardrt_loop_chunks() == threads);
      // As many iterations as chunks: one iteration per chunk.
      Marks one(threads);
      shardrt_parallel_for(shardrt_loop_chunks(), mark, &one);
      for (int64_t i = 0; i < threads; ++i)
        CHECK(one.chunkOf[i] == i);
      std::atomic<int64_t> inside{-1};
      shardrt_parallel_for(
          2,
          [](void *ctx, int64_t, int64_t) {
            static_cast<std::atomic<int64_t> *>(ctx)->store(shardrt_loop_chunks());
          },
          &inside);
      CHECK(inside == 1);
    });
  }
}

TEST_CASE("cpus available: the calling thread's affinity mask") {
  unsetenv("SHARDRT_THREADS");
  unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  cpu_set_t mask;
  REQUIRE(sched_getaffinity(0, sizeof mask, &mask) == 0);
  CHECK(shardrt_cpus_available() == CPU_COUNT(&mask));
  // One rank alone gets every core it may run on.
  int single = 0;
  std::thread([&] { single = shardrt_threads_per_rank(); }).join();
  CHECK(single == shardrt_cpus_available());
  // A thread pinned to one CPU sees one.
  int pinned = 0;
  std::thread([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &mask)) {
        CPU_SET(c, &one);
        break;
      }
    if (sched_setaffinity(0, sizeof one, &one) == 0)
      pinned = shardrt_cpus_available();
  }).join();
  CHECK(pinned == 1);
}

TEST_CASE("threads per rank: the cores divided among a world's ranks") {
  unsetenv("SHARDRT_THREADS");
  unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  int cores = static_cast<int>(std::thread::hardware_concurrency());
  for (int32_t ranks : {1, 2, 3, 64}) {
    INFO(ranks << " ranks");
    shardrt_world *world = shardrt_threads_create(ranks);
    REQUIRE(world);
    std::atomic<int> bad{0};
    struct Check {
      std::atomic<int> *bad;
      int expected;
    } check{&bad, 0};
    // The affinity mask may hold fewer CPUs than the machine: compare with
    // the single-rank answer divided by the ranks.
    int all = 0;
    std::thread([&] { all = shardrt_threads_per_rank(); }).join();
    CHECK(all >= 1);
    CHECK(all <= std::max(1, cores));
    check.expected = std::max(1, all / ranks);
    REQUIRE(shardrt_threads_run(
                world,
                [](shardrt_comm *, void *user) -> int32_t {
                  auto *c = static_cast<Check *>(user);
                  if (shardrt_threads_per_rank() != c->expected)
                    ++*c->bad;
                  return 0;
                },
                &check) == SHARDRT_OK);
    shardrt_world_destroy(world);
    CHECK(bad == 0);
  }
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
  int all = 0;
  std::thread([&] { all = shardrt_threads_per_rank(); }).join();
  unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  int single = 0;
  std::thread([&] { single = shardrt_threads_per_rank(); }).join();
  CHECK(all == std::max(1, single / 2));
}
