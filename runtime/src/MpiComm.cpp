// MPI backend: one rank per process over MPI_COMM_WORLD.
//
// Collectives over a device group run on an MPI communicator made once per
// distinct group (its ordered member list) and cached.  MPI_Comm_create_group
// is used rather than MPI_Comm_split because only the group's members make the
// call (the header allows ranks outside every group to skip a collective), and
// it keeps the group order as the communicator's rank order, which all_gather
// relies on.  All traffic runs on a private duplicate of MPI_COMM_WORLD so it
// never matches a host program's messages.
//
// Invariants:
//  - Nothing blocks without the timeout: collectives are non-blocking MPI
//    calls polled against a deadline, and before a group communicator is
//    created its members exchange a token (also polled), so the blocking
//    MPI_Comm_create_group only starts once every member is there.
//  - A timeout ends the job (MPI_Abort), since a pending MPI collective cannot
//    be cancelled; other errors mark this communicator aborted (see
//    shardrt_mpi.h).
//  - No rank finalizes MPI unless every rank has reached finalize (see
//    finalizeBarrier), so a job never mixes a normal exit with a dying peer.
//  - Counts passed to MPI fit in int: large buffers go in chunks.
#include "shardrt_mpi.h"

#include "Comm.h"
#include "Dtype.h"
#include "Error.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

namespace shardrt {
namespace {

constexpr int kHandshakeTag = 0x5348; // "SH"
constexpr int kCreateTag = 0x5349;
constexpr int kPermuteTag = 0x534A;
constexpr int64_t kMaxChunkElems = int64_t(1) << 28; // elements per MPI call (fits int)
constexpr int64_t kMaxChunkBytes = int64_t(1) << 30; // bytes per rank per MPI_Iallgather

std::string mpiErrorString(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
    return format("MPI error %d", rc);
  return std::string(text, static_cast<size_t>(len));
}

uint64_t groupHash(const int64_t *members, int64_t n) {
  uint64_t h = 1469598103934665603ull; // FNV-1a
  for (int64_t i = 0; i < n; ++i) {
    h ^= static_cast<uint64_t>(members[i]);
    h *= 1099511628211ull;
  }
  return h;
}

class MpiComm final : public shardrt_comm {
public:
  MpiComm(int32_t rank, int32_t size, MPI_Comm world, double timeoutSeconds, bool ownsMpi)
      : shardrt_comm(rank, size), ownsMpi(ownsMpi), world(world),
        timeoutSeconds(timeoutSeconds) {}

  const char *backendName() const override { return "mpi"; }

  shardrt_status allReduce(const AllReduceArgs &args, const Group &group) override {
    MPI_Comm comm;
    if (shardrt_status s = groupComm(group, CollectiveKind::AllReduce, &comm))
      return s;
    MPI_Op op = mpiOp(args.dtype, args.op);
    const bool half = args.dtype == SHARDRT_F16 || args.dtype == SHARDRT_BF16;
    std::vector<float> wide;
    void *buf = args.buf;
    MPI_Datatype type = mpiType(args.dtype);
    if (half) {
      // No MPI type for 16-bit floats: reduce in float and round once, as the
      // threads backend does.
      const uint16_t *h = static_cast<const uint16_t *>(args.buf);
      wide.resize(static_cast<size_t>(args.count));
      for (int64_t i = 0; i < args.count; ++i)
        wide[i] = args.dtype == SHARDRT_F16 ? halfToFloat(h[i]) : bf16ToFloat(h[i]);
      buf = wide.data();
      type = MPI_FLOAT;
    }
    int typeSize = 0;
    MPI_Type_size(type, &typeSize);
    // Even a zero count takes part, so that every member matches every call.
    for (int64_t off = 0; off == 0 || off < args.count; off += kMaxChunkElems) {
      int n = static_cast<int>(std::min(kMaxChunkElems, args.count - off));
      MPI_Request req;
      int rc = MPI_Iallreduce(MPI_IN_PLACE, static_cast<char *>(buf) + off * typeSize, n, type,
                              op, comm, &req);
      if (shardrt_status s = complete(rc, &req, CollectiveKind::AllReduce, group))
        return s;
    }
    if (half) {
      uint16_t *h = static_cast<uint16_t *>(args.buf);
      for (int64_t i = 0; i < args.count; ++i)
        h[i] = args.dtype == SHARDRT_F16 ? floatToHalf(wide[i]) : floatToBf16(wide[i]);
    }
    return SHARDRT_OK;
  }

