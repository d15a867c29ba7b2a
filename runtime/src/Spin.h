// Waiting by spinning, for a bounded time, before a thread sleeps: the
// kernel pool's loops complete within microseconds, less than waking a
// sleeping thread costs. (The threads communicator spins on its own, since
// it also runs its peers' shared loops meanwhile.)
#ifndef SHARDRT_SRC_SPIN_H
#define SHARDRT_SRC_SPIN_H

#include <sched.h>

#include <chrono>

namespace shardrt {

/// Spins while `waiting()` holds, for at most `limit`; with `yield`, gives
/// the core away now and then (for when threads outnumber cores). The
/// caller then sleeps if it must: this only saves the sleep.
template <typename Waiting>
void spinWhile(std::chrono::microseconds limit, bool yield, Waiting waiting) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (int i = 0; waiting(); ++i) {
    if ((i & 255) == 255) {
      if (std::chrono::steady_clock::now() > until)
        return;
      if (yield)
        sched_yield();
    }
    __builtin_ia32_pause();
  }
}

} // namespace shardrt

#endif // SHARDRT_SRC_SPIN_H
