// Threads backend: a world of N ranks in one process, one std::thread per rank,
// and the collectives over device groups that those ranks run.
//
// Protocol.  Each distinct group (its ordered member list) has a Rendezvous,
// created lazily under the world mutex and then cached by each member, and
// each member numbers its calls over the group 1, 2, ...; call k of a group
// of g completes a phase when a counter of the group reaches g * k.  A
// collective runs in phases:
//  1. exchange: each member posts its buffer pointer and a description of the
//     call in its slot for the call's parity, then adds itself to
//     `arrivals`; when the count reaches g * k the collective has
//     *committed*, and every member checks on its own that the descriptions
//     agree (all of them read the same slots, so all reach the same outcome;
//     one waiting for a flag that the last arriver would publish costs a
//     second cache-line hand-off per call).  This is the only phase that can
//     fail.  A member that gives up before commit (abort, timeout, a peer
//     that returned) takes its arrival back with a compare-and-swap, so the
//     count it saw below g * k can never reach it: giving up and committing
//     exclude each other.  Slots alternate between two sets by call parity:
//     a member writes call k + 2's slot only after every member has arrived
//     for call k + 1, so after checking call k's slots.
//  2. compute: each member reads its peers' buffers, in group order.
//  3. drain: each member adds itself to `departures` and waits for g * k,
//     so no member returns (and lets its caller reuse or free a buffer)
//     while a peer is still reading it.
// Waiters spin without any lock first; only a waiter that must sleep takes
// the world mutex (and counts itself in `sleepers`, which the member that
// completes a phase reads to decide whether to wake anyone), so a
// collective whose members arrive within microseconds of each other takes
// no lock at all.
// In all_reduce member p reads and writes only slice p of every member's
// buffer: it reduces the slice chunk by chunk (in group order) and writes each
// chunk back to every member before the drain, since no peer reads that
// slice.  Each element is reduced once, in group order, so replicas are
// bitwise identical, and the work is split over the members.
//
// Asynchronous all_reduce and reduce_scatter (start/done): a member's start
// posts its buffers in the group's pending collective of that sequence
// number and returns; the last member to start checks the calls (commit),
// reduces every element in group order, as above, writes the result to
// every member's output (its buffer, for all_reduce) and marks it
// complete; done waits for that. Members that start early go on
// computing while late ones catch up and one of them reduces. Before commit
// done fails on an abort or the timeout; after it, it waits for the
// reducer's bounded work, which writes into its buffer.
//
// Invariants:
//  - Everything that can fail (allocation, validation, timeout, abort) happens
//    before commit.  Drain waits ignore aborts and have no timeout: every
//    member has committed and only has bounded local work left, and returning
//    early would let a member free a buffer a peer is reading.
//  - The world's first failure is kept; later ones are consequences.
//  - A rank whose function has returned can never arrive, so waiting for it
//    aborts at once instead of waiting for the timeout.
//  - A sleeping waiter sleeps on its rendezvous's condition variable under
//    the world mutex, so an abort can wake every waiter without a lost
//    wake-up; a member completing a phase reads `sleepers` after its
//    (sequentially consistent) update, and a sleeper increments it before
//    its last check, so one of the two always sees the other.
#include "Comm.h"
#include "Cpus.h"
#include "Dtype.h"
#include "Error.h"
#include "Reduce.h"
#include "SharedLoops.h"
#include "SmallArray.h"
#include "Spin.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace shardrt {
namespace {

/// How long a waiter spins for a phase to complete before it sleeps on the
/// condition variable. Waking a sleeping thread costs tens of microseconds
/// (more on a virtual machine), several times per collective; peers usually
/// arrive within a few microseconds. When ranks outnumber cores the spinner
/// yields, so that the peer it waits for can run.
constexpr std::chrono::microseconds kSpin{200};

/// Reduces elements [lo, lo + n) of the g member buffers `bufs`, in group
/// order, and writes the result into every one of them. Two members: one
/// pass, a[i] = b[i] = a[i] op b[i]; otherwise through a cache-sized chunk.
void reduceIntoAll(void *const *bufs, int64_t g, int64_t lo, int64_t n, int32_t dtype,
                   int32_t op) {
  const int64_t es = static_cast<int64_t>(shardrt_dtype_size(dtype));
  if (g == 2 && reducePairInPlace(static_cast<char *>(bufs[0]) + lo * es,
                                  static_cast<char *>(bufs[1]) + lo * es, n, dtype, op))
    return;
  SmallArray<void *, 8> at(static_cast<size_t>(g));
  for (int64_t m = 0; m < g; ++m)
    at[m] = static_cast<char *>(bufs[m]) + lo * es;
  reduceInOrderTo(at.data(), g, at.data(), g, n, dtype, op);
}

/// Member q's block of a reduce-scatter: out[o, i] = op over members m, in
/// group order, of ins[m][o, q * inner + i], for the [outer, g * inner]
/// inputs of the g members.
void reduceBlock(const void *const *ins, int64_t g, int64_t q, void *out, int64_t outer,
                 int64_t inner, int32_t dtype, int32_t op) {
  const int64_t es = static_cast<int64_t>(shardrt_dtype_size(dtype));
  SmallArray<const void *, 8> srcs(static_cast<size_t>(g));
  for (int64_t o = 0; o < outer && inner > 0; ++o) {
    for (int64_t m = 0; m < g; ++m)
      srcs[m] = static_cast<const char *>(ins[m]) + ((o * g + q) * inner) * es;
    reduceInOrder(static_cast<char *>(out) + o * inner * es, srcs.data(), g, inner, dtype, op);
  }
}

/// What a member asked for, compared across the group before commit.
struct CallDesc {
  CollectiveKind kind = CollectiveKind::Barrier;
  int64_t count = 0; // all_reduce: count; all_gather: outer
  int64_t inner = 0; // all_gather only
  int32_t dtype = 0;
  int32_t op = 0; // all_reduce only
  // all_to_all: concat_outer, concat_inner; collective_permute: the pairs' hash.
  int64_t extra0 = 0, extra1 = 0;