  shardrt_status allGather(const AllGatherArgs &args, const Group &group) override {
    MPI_Comm comm;
    if (shardrt_status s = groupComm(group, CollectiveKind::AllGather, &comm))
      return s;
    const int64_t g = group.size;
    const int64_t innerBytes = args.inner * static_cast<int64_t>(shardrt_dtype_size(args.dtype));
    const int64_t perRank = args.outer * innerBytes;
    // MPI delivers member m's block at m * perRank; out wants the blocks
    // interleaved by `outer`, so gather into scratch and rearrange (unless
    // outer == 1, where the layouts agree).
    std::vector<char> scratch;
    char *gathered = static_cast<char *>(args.out);
    if (args.outer != 1) {
      scratch.resize(static_cast<size_t>(g * perRank));
      gathered = scratch.data();
    }
    const bool chunked = perRank > kMaxChunkBytes;
    std::vector<char> piece(chunked ? static_cast<size_t>(g * kMaxChunkBytes) : 0);
    for (int64_t off = 0; off == 0 || off < perRank; off += kMaxChunkBytes) {
      int n = static_cast<int>(std::min(kMaxChunkBytes, perRank - off));
      char *recv = chunked ? piece.data() : gathered;
      MPI_Request req;
      int rc = MPI_Iallgather(static_cast<const char *>(args.in) + off, n, MPI_BYTE, recv, n,
                              MPI_BYTE, comm, &req);
      if (shardrt_status s = complete(rc, &req, CollectiveKind::AllGather, group))
        return s;
      if (chunked)
        for (int64_t m = 0; m < g; ++m)
          std::memcpy(gathered + m * perRank + off, piece.data() + m * n, static_cast<size_t>(n));
    }
    if (args.outer != 1) {
      char *out = static_cast<char *>(args.out);
      for (int64_t o = 0; o < args.outer; ++o)
        for (int64_t m = 0; m < g; ++m)
          std::memcpy(out + (o * g + m) * innerBytes, gathered + m * perRank + o * innerBytes,
                      static_cast<size_t>(innerBytes));
    }
    return SHARDRT_OK;
  }

  // Packs each member's block contiguously ([outer, g, inner] -> [g, outer,
  // inner]) for MPI_Ireduce_scatter_block; 16-bit floats travel as float and
  // round once, as in allReduce.
  shardrt_status reduceScatter(const ReduceScatterArgs &args, const Group &group) override {
    MPI_Comm comm;
    if (shardrt_status s = groupComm(group, CollectiveKind::ReduceScatter, &comm))
      return s;
    const int64_t g = group.size, block = args.outer * args.inner;
    if (block > kMaxChunkElems)
      return tooLarge(CollectiveKind::ReduceScatter, group, block);
    const bool half = args.dtype == SHARDRT_F16 || args.dtype == SHARDRT_BF16;
    const size_t es = shardrt_dtype_size(args.dtype);
    const size_t ws = half ? sizeof(float) : es; // element size on the wire
    std::vector<char> send(static_cast<size_t>(g * block) * ws), recv(block * ws);
    const char *in = static_cast<const char *>(args.in);
    for (int64_t o = 0; o < args.outer; ++o)
      for (int64_t m = 0; m < g; ++m)
        for (int64_t i = 0; i < args.inner; ++i) {
          const char *src = in + ((o * g + m) * args.inner + i) * es;
          char *dst = send.data() + ((m * args.outer + o) * args.inner + i) * ws;
          if (half) {
            uint16_t h;
            std::memcpy(&h, src, 2);
            float f = args.dtype == SHARDRT_F16 ? halfToFloat(h) : bf16ToFloat(h);
            std::memcpy(dst, &f, sizeof f);
          } else {
            std::memcpy(dst, src, es);
          }
        }
    MPI_Request req;
    int rc = MPI_Ireduce_scatter_block(send.data(), recv.data(), static_cast<int>(block),
                                       mpiType(args.dtype), mpiOp(args.dtype, args.op), comm,
                                       &req);
    if (shardrt_status s = complete(rc, &req, CollectiveKind::ReduceScatter, group))
      return s;
    char *out = static_cast<char *>(args.out);
    if (!half) {
      if (block > 0)
        std::memcpy(out, recv.data(), static_cast<size_t>(block) * es);
    } else {
      for (int64_t i = 0; i < block; ++i) {
        float f;
        std::memcpy(&f, recv.data() + i * ws, sizeof f);
        uint16_t h = args.dtype == SHARDRT_F16 ? floatToHalf(f) : floatToBf16(f);
        std::memcpy(out + i * 2, &h, 2);
      }
    }
    return SHARDRT_OK;
  }

