// shardrt_parallel_for: a fixed pool of kernel threads per rank.
//
// Each rank thread owns its pool (thread_local), created on its first
// parallel loop with shardrt_threads_per_rank() - 1 workers and joined when
// the rank thread ends. A loop is split into one contiguous chunk per thread,
// so chunk boundaries depend only on the count and the pool size, and every
// iteration is computed exactly as it would be sequentially: determinism is
// the generated code's contract (disjoint outputs, fixed summation order per
// output), not the pool's scheduling.
//
// A loop is published by storing (body, ctx, count) and then its ticket: the
// loop's number and the next unclaimed chunk in one atomic word. Every
// thread, the caller included, claims chunks from the ticket until none is
// left, so the caller never waits for a worker that has not started: a
// worker that is slow to wake, or whose core the scheduler gave to someone
// else, leaves its chunk to the caller (a recurrent model's step, whose
// kernels mostly run on the caller alone, measured its few parallel GEMMs
// at up to twice their one-thread time when the caller waited instead).
// The caller then waits for an atomic count of pending chunks. The
// mutex and condition variables serve only threads that sleep: a worker
// that finds no loop, the caller whose workers are not done. A step's
// kernels come back to back, so a
// worker that finishes a chunk first spins a short while (kSpin) for the
// next loop before it sleeps, and the caller spins for the workers before
// it does: waking a sleeping thread costs tens of microseconds, more than a
// small kernel takes. Spinning is only done when the pool has a core per
// thread. Loops from inside a body (a nested
// parallel loop) run inline on the calling thread.
//
// A rank with no workers (ranks at least as many as cores) in a world with
// other ranks in this process runs its loops as shared loops instead
// (SharedLoops.h): its peers' threads help while they wait for it.
// SHARDRT_SHARE_LOOPS=0 turns that off.
#include "Comm.h"
#include "Cpus.h"
#include "SharedLoops.h"
#include "Spin.h"
#include "shardrt.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

int envInt(const char *name) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return 0;
  char *end = nullptr;
  long n = std::strtol(v, &end, 10);
  return *end == '\0' && n > 0 && n < 4096 ? static_cast<int>(n) : 0;
}

/// How long a pool thread spins for the next loop, or the caller for its
/// workers, before it sleeps (the pool spins only with a core per thread,
/// so it never yields).
constexpr std::chrono::microseconds kSpin{100};

