// The collective entry points of shardrt.h: the current communicator, argument
// validation, group resolution, and dispatch to the communicator's backend.
//
// Invariants: a backend is only called with valid arguments and a group of at
// least two members that contains the caller (see Comm.h).  Every rejected
// call aborts the world as the header promises: the peers of a rank that gave
// up would otherwise wait for it until the timeout.
#include "Comm.h"
#include "Dtype.h"
#include "Error.h"
#include "Reduce.h"
#include "SmallArray.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <new>
#include <vector>

namespace shardrt {
namespace {

thread_local shardrt_comm *tlsCurrent = nullptr;
std::atomic<shardrt_comm *> processCurrent{nullptr};

/// Rejects a call: the message gets the rank prefix, the world is aborted and
/// the status returned.
shardrt_status reject(shardrt_comm *comm, shardrt_status status, const std::string &what) {
  std::string message = format("rank %d: %s", comm->rank, what.c_str());
  comm->fail(status, message);
  setLastError(message);
  return status;
}

/// Returns ABORTED (with a message naming the first failure) when the world
/// has already failed, so later collectives return at once.
/// The gate every collective passes first: a world already aborted, or a
/// fault SHARDRT_TEST_FAULT injects here, ends the call with `*status`.
bool alreadyAborted(shardrt_comm *comm, const char *what, shardrt_status *status) {
  if (shardrt_status s = enterCollective(comm, what); s != SHARDRT_OK) {
    *status = s;
    return true;
  }
  std::string first;
  if (!comm->isAborted(&first))
    return false;
  setLastError(format("rank %d: %s: the world was aborted earlier (%s)", comm->rank, what,
                      first.c_str()));
  *status = SHARDRT_ERR_ABORTED;
  return true;
}

/// Checks `groups` against the world and finds the caller's group.  Returns
/// an empty string on success, else what is wrong.
std::string resolveGroup(const shardrt_comm &comm, const int64_t *groups, int64_t numGroups,
                         int64_t groupSize, Group *out) {
  if (numGroups < 1)
    return format("num_groups is %lld; it must be at least 1", (long long)numGroups);
  if (groupSize < 1)
    return format("group_size is %lld; it must be at least 1", (long long)groupSize);
  if (!groups)
    return "groups is NULL";
  // Ids are distinct ranks of the world, so there can be at most `size`.
  if (numGroups > comm.size || groupSize > comm.size || numGroups * groupSize > comm.size)
    return format("groups lists %lld x %lld = %lld device ids but the world has %d ranks",
                  (long long)numGroups, (long long)groupSize,
                  (long long)(numGroups * groupSize), comm.size);
  int64_t total = numGroups * groupSize;
  // Resolving runs on every collective call.
  SmallArray<int64_t, 64> firstIndex(static_cast<size_t>(comm.size));
  std::fill(firstIndex.data(), firstIndex.data() + comm.size, int64_t(-1));
  int64_t callerIndex = -1;
  for (int64_t i = 0; i < total; ++i) {
    int64_t id = groups[i];
    if (id < 0 || id >= comm.size)
      return format("groups[%lld] = %lld is not a rank of this world (0..%d)", (long long)i,
                    (long long)id, comm.size - 1);
    if (firstIndex[id] >= 0)
      return format("device %lld appears twice in groups (groups[%lld] and groups[%lld])",
                    (long long)id, (long long)firstIndex[id], (long long)i);
    firstIndex[id] = i;
    if (id == comm.rank)
      callerIndex = i;
  }
  if (callerIndex < 0)
    return format("rank %d is in none of the %lld groups %s; every caller must be in one",
                  comm.rank, (long long)numGroups, formatIds(groups, total).c_str());
  out->members = groups + (callerIndex / groupSize) * groupSize;
  out->size = groupSize;
  out->position = callerIndex % groupSize;
  return std::string();
}

/// A reduction's dtype and op checked; OK, or the rejection.
shardrt_status checkDtypeAndOp(shardrt_comm *comm, const char *what, int32_t dtype, int32_t op) {
  if (!isValidDtype(dtype))
    return reject(comm, SHARDRT_ERR_ARGUMENT,
                  format("%s: dtype %d is not a shardrt_dtype", what, dtype));
  if (!isValidReduceOp(op))
    return reject(comm, SHARDRT_ERR_ARGUMENT,
                  format("%s: op %d is not a shardrt_reduce_op", what, op));
  return SHARDRT_OK;
}

/// An all_reduce's arguments checked and the caller's group resolved; OK,
/// or the rejection (the world aborted). `what` names the entry point.
shardrt_status checkAllReduce(shardrt_comm *comm, const char *what, void *buf, int64_t count,
                              int32_t dtype, int32_t op, const int64_t *groups,
                              int64_t num_groups, int64_t group_size, Group *group) {
  if (count < 0)
    return reject(comm, SHARDRT_ERR_ARGUMENT,
                  format("%s: count is %lld; it must be >= 0", what, (long long)count));
  if (shardrt_status s = checkDtypeAndOp(comm, what, dtype, op))
    return s;
  if (!buf && count > 0)
    return reject(comm, SHARDRT_ERR_ARGUMENT,
                  format("%s: buf is NULL with count %lld", what, (long long)count));
  if (count > INT64_MAX / 8)
    return reject(comm, SHARDRT_ERR_ARGUMENT,
                  format("%s: count %lld is too large", what, (long long)count));
  std::string bad = resolveGroup(*comm, groups, num_groups, group_size, group);
  if (!bad.empty())
    return reject(comm, SHARDRT_ERR_ARGUMENT, std::string(what) + ": " + bad);
  return SHARDRT_OK;
}

/// The shared part of the *_done entry points: request 0 has nothing
/// pending, a negative one is a start that failed (and said why; the world
/// is aborted), and `finish(comm)` completes any other. `what` names the
/// entry point.
template <typename Finish>
int32_t finishRequest(const char *what, int64_t request, Finish finish) {
  shardrt_comm *comm = shardrt_current();
  if (!comm)
    return fail(SHARDRT_ERR_ARGUMENT, "%s: the calling thread has no communicator", what);
  if (request == shardrt_comm::kCompletedRequest)
    return SHARDRT_OK;
  if (request < 0) {
    std::string first;
    comm->isAborted(&first);
    return fail(SHARDRT_ERR_ABORTED, "rank %d: %s: its start failed (%s)", comm->rank, what,
                first.c_str());
  }
  try {
    return finish(comm);
  } catch (const std::bad_alloc &) {
    return reject(comm, SHARDRT_ERR_BACKEND, std::string(what) + ": out of memory");
  }
}

} // namespace

const char *collectiveName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::AllGather:
    return "all_gather";
  case CollectiveKind::Barrier:
    return "barrier";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter";
  case CollectiveKind::AllToAll:
    return "all_to_all";
  case CollectiveKind::Permute:
    return "collective_permute";
  }
  return "?";
}