  // Pieces are packed member-major for MPI_Ialltoall and unpacked into the
  // concat view (copyPiece does both rearrangements).
  shardrt_status allToAll(const AllToAllArgs &args, const Group &group) override {
    MPI_Comm comm;
    if (shardrt_status s = groupComm(group, CollectiveKind::AllToAll, &comm))
      return s;
    const int64_t g = group.size, piece = args.splitOuter * args.splitInner;
    const size_t es = shardrt_dtype_size(args.dtype);
    if (piece * static_cast<int64_t>(es) > kMaxChunkBytes)
      return tooLarge(CollectiveKind::AllToAll, group, piece);
    std::vector<char> send(static_cast<size_t>(g * piece) * es), recv(send.size());
    for (int64_t j = 0; j < g; ++j)
      copyPiece(args.in, args.splitOuter, args.splitInner, j, send.data(), 1, piece, j, g, es);
    const int bytes = static_cast<int>(piece * static_cast<int64_t>(es));
    MPI_Request req;
    int rc = MPI_Ialltoall(send.data(), bytes, MPI_BYTE, recv.data(), bytes, MPI_BYTE, comm,
                           &req);
    if (shardrt_status s = complete(rc, &req, CollectiveKind::AllToAll, group))
      return s;
    for (int64_t m = 0; m < g; ++m)
      copyPiece(recv.data(), 1, piece, m, args.out, args.concatOuter, args.concatInner, m, g, es);
    return SHARDRT_OK;
  }

  // Point to point on the private world communicator: receive from the
  // source, send to the target, both non-blocking and polled with the
  // timeout. Messages between one pair of ranks never overtake each other,
  // so successive permutes match in order.
  shardrt_status permute(const PermuteArgs &args, const Group &group) override {
    const int64_t bytes = args.count * static_cast<int64_t>(shardrt_dtype_size(args.dtype));
    if (bytes > kMaxChunkBytes)
      return tooLarge(CollectiveKind::Permute, group, args.count);
    std::vector<MPI_Request> reqs;
    reqs.reserve(2);
    int rc = MPI_SUCCESS;
    if (args.source >= 0) {
      reqs.emplace_back();
      rc = MPI_Irecv(args.out, static_cast<int>(bytes), MPI_BYTE,
                     static_cast<int>(group.members[args.source]), kPermuteTag, world,
                     &reqs.back());
    } else if (bytes > 0) {
      std::memset(args.out, 0, static_cast<size_t>(bytes));
    }
    if (rc == MPI_SUCCESS && args.target >= 0) {
      reqs.emplace_back();
      rc = MPI_Isend(args.in, static_cast<int>(bytes), MPI_BYTE,
                     static_cast<int>(group.members[args.target]), kPermuteTag, world,
                     &reqs.back());
    }
    if (rc != MPI_SUCCESS)
      return mpiFailure(rc, "starting the collective", where(CollectiveKind::Permute, group));
    return waitAll(static_cast<int>(reqs.size()), reqs.data(),
                   where(CollectiveKind::Permute, group));
  }

  shardrt_status barrier() override {
    std::vector<int64_t> all(static_cast<size_t>(size));
    for (int32_t r = 0; r < size; ++r)
      all[r] = r;
    Group group{all.data(), size, rank};
    MPI_Request req;
    int rc = MPI_Ibarrier(world, &req);
    return complete(rc, &req, CollectiveKind::Barrier, group);
  }

  void fail(shardrt_status status, const std::string &message) override {
    (void)status; // the caller returns it; MPI keeps only the message
    if (!aborted) {
      aborted = true;
      firstMessage = message;
    }
  }

  void abortWorld(const std::string &message) override {
    fail(SHARDRT_ERR_ABORTED, message);
    endJob();
  }

  bool isAborted(std::string *message) const override {
    if (aborted && message)
      *message = firstMessage;
    return aborted;
  }

  /// Waits (with the timeout) until every rank has reached finalize.  Open MPI
  /// 4.1's mpirun can hang or crash when one process finalizes and exits
  /// normally while another dies, so a rank must not finalize while its
  /// peers are stuck; on timeout it ends the job instead.
  void finalizeBarrier() {
    MPI_Request req;
    std::string what = format("rank %d: shardrt_mpi_finalize, waiting for every rank to finalize,",
                              rank);
    int rc = MPI_Ibarrier(world, &req);
    if (rc != MPI_SUCCESS)
      mpiFailure(rc, "MPI_Ibarrier", what);
    else
      waitAll(1, &req, what);
  }

  /// Prints the first failure and ends every process of the job.
  [[noreturn]] void endJob() const {
    std::fprintf(stderr, "shardrt: %s; aborting the MPI job\n", firstMessage.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, SHARDRT_ERR_ABORTED);
    std::_Exit(SHARDRT_ERR_ABORTED); // MPI_Abort does not return; be sure
  }

