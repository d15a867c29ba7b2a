// Collectives on device buffers (shardrt_cuda.h): over NCCL when the rank
// is connected (NcclRank.h), else staged through host memory.
//
// A staged collective waits for the rank's stream (its input is the last
// kernel's output), downloads its input, runs the host collective on the
// rank's current communicator and uploads the result. The host collective
// decides the bits, so staged results equal the CPU backends' exactly.
#include "shardrt_cuda.h"

#include "runtime/src/Error.h"
#include "runtime/src/cuda/NcclRank.h"
#include "runtime/src/cuda/RankDevice.h"

#include <vector>

using shardrt::cuda::NcclRank;
using shardrt::cuda::RankDevice;

namespace {

/// Host copies of a collective's buffers, `in` downloaded on construction.
struct Staged {
  RankDevice *rank = nullptr;
  std::vector<unsigned char> in, out;
  int32_t status = SHARDRT_OK;

  Staged(const char *function, const void *deviceIn, int64_t inBytes, int64_t outBytes) {
    rank = RankDevice::current();
    if (!rank) {
      status = shardrt::fail(SHARDRT_ERR_ARGUMENT,
                             "%s: the calling thread is bound to no GPU (shardrt_cuda_bind)",
                             function);
      return;
    }
    in.resize(static_cast<size_t>(inBytes > 0 ? inBytes : 0));
    out.resize(static_cast<size_t>(outBytes > 0 ? outBytes : 0));
    if (deviceIn)
      status = rank->download(in.data(), deviceIn, inBytes);
  }

  /// Uploads `out` after the host collective returned `collective`.
  int32_t finish(int32_t collective, void *deviceOut, int64_t outBytes) {
    if (collective != SHARDRT_OK)
      return collective;
    return rank->upload(deviceOut, out.data(), outBytes);
  }
};

int64_t bytesOf(int64_t count, int32_t dtype) {
  return count * static_cast<int64_t>(shardrt_dtype_size(dtype));
}

/// The calling rank's NCCL communicators, or null (staged, or unbound:
/// the staged path reports that).
NcclRank *connected() {
  RankDevice *rd = RankDevice::current();
  return rd ? rd->nccl() : nullptr;
}

} // namespace