void copyPiece(const void *src, int64_t splitOuter, int64_t splitInner, int64_t from, void *dst,
               int64_t concatOuter, int64_t concatInner, int64_t to, int64_t n,
               size_t elementSize) {
  (void)concatOuter;
  const int64_t total = splitOuter * splitInner;
  if (total == 0 || splitInner == 0 || concatInner == 0)
    return;
  const char *s = static_cast<const char *>(src);
  char *d = static_cast<char *>(dst);
  for (int64_t k = 0; k < total;) {
    const int64_t so = k / splitInner, si = k % splitInner;
    const int64_t co = k / concatInner, ci = k % concatInner;
    const int64_t run = std::min(splitInner - si, concatInner - ci);
    std::memcpy(d + ((co * n + to) * concatInner + ci) * elementSize,
                s + ((so * n + from) * splitInner + si) * elementSize,
                static_cast<size_t>(run) * elementSize);
    k += run;
  }
}

shardrt_status readTimeoutSeconds(double *seconds) {
  *seconds = 300.0;
  const char *text = std::getenv("SHARDRT_TIMEOUT_S");
  if (!text || !*text)
    return SHARDRT_OK;
  errno = 0;
  char *end = nullptr;
  double v = std::strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !std::isfinite(v) || v <= 0)
    return fail(SHARDRT_ERR_ARGUMENT,
                "SHARDRT_TIMEOUT_S='%s' is not a positive number of seconds", text);
  *seconds = v;
  return SHARDRT_OK;
}

void setProcessCurrent(shardrt_comm *comm) { processCurrent.store(comm); }

