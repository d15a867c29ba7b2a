// shardrt_cuda_connect(): choosing between NCCL and staged collectives, and
// joining the NCCL world (shardrt_cuda.h).
//
// Every step is a collective over the rank's host communicator, so all
// ranks decide alike: whether each has a GPU of its own, whether NCCL
// loaded on every rank, and then the unique id, which rank 0 makes and the
// others receive through an all-reduce (a sum with zeros) on the host
// communicator: threads in one process, MPI across processes.
#include "shardrt_cuda.h"

#include "runtime/src/Error.h"
#include "runtime/src/cuda/NcclRank.h"
#include "runtime/src/cuda/RankDevice.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using shardrt::format;
using shardrt::cuda::NcclLoad;
using shardrt::cuda::NcclRank;
using shardrt::cuda::ncclSuccess;
using shardrt::cuda::ncclUniqueId;
using shardrt::cuda::RankDevice;

namespace {

/// Why this rank cannot use NCCL ("" when it can), given `users[d]`, the
/// number of ranks on GPU d.
std::string localReason(const NcclLoad &nccl, const std::vector<int32_t> &users, int size) {
  int gpus = 0;
  bool shared = false;
  for (int32_t u : users) {
    gpus += u > 0;
    shared |= u > 1;
  }
  if (shared)
    return format("%d ranks on %d GPU%s (NCCL needs one GPU per rank)", size, gpus,
                  gpus == 1 ? "" : "s");
  const char *env = std::getenv("SHARDRT_NCCL");
  if (env && std::strcmp(env, "0") == 0)
    return "NCCL turned off (SHARDRT_NCCL=0)";
  if (!nccl.table)
    return nccl.reason;
  return "";
}

} // namespace

extern "C" {

shardrt_status shardrt_cuda_connect(void) {
  RankDevice *rd = RankDevice::current();
  if (!rd)
    return shardrt::fail(SHARDRT_ERR_ARGUMENT,
                         "shardrt_cuda_connect: the calling thread is bound to no GPU "
                         "(shardrt_cuda_bind)");
  if (rd->nccl())
    return SHARDRT_OK;
  shardrt_comm *comm = shardrt_current();
  const int size = comm ? shardrt_comm_size(comm) : 1;
  const int rank = comm ? shardrt_comm_rank(comm) : 0;
  std::vector<int64_t> world(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i)
    world[static_cast<size_t>(i)] = i;
  auto agree = [&](void *buf, int64_t count, int32_t op) -> int32_t {
    return comm ? shardrt_all_reduce_on(comm, buf, count, SHARDRT_I32, op, world.data(), 1, size)
                : SHARDRT_OK;
  };

  std::vector<int32_t> users(static_cast<size_t>(shardrt_cuda_device_count()), 0);
  users.at(static_cast<size_t>(rd->deviceOrdinal())) = 1;
  if (int32_t s = agree(users.data(), static_cast<int64_t>(users.size()), SHARDRT_SUM))
    return static_cast<shardrt_status>(s);
  const NcclLoad &nccl = shardrt::cuda::processNccl();
  const std::string why = localReason(nccl, users, size);
  int32_t everyRank = why.empty() ? 1 : 0;
  if (int32_t s = agree(&everyRank, 1, SHARDRT_MIN))
    return static_cast<shardrt_status>(s);
  if (!everyRank) {
    rd->setCollectives("staged through host memory: " +
                       (why.empty() ? std::string("NCCL is not usable on another rank") : why));
    return SHARDRT_OK;
  }

  // The id, and whether rank 0 could make one, in one exchange.
  constexpr int kIdWords = sizeof(ncclUniqueId) / sizeof(int32_t);
  int32_t words[kIdWords + 1] = {0};
  std::string idError;
  if (rank == 0) {
    ncclUniqueId id{};
    int r = nccl.table->getUniqueId(&id);
    if (r == ncclSuccess)
      std::memcpy(words, &id, sizeof(id));
    else {
      words[kIdWords] = 1;
      idError = shardrt::cuda::ncclErrorText(*nccl.table, r);
    }
  }
  if (int32_t s = agree(words, kIdWords + 1, SHARDRT_SUM))
    return static_cast<shardrt_status>(s);
  if (words[kIdWords] != 0)
    return static_cast<shardrt_status>(rd->failWith(
        SHARDRT_ERR_BACKEND,
        rank == 0 ? "ncclGetUniqueId: " + idError : "rank 0 could not make the NCCL unique id"));
  ncclUniqueId id{};
  std::memcpy(&id, words, sizeof(id));
  std::string joinError;
  std::unique_ptr<NcclRank> joined(NcclRank::join(*rd, nccl, id, size, rank, joinError));
  // NCCL that loads but cannot make a communicator here (an old driver, no
  // shared memory in a container) leaves the run staged, and says why;
  // every rank must agree, or some would wait in NCCL for the others.
  int32_t joinedEverywhere = joined ? 1 : 0;
  if (int32_t s = agree(&joinedEverywhere, 1, SHARDRT_MIN))
    return static_cast<shardrt_status>(s);
  if (!joinedEverywhere) {
    if (joined)
      joined->abortAll();
    rd->setCollectives("staged through host memory: " +
                       (joined ? std::string("NCCL failed on another rank")
                               : "NCCL failed: " + joinError));
    return SHARDRT_OK;
  }
  rd->attachNccl(joined.release());
  return SHARDRT_OK;
}

const char *shardrt_cuda_collectives(void) {
  RankDevice *rd = RankDevice::current();
  return rd ? rd->collectives().c_str() : "";
}

} // extern "C"