class Pool {
public:
  explicit Pool(int threads) : spin(threads <= shardrt::cpusAvailable()) {
    for (int t = 1; t < threads; ++t)
      workers.emplace_back([this] { work(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping.store(true);
    }
    wake.notify_all();
    for (std::thread &w : workers)
      w.join();
  }

  int size() const { return static_cast<int>(workers.size()) + 1; }

  void run(int64_t count, shardrt_loop_body fn, void *arg) {
    // The loop is published by storing its ticket (sequentially consistent,
    // as are the sleeper counts): a worker that counted itself asleep before
    // the store is woken under the mutex; one that counts itself after it
    // sees the new ticket before it sleeps.
    body = fn;
    ctx = arg;
    total = count;
    pending.store(size(), std::memory_order_relaxed);
    uint32_t loop = ++loops;
    ticket.store(uint64_t(loop) << 32);
    if (sleepingWorkers.load() > 0) {
      std::lock_guard<std::mutex> lock(mutex);
      wake.notify_all();
    }
    runChunks(loop);
    if (spin)
      shardrt::spinWhile(kSpin, /*yield=*/false,
                         [&] { return pending.load(std::memory_order_acquire) != 0; });
    if (pending.load(std::memory_order_acquire) == 0)
      return;
    std::unique_lock<std::mutex> lock(mutex);
    callerSleeping.store(true);
    done.wait(lock, [&] { return pending.load() == 0; });
    callerSleeping.store(false);
  }

private:
  /// Claims chunks of loop `loop` from its ticket and runs them until none
  /// is left (or the ticket is another loop's: this one's are all claimed).
  void runChunks(uint32_t loop) {
    const uint64_t chunks = static_cast<uint64_t>(size());
    uint64_t t = ticket.load(std::memory_order_acquire);
    while (uint32_t(t >> 32) == loop && (t & 0xffffffffu) < chunks) {
      if (!ticket.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel))
        continue; // t now holds the ticket's current value
      // The claim orders these reads after the caller's writes for this
      // loop, and the caller rewrites them only once `pending` says this
      // chunk is done.
      runChunk(static_cast<int>(t & 0xffffffffu), total, body, ctx);
      if (pending.fetch_sub(1) == 1 && callerSleeping.load()) {
        std::lock_guard<std::mutex> lock(mutex);
        done.notify_one();
      }
      t = ticket.load(std::memory_order_acquire);
    }
  }

  void runChunk(int index, int64_t count, shardrt_loop_body fn, void *arg) {
    int64_t n = size();
    int64_t begin = count * index / n, end = count * (index + 1) / n;
    if (begin < end) {
      shardrt::tlsInsideBody = true;
      fn(arg, begin, end);
      shardrt::tlsInsideBody = false;
    }
  }

  void work() {
    uint32_t seen = 0;
    auto waiting = [&] {
      return !stopping.load(std::memory_order_acquire) &&
             uint32_t(ticket.load(std::memory_order_acquire) >> 32) == seen;
    };
    for (;;) {
      if (spin)
        shardrt::spinWhile(kSpin, /*yield=*/false, waiting);
      if (waiting()) {
        std::unique_lock<std::mutex> lock(mutex);
        sleepingWorkers.fetch_add(1);
        wake.wait(lock, [&] { return !waiting(); });
        sleepingWorkers.fetch_sub(1);
      }
      if (stopping.load(std::memory_order_acquire))
        return;
      seen = uint32_t(ticket.load(std::memory_order_acquire) >> 32);
      runChunks(seen);
    }
  }

  const bool spin; // a core per pool thread: waiting spins before it sleeps
  std::vector<std::thread> workers;
  std::mutex mutex; // for sleeping and waking only
  std::condition_variable wake, done;
  std::atomic<bool> stopping{false};
  // The current loop's number (high half) and its next unclaimed chunk
  // (low half); `loops` counts the caller's loops.
  std::atomic<uint64_t> ticket{0};
  uint32_t loops = 0;
  std::atomic<int> pending{0}; // the current loop's chunks not yet done
  std::atomic<int> sleepingWorkers{0};
  std::atomic<bool> callerSleeping{false};
  // Written by the caller before it stores the loop's ticket, read by the
  // threads that claim its chunks.
  shardrt_loop_body body = nullptr;
  void *ctx = nullptr;
  int64_t total = 0;
};

thread_local Pool *tlsPool = nullptr;

/// Whether shared loops are on (SHARDRT_SHARE_LOOPS is not 0), read once.
bool sharingEnabled() {
  static const bool enabled = [] {
    const char *v = std::getenv("SHARDRT_SHARE_LOOPS");
    return !(v && std::string(v) == "0");
  }();
  return enabled;
}

/// Kernel threads for each of `ranks` ranks sharing this process's cores:
/// SHARDRT_THREADS when set, else the cores divided among them, at least 1.
int threadsFor(int ranks) {
  if (int n = envInt("SHARDRT_THREADS"))
    return n;
  return std::max(1, shardrt::cpusAvailable() / std::max(1, ranks));
}

/// Whether the calling rank, which has no workers of its own, shares its
/// parallel loops with the other ranks of its world in this process.
bool sharesLoops() {
  shardrt_comm *comm = shardrt_current();
  return sharingEnabled() && comm && comm->ranksInProcess() > 1;
}

/// Joins the calling thread's pool when the thread ends.
struct PoolOwner {
  ~PoolOwner() {
    delete tlsPool;
    tlsPool = nullptr;
  }
};
thread_local PoolOwner tlsOwner;

} // namespace

extern "C" int32_t shardrt_threads_per_rank(void) {
  int ranks = envInt("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (!ranks)
    if (shardrt_comm *comm = shardrt_current())
      ranks = shardrt_comm_size(comm);
  return threadsFor(ranks);
}

extern "C" int32_t shardrt_threads_share_loops(int64_t num_ranks) {
  const int ranks = static_cast<int>(std::min<int64_t>(num_ranks, INT32_MAX));
  return ranks > 1 && threadsFor(ranks) <= 1 && sharingEnabled();
}

extern "C" int32_t shardrt_cpus_available(void) { return shardrt::cpusAvailable(); }

extern "C" void shardrt_parallel_for(int64_t count, shardrt_loop_body body, void *ctx) {
  if (count <= 0)
    return;
  if (count == 1 || shardrt::tlsInsideBody) {
    body(ctx, 0, count);
    return;
  }
  if (!tlsPool) {
    int threads = shardrt_threads_per_rank();
    if (threads <= 1) {
      if (sharesLoops())
        shardrt::runSharedLoop(count, body, ctx);
      else
        body(ctx, 0, count);
      return;
    }
    (void)&tlsOwner; // constructs the owner, so the pool is joined at thread exit
    tlsPool = new Pool(threads);
  }
  tlsPool->run(count, body, ctx);
}
