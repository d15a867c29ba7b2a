// Parallel loops that the ranks of one process share when they have no
// kernel threads of their own.
//
// When ranks are at least as many as cores (a 2x1, 2x2 or 4 mesh on two
// cores) a rank gets no kernel threads: its parallel loops ran on its own
// thread, and a rank waiting in a collective for a peer left its core idle
// or spinning while that peer, the last one still computing, ran a loop
// alone. Instead, such a rank runs each parallel loop as a shared loop: it
// posts the loop on a process-wide board, cut into a few chunks, and takes
// chunks from the front; any rank thread of the process that waits in a
// collective takes chunks too.
// Which thread runs a chunk never changes what it computes: the chunks cut
// the same iterations the loop would run in sequence, and the generated
// code's contract (disjoint outputs, each summed in its own fixed order)
// makes the values independent of how iterations are grouped.
//
// A helper finds loops through the board's slots; a slot counts the helpers
// reading it, and an owner takes its loop off the board and waits for that
// count to drop before the loop (on its stack) goes away. A waiter that
// sleeps counts itself in `sharedLoopSleepers`; an owner that posts a loop
// while any sleep wakes them through its communicator (wakeHelpers).
#ifndef SHARDRT_SRC_SHAREDLOOPS_H
#define SHARDRT_SRC_SHAREDLOOPS_H

#include "shardrt.h"

#include <atomic>
#include <cstdint>

namespace shardrt {

/// Set while this thread runs a loop body: a parallel loop started from a
/// body runs inline.
inline thread_local bool tlsInsideBody = false;

/// The chunks a shared loop of at least that many iterations is cut into.
int64_t sharedLoopChunks();

/// Runs `body` over [0, count) as a shared loop (see the file comment);
/// returns when every iteration has run.
void runSharedLoop(int64_t count, shardrt_loop_body body, void *ctx);

/// Runs one chunk of some shared loop with chunks left, of a loop whose
/// owner (the communicator current on the thread that posted it)
/// `accept(owner, arg)` accepts when `accept` is given; false if there was
/// none. Never call it from inside a loop body.
bool helpSharedLoop(bool (*accept)(const shardrt_comm *owner, const void *arg) = nullptr,
                    const void *arg = nullptr);

/// Whether some shared loop may have chunks left (one atomic load).
bool sharedLoopWaiting();

/// Waiters asleep that a newly posted loop should wake (see the file
/// comment); a waiter increments it, under the mutex it sleeps with, before
/// its last look at the board.
extern std::atomic<int> sharedLoopSleepers;

} // namespace shardrt

#endif // SHARDRT_SRC_SHAREDLOOPS_H