extern "C" {

int32_t shardrt_cuda_all_reduce(void *buf, int64_t count, int32_t dtype, int32_t op,
                                const int64_t *groups, int64_t num_groups, int64_t group_size) {
  if (NcclRank *nccl = connected())
    return nccl->allReduce(buf, count, dtype, op, groups, num_groups, group_size);
  const int64_t bytes = bytesOf(count, dtype);
  Staged s("shardrt_cuda_all_reduce", buf, bytes, 0);
  if (s.status != SHARDRT_OK)
    return s.status;
  int32_t r = shardrt_all_reduce(s.in.data(), count, dtype, op, groups, num_groups, group_size);
  return r != SHARDRT_OK ? r : s.rank->upload(buf, s.in.data(), bytes);
}

int64_t shardrt_cuda_all_reduce_start(void *buf, int64_t count, int32_t dtype, int32_t op,
                                      const int64_t *groups, int64_t num_groups,
                                      int64_t group_size) {
  // The whole collective runs (or, over NCCL, is enqueued on the rank's
  // stream, which orders it before the work that reads it) here; the
  // request carries its status.
  int32_t r = shardrt_cuda_all_reduce(buf, count, dtype, op, groups, num_groups, group_size);
  return r == SHARDRT_OK ? 0 : -1;
}

int32_t shardrt_cuda_all_reduce_done(int64_t request) {
  if (request >= 0)
    return SHARDRT_OK;
  // The error was recorded when the collective ran; report it again here.
  RankDevice *rank = RankDevice::current();
  return rank && rank->failed() ? rank->report() : SHARDRT_ERR_ABORTED;
}

int32_t shardrt_cuda_all_gather(const void *in, void *out, int64_t outer, int64_t inner,
                                int32_t dtype, const int64_t *groups, int64_t num_groups,
                                int64_t group_size) {
  if (NcclRank *nccl = connected())
    return nccl->allGather(in, out, outer, inner, dtype, groups, num_groups, group_size);
  const int64_t inBytes = bytesOf(outer * inner, dtype), outBytes = inBytes * group_size;
  Staged s("shardrt_cuda_all_gather", in, inBytes, outBytes);
  if (s.status != SHARDRT_OK)
    return s.status;
  return s.finish(shardrt_all_gather(s.in.data(), s.out.data(), outer, inner, dtype, groups,
                                     num_groups, group_size),
                  out, outBytes);
}

int32_t shardrt_cuda_reduce_scatter(const void *in, void *out, int64_t outer, int64_t inner,
                                    int32_t dtype, int32_t op, const int64_t *groups,
                                    int64_t num_groups, int64_t group_size) {
  if (NcclRank *nccl = connected())
    return nccl->reduceScatter(in, out, outer, inner, dtype, op, groups, num_groups, group_size);
  const int64_t outBytes = bytesOf(outer * inner, dtype), inBytes = outBytes * group_size;
  Staged s("shardrt_cuda_reduce_scatter", in, inBytes, outBytes);
  if (s.status != SHARDRT_OK)
    return s.status;
  return s.finish(shardrt_reduce_scatter(s.in.data(), s.out.data(), outer, inner, dtype, op,
                                         groups, num_groups, group_size),
                  out, outBytes);
}

int64_t shardrt_cuda_reduce_scatter_start(const void *in, void *out, int64_t outer,
                                          int64_t inner, int32_t dtype, int32_t op,
                                          const int64_t *groups, int64_t num_groups,
                                          int64_t group_size) {
  // As all_reduce_start: the whole collective runs or is enqueued here.
  int32_t r = shardrt_cuda_reduce_scatter(in, out, outer, inner, dtype, op, groups, num_groups,
                                          group_size);
  return r == SHARDRT_OK ? 0 : -1;
}

int32_t shardrt_cuda_reduce_scatter_done(int64_t request, const void *in, void *out) {
  (void)in, (void)out; // the stream orders the buffers' later uses
  return shardrt_cuda_all_reduce_done(request);
}

int32_t shardrt_cuda_all_to_all(const void *in, void *out, int64_t split_outer,
                                int64_t split_inner, int64_t concat_outer, int64_t concat_inner,
                                int32_t dtype, const int64_t *groups, int64_t num_groups,
                                int64_t group_size) {
  if (NcclRank *nccl = connected())
    return nccl->allToAll(in, out, split_outer, split_inner, concat_outer, concat_inner, dtype,
                          groups, num_groups, group_size);
  const int64_t bytes = bytesOf(split_outer * split_inner * group_size, dtype);
  Staged s("shardrt_cuda_all_to_all", in, bytes, bytes);
  if (s.status != SHARDRT_OK)
    return s.status;
  return s.finish(shardrt_all_to_all(s.in.data(), s.out.data(), split_outer, split_inner,
                                     concat_outer, concat_inner, dtype, groups, num_groups,
                                     group_size),
                  out, bytes);
}

int32_t shardrt_cuda_collective_permute(const void *in, void *out, int64_t count, int32_t dtype,
                                        const int64_t *pairs, int64_t num_pairs) {
  if (NcclRank *nccl = connected())
    return nccl->permute(in, out, count, dtype, pairs, num_pairs);
  const int64_t bytes = bytesOf(count, dtype);
  Staged s("shardrt_cuda_collective_permute", in, bytes, bytes);
  if (s.status != SHARDRT_OK)
    return s.status;
  return s.finish(
      shardrt_collective_permute(s.in.data(), s.out.data(), count, dtype, pairs, num_pairs), out,
      bytes);
}

} // extern "C"
