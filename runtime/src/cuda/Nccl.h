// The part of NCCL shardrt calls, as a table of entry points, and how the
// library is found.
//
// Like the driver (Driver.h), NCCL is never linked: its few types and codes
// are NCCL's stable C ABI (nccl.h, 2.x), declared here, and the table is
// filled with dlsym. That keeps the CPU path free of CUDA, and lets unit
// tests install a fake NCCL over the fake driver (tests/runtime/cuda).
//
// Where NCCL comes from, in order (the first that loads wins):
//   1. SHARDRT_NCCL_LIBRARY, a path, when set (and then nothing else: a
//      wrong path is an error, not a silent fallback);
//   2. "libnccl.so.2" from the loader's path (the CUDA toolkit's, a system
//      package's);
//   3. the `nvidia-nccl-cu13` Python wheel, which installs
//      <site-packages>/nvidia/nccl/lib/libnccl.so.2, under $VIRTUAL_ENV,
//      $CONDA_PREFIX, ~/.local, /usr/local and /usr.
// A failure lists every place tried.
#ifndef SHARDRT_SRC_CUDA_NCCL_H
#define SHARDRT_SRC_CUDA_NCCL_H

#include "runtime/src/cuda/Driver.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace shardrt::cuda {

using ncclResult_t = int;
using ncclComm_t = struct ncclComm *;
using ncclDataType_t = int;
using ncclRedOp_t = int;
struct ncclUniqueId {
  char internal[128];
};

inline constexpr ncclResult_t ncclSuccess = 0;
inline constexpr ncclResult_t ncclInProgress = 7;
inline constexpr ncclDataType_t ncclInt8 = 0, ncclUint8 = 1, ncclInt32 = 2, ncclUint32 = 3,
                                ncclInt64 = 4, ncclUint64 = 5, ncclFloat16 = 6, ncclFloat32 = 7, ncclFloat64 = 8,
                                ncclBfloat16 = 9;
inline constexpr ncclRedOp_t ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3;

struct NcclTable {
  ncclResult_t (*getVersion)(int *version);
  const char *(*getErrorString)(ncclResult_t result);
  ncclResult_t (*getUniqueId)(ncclUniqueId *id);
  ncclResult_t (*commInitRank)(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
  // The last argument is an ncclConfig_t *; shardrt passes null (defaults).
  ncclResult_t (*commSplit)(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                            void *config);
  ncclResult_t (*commDestroy)(ncclComm_t comm);
  ncclResult_t (*commAbort)(ncclComm_t comm);
  ncclResult_t (*commGetAsyncError)(ncclComm_t comm, ncclResult_t *error);
  ncclResult_t (*allReduce)(const void *send, void *recv, size_t count, ncclDataType_t type,
                            ncclRedOp_t op, ncclComm_t comm, CUstream stream);
  ncclResult_t (*allGather)(const void *send, void *recv, size_t sendCount, ncclDataType_t type,
                            ncclComm_t comm, CUstream stream);
  ncclResult_t (*reduceScatter)(const void *send, void *recv, size_t recvCount,
                                ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm,
                                CUstream stream);
  ncclResult_t (*send)(const void *buf, size_t count, ncclDataType_t type, int peer,
                       ncclComm_t comm, CUstream stream);
  ncclResult_t (*recv)(void *buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                       CUstream stream);
  ncclResult_t (*groupStart)();
  ncclResult_t (*groupEnd)();
};

/// What looking for NCCL found: a filled table and its version, or every
/// place tried and why each failed.
struct NcclLoad {
  const NcclTable *table = nullptr; // null when not found
  int version = 0;                  // ncclGetVersion: 22809 for 2.28.9
  std::string path;                 // what was loaded
  std::string reason;               // why not found ("" when found)
  std::shared_ptr<const NcclTable> storage; // what `table` points into, when opened
};

/// The places to try, in order, for the given environment values (null or
/// empty when unset): see the top. A set `explicitPath` is the only one.
std::vector<std::string> ncclCandidates(const char *explicitPath, const char *virtualEnv,
                                        const char *condaPrefix, const char *home);

/// Opens the first candidate that loads and has every entry point.
NcclLoad openNccl(const std::vector<std::string> &candidates);

/// The process's NCCL: the injected one if any, else openNccl() of the
/// candidates for this process's environment, looked for once.
const NcclLoad &processNccl();

/// Makes `load` the process's NCCL from now on (tests); null restores the
/// real one (looked for anew on next use).
void injectNcclForTesting(const NcclLoad *load);

/// "unhandled cuda error", or "ncclResult_t 1" when NCCL has no text.
std::string ncclErrorText(const NcclTable &table, ncclResult_t result);

/// "2.28.9" for 22809 (NCCL >= 2.9 numbers versions major*10000 +
/// minor*100 + patch).
std::string ncclVersionText(int version);

} // namespace shardrt::cuda

#endif // SHARDRT_SRC_CUDA_NCCL_H
