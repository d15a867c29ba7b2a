// shardrt_parallel_for: a fixed pool of kernel threads per rank.
//
// Each rank thread owns its pool (thread_local), taken on its first
// parallel loop, with shardrt_threads_per_rank() - 1 workers, and parked
// when the rank thread ends (below). A loop is split into one contiguous
// chunk per thread, so chunk boundaries depend only on the count and the pool size, and every
// iteration is computed exactly as it would be sequentially: determinism is
// the generated code's contract (disjoint outputs, fixed summation order per
// output), not the pool's scheduling.
//
// A loop is published by storing (body, ctx, count) and then its number.
// Each chunk records the last loop that claimed it; a thread claims a
// chunk by raising that to the current loop's number. Thread t (the caller
// is thread 0) claims chunk t, and a worker then any chunk still
// unclaimed. The caller claims the others too when some worker was asleep
// as the loop was published: waking one takes tens of microseconds, and
// much longer on a virtual machine whose other vCPU the host must first
// schedule, so the caller runs what no worker has started instead of
// waiting for it (a recurrent model's step, whose few large GEMMs follow
// long stretches of small kernels that leave the workers asleep, measured
// those GEMMs at 1.8 and 2.7 times their one-thread time when it waited).
// Workers that spin are not raced: a caller that also took their chunks
// made a transformer step at 1x1 slower (51.7-66.2 against 42.5-51.2 ms,
// alternating runs, AMD EPYC, 2 vCPUs).
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
// A pool outlives its rank thread: when the thread ends, the pool is parked
// (its workers asleep) and the next rank thread that needs a pool of that
// size takes it. `shardc run --steps` starts each step's rank threads
// afresh, and a pool made anew each step left a fresh worker that missed
// most of the step's loops: on a 2-vCPU AMD EPYC, after 1 ms of one-thread
// work, half the two-chunk loops of a new pool ran on the caller alone
// (1152 us against 559 us), and 2 in 200 of a parked pool's did.
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
#include <memory>
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
  explicit Pool(int threads)
      : spin(threads <= shardrt::cpusAvailable()),
        claimed(new std::atomic<uint64_t>[static_cast<size_t>(threads)]) {
    for (int c = 0; c < threads; ++c)
      claimed[c].store(0, std::memory_order_relaxed);
    for (int t = 1; t < threads; ++t)
      workers.emplace_back([this, t] { work(t); });
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
    // The loop is published by storing its number (sequentially
    // consistent, as are the sleeper counts): a worker that counted itself
    // asleep before the store is woken under the mutex; one that counts
    // itself after it sees the new number before it sleeps.
    body = fn;
    ctx = arg;
    total = count;
    pending.store(size(), std::memory_order_relaxed);
    uint64_t loop = ++loops;
    current.store(loop);
    bool asleep = sleepingWorkers.load() > 0;
    if (asleep) {
      std::lock_guard<std::mutex> lock(mutex);
      wake.notify_all();
    }
    runChunks(loop, 0, asleep ? size() : 1);
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
  /// Claims and runs the chunks of loop `loop` that no thread has claimed,
  /// of `tries` chunks from chunk `first` on. A thread that is late (the
  /// caller has moved on) claims nothing: every chunk then records a loop
  /// at least as new.
  void runChunks(uint64_t loop, int first, int tries) {
    const int n = size();
    for (int k = 0; k < tries; ++k) {
      int c = (first + k) % n;
      uint64_t last = claimed[c].load(std::memory_order_acquire);
      if (last >= loop || !claimed[c].compare_exchange_strong(last, loop, std::memory_order_acq_rel))
        continue;
      // The caller rewrites (body, ctx, total) only once `pending` says
      // this chunk is done.
      runChunk(c, total, body, ctx);
      if (pending.fetch_sub(1) == 1 && callerSleeping.load()) {
        std::lock_guard<std::mutex> lock(mutex);
        done.notify_one();
      }
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

  void work(int index) {
    uint64_t seen = 0;
    auto waiting = [&] {
      return !stopping.load(std::memory_order_acquire) &&
             current.load(std::memory_order_acquire) == seen;
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
      seen = current.load(std::memory_order_acquire);
      runChunks(seen, index, size());
    }
  }

  const bool spin; // a core per pool thread: waiting spins before it sleeps
  std::vector<std::thread> workers;
  std::mutex mutex; // for sleeping and waking only
  std::condition_variable wake, done;
  std::atomic<bool> stopping{false};
  // The current loop's number (0: none yet) and, per chunk, the last loop
  // that claimed it; `loops` counts the caller's loops (64 bits: never
  // wraps, so a late thread's loop is always older).
  std::atomic<uint64_t> current{0};
  std::unique_ptr<std::atomic<uint64_t>[]> claimed;
  uint64_t loops = 0;
  std::atomic<int> pending{0}; // the current loop's chunks not yet done
  std::atomic<int> sleepingWorkers{0};
  std::atomic<bool> callerSleeping{false};
  // Written by the caller before it stores the loop's number, read by the
  // threads that claim its chunks.
  shardrt_loop_body body = nullptr;
  void *ctx = nullptr;
  int64_t total = 0;
};

thread_local Pool *tlsPool = nullptr;

/// Pools whose rank threads have ended, their workers asleep, for the next
/// rank threads to reuse. Destroyed (workers joined) at process exit.
class ParkedPools {
public:
  ~ParkedPools() {
    std::lock_guard<std::mutex> lock(mutex);
    pools.clear();
  }
  /// A parked pool of `threads` threads, or a new one.
  std::unique_ptr<Pool> take(int threads) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      for (auto it = pools.begin(); it != pools.end(); ++it)
        if ((*it)->size() == threads) {
          std::unique_ptr<Pool> pool = std::move(*it);
          pools.erase(it);
          return pool;
        }
    }
    return std::make_unique<Pool>(threads);
  }
  void park(std::unique_ptr<Pool> pool) {
    std::lock_guard<std::mutex> lock(mutex);
    // Bounded: past this many (a process that once ran more pools at a
    // time than it will again), a pool's workers are joined instead.
    if (pools.size() < kMaxParked)
      pools.push_back(std::move(pool));
  }

private:
  static constexpr size_t kMaxParked = 64;
  std::mutex mutex;
  std::vector<std::unique_ptr<Pool>> pools;
};