  const bool ownsMpi;

private:
  static MPI_Datatype mpiType(int32_t dtype) {
    switch (dtype) {
    case SHARDRT_F32:
      return MPI_FLOAT;
    case SHARDRT_F64:
      return MPI_DOUBLE;
    case SHARDRT_I64:
      return MPI_INT64_T;
    case SHARDRT_I32:
      return MPI_INT32_T;
    case SHARDRT_I8:
      return MPI_INT8_T;
    case SHARDRT_BOOL:
      return MPI_UINT8_T;
    default: // f16/bf16 travel as float
      return MPI_FLOAT;
    }
  }

  static MPI_Op mpiOp(int32_t dtype, int32_t op) {
    if (dtype == SHARDRT_BOOL) // or / and, normalised to 0/1 like the threads backend
      return op == SHARDRT_SUM || op == SHARDRT_MAX ? MPI_LOR : MPI_LAND;
    switch (op) {
    case SHARDRT_SUM:
      return MPI_SUM;
    case SHARDRT_MAX:
      return MPI_MAX;
    case SHARDRT_MIN:
      return MPI_MIN;
    default:
      return MPI_PROD;
    }
  }

  std::string where(CollectiveKind kind, const Group &group) const {
    return format("rank %d: collective %s over group %s", rank, collectiveName(kind),
                  formatIds(group.members, group.size).c_str());
  }

  shardrt_status tooLarge(CollectiveKind kind, const Group &group, int64_t elements) {
    std::string message = format("%s: %lld elements are too many for one MPI call in this "
                                 "backend",
                                 where(kind, group).c_str(), (long long)elements);
    fail(SHARDRT_ERR_BACKEND, message);
    setLastError(message);
    return SHARDRT_ERR_BACKEND;
  }

  shardrt_status mpiFailure(int rc, const char *call, const std::string &what) {
    std::string message =
        format("%s: %s failed: %s", what.c_str(), call, mpiErrorString(rc).c_str());
    fail(SHARDRT_ERR_BACKEND, message);
    setLastError(message);
    return SHARDRT_ERR_BACKEND;
  }

  /// Polls `count` requests until all complete; a timeout ends the job.
  /// `what` names the operation for messages ("rank 2: collective ...").
  shardrt_status waitAll(int count, MPI_Request *reqs, const std::string &what) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto limit = std::chrono::duration<double>(std::min(timeoutSeconds, 1e7));
    // Spin briefly for latency, then sleep: ranks often share cores
    // (mpirun --oversubscribe) and a busy peer would starve the others.
    for (int spins = 0;; ++spins) {
      int done = 0;
      int rc = MPI_Testall(count, reqs, &done, MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS)
        return mpiFailure(rc, "MPI_Test", what);
      if (done)
        return SHARDRT_OK;
      if (Clock::now() - start > limit) {
        std::string message = format("%s timed out after %g s", what.c_str(), timeoutSeconds);
        fail(SHARDRT_ERR_ABORTED, message);
        setLastError(message);
        endJob();
      }
      if (spins > 1000)
        std::this_thread::sleep_for(std::chrono::microseconds(spins > 10000 ? 1000 : 50));
    }
  }

  shardrt_status complete(int rc, MPI_Request *req, CollectiveKind kind, const Group &group) {
    if (rc != MPI_SUCCESS)
      return mpiFailure(rc, "starting the collective", where(kind, group));
    return waitAll(1, req, where(kind, group));
  }