  bool operator==(const CallDesc &o) const {
    return kind == o.kind && count == o.count && inner == o.inner && dtype == o.dtype &&
           op == o.op && extra0 == o.extra0 && extra1 == o.extra1;
  }
  std::string describe() const {
    switch (kind) {
    case CollectiveKind::AllReduce:
      return format("all_reduce(count=%lld, %s, %s)", (long long)count,
                    shardrt_dtype_name(dtype), reduceOpName(op));
    case CollectiveKind::AllGather:
      return format("all_gather(outer=%lld, inner=%lld, %s)", (long long)count,
                    (long long)inner, shardrt_dtype_name(dtype));
    case CollectiveKind::ReduceScatter:
      return format("reduce_scatter(outer=%lld, inner=%lld, %s, %s)", (long long)count,
                    (long long)inner, shardrt_dtype_name(dtype), reduceOpName(op));
    case CollectiveKind::AllToAll:
      return format("all_to_all(split=%lldx%lld, concat=%lldx%lld, %s)", (long long)count,
                    (long long)inner, (long long)extra0, (long long)extra1,
                    shardrt_dtype_name(dtype));
    case CollectiveKind::Permute:
      return format("collective_permute(count=%lld, %s, pairs #%llx)", (long long)count,
                    shardrt_dtype_name(dtype), (unsigned long long)extra0);
    case CollectiveKind::Barrier:
      break;
    }
    return "barrier";
  }
};

/// One member's part of a Rendezvous, on a cache line of its own: written by
/// that member before it arrives, read by every member after commit.
struct alignas(64) Slot {
  void *posted = nullptr;
  CallDesc desc;
  // The last call of this slot's parity this member arrived for (names the
  // missing members when a wait fails).
  std::atomic<uint64_t> arrivedCall{0};
};

struct Rendezvous {
  explicit Rendezvous(std::vector<int64_t> m)
      : members(std::move(m)), slots(2 * members.size()) {}
  const std::vector<int64_t> members;
  /// The members' slots (by position) for call `call`: two sets, by parity.
  Slot *slotsOf(uint64_t call) { return slots.data() + (call & 1) * members.size(); }
  std::vector<Slot> slots;
  // Counted over every call of the group (see the file comment).
  alignas(64) std::atomic<uint64_t> arrivals{0};
  alignas(64) std::atomic<uint64_t> departures{0};
  std::atomic<int> sleepers{0}; // waiters asleep on cv, counted under the world mutex
  std::condition_variable cv;
};

/// One asynchronous all_reduce or reduce_scatter of a group (start/done):
/// members post their buffers as they start; the last to start checks that
/// the calls agree (commit), reduces every element in group order and
/// writes the results to every member's output, then marks it complete. A
/// member's done waits for that. Guarded by the world mutex, but
/// `complete`, which done spins on without it.
struct AsyncReduce {
  explicit AsyncReduce(std::vector<int64_t> m)
      : members(std::move(m)), present(members.size(), 0), ins(members.size(), nullptr),
        outs(members.size(), nullptr), descs(members.size()) {}
  const std::vector<int64_t> members;
  std::vector<char> present; // by position: has started it
  std::vector<const void *> ins;
  std::vector<void *> outs; // all_reduce: the same buffers as `ins`
  std::vector<CallDesc> descs;
  size_t started = 0;
  size_t finished = 0;    // members whose done returned
  bool committed = false; // every member started, with the same call
  std::atomic<bool> complete{false};
};

class ThreadsComm;

} // namespace
} // namespace shardrt

struct shardrt_world {
  explicit shardrt_world(int32_t numRanks);

  void failLocked(shardrt_status status, const std::string &message) {
    if (!aborted) {
      aborted = true;
      abortedFlag.store(true, std::memory_order_release);
      firstStatus = status;
      firstMessage = message;
    }
    wakeAllLocked();
  }
  void wakeAllLocked() {
    for (auto &entry : rendezvous)
      entry.second->cv.notify_all();
    asyncCv.notify_all();
  }

  const int32_t numRanks;
  std::vector<int64_t> allRanks; // 0..N-1, the barrier's group
  std::vector<std::unique_ptr<shardrt::ThreadsComm>> comms;