namespace {
/// A fault SHARDRT_TEST_FAULT asks for: rank `rank`'s collective number
/// `collective` (0-based, every collective that rank enters counts) fails
/// or stalls.
struct TestFault {
  int64_t rank = -1, collective = -1;
  enum class Kind { None, Fail, Stall } kind = Kind::None;
};

/// Parses SHARDRT_TEST_FAULT="rank=R,collective=K,kind=fail|stall" once.
/// A test-only hook (docs/design.md, "Runtime model"); a malformed value is
/// reported on stderr and ignored, never a fault of its own.
const TestFault &testFault() {
  static const TestFault fault = [] {
    TestFault f;
    const char *text = std::getenv("SHARDRT_TEST_FAULT");
    if (!text || !*text)
      return f;
    long long rank = -1, collective = -1;
    char kind[16] = {0};
    if (std::sscanf(text, "rank=%lld,collective=%lld,kind=%15s", &rank, &collective, kind) != 3 ||
        rank < 0 || collective < 0 ||
        (std::strcmp(kind, "fail") != 0 && std::strcmp(kind, "stall") != 0)) {
      std::fprintf(stderr, "shardrt: ignoring SHARDRT_TEST_FAULT='%s' (expected "
                           "rank=R,collective=K,kind=fail|stall)\n", text);
      return f;
    }
    f.rank = rank;
    f.collective = collective;
    f.kind = std::strcmp(kind, "fail") == 0 ? TestFault::Kind::Fail : TestFault::Kind::Stall;
    return f;
  }();
  return fault;
}
} // namespace

shardrt_status enterCollective(shardrt_comm *comm, const char *what) {
  const TestFault &f = testFault();
  int64_t index = comm->collectivesEntered++;
  if (f.kind == TestFault::Kind::None || comm->rank != f.rank || index != f.collective)
    return SHARDRT_OK;
  std::string message =
      format("rank %d: injected fault in collective #%lld (%s)", comm->rank,
             static_cast<long long>(index), what);
  if (f.kind == TestFault::Kind::Fail) {
    setLastError(message);
    comm->fail(SHARDRT_ERR_ABORTED, message);
    return SHARDRT_ERR_ABORTED;
  }
  // A stalled peer: never arrives. Threads: this rank waits until the
  // others time out and abort the world; MPI: the process stops here, as
  // one stopped with SIGSTOP would, until the job is aborted.
  std::fprintf(stderr, "shardrt: %s: stalling\n", message.c_str());
  while (!comm->isAborted(nullptr))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return SHARDRT_ERR_ABORTED;
}

} // namespace shardrt

using namespace shardrt;