ParkedPools &parkedPools() {
  static ParkedPools parked;
  return parked;
}

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

/// Parks the calling thread's pool when the thread ends.
struct PoolOwner {
  ~PoolOwner() {
    if (tlsPool)
      parkedPools().park(std::unique_ptr<Pool>(tlsPool));
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

extern "C" int64_t shardrt_loop_chunks(void) {
  if (shardrt::tlsInsideBody)
    return 1;
  if (tlsPool)
    return tlsPool->size();
  // Before its first loop a rank has no pool yet: the one it will take.
  if (int threads = shardrt_threads_per_rank(); threads > 1)
    return threads;
  return sharesLoops() ? shardrt::sharedLoopChunks() : 1;
}

extern "C" int32_t shardrt_threads_share_loops(int64_t num_ranks) {
  const int ranks = static_cast<int>(std::min<int64_t>(num_ranks, INT32_MAX));
  return ranks > 1 && threadsFor(ranks) <= 1 && sharingEnabled();
}

extern "C" int32_t shardrt_cpus_available(void) { return shardrt::cpusAvailable(); }

namespace {

/// shardrt_parallel_for, and with `mayShare` false its own-threads form.
void parallelFor(int64_t count, shardrt_loop_body body, void *ctx, bool mayShare) {
  if (count <= 0)
    return;
  if (count == 1 || shardrt::tlsInsideBody) {
    body(ctx, 0, count);
    return;
  }
  if (!tlsPool) {
    int threads = shardrt_threads_per_rank();
    if (threads <= 1) {
      if (mayShare && sharesLoops())
        shardrt::runSharedLoop(count, body, ctx);
      else
        body(ctx, 0, count);
      return;
    }
    (void)&tlsOwner; // constructs the owner, so the pool is parked at thread exit
    tlsPool = parkedPools().take(threads).release();
  }
  tlsPool->run(count, body, ctx);
}

} // namespace

extern "C" void shardrt_parallel_for(int64_t count, shardrt_loop_body body, void *ctx) {
  parallelFor(count, body, ctx, /*mayShare=*/true);
}

extern "C" void shardrt_parallel_for_own(int64_t count, shardrt_loop_body body, void *ctx) {
  parallelFor(count, body, ctx, /*mayShare=*/false);
}