  // `aborted`, readable without the mutex: every collective checks it first,
  // and taking the world mutex there made ranks queue on it.
  std::atomic<bool> abortedFlag{false};

  std::mutex mu; // guards everything below
  bool running = false;
  bool aborted = false;
  shardrt_status firstStatus = SHARDRT_OK;
  std::string firstMessage;
  double timeoutSeconds = 300;
  std::vector<char> finished; // by rank: its rank function has returned
  std::map<std::vector<int64_t>, std::unique_ptr<shardrt::Rendezvous>> rendezvous;
  // Pending asynchronous all-reduces and reduce-scatters: per group, by
  // sequence number (each member numbers its starts over a group 0, 1,
  // ...). Notified when one completes and on every wake-all.
  std::map<std::vector<int64_t>, std::map<uint64_t, std::unique_ptr<shardrt::AsyncReduce>>>
      asyncReduces;
  std::condition_variable asyncCv;
};

namespace shardrt {
namespace {

class ThreadsComm final : public shardrt_comm {
public:
  ThreadsComm(shardrt_world *world, int32_t rank) : shardrt_comm(rank, world->numRanks), world(world) {
    oversubscribed = world->numRanks > cpusAvailable();
  }

  const char *backendName() const override { return "threads"; }

  int32_t ranksInProcess() const override { return world->numRanks; }

  void wakeHelpers() override {
    std::lock_guard<std::mutex> lock(world->mu);
    world->wakeAllLocked();
  }

  shardrt_status allReduce(const AllReduceArgs &args, const Group &group) override {
    const int64_t g = group.size, pos = group.position;
    const int64_t base = args.count / g, rem = args.count % g;
    const int64_t lo = pos * base + std::min(pos, rem);
    const int64_t n = base + (pos < rem ? 1 : 0);
    CallDesc desc{CollectiveKind::AllReduce, args.count, 0, args.dtype, args.op};
    uint64_t call = 0;
    Rendezvous &rv = join(group.members, g, &call);
    if (shardrt_status s = exchange(rv, pos, call, args.buf, desc))
      return s;
    SmallArray<void *, 8> bufs(static_cast<size_t>(g));
    const Slot *slots = rv.slotsOf(call);
    for (int64_t m = 0; m < g; ++m)
      bufs[m] = slots[m].posted;
    // Only this member touches slice `pos` of any buffer, so it can write
    // the reduced slice back while its peers work on theirs.
    reduceIntoAll(bufs.data(), g, lo, n, args.dtype, args.op);
    drain(rv, call); // every slice has been written to every member
    return SHARDRT_OK;
  }

  shardrt_status allReduceStart(const AllReduceArgs &args, const Group &group,
                                int64_t *request) override {
    CallDesc desc{CollectiveKind::AllReduce, args.count, 0, args.dtype, args.op};
    return startAsync(group, desc, args.buf, args.buf, request);
  }

  shardrt_status allReduceDone(int64_t request) override {
    return finishAsync(request, CollectiveKind::AllReduce, nullptr, nullptr);
  }

  shardrt_status reduceScatterStart(const ReduceScatterArgs &args, const Group &group,
                                    int64_t *request) override {
    CallDesc desc{CollectiveKind::ReduceScatter, args.outer, args.inner, args.dtype, args.op};
    return startAsync(group, desc, args.in, args.out, request);
  }

  shardrt_status reduceScatterDone(int64_t request, const void *in, void *out) override {
    return finishAsync(request, CollectiveKind::ReduceScatter, in, out);
  }

  /// Forgets this rank's per-run state: its cached rendezvous and call
  /// numbers, and its asynchronous bookkeeping (a new run of the world).
  void resetRun() {
    joined.clear();
    asyncSeq.clear();
    requests.clear();
  }

  shardrt_status allGather(const AllGatherArgs &args, const Group &group) override {
    const size_t innerBytes = static_cast<size_t>(args.inner) * shardrt_dtype_size(args.dtype);
    const int64_t g = group.size;
    CallDesc desc{CollectiveKind::AllGather, args.outer, args.inner, args.dtype, 0};
    return withPeers(group, args.in, desc, [&](const std::vector<const char *> &ins) {
      char *out = static_cast<char *>(args.out);
      if (innerBytes > 0)
        for (int64_t o = 0; o < args.outer; ++o)
          for (int64_t m = 0; m < g; ++m)
            std::memcpy(out + (o * g + m) * innerBytes, ins[m] + o * innerBytes, innerBytes);
    });
  }

  // Member p reduces, in group order, block p of every member's input into
  // its own output: the same order on every member, as in allReduce.
  shardrt_status reduceScatter(const ReduceScatterArgs &args, const Group &group) override {
    CallDesc desc{CollectiveKind::ReduceScatter, args.outer, args.inner, args.dtype, args.op};
    return withPeers(group, args.in, desc, [&](const std::vector<const char *> &ins) {
      std::vector<const void *> srcs(ins.begin(), ins.end());
      reduceBlock(srcs.data(), group.size, group.position, args.out, args.outer, args.inner,
                  args.dtype, args.op);
    });
  }