  /// The cached communicator of `group`, creating it on first use.
  shardrt_status groupComm(const Group &group, CollectiveKind kind, MPI_Comm *out) {
    std::vector<int64_t> key(group.members, group.members + group.size);
    auto it = groups.find(key);
    if (it != groups.end()) {
      *out = it->second;
      return SHARDRT_OK;
    }
    bool isWorld = group.size == size;
    for (int64_t i = 0; isWorld && i < group.size; ++i)
      isWorld = group.members[i] == i;
    if (isWorld) {
      groups.emplace(key, world);
      *out = world;
      return SHARDRT_OK;
    }

    // Handshake: every member sends the group's hash to every other member.
    // Once all tokens are in, every member has reached this creation, so the
    // blocking MPI_Comm_create_group below cannot hang; a different hash
    // means the members disagree about which group they are making.
    const uint64_t mine = groupHash(group.members, group.size);
    const int peers = static_cast<int>(group.size - 1);
    std::vector<uint64_t> theirs(static_cast<size_t>(peers));
    std::vector<MPI_Request> reqs;
    reqs.reserve(static_cast<size_t>(2 * peers));
    for (int64_t i = 0, k = 0; i < group.size; ++i) {
      if (i == group.position)
        continue;
      int peer = static_cast<int>(group.members[i]);
      reqs.emplace_back();
      int rc = MPI_Irecv(&theirs[k++], 1, MPI_UINT64_T, peer, kHandshakeTag, world, &reqs.back());
      if (rc == MPI_SUCCESS) {
        reqs.emplace_back();
        rc = MPI_Isend(&mine, 1, MPI_UINT64_T, peer, kHandshakeTag, world, &reqs.back());
      }
      if (rc != MPI_SUCCESS)
        return mpiFailure(rc, "the group handshake", where(kind, group));
    }
    if (shardrt_status s = waitAll(static_cast<int>(reqs.size()), reqs.data(), where(kind, group)))
      return s;
    for (uint64_t h : theirs)
      if (h != mine) {
        std::string message = format("%s: the members disagree on the group (different "
                                     "collectives or group lists reached this point)",
                                     where(kind, group).c_str());
        fail(SHARDRT_ERR_ARGUMENT, message);
        setLastError(message);
        return SHARDRT_ERR_ARGUMENT;
      }

    std::vector<int> ranks(key.begin(), key.end());
    MPI_Group worldGroup, subGroup;
    MPI_Comm comm = MPI_COMM_NULL;
    int rc = MPI_Comm_group(world, &worldGroup);
    if (rc == MPI_SUCCESS) {
      rc = MPI_Group_incl(worldGroup, static_cast<int>(ranks.size()), ranks.data(), &subGroup);
      if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_create_group(world, subGroup, kCreateTag, &comm);
        MPI_Group_free(&subGroup);
      }
      MPI_Group_free(&worldGroup);
    }
    if (rc != MPI_SUCCESS)
      return mpiFailure(rc, "MPI_Comm_create_group", where(kind, group));
    groups.emplace(key, comm);
    *out = comm;
    return SHARDRT_OK;
  }

  const MPI_Comm world; // private duplicate of MPI_COMM_WORLD
  const double timeoutSeconds;
  bool aborted = false;
  std::string firstMessage;
  std::map<std::vector<int64_t>, MPI_Comm> groups;
};

MpiComm *processComm = nullptr;

} // namespace
} // namespace shardrt

using namespace shardrt;

extern "C" {

shardrt_status shardrt_mpi_init(int *argc, char ***argv, shardrt_comm **out) {
  if (!out)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_mpi_init: out is NULL");
  *out = nullptr;
  if (processComm) {
    *out = processComm;
    return SHARDRT_OK;
  }
  double timeout;
  if (shardrt_status s = readTimeoutSeconds(&timeout))
    return s;
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized)
    return fail(SHARDRT_ERR_BACKEND,
                "shardrt_mpi_init: MPI was already finalized and cannot be started again");
  if (!initialized) {
    int rc = MPI_Init(argc, argv);
    if (rc != MPI_SUCCESS)
      return fail(SHARDRT_ERR_BACKEND, "shardrt_mpi_init: MPI_Init failed: %s",
                  mpiErrorString(rc).c_str());
  }
  // Errors come back as codes, so they can be reported with the rank and
  // the collective instead of killing the job from inside MPI.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm world;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &world);
  if (rc != MPI_SUCCESS)
    return fail(SHARDRT_ERR_BACKEND, "shardrt_mpi_init: MPI_Comm_dup failed: %s",
                mpiErrorString(rc).c_str());
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  try {
    processComm = new MpiComm(rank, size, world, timeout, !initialized);
  } catch (const std::bad_alloc &) {
    return fail(SHARDRT_ERR_BACKEND, "shardrt_mpi_init: out of memory");
  }
  setProcessCurrent(processComm);
  shardrt_set_current(processComm);
  *out = processComm;
  return SHARDRT_OK;
}

void shardrt_mpi_finalize(void) {
  if (!processComm)
    return;
  if (!processComm->isAborted(nullptr))
    processComm->finalizeBarrier();
  if (processComm->isAborted(nullptr))
    processComm->endJob();
  setProcessCurrent(nullptr);
  if (shardrt_current() == processComm)
    shardrt_set_current(nullptr);
  // Group communicators and the duplicate are left to MPI_Finalize: freeing
  // them is collective, and members may not agree on an order.
  const bool owns = processComm->ownsMpi;
  delete processComm;
  processComm = nullptr;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owns && !finalized)
    MPI_Finalize();
}

} // extern "C"