extern "C" {

int32_t shardrt_comm_rank(const shardrt_comm *comm) { return comm ? comm->rank : -1; }
int32_t shardrt_comm_size(const shardrt_comm *comm) { return comm ? comm->size : -1; }

shardrt_comm *shardrt_current(void) {
  return tlsCurrent ? tlsCurrent : processCurrent.load();
}

void shardrt_set_current(shardrt_comm *comm) { tlsCurrent = comm; }

void shardrt_abort(shardrt_comm *comm, const char *message) {
  if (!comm)
    comm = shardrt_current();
  if (!comm) {
    fail(SHARDRT_ERR_ARGUMENT, "shardrt_abort: no communicator (%s)",
         message ? message : "no message");
    return;
  }
  std::string text = format("rank %d: %s", comm->rank,
                            message && *message ? message : "aborted by shardrt_abort");
  setLastError(text);
  comm->abortWorld(text);
}

int64_t shardrt_rank(void) {
  shardrt_comm *comm = shardrt_current();
  if (!comm) {
    fail(SHARDRT_ERR_ARGUMENT, "shardrt_rank: the calling thread has no communicator");
    return -1;
  }
  return comm->rank;
}

int32_t shardrt_all_reduce_on(shardrt_comm *comm, void *buf, int64_t count, int32_t dtype,
                              int32_t op, const int64_t *groups, int64_t num_groups,
                              int64_t group_size) {
  if (!comm)
    return fail(SHARDRT_ERR_ARGUMENT,
                "all_reduce: no communicator (call it from a rank, or use the _on variant)");
  shardrt_status status;
  if (alreadyAborted(comm, "all_reduce", &status))
    return status;
  try {
    Group group;
    if (shardrt_status s = checkAllReduce(comm, "all_reduce", buf, count, dtype, op, groups,
                                          num_groups, group_size, &group))
      return s;
    if (group.size == 1)
      return SHARDRT_OK;
    return comm->allReduce(AllReduceArgs{buf, count, dtype, op}, group);
  } catch (const std::bad_alloc &) {
    return reject(comm, SHARDRT_ERR_BACKEND, "all_reduce: out of memory");
  }
}

int64_t shardrt_all_reduce_start(void *buf, int64_t count, int32_t dtype, int32_t op,
                                 const int64_t *groups, int64_t num_groups,
                                 int64_t group_size) {
  shardrt_comm *comm = shardrt_current();
  if (!comm) {
    fail(SHARDRT_ERR_ARGUMENT, "all_reduce_start: the calling thread has no communicator");
    return -1;
  }
  shardrt_status status;
  if (alreadyAborted(comm, "all_reduce_start", &status))
    return -1;
  try {
    Group group;
    if (checkAllReduce(comm, "all_reduce_start", buf, count, dtype, op, groups, num_groups,
                       group_size, &group))
      return -1;
    if (group.size == 1)
      return shardrt_comm::kCompletedRequest;
    int64_t request = -1;
    if (comm->allReduceStart(AllReduceArgs{buf, count, dtype, op}, group, &request))
      return -1;
    return request;
  } catch (const std::bad_alloc &) {
    reject(comm, SHARDRT_ERR_BACKEND, "all_reduce_start: out of memory");
    return -1;
  }
}

int32_t shardrt_all_reduce_done(int64_t request) {
  return finishRequest("all_reduce_done", request,
                       [&](shardrt_comm *comm) { return comm->allReduceDone(request); });
}

int32_t shardrt_all_gather_on(shardrt_comm *comm, const void *in, void *out, int64_t outer,
                              int64_t inner, int32_t dtype, const int64_t *groups,
                              int64_t num_groups, int64_t group_size) {
  if (!comm)
    return fail(SHARDRT_ERR_ARGUMENT,
                "all_gather: no communicator (call it from a rank, or use the _on variant)");
  shardrt_status status;
  if (alreadyAborted(comm, "all_gather", &status))
    return status;
  try {
    if (outer < 0 || inner < 0)
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("all_gather: outer = %lld and inner = %lld must both be >= 0",
                           (long long)outer, (long long)inner));
    if (!isValidDtype(dtype))
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("all_gather: dtype %d is not a shardrt_dtype", dtype));
    Group group;
    std::string bad = resolveGroup(*comm, groups, num_groups, group_size, &group);
    if (!bad.empty())
      return reject(comm, SHARDRT_ERR_ARGUMENT, "all_gather: " + bad);
    int64_t bytes = 0;
    if (__builtin_mul_overflow(outer, inner, &bytes) ||
        __builtin_mul_overflow(bytes, static_cast<int64_t>(shardrt_dtype_size(dtype)), &bytes) ||
        __builtin_mul_overflow(bytes, group.size, &bytes))
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("all_gather: outer %lld x inner %lld x group %lld elements overflow",
                           (long long)outer, (long long)inner, (long long)group.size));
    if (bytes > 0 && (!in || !out))
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("all_gather: %s is NULL with outer %lld and inner %lld",
                           !in ? "in" : "out", (long long)outer, (long long)inner));
    if (group.size == 1) {
      if (bytes > 0 && in != out)
        std::memmove(out, in, static_cast<size_t>(bytes));
      return SHARDRT_OK;
    }
    return comm->allGather(AllGatherArgs{in, out, outer, inner, dtype}, group);
  } catch (const std::bad_alloc &) {
    return reject(comm, SHARDRT_ERR_BACKEND, "all_gather: out of memory");
  }
}

int32_t shardrt_barrier_on(shardrt_comm *comm) {
  if (!comm)
    return fail(SHARDRT_ERR_ARGUMENT, "barrier: no communicator");
  shardrt_status status;
  if (alreadyAborted(comm, "barrier", &status))
    return status;
  if (comm->size == 1)
    return SHARDRT_OK;
  try {
    return comm->barrier();
  } catch (const std::bad_alloc &) {
    return reject(comm, SHARDRT_ERR_BACKEND, "barrier: out of memory");
  }
}

int32_t shardrt_all_reduce(void *buf, int64_t count, int32_t dtype, int32_t op,
                           const int64_t *groups, int64_t num_groups, int64_t group_size) {
  return shardrt_all_reduce_on(shardrt_current(), buf, count, dtype, op, groups, num_groups,
                               group_size);
}