  shardrt_status allToAll(const AllToAllArgs &args, const Group &group) override {
    const size_t es = shardrt_dtype_size(args.dtype);
    CallDesc desc{CollectiveKind::AllToAll, args.splitOuter, args.splitInner, args.dtype, 0,
                  args.concatOuter, args.concatInner};
    return withPeers(group, args.in, desc, [&](const std::vector<const char *> &ins) {
      for (int64_t m = 0; m < group.size; ++m)
        copyPiece(ins[m], args.splitOuter, args.splitInner, group.position, args.out,
                  args.concatOuter, args.concatInner, m, group.size, es);
    });
  }

  shardrt_status permute(const PermuteArgs &args, const Group &group) override {
    const size_t bytes = static_cast<size_t>(args.count) * shardrt_dtype_size(args.dtype);
    CallDesc desc{CollectiveKind::Permute, args.count, 0, args.dtype, 0,
                  static_cast<int64_t>(args.pairsHash), 0};
    return withPeers(group, args.in, desc, [&](const std::vector<const char *> &ins) {
      if (bytes == 0)
        return;
      if (args.source >= 0)
        std::memcpy(args.out, ins[args.source], bytes);
      else
        std::memset(args.out, 0, bytes);
    });
  }

  shardrt_status barrier() override {
    uint64_t call = 0;
    Rendezvous &rv = join(world->allRanks.data(), world->numRanks, &call);
    if (shardrt_status s = exchange(rv, rank, call, nullptr, CallDesc{}))
      return s;
    // Nothing is read after commit, so nobody waits for the departures; the
    // count only has to stay g * call (a member's next call writes the other
    // set of slots).
    rv.departures.fetch_add(1);
    return SHARDRT_OK;
  }

  void fail(shardrt_status status, const std::string &message) override {
    std::lock_guard<std::mutex> lock(world->mu);
    world->failLocked(status, message);
  }

  void abortWorld(const std::string &message) override { fail(SHARDRT_ERR_ABORTED, message); }

  bool isAborted(std::string *message) const override {
    if (!world->abortedFlag.load(std::memory_order_acquire))
      return false;
    std::lock_guard<std::mutex> lock(world->mu);
    if (world->aborted && message)
      *message = world->firstMessage;
    return world->aborted;
  }

private:
  /// The shape of every collective but all_reduce: exchange `in` and `desc`
  /// with the group, run `read` on the members' posted inputs (in group
  /// order) outside the lock, then drain, so that no member returns (and
  /// lets its caller reuse `in`) while a peer still reads it.
  template <typename Read>
  shardrt_status withPeers(const Group &group, const void *in, const CallDesc &desc, Read read) {
    std::vector<const char *> ins(static_cast<size_t>(group.size));
    uint64_t call = 0;
    Rendezvous &rv = join(group.members, group.size, &call);
    if (shardrt_status s = exchange(rv, group.position, call, const_cast<void *>(in), desc))
      return s;
    const Slot *slots = rv.slotsOf(call);
    for (int64_t m = 0; m < group.size; ++m)
      ins[m] = static_cast<const char *>(slots[m].posted);
    read(ins);
    drain(rv, call);
    return SHARDRT_OK;
  }

  /// The group's rendezvous, and this member's number for the call it is
  /// making over it (1, 2, ...). Found in this rank's cache without a lock;
  /// made, the first time, under the world mutex.
  Rendezvous &join(const int64_t *members, int64_t size, uint64_t *call) {
    for (Joined &j : joined)
      if (static_cast<int64_t>(j.members.size()) == size &&
          std::equal(j.members.begin(), j.members.end(), members)) {
        *call = ++j.calls;
        return *j.rv;
      }
    std::vector<int64_t> key(members, members + size);
    Rendezvous *rv;
    {
      std::lock_guard<std::mutex> lock(world->mu);
      auto it = world->rendezvous.find(key);
      if (it == world->rendezvous.end())
        it = world->rendezvous.emplace(key, std::make_unique<Rendezvous>(key)).first;
      rv = it->second.get();
    }
    joined.push_back(Joined{std::move(key), rv, 1});
    *call = 1;
    return *rv;
  }

  std::string where(const CallDesc &desc, const Rendezvous &rv) const {
    return format("rank %d: collective %s over group %s", rank, collectiveName(desc.kind),
                  formatIds(rv.members.data(), (int64_t)rv.members.size()).c_str());
  }

  /// Sets this rank's error, records it as the world's failure (if first).
  shardrt_status failLocked(shardrt_status status, const std::string &message) {
    world->failLocked(status, message);
    setLastError(message);
    return status;
  }

  shardrt_status abortedLocked(const CallDesc &desc, const Rendezvous &rv) {
    setLastError(where(desc, rv) + ": the world was aborted (" + world->firstMessage + ")");
    return SHARDRT_ERR_ABORTED;
  }

  /// Wakes the members asleep on `rv` after this one completed a phase.
  /// The phase's store and this load are sequentially consistent, as are a
  /// sleeper's increment and its last check: one of the two sees the other.
  void wake(Rendezvous &rv) {
    if (rv.sleepers.load() > 0) {
      std::lock_guard<std::mutex> lock(world->mu);
      rv.cv.notify_all();
    }
  }

