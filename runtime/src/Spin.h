// Waiting by spinning, for a bounded time, before a thread sleeps: the
// kernel pool's loops and the threads communicator's phases complete
// within microseconds, less than waking a sleeping thread costs.
#ifndef SHARDRT_SRC_SPIN_H
#define SHARDRT_SRC_SPIN_H

#include <sched.h>

#include <chrono>

namespace shardrt {

/// Spins while `waiting()` holds, for at most `limit`; with `yield`, gives
/// the core away now and then (for when threads outnumber cores). Every 64
/// spins it calls `work()`, which may do something useful meanwhile (the
/// threads communicator runs its peers' shared loops): when it did, the
/// spin's time starts again. The caller then sleeps if it must: this only
/// saves the sleep.
template <typename Waiting, typename Work>
void spinWhile(std::chrono::microseconds limit, bool yield, Waiting waiting, Work work) {
  auto until = std::chrono::steady_clock::now() + limit;
  for (int i = 0; waiting(); ++i) {
    if ((i & 63) == 63 && work()) {
      until = std::chrono::steady_clock::now() + limit;
      continue;
    }
    if ((i & 255) == 255) {
      if (std::chrono::steady_clock::now() > until)
        return;
      if (yield)
        sched_yield();
    }
    __builtin_ia32_pause();
  }
}

template <typename Waiting>
void spinWhile(std::chrono::microseconds limit, bool yield, Waiting waiting) {
  spinWhile(limit, yield, waiting, [] { return false; });
}

} // namespace shardrt

#endif // SHARDRT_SRC_SPIN_H