int32_t shardrt_all_gather(const void *in, void *out, int64_t outer, int64_t inner,
                           int32_t dtype, const int64_t *groups, int64_t num_groups,
                           int64_t group_size) {
  return shardrt_all_gather_on(shardrt_current(), in, out, outer, inner, dtype, groups,
                               num_groups, group_size);
}

/// Shared checks of the collectives that read `in` and write `out` with
/// element counts `elemsIn` / `elemsOut` (already overflow-checked by the
/// caller): NULL buffers are only allowed when there is nothing to move.
static int32_t checkBuffers(shardrt_comm *comm, const char *what, const void *in, void *out,
                            int64_t bytesIn, int64_t bytesOut) {
  if ((bytesIn > 0 && !in) || (bytesOut > 0 && !out))
    return reject(comm, SHARDRT_ERR_ARGUMENT,
                  format("%s: %s is NULL with %lld bytes to move", what, !in ? "in" : "out",
                         (long long)(!in ? bytesIn : bytesOut)));
  return SHARDRT_OK;
}

/// A reduce_scatter's arguments checked and the caller's group resolved.
/// A group of one copies `in` to `out` here and sets `*done`.
static int32_t prepareReduceScatter(shardrt_comm *comm, const char *what, const void *in,
                                    void *out, int64_t outer, int64_t inner, int32_t dtype,
                                    int32_t op, const int64_t *groups, int64_t num_groups,
                                    int64_t group_size, Group *group, bool *done) {
  if (outer < 0 || inner < 0)
    return reject(comm, SHARDRT_ERR_ARGUMENT,
                  format("%s: outer = %lld and inner = %lld must both be >= 0", what,
                         (long long)outer, (long long)inner));
  if (shardrt_status s = checkDtypeAndOp(comm, what, dtype, op))
    return s;
  std::string bad = resolveGroup(*comm, groups, num_groups, group_size, group);
  if (!bad.empty())
    return reject(comm, SHARDRT_ERR_ARGUMENT, std::string(what) + ": " + bad);
  int64_t bytesOut = 0, bytesIn = 0;
  if (__builtin_mul_overflow(outer, inner, &bytesOut) ||
      __builtin_mul_overflow(bytesOut, static_cast<int64_t>(shardrt_dtype_size(dtype)),
                             &bytesOut) ||
      __builtin_mul_overflow(bytesOut, group->size, &bytesIn))
    return reject(comm, SHARDRT_ERR_ARGUMENT,
                  format("%s: outer %lld x inner %lld x group %lld overflow", what,
                         (long long)outer, (long long)inner, (long long)group->size));
  if (int32_t s = checkBuffers(comm, what, in, out, bytesIn, bytesOut))
    return s;
  if (group->size == 1) {
    if (bytesOut > 0)
      std::memmove(out, in, static_cast<size_t>(bytesOut));
    *done = true;
  }
  return SHARDRT_OK;
}

int32_t shardrt_reduce_scatter_on(shardrt_comm *comm, const void *in, void *out, int64_t outer,
                                  int64_t inner, int32_t dtype, int32_t op,
                                  const int64_t *groups, int64_t num_groups,
                                  int64_t group_size) {
  const char *what = "reduce_scatter";
  if (!comm)
    return fail(SHARDRT_ERR_ARGUMENT,
                "reduce_scatter: no communicator (call it from a rank, or use the _on variant)");
  shardrt_status status;
  if (alreadyAborted(comm, what, &status))
    return status;
  try {
    Group group;
    bool done = false;
    if (int32_t s = prepareReduceScatter(comm, what, in, out, outer, inner, dtype, op, groups,
                                         num_groups, group_size, &group, &done))
      return s;
    if (done)
      return SHARDRT_OK;
    return comm->reduceScatter(ReduceScatterArgs{in, out, outer, inner, dtype, op}, group);
  } catch (const std::bad_alloc &) {
    return reject(comm, SHARDRT_ERR_BACKEND, "reduce_scatter: out of memory");
  }
}

