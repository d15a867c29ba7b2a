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

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
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
bool alreadyAborted(shardrt_comm *comm, const char *what, shardrt_status *status) {
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
  std::vector<int64_t> firstIndex(static_cast<size_t>(comm.size), -1);
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

} // namespace

const char *collectiveName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::AllGather:
    return "all_gather";
  case CollectiveKind::Barrier:
    return "barrier";
  }
  return "?";
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
    if (count < 0)
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("all_reduce: count is %lld; it must be >= 0", (long long)count));
    if (!isValidDtype(dtype))
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("all_reduce: dtype %d is not a shardrt_dtype", dtype));
    if (!isValidReduceOp(op))
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("all_reduce: op %d is not a shardrt_reduce_op", op));
    if (!buf && count > 0)
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("all_reduce: buf is NULL with count %lld", (long long)count));
    if (count > INT64_MAX / 8)
      return reject(comm, SHARDRT_ERR_ARGUMENT,
                    format("all_reduce: count %lld is too large", (long long)count));
    Group group;
    std::string bad = resolveGroup(*comm, groups, num_groups, group_size, &group);
    if (!bad.empty())
      return reject(comm, SHARDRT_ERR_ARGUMENT, "all_reduce: " + bad);
    if (group.size == 1)
      return SHARDRT_OK;
    return comm->allReduce(AllReduceArgs{buf, count, dtype, op}, group);
  } catch (const std::bad_alloc &) {
    return reject(comm, SHARDRT_ERR_BACKEND, "all_reduce: out of memory");
  }
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

} // extern "C"