  /// Takes this member's arrival for the call whose exchange completes at
  /// `target` back, unless the last member has arrived (commit).
  static bool retract(Rendezvous &rv, uint64_t target) {
    uint64_t seen = rv.arrivals.load();
    while (seen < target)
      if (rv.arrivals.compare_exchange_weak(seen, seen - 1))
        return true;
    return false;
  }

  /// Spins while `waiting()` holds, for at most kSpin, yielding the core
  /// now and then when ranks outnumber cores. Meanwhile it runs chunks of
  /// the shared loops of `members`, the ranks it waits for (each restarts
  /// the spin): helping another rank instead could make this one late for
  /// the members waiting for it.
  template <typename Waiting>
  void spinWhile(const std::vector<int64_t> &members, Waiting waiting) const {
    Awaited awaited{world, &members};
    shardrt::spinWhile(kSpin, oversubscribed, waiting, [&] {
      return sharedLoopWaiting() && helpSharedLoop(&Awaited::accept, &awaited);
    });
  }

  /// Members of a group, as helpSharedLoop's filter of owners.
  struct Awaited {
    shardrt_world *world;
    const std::vector<int64_t> *members;
    static bool accept(const shardrt_comm *owner, const void *arg) {
      const Awaited &a = *static_cast<const Awaited *>(arg);
      for (int64_t m : *a.members)
        if (owner == a.world->comms[m].get())
          return true;
      return false;
    }
  };

  /// Sleeps on `cv` under the world mutex (held by `lock`) until notified
  /// or `deadline`; but while another rank's shared loop has chunks left,
  /// runs one of them instead, without the mutex, and returns so that the
  /// caller checks its condition again. Counted in sharedLoopSleepers
  /// before it looks at the board, so a loop posted after the look wakes
  /// it (SharedLoops.h).
  std::cv_status sleep(std::unique_lock<std::mutex> &lock, std::condition_variable &cv,
                       std::chrono::steady_clock::time_point deadline) {
    sharedLoopSleepers.fetch_add(1);
    std::cv_status status = std::cv_status::no_timeout;
    if (sharedLoopWaiting()) {
      lock.unlock();
      helpSharedLoop();
      lock.lock();
      if (std::chrono::steady_clock::now() >= deadline)
        status = std::cv_status::timeout;
    } else if (deadline == std::chrono::steady_clock::time_point::max()) {
      cv.wait(lock);
    } else {
      status = cv.wait_until(lock, deadline);
    }
    sharedLoopSleepers.fetch_sub(1);
    return status;
  }
  std::cv_status sleep(std::unique_lock<std::mutex> &lock, std::condition_variable &cv) {
    return sleep(lock, cv, std::chrono::steady_clock::time_point::max());
  }

  /// Now plus the world's collective timeout, clamped so that the deadline
  /// cannot overflow the clock.
  std::chrono::steady_clock::time_point timeoutDeadline() const {
    const double seconds = std::min(world->timeoutSeconds, 1e7);
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>(seconds));
  }

  bool oversubscribed = false; // more ranks than cores: spinners yield

  /// A started asynchronous collective, as this rank's request names it.
  struct AsyncRequest {
    AsyncReduce *reduce = nullptr;
    std::vector<int64_t> key;
    uint64_t seq = 0;
    size_t pos = 0; // this rank's position in the group
  };
  // Touched only by this rank's thread (and by shardrt_threads_run before
  // the threads start).
  std::map<std::vector<int64_t>, uint64_t> asyncSeq; // next sequence number per group
  std::map<int64_t, AsyncRequest> requests;
  int64_t nextRequest = 1;

  std::string whereAsync(const AsyncReduce &p, CollectiveKind kind) const {
    return format("rank %d: asynchronous %s over group %s", rank, collectiveName(kind),
                  formatIds(p.members.data(), (int64_t)p.members.size()).c_str());
  }

  shardrt_status asyncAbortedLocked(const AsyncReduce &p, CollectiveKind kind) {
    setLastError(whereAsync(p, kind) + ": the world was aborted (" + world->firstMessage + ")");
    return SHARDRT_ERR_ABORTED;
  }