int64_t shardrt_reduce_scatter_start(const void *in, void *out, int64_t outer, int64_t inner,
                                     int32_t dtype, int32_t op, const int64_t *groups,
                                     int64_t num_groups, int64_t group_size) {
  const char *what = "reduce_scatter_start";
  shardrt_comm *comm = shardrt_current();
  if (!comm) {
    fail(SHARDRT_ERR_ARGUMENT, "reduce_scatter_start: the calling thread has no communicator");
    return -1;
  }
  shardrt_status status;
  if (alreadyAborted(comm, what, &status))
    return -1;
  try {
    Group group;
    bool done = false;
    if (prepareReduceScatter(comm, what, in, out, outer, inner, dtype, op, groups, num_groups,
                             group_size, &group, &done))
      return -1;
    if (done)
      return shardrt_comm::kCompletedRequest;
    int64_t request = -1;
    if (comm->reduceScatterStart(ReduceScatterArgs{in, out, outer, inner, dtype, op}, group,
                                 &request))
      return -1;
    return request;
  } catch (const std::bad_alloc &) {
    reject(comm, SHARDRT_ERR_BACKEND, "reduce_scatter_start: out of memory");
    return -1;
  }
}

int32_t shardrt_reduce_scatter_done(int64_t request, const void *in, void *out) {
  return finishRequest("reduce_scatter_done", request, [&](shardrt_comm *comm) {
    return comm->reduceScatterDone(request, in, out);
  });
}

int32_t shardrt_all_to_all_on(shardrt_comm *comm, const void *in, void *out,
                              int64_t split_outer, int64_t split_inner, int64_t concat_outer,
                              int64_t concat_inner, int32_t dtype, const int64_t *groups,
                              int64_t num_groups, int64_t group_size) {
  const char *what = "all_to_all";
  if (!comm)
    return fail(SHARDRT_ERR_ARGUMENT,
                "all_to_all: no communicator (call it from a rank, or use the _on variant)");
  shardrt_status status;
  if (alreadyAborted(comm, what, &status))
    return status;
  try {
    if (split_outer < 0 || split_inner < 0 || concat_outer < 0 || concat_inner < 0)
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("all_to_all: split %lld x %lld and concat %lld x %lld must be >= 0",
                           (long long)split_outer, (long long)split_inner,
                           (long long)concat_outer, (long long)concat_inner));
    if (!isValidDtype(dtype))
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("all_to_all: dtype %d is not a shardrt_dtype", dtype));
    Group group;
    std::string bad = resolveGroup(*comm, groups, num_groups, group_size, &group);
    if (!bad.empty())
      return reject(comm, SHARDRT_ERR_ARGUMENT, std::string(what) + ": " + bad);
    int64_t piece = 0, other = 0, bytes = 0;
    if (__builtin_mul_overflow(split_outer, split_inner, &piece) ||
        __builtin_mul_overflow(concat_outer, concat_inner, &other) ||
        __builtin_mul_overflow(piece, static_cast<int64_t>(shardrt_dtype_size(dtype)), &bytes) ||
        __builtin_mul_overflow(bytes, group.size, &bytes))
      return reject(comm, SHARDRT_ERR_ARGUMENT, "all_to_all: the buffer sizes overflow");
    if (piece != other)
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("all_to_all: a piece is split_outer %lld x split_inner %lld = %lld "
                           "elements but concat_outer %lld x concat_inner %lld = %lld",
                           (long long)split_outer, (long long)split_inner, (long long)piece,
                           (long long)concat_outer, (long long)concat_inner, (long long)other));
    if (int32_t s = checkBuffers(comm, what, in, out, bytes, bytes))
      return s;
    if (group.size == 1) {
      copyPiece(in, split_outer, split_inner, 0, out, concat_outer, concat_inner, 0, 1,
                shardrt_dtype_size(dtype));
      return SHARDRT_OK;
    }
    return comm->allToAll(AllToAllArgs{in, out, split_outer, split_inner, concat_outer,
                                       concat_inner, dtype},
                          group);
  } catch (const std::bad_alloc &) {
    return reject(comm, SHARDRT_ERR_BACKEND, "all_to_all: out of memory");
  }
}

