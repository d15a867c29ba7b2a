// The board of shared loops (SharedLoops.h).
#include "SharedLoops.h"

#include "Comm.h"
#include "Cpus.h"

#include <sched.h>

#include <algorithm>

namespace shardrt {

std::atomic<int> sharedLoopSleepers{0};

namespace {

/// Chunks per core a shared loop is cut into: enough that a helper that
/// comes late still finds some, few enough that a loop nobody helps costs
/// only a handful of extra calls of its body.
constexpr int64_t kChunksPerCore = 4;

struct Loop {
  shardrt_loop_body body;
  void *ctx;
  const shardrt_comm *owner;
  int64_t count;
  int64_t chunks;
  std::atomic<int64_t> next{0}; // the next chunk to claim (claims may overshoot)
  std::atomic<int64_t> done{0}; // chunks finished
};

struct alignas(64) Slot {
  std::atomic<Loop *> loop{nullptr};
  std::atomic<int> readers{0}; // helpers between reading `loop` and leaving it
};

constexpr int kSlots = 64;
Slot board[kSlots];

/// Posted loops with a chunk not yet claimed: helpers look at the board
/// only while it is positive. The claimer of a loop's last chunk counts the
/// loop out.
std::atomic<int> open{0};

thread_local unsigned tlsSlotHint = 0;

/// Claims the next chunk of `loop`; -1 when none is left.
int64_t claim(Loop &loop) {
  int64_t c = loop.next.fetch_add(1, std::memory_order_relaxed);
  if (c >= loop.chunks)
    return -1;
  if (c == loop.chunks - 1)
    open.fetch_sub(1);
  return c;
}

/// Runs chunk `c` of `loop` and counts it done; the release publishes its
/// results to the owner, which reads `done` with acquire.
void runChunk(Loop &loop, int64_t c) {
  const int64_t begin = loop.count * c / loop.chunks;
  const int64_t end = loop.count * (c + 1) / loop.chunks;
  const bool outer = tlsInsideBody;
  tlsInsideBody = true;
  loop.body(loop.ctx, begin, end);
  tlsInsideBody = outer;
  loop.done.fetch_add(1, std::memory_order_release);
}

/// Puts `loop` in a free slot; null when every slot is taken.
Slot *post(Loop &loop) {
  for (int i = 0; i < kSlots; ++i) {
    Slot &slot = board[(tlsSlotHint + i) % kSlots];
    Loop *expected = nullptr;
    if (slot.loop.compare_exchange_strong(expected, &loop)) {
      tlsSlotHint = static_cast<unsigned>(&slot - board);
      return &slot;
    }
  }
  return nullptr;
}

void pauseOrYield(int &spins) {
  if ((++spins & 255) == 0)
    sched_yield();
  __builtin_ia32_pause();
}

} // namespace

bool sharedLoopWaiting() { return open.load(std::memory_order_acquire) > 0; }

bool helpSharedLoop(bool (*accept)(const shardrt_comm *owner, const void *arg),
                    const void *arg) {
  if (!sharedLoopWaiting())
    return false;
  for (Slot &slot : board) {
    if (!slot.loop.load(std::memory_order_relaxed))
      continue;
    // Counted before the loop is read, so an owner that takes it off the
    // board sees this reader (both sequentially consistent) and waits.
    slot.readers.fetch_add(1);
    Loop *loop = slot.loop.load();
    int64_t c = loop && (!accept || accept(loop->owner, arg)) ? claim(*loop) : -1;
    if (c >= 0)
      runChunk(*loop, c);
    slot.readers.fetch_sub(1, std::memory_order_release);
    if (c >= 0)
      return true;
  }
  return false;
}

int64_t sharedLoopChunks() {
  static const int64_t chunks = kChunksPerCore * cpusAvailable();
  return chunks;
}

void runSharedLoop(int64_t count, shardrt_loop_body body, void *ctx) {
  shardrt_comm *comm = shardrt_current();
  Loop loop{body, ctx, comm, count, std::min(count, sharedLoopChunks())};
  Slot *slot = post(loop);
  if (!slot) {
    for (int64_t c = 0; c < loop.chunks; ++c)
      runChunk(loop, c);
    return;
  }
  // Counted after it is on the board, so that waiters never look for a
  // loop that is not there yet (and spin on the world mutex meanwhile). A
  // helper may claim the last chunk first: `open` then dips below zero
  // until this increment, which reads as no loop waiting.
  open.fetch_add(1);
  if (sharedLoopSleepers.load() > 0 && comm)
    comm->wakeHelpers();
  for (int64_t c; (c = claim(loop)) >= 0;)
    runChunk(loop, c);
  slot->loop.store(nullptr);
  // Helpers may still run chunks they claimed: at most one chunk each.
  // Not helping other ranks meanwhile: a chunk of theirs could outlast it
  // and make this rank late.
  int spins = 0;
  while (loop.done.load(std::memory_order_acquire) < loop.chunks)
    pauseOrYield(spins);
  while (slot->readers.load() != 0)
    pauseOrYield(spins);
}

} // namespace shardrt
