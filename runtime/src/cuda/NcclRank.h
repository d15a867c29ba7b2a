// A rank's NCCL communicators and the collectives it runs on them.
//
// Made by shardrt_cuda_connect() (shardrt_cuda.h) when every rank of the
// world has a GPU of its own and NCCL loads. It holds the world
// communicator, and one communicator per device-group table the program
// passes, split from the world (color: the group holding the rank; key: its
// position in the group) at the table's first use. SPMD programs make every
// collective call on every rank in the same order, so every rank reaches
// that first use, and the split (a collective over the world) meets.
//
// Every NCCL call goes on the rank's stream, so it is ordered with the
// kernels that produce and consume its buffers and never blocks the host;
// the next synchronizing call (a download, shardrt_cuda_synchronize) waits
// for it. The layouts shardrt's collectives use and NCCL's differ only in
// where each member's piece sits; 2-D copies on the stream, through a
// scratch block of the rank's allocator, reconcile them.
//
// NCCL reduces each element once and broadcasts it, so every member gets
// the same bits and replicas stay exact; its order is not the threads
// backend's, so results differ from the CPU backends' in the last bits.
#ifndef SHARDRT_SRC_CUDA_NCCLRANK_H
#define SHARDRT_SRC_CUDA_NCCLRANK_H

#include "runtime/src/cuda/Nccl.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace shardrt::cuda {

class RankDevice;

class NcclRank {
public:
  /// Joins the world communicator as `rank` of `size` with the shared `id`;
  /// null, with `error` saying why, when NCCL refuses.
  static NcclRank *join(RankDevice &rd, const NcclLoad &nccl, const ncclUniqueId &id, int size,
                        int rank, std::string &error);
  ~NcclRank();

  int32_t allReduce(void *buf, int64_t count, int32_t dtype, int32_t op, const int64_t *groups,
                    int64_t numGroups, int64_t groupSize);
  int32_t allGather(const void *in, void *out, int64_t outer, int64_t inner, int32_t dtype,
                    const int64_t *groups, int64_t numGroups, int64_t groupSize);
  int32_t reduceScatter(const void *in, void *out, int64_t outer, int64_t inner, int32_t dtype,
                        int32_t op, const int64_t *groups, int64_t numGroups, int64_t groupSize);
  int32_t allToAll(const void *in, void *out, int64_t splitOuter, int64_t splitInner,
                   int64_t concatOuter, int64_t concatInner, int32_t dtype,
                   const int64_t *groups, int64_t numGroups, int64_t groupSize);
  int32_t permute(const void *in, void *out, int64_t count, int32_t dtype, const int64_t *pairs,
                  int64_t numPairs);

  /// A communicator's asynchronous error, as "ncclCommGetAsyncError: <text>";
  /// "" while there is none.
  std::string asyncError() const;
  /// Aborts every communicator of the rank (the watchdog: a timeout, an
  /// aborted world), so that NCCL work on the stream finishes with an error
  /// instead of waiting for peers forever. Idempotent.
  void abortAll();
  /// "NCCL 2.28.9".
  std::string describe() const;

private:
  NcclRank(RankDevice &rd, const NcclTable &nccl, int version, int size, int rank)
      : rd(rd), nccl(nccl), version(version), size(size), rank(rank) {}
  /// The communicator of the caller's group in `groups`; null with `rd`
  /// failed when the rank is in no group or a split fails.
  ncclComm_t commFor(const char *collective, const int64_t *groups, int64_t numGroups,
                     int64_t groupSize);
  /// What every group collective does first: the rank not failed, `dtype`
  /// and `op` valid, the group's communicator; null (`rd` failed) if not.
  ncclComm_t begin(const char *collective, int32_t dtype, int32_t op, const int64_t *groups,
                   int64_t numGroups, int64_t groupSize);
  /// Fails `rd` when `dtype` or `op` is not one of shardrt's.
  int32_t validate(const char *collective, int32_t dtype, int32_t op = 0);
  /// Fails `rd` naming `call` when `result` is not ncclSuccess.
  int32_t check(const char *call, ncclResult_t result);
  /// Between shardrt's interleaved layout [rows, members * width] and
  /// NCCL's blocked one [members, rows, width] (`width` in bytes), by 2-D
  /// copies on the stream.
  int32_t toBlocks(void *blocked, const void *interleaved, int64_t members, int64_t rows,
                   int64_t width);
  int32_t fromBlocks(void *interleaved, const void *blocked, int64_t members, int64_t rows,
                     int64_t width);

  RankDevice &rd;
  const NcclTable &nccl;
  const int version, size, rank;
  ncclComm_t world = nullptr;
  std::map<std::vector<int64_t>, ncclComm_t> split; // by device-group table
  bool aborted = false;
};

} // namespace shardrt::cuda

#endif // SHARDRT_SRC_CUDA_NCCLRANK_H
