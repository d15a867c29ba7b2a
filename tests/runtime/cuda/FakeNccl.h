// An NCCL in host memory, over the fake driver, for the runtime's unit tests.
//
// It fills shardrt's NCCL table (runtime/src/cuda/Nccl.h) with functions
// that keep NCCL's own semantics, written here from NCCL's documentation
// and not from shardrt's host collectives, so that a wrong mapping (a type,
// an operator, where a member's piece sits) shows as a wrong value:
// ncclAllGather concatenates members' buffers in rank order, ncclReduceScatter
// gives member m block m, ncclSend/ncclRecv pair up inside
// ncclGroupStart/End, reductions follow the NCCL type (uint8 sums wrap).
// Each communicator's members are threads; a collective returns once its
// members have all called it (the fake driver's streams run work as it is
// enqueued). Tests script failures and read the calls made.
#ifndef SHARDRT_TESTS_CUDA_FAKENCCL_H
#define SHARDRT_TESTS_CUDA_FAKENCCL_H

#include "runtime/src/cuda/Nccl.h"

namespace shardrt_test {

struct FakeNcclCalls {
  int initRank = 0, split = 0, allReduce = 0, allGather = 0, reduceScatter = 0, send = 0,
      recv = 0, destroy = 0, abort = 0;
};

/// Calls made since the guard was made.
FakeNcclCalls fakeNcclCalls();
/// The next ncclAllReduce returns `result` (without meeting its peers).
void failNextAllReduce(int result);
/// Every ncclCommInitRank from now on returns `result` (0: none).
void failInitRank(int result);
/// ncclCommGetAsyncError reports `result` from now on (0: none).
void setNcclAsyncError(int result);

/// Installs the fake as the process's NCCL until the guard dies.
class FakeNcclGuard {
public:
  FakeNcclGuard();
  ~FakeNcclGuard();

private:
  shardrt::cuda::NcclLoad loadInfo;
};

} // namespace shardrt_test

#endif // SHARDRT_TESTS_CUDA_FAKENCCL_H
