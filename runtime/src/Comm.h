// The communicator behind the opaque shardrt_comm handle, and the small
// interface every backend (threads, MPI) implements.
//
// Split of work: the front end (Collectives.cpp) validates arguments, resolves
// the caller's group, handles groups of one and worlds that are already
// aborted, and only then calls the backend.  A backend therefore sees valid
// arguments and a group of at least two members containing the caller, and
// only has to move data.  Invariants a backend keeps:
//  - a collective either completes on every member or returns an error on
//    every member that reaches it; after an error the world is aborted and
//    every later collective returns SHARDRT_ERR_ABORTED at once;
//  - a failing collective sets this thread's last error, prefixed "rank R: ".
#ifndef SHARDRT_SRC_COMM_H
#define SHARDRT_SRC_COMM_H

#include "shardrt.h"

#include <cstdint>
#include <string>

namespace shardrt {

enum class CollectiveKind { AllReduce, AllGather, Barrier, ReduceScatter, AllToAll, Permute };
const char *collectiveName(CollectiveKind kind);

/// The caller's group, as resolved by the front end.
struct Group {
  const int64_t *members = nullptr; // `size` world ranks, in collective order
  int64_t size = 0;
  int64_t position = 0; // index of the caller in `members`
};

struct AllReduceArgs {
  void *buf;
  int64_t count;
  int32_t dtype;
  int32_t op;
};

struct AllGatherArgs {
  const void *in;
  void *out;
  int64_t outer;
  int64_t inner;
  int32_t dtype;
};

struct ReduceScatterArgs {
  const void *in;
  void *out;
  int64_t outer;
  int64_t inner; // of the output
  int32_t dtype;
  int32_t op;
};

struct AllToAllArgs {
  const void *in;
  void *out;
  int64_t splitOuter, splitInner;   // in: [splitOuter, group, splitInner]
  int64_t concatOuter, concatInner; // out: [concatOuter, group, concatInner]
  int32_t dtype;
};

/// A permute as the front end resolved it: the group is every rank named in
/// a pair (ascending); source/target are the caller's peers as positions in
/// that group, -1 when it has none. `pairsHash` lets members check that they
/// agree on the pairs.
struct PermuteArgs {
  const void *in;
  void *out;
  int64_t count;
  int32_t dtype;
  int64_t source = -1;
  int64_t target = -1;
  uint64_t pairsHash = 0;
};

/// Copies piece `from` of a [splitOuter, n, splitInner] view into block `to`
/// of a [concatOuter, n, concatInner] view; the piece holds splitOuter *
/// splitInner == concatOuter * concatInner elements in row-major order on
/// both sides. Contiguous runs are copied at once.
void copyPiece(const void *src, int64_t splitOuter, int64_t splitInner, int64_t from, void *dst,
               int64_t concatOuter, int64_t concatInner, int64_t to, int64_t n,
               size_t elementSize);

/// The collective timeout in seconds, from env SHARDRT_TIMEOUT_S (default
/// 300).  A value that is not a positive number is an error, not a silent
/// fallback to the default.
shardrt_status readTimeoutSeconds(double *seconds);

/// Makes `comm` the communicator of threads that have none of their own (the
/// MPI backend's process-wide communicator).
void setProcessCurrent(shardrt_comm *comm);

/// Counts a collective `comm`'s rank enters, and injects the fault that
/// SHARDRT_TEST_FAULT="rank=R,collective=K,kind=fail|stall" asks for there
/// (test-only): `fail` fails the world, `stall` waits until the world is
/// aborted. SHARDRT_OK when the collective goes on.
shardrt_status enterCollective(shardrt_comm *comm, const char *what);

} // namespace shardrt

struct shardrt_comm {
  shardrt_comm(int32_t rank, int32_t size) : rank(rank), size(size) {}
  virtual ~shardrt_comm() = default;
  shardrt_comm(const shardrt_comm &) = delete;
  shardrt_comm &operator=(const shardrt_comm &) = delete;

  virtual const char *backendName() const = 0;
  virtual shardrt_status allReduce(const shardrt::AllReduceArgs &args,
                                   const shardrt::Group &group) = 0;
  /// shardrt_all_reduce_start/_done: post `args` and return a request id
  /// (>= 1) in `*request`; finish it. The defaults run the blocking
  /// allReduce in start, so done has nothing left to do.
  virtual shardrt_status allReduceStart(const shardrt::AllReduceArgs &args,
                                        const shardrt::Group &group, int64_t *request) {
    *request = kCompletedRequest;
    return allReduce(args, group);
  }
  virtual shardrt_status allReduceDone(int64_t request) {
    (void)request;
    return SHARDRT_OK;
  }
  /// A request with nothing pending (a group of one, or a backend that
  /// completes in start).
  static constexpr int64_t kCompletedRequest = 0;
  virtual shardrt_status allGather(const shardrt::AllGatherArgs &args,
                                   const shardrt::Group &group) = 0;
  virtual shardrt_status barrier() = 0;
  virtual shardrt_status reduceScatter(const shardrt::ReduceScatterArgs &args,
                                       const shardrt::Group &group) = 0;
  /// shardrt_reduce_scatter_start/_done, as allReduceStart/Done; done gets
  /// back the buffers start was given. The defaults block in start.
  virtual shardrt_status reduceScatterStart(const shardrt::ReduceScatterArgs &args,
                                            const shardrt::Group &group, int64_t *request) {
    *request = kCompletedRequest;
    return reduceScatter(args, group);
  }
  virtual shardrt_status reduceScatterDone(int64_t request, const void *in, void *out) {
    (void)request, (void)in, (void)out;
    return SHARDRT_OK;
  }
  virtual shardrt_status allToAll(const shardrt::AllToAllArgs &args,
                                  const shardrt::Group &group) = 0;
  /// `group` is every rank named in a pair; the caller is a member.
  virtual shardrt_status permute(const shardrt::PermuteArgs &args,
                                 const shardrt::Group &group) = 0;
  /// Records `message` (already prefixed with the rank) as the world's failure
  /// unless an earlier one exists, and releases pending collectives.
  virtual void fail(shardrt_status status, const std::string &message) = 0;
  /// The ranks of this world in the calling process, which may share their
  /// parallel loops (SharedLoops.h).
  virtual int32_t ranksInProcess() const { return 1; }
  /// Wakes this world's waiters that sleep, so that they look for shared
  /// loops to help with (SharedLoops.h).
  virtual void wakeHelpers() {}
  /// shardrt_abort(): a deliberate abort of the whole world.
  virtual void abortWorld(const std::string &message) = 0;
  /// Whether the world has failed; `message` (optional) receives the first
  /// failure.
  virtual bool isAborted(std::string *message) const = 0;

  const int32_t rank;
  const int32_t size;
  /// Collectives this rank has entered (for SHARDRT_TEST_FAULT).
  int64_t collectivesEntered = 0;
};

#endif // SHARDRT_SRC_COMM_H