  /// Posts this member's part of an asynchronous collective (`desc`:
  /// all_reduce in place, or reduce_scatter from `in` to `out`); the last
  /// member to start commits and reduces for the whole group.
  shardrt_status startAsync(const Group &group, const CallDesc &desc, const void *in, void *out,
                            int64_t *request) {
    std::vector<int64_t> key(group.members, group.members + group.size);
    const size_t g = static_cast<size_t>(group.size), pos = static_cast<size_t>(group.position);
    uint64_t seq = asyncSeq[key]++;
    AsyncReduce *p = nullptr;
    {
      std::unique_lock<std::mutex> lock(world->mu);
      std::unique_ptr<AsyncReduce> &slot = world->asyncReduces[key][seq];
      if (!slot)
        slot = std::make_unique<AsyncReduce>(key);
      p = slot.get();
      if (world->aborted)
        return asyncAbortedLocked(*p, desc.kind);
      p->ins[pos] = in;
      p->outs[pos] = out;
      p->descs[pos] = desc;
      p->present[pos] = 1;
      *request = nextRequest++;
      requests[*request] = AsyncRequest{p, key, seq, pos};
      if (++p->started < g)
        return SHARDRT_OK;
      for (size_t i = 1; i < g; ++i)
        if (!(p->descs[i] == p->descs[0]))
          return failLocked(
              SHARDRT_ERR_ARGUMENT,
              format("rank %d: collective mismatch over group %s: rank %lld started %s but "
                     "rank %lld started %s; every member must make the same call",
                     rank, formatIds(key.data(), group.size).c_str(), (long long)key[0],
                     p->descs[0].describe().c_str(), (long long)key[i],
                     p->descs[i].describe().c_str()));
      p->committed = true;
    }
    // The last to start reduces for everyone, outside the lock: the posted
    // buffers belong to the collective until each member's done returns.
    reduceAsync(*p);
    std::lock_guard<std::mutex> lock(world->mu);
    p->complete.store(true, std::memory_order_release);
    world->asyncCv.notify_all();
    return SHARDRT_OK;
  }

  /// The committed collective `p`'s whole reduction, in group order, as
  /// the blocking allReduce and reduceScatter compute it.
  static void reduceAsync(AsyncReduce &p) {
    const CallDesc &d = p.descs[0];
    const int64_t g = static_cast<int64_t>(p.members.size());
    if (d.kind == CollectiveKind::AllReduce) {
      reduceIntoAll(p.outs.data(), g, 0, d.count, d.dtype, d.op);
      return;
    }
    for (int64_t q = 0; q < g; ++q) // reduce_scatter: every member's block
      reduceBlock(p.ins.data(), g, q, p.outs[q], d.count, d.inner, d.dtype, d.op);
  }

  /// Waits for this rank's request, a collective of `kind`, to complete;
  /// a reduce_scatter's `in` and `out` must be the buffers it started with.
  shardrt_status finishAsync(int64_t request, CollectiveKind kind, const void *in, void *out) {
    const char *what = collectiveName(kind);
    auto it = requests.find(request);
    if (it == requests.end() || it->second.reduce->descs[it->second.pos].kind != kind) {
      std::lock_guard<std::mutex> lock(world->mu);
      return failLocked(SHARDRT_ERR_ARGUMENT,
                        format("rank %d: %s_done: %lld is not a pending %s request of this rank",
                               rank, what, (long long)request, what));
    }
    AsyncRequest r = it->second;
    AsyncReduce &p = *r.reduce;
    if (kind == CollectiveKind::ReduceScatter && (p.ins[r.pos] != in || p.outs[r.pos] != out)) {
      std::lock_guard<std::mutex> lock(world->mu);
      return failLocked(SHARDRT_ERR_ARGUMENT,
                        format("rank %d: %s_done: request %lld was started with other buffers "
                               "(in %p, out %p, not %p, %p)",
                               rank, what, (long long)request, p.ins[r.pos], p.outs[r.pos], in,
                               out));
    }
    requests.erase(it);
    // Spin briefly: the last member usually starts within microseconds.
    spinWhile(p.members, [&] { return !p.complete.load(std::memory_order_acquire); });
    std::unique_lock<std::mutex> lock(world->mu);
    const auto deadline = timeoutDeadline();
    while (!p.complete.load(std::memory_order_acquire)) {
      if (p.committed) {
        // Only the reducer's bounded work is left, and it writes into this
        // member's buffer: wait for it whatever happens to the world.
        sleep(lock, world->asyncCv);
        continue;
      }
      if (world->aborted)
        return asyncAbortedLocked(p, kind);
      for (size_t i = 0; i < p.members.size(); ++i)
        if (!p.present[i] && world->finished[p.members[i]])
          return failLocked(SHARDRT_ERR_ABORTED,
                            format("%s cannot complete: rank %lld returned from its rank "
                                   "function without starting it",
                                   whereAsync(p, kind).c_str(), (long long)p.members[i]));
      if (sleep(lock, world->asyncCv, deadline) == std::cv_status::timeout &&
          !p.complete && !p.committed && !world->aborted) {
        std::string missing;
        for (size_t i = 0; i < p.members.size(); ++i)
          if (!p.present[i])
            missing += (missing.empty() ? "" : ",") + std::to_string(p.members[i]);
        return failLocked(SHARDRT_ERR_ABORTED,
                          format("%s timed out after %g s waiting for ranks %s to start it",
                                 whereAsync(p, kind).c_str(), world->timeoutSeconds,
                                 missing.c_str()));
      }
    }
    if (++p.finished == p.members.size()) {
      auto group = world->asyncReduces.find(r.key);
      group->second.erase(r.seq);
      if (group->second.empty())
        world->asyncReduces.erase(group);
    }
    return SHARDRT_OK;
  }

