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

enum class CollectiveKind { AllReduce, AllGather, Barrier };
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

/// The collective timeout in seconds, from env SHARDRT_TIMEOUT_S (default
/// 300).  A value that is not a positive number is an error, not a silent
/// fallback to the default.
shardrt_status readTimeoutSeconds(double *seconds);

/// Makes `comm` the communicator of threads that have none of their own (the
/// MPI backend's process-wide communicator).
void setProcessCurrent(shardrt_comm *comm);

} // namespace shardrt

struct shardrt_comm {
  shardrt_comm(int32_t rank, int32_t size) : rank(rank), size(size) {}
  virtual ~shardrt_comm() = default;
  shardrt_comm(const shardrt_comm &) = delete;
  shardrt_comm &operator=(const shardrt_comm &) = delete;

  virtual const char *backendName() const = 0;
  virtual shardrt_status allReduce(const shardrt::AllReduceArgs &args,
                                   const shardrt::Group &group) = 0;
  virtual shardrt_status allGather(const shardrt::AllGatherArgs &args,
                                   const shardrt::Group &group) = 0;
  virtual shardrt_status barrier() = 0;
  /// Records `message` (already prefixed with the rank) as the world's failure
  /// unless an earlier one exists, and releases pending collectives.
  virtual void fail(shardrt_status status, const std::string &message) = 0;
  /// shardrt_abort(): a deliberate abort of the whole world.
  virtual void abortWorld(const std::string &message) = 0;
  /// Whether the world has failed; `message` (optional) receives the first
  /// failure.
  virtual bool isAborted(std::string *message) const = 0;

  const int32_t rank;
  const int32_t size;
};

#endif // SHARDRT_SRC_COMM_H