int32_t shardrt_collective_permute_on(shardrt_comm *comm, const void *in, void *out,
                                      int64_t count, int32_t dtype, const int64_t *pairs,
                                      int64_t num_pairs) {
  const char *what = "collective_permute";
  if (!comm)
    return fail(SHARDRT_ERR_ARGUMENT, "collective_permute: no communicator (call it from a "
                                      "rank, or use the _on variant)");
  shardrt_status status;
  if (alreadyAborted(comm, what, &status))
    return status;
  try {
    if (count < 0)
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("collective_permute: count is %lld; it must be >= 0",
                           (long long)count));
    if (!isValidDtype(dtype))
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("collective_permute: dtype %d is not a shardrt_dtype", dtype));
    if (num_pairs < 1 || num_pairs > comm->size)
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("collective_permute: num_pairs is %lld; it must be in 1..%d",
                           (long long)num_pairs, comm->size));
    if (!pairs)
      return reject(comm, SHARDRT_ERR_ARGUMENT, "collective_permute: pairs is NULL");
    int64_t bytes = 0;
    if (__builtin_mul_overflow(count, static_cast<int64_t>(shardrt_dtype_size(dtype)), &bytes))
      return reject(comm, SHARDRT_ERR_ARGUMENT, "collective_permute: count overflows");
    if (int32_t s = checkBuffers(comm, what, in, out, bytes, bytes))
      return s;
    std::vector<char> isSource(comm->size, 0), isTarget(comm->size, 0), member(comm->size, 0);
    int64_t source = -1, target = -1;
    uint64_t hash = 1469598103934665603ull; // FNV-1a over the pairs
    for (int64_t k = 0; k < 2 * num_pairs; ++k) {
      int64_t id = pairs[k];
      if (id < 0 || id >= comm->size)
        return reject(comm, SHARDRT_ERR_ARGUMENT,
                      format("collective_permute: pairs[%lld] = %lld is not a rank of this "
                             "world (0..%d)",
                             (long long)k, (long long)id, comm->size - 1));
      std::vector<char> &seen = k % 2 == 0 ? isSource : isTarget;
      if (seen[id])
        return reject(comm, SHARDRT_ERR_ARGUMENT,
                      format("collective_permute: rank %lld is a %s in two pairs", (long long)id,
                             k % 2 == 0 ? "source" : "target"));
      seen[id] = 1;
      member[id] = 1;
      hash = (hash ^ static_cast<uint64_t>(id)) * 1099511628211ull;
    }
    for (int64_t k = 0; k < num_pairs; ++k) {
      if (pairs[2 * k + 1] == comm->rank)
        source = pairs[2 * k];
      if (pairs[2 * k] == comm->rank)
        target = pairs[2 * k + 1];
    }
    if (!member[comm->rank]) {
      if (bytes > 0)
        std::memset(out, 0, static_cast<size_t>(bytes));
      return SHARDRT_OK;
    }
    if (source == comm->rank && target == comm->rank) {
      if (bytes > 0)
        std::memmove(out, in, static_cast<size_t>(bytes));
      return SHARDRT_OK;
    }
    // The group: every rank named in a pair, ascending; peers as positions.
    // A rank whose only pair is (r, r) copies locally and joins nothing.
    std::vector<int64_t> members;
    for (int64_t k = 0; k < num_pairs; ++k)
      if (pairs[2 * k] == pairs[2 * k + 1])
        member[pairs[2 * k]] = 0;
    for (int32_t r = 0; r < comm->size; ++r)
      if (member[r])
        members.push_back(r);
    auto position = [&](int64_t id) {
      return id < 0 ? int64_t(-1)
                    : int64_t(std::lower_bound(members.begin(), members.end(), id) -
                              members.begin());
    };
    Group group{members.data(), static_cast<int64_t>(members.size()), position(comm->rank)};
    PermuteArgs args{in, out, count, dtype, position(source), position(target), hash};
    return comm->permute(args, group);
  } catch (const std::bad_alloc &) {
    return reject(comm, SHARDRT_ERR_BACKEND, "collective_permute: out of memory");
  }
}

int32_t shardrt_reduce_scatter(const void *in, void *out, int64_t outer, int64_t inner,
                               int32_t dtype, int32_t op, const int64_t *groups,
                               int64_t num_groups, int64_t group_size) {
  return shardrt_reduce_scatter_on(shardrt_current(), in, out, outer, inner, dtype, op, groups,
                                   num_groups, group_size);
}

int32_t shardrt_all_to_all(const void *in, void *out, int64_t split_outer, int64_t split_inner,
                           int64_t concat_outer, int64_t concat_inner, int32_t dtype,
                           const int64_t *groups, int64_t num_groups, int64_t group_size) {
  return shardrt_all_to_all_on(shardrt_current(), in, out, split_outer, split_inner,
                               concat_outer, concat_inner, dtype, groups, num_groups,
                               group_size);
}

int32_t shardrt_collective_permute(const void *in, void *out, int64_t count, int32_t dtype,
                                   const int64_t *pairs, int64_t num_pairs) {
  return shardrt_collective_permute_on(shardrt_current(), in, out, count, dtype, pairs,
                                       num_pairs);
}

} // extern "C"