  /// Phase 1 (see the file comment) of this member's call `call` over
  /// `rv`.  Returns OK once every member has posted the same call, else an
  /// error with the world aborted.
  shardrt_status exchange(Rendezvous &rv, int64_t pos, uint64_t call, void *ptr,
                          const CallDesc &desc) {
    if (world->abortedFlag.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(world->mu);
      return abortedLocked(desc, rv);
    }
    Slot &mine = rv.slotsOf(call)[pos];
    mine.posted = ptr;
    mine.desc = desc;
    mine.arrivedCall.store(call, std::memory_order_relaxed);
    const uint64_t target = rv.members.size() * call;
    if (rv.arrivals.fetch_add(1) + 1 == target) {
      wake(rv);
    } else {
      spinWhile(rv.members, [&] { return rv.arrivals.load(std::memory_order_acquire) < target; });
      if (rv.arrivals.load() < target) {
        std::unique_lock<std::mutex> lock(world->mu);
        ++rv.sleepers;
        shardrt_status s = sleepUntilCommitted(lock, rv, call, desc);
        --rv.sleepers;
        if (s)
          return s;
      }
    }
    return checkAgreement(rv, call, desc);
  }

  /// After commit: whether every member posted the same call. All members
  /// read the same slots, so all of them fail together; the first to take
  /// the world mutex reports the mismatch, the others the abort it caused.
  shardrt_status checkAgreement(Rendezvous &rv, uint64_t call, const CallDesc &desc) {
    const Slot *slots = rv.slotsOf(call);
    const size_t g = rv.members.size();
    size_t bad = 0;
    for (size_t i = 1; i < g && !bad; ++i)
      if (!(slots[i].desc == slots[0].desc))
        bad = i;
    if (!bad)
      return SHARDRT_OK;
    std::lock_guard<std::mutex> lock(world->mu);
    if (world->aborted)
      return abortedLocked(desc, rv);
    return failLocked(
        SHARDRT_ERR_ARGUMENT,
        format("rank %d: collective mismatch over group %s: rank %lld called %s but "
               "rank %lld called %s; every member must make the same call",
               rank, formatIds(rv.members.data(), (int64_t)g).c_str(), (long long)rv.members[0],
               slots[0].desc.describe().c_str(), (long long)rv.members[bad],
               slots[bad].desc.describe().c_str()));
  }

  /// The sleeping part of exchange, under the world mutex: until call
  /// `call` over `rv` commits, or this member gives up (and retracts).
  shardrt_status sleepUntilCommitted(std::unique_lock<std::mutex> &lock, Rendezvous &rv,
                                     uint64_t call, const CallDesc &desc) {
    const uint64_t target = rv.members.size() * call;
    const Slot *slots = rv.slotsOf(call);
    const auto deadline = timeoutDeadline();
    while (rv.arrivals.load() < target) {
      shardrt_status status = SHARDRT_OK;
      std::string message;
      if (world->aborted) {
        status = SHARDRT_ERR_ABORTED;
      } else {
        for (size_t i = 0; i < rv.members.size() && !status; ++i)
          if (slots[i].arrivedCall.load() < call && world->finished[rv.members[i]]) {
            status = SHARDRT_ERR_ABORTED;
            message = format("%s cannot complete: rank %lld returned from its rank function "
                             "without joining it",
                             where(desc, rv).c_str(), (long long)rv.members[i]);
          }
        if (!status && std::chrono::steady_clock::now() >= deadline) {
          std::string missing;
          for (size_t i = 0; i < rv.members.size(); ++i)
            if (slots[i].arrivedCall.load() < call)
              missing += (missing.empty() ? "" : ",") + std::to_string(rv.members[i]);
          status = SHARDRT_ERR_ABORTED;
          message = format("%s timed out after %g s waiting for ranks %s",
                           where(desc, rv).c_str(), world->timeoutSeconds, missing.c_str());
        }
      }
      if (status && retract(rv, target))
        return message.empty() ? abortedLocked(desc, rv) : failLocked(status, message);
      if (status)
        return SHARDRT_OK; // committed meanwhile: the caller checks agreement
      sleep(lock, rv.cv, deadline);
    }
    return SHARDRT_OK;
  }

  /// Phases after commit: wait for every member, ignoring aborts (see the
  /// file comment for why this cannot hang).
  void drain(Rendezvous &rv, uint64_t call) {
    const uint64_t target = rv.members.size() * call;
    if (rv.departures.fetch_add(1) + 1 == target) {
      wake(rv);
      return;
    }
    spinWhile(rv.members, [&] { return rv.departures.load(std::memory_order_acquire) < target; });
    if (rv.departures.load() >= target)
      return;
    std::unique_lock<std::mutex> lock(world->mu);
    ++rv.sleepers;
    while (rv.departures.load() < target)
      sleep(lock, rv.cv);
    --rv.sleepers;
  }

  /// A group this rank has called a collective over in this run.
  struct Joined {
    std::vector<int64_t> members;
    Rendezvous *rv;
    uint64_t calls; // this member's calls over the group so far
  };
  std::vector<Joined> joined; // touched only by this rank's thread

  shardrt_world *const world;
};

struct RankTask {
  shardrt_world *world;
  ThreadsComm *comm;
  shardrt_rank_fn fn;
  void *user;
};

void runRank(RankTask task) {
  shardrt_set_current(task.comm);
  clearLastError();
  int32_t rc = 0;
  std::string thrown;
  try {
    rc = task.fn(task.comm, task.user);
  } catch (const std::exception &e) {
    rc = SHARDRT_ERR_ABORTED;
    thrown = e.what();
  } catch (...) {
    rc = SHARDRT_ERR_ABORTED;
    thrown = "an unknown exception";
  }
  shardrt_set_current(nullptr);

  const int32_t rank = task.comm->rank;
  std::lock_guard<std::mutex> lock(task.world->mu);
  task.world->finished[rank] = 1;
  if (!thrown.empty()) {
    task.world->failLocked(SHARDRT_ERR_ABORTED,
                           format("rank %d: rank function threw %s", rank, thrown.c_str()));
  } else if (rc != 0) {
    // A rank that fails with a shardrt_status keeps it (e.g. SHARDRT_ERR_IO
    // from a file it could not read); any other non-zero value is an abort.
    shardrt_status status = rc >= SHARDRT_ERR_ARGUMENT && rc <= SHARDRT_ERR_BACKEND
                                ? static_cast<shardrt_status>(rc)
                                : SHARDRT_ERR_ABORTED;
    std::string message = format("rank %d: rank function returned %d", rank, rc);
    if (!lastError().empty())
      message += " (last error: " + lastError() + ")";
    task.world->failLocked(status, message);
  }
  // Peers waiting for this rank can now tell that it will never arrive.
  task.world->wakeAllLocked();
}

constexpr int32_t kMaxThreadsRanks = 4096;

} // namespace
} // namespace shardrt

shardrt_world::shardrt_world(int32_t n) : numRanks(n), finished(static_cast<size_t>(n), 0) {
  for (int32_t r = 0; r < n; ++r) {
    allRanks.push_back(r);
    comms.push_back(std::make_unique<shardrt::ThreadsComm>(this, r));
  }
}

using namespace shardrt;

extern "C" {

shardrt_world *shardrt_threads_create(int32_t num_ranks) {
  if (num_ranks < 1 || num_ranks > kMaxThreadsRanks) {
    fail(SHARDRT_ERR_ARGUMENT, "shardrt_threads_create: num_ranks is %d; it must be in 1..%d",
         num_ranks, kMaxThreadsRanks);
    return nullptr;
  }
  try {
    return new shardrt_world(num_ranks);
  } catch (const std::bad_alloc &) {
    fail(SHARDRT_ERR_ARGUMENT, "shardrt_threads_create: out of memory for %d ranks", num_ranks);
    return nullptr;
  }
}

shardrt_status shardrt_threads_run(shardrt_world *world, shardrt_rank_fn fn, void *user) {
  if (!world)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_threads_run: world is NULL");
  if (!fn)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_threads_run: fn is NULL");
  double timeout;
  if (shardrt_status s = readTimeoutSeconds(&timeout))
    return s;
  try {
    {
      std::lock_guard<std::mutex> lock(world->mu);
      if (world->running)
        return fail(SHARDRT_ERR_ARGUMENT, "shardrt_threads_run: this world is already running");
      // Each run starts from a clean world: state left by an aborted run
      // (half-filled rendezvous) must not leak into this one.
      world->running = true;
      world->aborted = false;
      world->abortedFlag.store(false);
      world->firstStatus = SHARDRT_OK;
      world->firstMessage.clear();
      world->rendezvous.clear();
      world->asyncReduces.clear();
      for (auto &comm : world->comms)
        comm->resetRun();
      std::fill(world->finished.begin(), world->finished.end(), 0);
      world->timeoutSeconds = timeout;
    }
    std::vector<std::thread> threads;
    threads.reserve(world->comms.size());
    try {
      for (auto &comm : world->comms)
        threads.emplace_back(runRank, RankTask{world, comm.get(), fn, user});
    } catch (const std::exception &e) {
      std::lock_guard<std::mutex> lock(world->mu);
      world->failLocked(SHARDRT_ERR_ABORTED,
                        format("rank %zu: could not start its thread: %s", threads.size(),
                               e.what()));
      for (size_t r = threads.size(); r < world->finished.size(); ++r)
        world->finished[r] = 1; // never started, so never arrives
      world->wakeAllLocked();
    }
    for (std::thread &t : threads)
      t.join();
  } catch (const std::bad_alloc &) {
    std::lock_guard<std::mutex> lock(world->mu);
    world->failLocked(SHARDRT_ERR_BACKEND, "shardrt_threads_run: out of memory");
  }

  std::lock_guard<std::mutex> lock(world->mu);
  world->running = false;
  if (world->firstStatus != SHARDRT_OK)
    setLastError(world->firstMessage);
  else
    clearLastError();
  return world->firstStatus;
}

void shardrt_world_destroy(shardrt_world *world) {
  if (!world)
    return;
  {
    std::lock_guard<std::mutex> lock(world->mu);
    if (world->running) {
      // Freeing it would pull the world out from under its ranks; leak it.
      fail(SHARDRT_ERR_ARGUMENT, "shardrt_world_destroy: the world is still running");
      return;
    }
  }
  delete world;
}

} // extern "C"
