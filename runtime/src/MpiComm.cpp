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
//  - Counts passed to MPI fit in int: every collective moves large buffers in
//    chunks of at most SHARDRT_MPI_CHUNK_BYTES (default and maximum 1 GiB;
//    the ranks agree on the smallest) per call, each chunk a separate MPI call
//    that every member makes. reduce_scatter cuts between elements (at
//    least one per call), the others between bytes.
//  - all_reduce runs on point-to-point messages and reduces every element
//    in group order, as the threads backend does, so both backends give the
//    same bits (see allReduce).
#include "shardrt_mpi.h"

#include "Comm.h"
#include "Dtype.h"
#include "Reduce.h"
#include "Error.h"

#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <thread>

#include <sched.h>
#include <vector>

namespace shardrt {
namespace {

constexpr int kHandshakeTag = 0x5348; // "SH"
constexpr int kCreateTag = 0x5349;
constexpr int kPermuteTag = 0x534A;
constexpr int kAllReduceTag = 0x534B;
constexpr int64_t kMaxChunkBytes = int64_t(1) << 30; // bytes per MPI call (counts fit int)

/// Bytes per MPI call, from env SHARDRT_MPI_CHUNK_BYTES (default 1 GiB): an
/// integer in [1, 1 GiB]. Small values exist to test the chunked paths.
shardrt_status readChunkBytes(int64_t *bytes) {
  *bytes = kMaxChunkBytes;
  const char *text = std::getenv("SHARDRT_MPI_CHUNK_BYTES");
  if (!text || !*text)
    return SHARDRT_OK;
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < 1 || v > kMaxChunkBytes)
    return fail(SHARDRT_ERR_ARGUMENT,
                "SHARDRT_MPI_CHUNK_BYTES='%s' is not a byte count in [1, %lld]", text,
                (long long)kMaxChunkBytes);
  *bytes = v;
  return SHARDRT_OK;
}

/// Splits [0, total) into runs of at most `step` and calls f(offset, length)
/// on each, in order; a zero total still makes one call of length 0, so that
/// every member of a group makes the same number of MPI calls.
template <typename F> shardrt_status forEachChunk(int64_t total, int64_t step, F f) {
  for (int64_t off = 0; off == 0 || off < total; off += step)
    if (shardrt_status s = f(off, std::min(step, total - off)))
      return s;
  return SHARDRT_OK;
}

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

/// An all-reduce's buffers up to this size take one round of messages of
/// the whole buffer; larger ones two rounds of a slice each (see allReduce).
/// On two ranks of one host (bench/collectives) one round took 10.3 us at
/// 16 KiB against two rounds' 13.1 us; at 64 KiB both took 23-24 us, and
/// above that two rounds win (52 against 66 us at 256 KiB).
constexpr int64_t kOneRoundBytes = int64_t(32) << 10;

/// Receive buffers kept between collectives: a fresh allocation of a large
/// buffer is fresh pages from the kernel, faulted in on every call.
class ScratchPool {
public:
  struct Buffer {
    std::unique_ptr<char[]> data;
    int64_t bytes = 0;
    char *get() const { return data.get(); }
  };

  /// A buffer of at least `bytes`, uninitialized: the smallest kept one
  /// that fits, else a new one.
  Buffer take(int64_t bytes) {
    auto best = spare.end();
    for (auto it = spare.begin(); it != spare.end(); ++it)
      if (it->bytes >= bytes && (best == spare.end() || it->bytes < best->bytes))
        best = it;
    if (best == spare.end())
      return Buffer{std::unique_ptr<char[]>(new char[std::max<int64_t>(bytes, 1)]), bytes};
    Buffer b = std::move(*best);
    spare.erase(best);
    return b;
  }

  /// Keeps `b` for later, up to kKept buffers (the smallest is dropped);
  /// one over kMaxKeptBytes is freed, so a rare huge all-reduce does not
  /// hold its memory for the rest of the run.
  void give(Buffer b) {
    if (!b.data || b.bytes > kMaxKeptBytes)
      return;
    spare.push_back(std::move(b));
    if (spare.size() > kKept)
      spare.erase(std::min_element(spare.begin(), spare.end(),
                                   [](const Buffer &x, const Buffer &y) { return x.bytes < y.bytes; }));
  }

private:
  static constexpr size_t kKept = 16;
  static constexpr int64_t kMaxKeptBytes = int64_t(64) << 20;
  std::vector<Buffer> spare;
};

class MpiComm final : public shardrt_comm {
public:
  MpiComm(int32_t rank, int32_t size, MPI_Comm world, double timeoutSeconds,
          int64_t chunkBytes, bool ownsMpi)
      : shardrt_comm(rank, size), ownsMpi(ownsMpi), world(world),
        timeoutSeconds(timeoutSeconds), chunkBytes(chunkBytes) {}

  const char *backendName() const override { return "mpi"; }

  // All-reduce over point-to-point messages on the group's communicator,
  // so that every element is reduced in group order exactly as the threads
  // backend does (the two backends give the same bits). Buffers up to
  // kOneRoundBytes that fit one message (chunkBytes) take one round:
  //  1. each member sends its whole buffer to every other member and
  //     receives theirs;
  //  2. it reduces every element in group order into its buffer.
  // Larger ones take two rounds of a g-th of the bytes each:
  //  1. each member sends slice m of its buffer to member m and receives
  //     its own slice p from every other member;
  //  2. it reduces slice p in group order into its buffer, sends it to every
  //     other member and receives theirs into its buffer.
  // Slices are the threads backend's (the first count % g one element
  // longer); messages are cut to chunkBytes. Members post in one program
  // order and MPI never overtakes messages between two ranks on one
  // communicator and tag, so several pending all-reduces match correctly;
  // every member picks the same form, from the count and dtype.
  // start posts phase 1; done completes it and runs phase 2.
  shardrt_status allReduce(const AllReduceArgs &args, const Group &group) override {
    int64_t id = 0;
    if (shardrt_status s = allReduceStart(args, group, &id))
      return s;
    return allReduceDone(id);
  }

  shardrt_status allReduceStart(const AllReduceArgs &args, const Group &group,
                                int64_t *request) override {
    MPI_Comm comm;
    if (shardrt_status s = groupComm(group, CollectiveKind::AllReduce, &comm))
      return s;
    int64_t id = nextRequest++;
    PendingReduce &p = pendingReduces[id];
    p.comm = comm;
    p.g = group.size;
    p.pos = group.position;
    p.buf = static_cast<char *>(args.buf);
    p.count = args.count;
    p.dtype = args.dtype;
    p.op = args.op;
    p.members.assign(group.members, group.members + group.size);
    const int64_t es = static_cast<int64_t>(shardrt_dtype_size(args.dtype));
    p.oneRound = args.count * es <= std::min(kOneRoundBytes, chunkBytes);
    const int64_t n = p.oneRound ? p.count : p.slice(p.pos).second;
    p.incoming.resize(static_cast<size_t>(p.g));
    shardrt_status s = SHARDRT_OK;
    for (int64_t m = 0; m < p.g && !s; ++m) {
      if (m == p.pos)
        continue;
      p.incoming[m] = scratch.take(n * es);
      s = post(p, /*send=*/false, p.incoming[m].get(), n * es, m);
      auto [mlo, mn] = p.oneRound ? std::pair<int64_t, int64_t>{0, p.count} : p.slice(m);
      if (!s)
        s = post(p, /*send=*/true, p.buf + mlo * es, mn * es, m);
    }
    if (s) {
      release(p);
      pendingReduces.erase(id);
      return s;
    }
    *request = id;
    return SHARDRT_OK;
  }

  shardrt_status allReduceDone(int64_t request) override {
    PendingReduce p;
    if (shardrt_status s = takePending(request, CollectiveKind::AllReduce, &p))
      return s;
    shardrt_status s = waitAll(p);
    if (!s) {
      // Phase 2: this member's part, reduced in group order into its buffer
      // (the sends that read it have completed).
      const int64_t es = static_cast<int64_t>(shardrt_dtype_size(p.dtype));
      auto [lo, n] = p.oneRound ? std::pair<int64_t, int64_t>{0, p.count} : p.slice(p.pos);
      char *mine = p.buf + lo * es;
      std::vector<const void *> srcs(static_cast<size_t>(p.g));
      for (int64_t m = 0; m < p.g; ++m)
        srcs[m] = m == p.pos ? static_cast<const void *>(mine) : p.incoming[m].get();
      void *out = mine;
      reduceInOrderTo(&out, 1, srcs.data(), p.g, n, p.dtype, p.op);
      for (int64_t m = 0; m < p.g && !s && !p.oneRound; ++m) {
        if (m == p.pos)
          continue;
        auto [mlo, mn] = p.slice(m);
        s = post(p, /*send=*/false, p.buf + mlo * es, mn * es, m);
        if (!s)
          s = post(p, /*send=*/true, mine, n * es, m);
      }
      if (!s)
        s = waitAll(p);
    }
    release(p);
    return s;
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
    // In chunks (at most chunkBytes per call in all), member m's piece of
    // each call lands at m * n in `piece`.
    const int64_t step = std::max<int64_t>(1, chunkBytes / g);
    const bool chunked = perRank > step;
    std::vector<char> piece(chunked ? static_cast<size_t>(g * step) : 0);
    shardrt_status s = forEachChunk(perRank, step, [&](int64_t off, int64_t n) {
      char *recv = chunked ? piece.data() : gathered;
      MPI_Request req;
      int rc = MPI_Iallgather(static_cast<const char *>(args.in) + off, static_cast<int>(n),
                              MPI_BYTE, recv, static_cast<int>(n), MPI_BYTE, comm, &req);
      if (shardrt_status st = complete(rc, &req, CollectiveKind::AllGather, group))
        return st;
      for (int64_t m = 0; chunked && m < g; ++m)
        std::memcpy(gathered + m * perRank + off, piece.data() + m * n, static_cast<size_t>(n));
      return SHARDRT_OK;
    });
    if (s)
      return s;
    if (args.outer != 1) {
      char *out = static_cast<char *>(args.out);
      for (int64_t o = 0; o < args.outer; ++o)
        for (int64_t m = 0; m < g; ++m)
          std::memcpy(out + (o * g + m) * innerBytes, gathered + m * perRank + o * innerBytes,
                      static_cast<size_t>(innerBytes));
    }
    return SHARDRT_OK;
  }

  // Reduce-scatter over point-to-point messages, as allReduce's first
  // round: start sends block m of this member's input (row block m of its
  // [outer, g, inner] view, packed when outer > 1) to member m and receives
  // its own block from every other member; done reduces its block in group
  // order into `out`. Every element is reduced once, in group order: the
  // threads backend's bits.
  shardrt_status reduceScatter(const ReduceScatterArgs &args, const Group &group) override {
    int64_t id = 0;
    if (shardrt_status s = reduceScatterStart(args, group, &id))
      return s;
    return reduceScatterDone(id, args.in, args.out);
  }

  shardrt_status reduceScatterStart(const ReduceScatterArgs &args, const Group &group,
                                    int64_t *request) override {
    MPI_Comm comm;
    if (shardrt_status s = groupComm(group, CollectiveKind::ReduceScatter, &comm))
      return s;
    int64_t id = nextRequest++;
    PendingReduce &p = pendingReduces[id];
    p.kind = CollectiveKind::ReduceScatter;
    p.comm = comm;
    p.g = group.size;
    p.pos = group.position;
    p.members.assign(group.members, group.members + group.size);
    p.in = static_cast<const char *>(args.in);
    p.buf = static_cast<char *>(args.out);
    p.outer = args.outer;
    p.inner = args.inner;
    p.count = args.outer * args.inner;
    p.dtype = args.dtype;
    p.op = args.op;
    const int64_t es = static_cast<int64_t>(shardrt_dtype_size(args.dtype));
    const int64_t rowBytes = p.inner * es, blockBytes = p.count * es;
    p.incoming.resize(static_cast<size_t>(p.g));
    p.outgoing.resize(static_cast<size_t>(p.g));
    shardrt_status s = SHARDRT_OK;
    for (int64_t m = 0; m < p.g && !s && blockBytes > 0; ++m) {
      if (m == p.pos)
        continue;
      p.incoming[m] = scratch.take(blockBytes);
      s = post(p, /*send=*/false, p.incoming[m].get(), blockBytes, m);
      const char *block = p.in + m * rowBytes;
      if (p.outer != 1) {
        p.outgoing[m] = scratch.take(blockBytes);
        for (int64_t o = 0; o < p.outer; ++o)
          std::memcpy(p.outgoing[m].get() + o * rowBytes, p.in + (o * p.g + m) * rowBytes,
                      static_cast<size_t>(rowBytes));
        block = p.outgoing[m].get();
      }
      if (!s)
        s = post(p, /*send=*/true, const_cast<char *>(block), blockBytes, m);
    }
    if (s) {
      release(p);
      pendingReduces.erase(id);
      return s;
    }
    *request = id;
    return SHARDRT_OK;
  }

  shardrt_status reduceScatterDone(int64_t request, const void *in, void *out) override {
    PendingReduce p;
    if (shardrt_status s = takePending(request, CollectiveKind::ReduceScatter, &p))
      return s;
    if (p.in != in || p.buf != out) {
      waitAll(p); // the messages must not outlive their buffers
      release(p);
      return reject(format("rank %d: reduce_scatter_done: request %lld was started with other "
                           "buffers (in %p, out %p, not %p, %p)",
                           rank, (long long)request, static_cast<const void *>(p.in),
                           static_cast<void *>(p.buf), in, out));
    }
    shardrt_status s = waitAll(p);
    if (!s && p.count > 0) {
      const int64_t es = static_cast<int64_t>(shardrt_dtype_size(p.dtype));
      std::vector<const void *> srcs(static_cast<size_t>(p.g));
      for (int64_t o = 0; o < p.outer; ++o) {
        for (int64_t m = 0; m < p.g; ++m)
          srcs[m] = m == p.pos ? static_cast<const void *>(p.in + (o * p.g + m) * p.inner * es)
                               : p.incoming[m].get() + o * p.inner * es;
        void *row = p.buf + o * p.inner * es;
        reduceInOrderTo(&row, 1, srcs.data(), p.g, p.inner, p.dtype, p.op);
      }
    }
    release(p);
    return s;
  }

  // Pieces are packed member-major ([g, piece]) for MPI_Ialltoall and
  // unpacked into the concat view (copyPiece does both rearrangements).
  // Large pieces go in calls of at most chunkBytes in all, each moving bytes
  // [off, off + n) of every piece.
  shardrt_status allToAll(const AllToAllArgs &args, const Group &group) override {
    MPI_Comm comm;
    if (shardrt_status s = groupComm(group, CollectiveKind::AllToAll, &comm))
      return s;
    const int64_t g = group.size, piece = args.splitOuter * args.splitInner;
    const size_t es = shardrt_dtype_size(args.dtype);
    const int64_t pieceBytes = piece * static_cast<int64_t>(es);
    std::vector<char> send(static_cast<size_t>(g * pieceBytes)), recv(send.size());
    for (int64_t j = 0; j < g; ++j)
      copyPiece(args.in, args.splitOuter, args.splitInner, j, send.data(), 1, piece, j, g, es);
    const int64_t step = std::max<int64_t>(1, chunkBytes / g);
    const bool chunked = pieceBytes > step;
    std::vector<char> sendChunk(chunked ? static_cast<size_t>(g * step) : 0),
        recvChunk(sendChunk.size());
    shardrt_status s = forEachChunk(pieceBytes, step, [&](int64_t off, int64_t n) {
      for (int64_t m = 0; chunked && m < g; ++m)
        std::memcpy(sendChunk.data() + m * n, send.data() + m * pieceBytes + off,
                    static_cast<size_t>(n));
      MPI_Request req;
      int rc = MPI_Ialltoall(chunked ? sendChunk.data() : send.data(), static_cast<int>(n),
                             MPI_BYTE, chunked ? recvChunk.data() : recv.data(),
                             static_cast<int>(n), MPI_BYTE, comm, &req);
      if (shardrt_status st = complete(rc, &req, CollectiveKind::AllToAll, group))
        return st;
      for (int64_t m = 0; chunked && m < g; ++m)
        std::memcpy(recv.data() + m * pieceBytes + off, recvChunk.data() + m * n,
                    static_cast<size_t>(n));
      return SHARDRT_OK;
    });
    if (s)
      return s;
    for (int64_t m = 0; m < g; ++m)
      copyPiece(recv.data(), 1, piece, m, args.out, args.concatOuter, args.concatInner, m, g, es);
    return SHARDRT_OK;
  }

  // Point to point on the private world communicator: receive from the
  // source, send to the target, both non-blocking and polled with the
  // timeout, in chunks of at most chunkBytes. Messages between one pair of
  // ranks never overtake each other, so successive chunks and permutes match
  // in order.
  shardrt_status permute(const PermuteArgs &args, const Group &group) override {
    const int64_t bytes = args.count * static_cast<int64_t>(shardrt_dtype_size(args.dtype));
    if (args.source < 0 && bytes > 0)
      std::memset(args.out, 0, static_cast<size_t>(bytes));
    return forEachChunk(bytes, chunkBytes, [&](int64_t off, int64_t n) {
      MPI_Request reqs[2];
      int count = 0, rc = MPI_SUCCESS;
      if (args.source >= 0)
        rc = MPI_Irecv(static_cast<char *>(args.out) + off, static_cast<int>(n), MPI_BYTE,
                       static_cast<int>(group.members[args.source]), kPermuteTag, world,
                       &reqs[count++]);
      if (rc == MPI_SUCCESS && args.target >= 0)
        rc = MPI_Isend(static_cast<const char *>(args.in) + off, static_cast<int>(n), MPI_BYTE,
                       static_cast<int>(group.members[args.target]), kPermuteTag, world,
                       &reqs[count++]);
      if (rc != MPI_SUCCESS)
        return mpiFailure(rc, "starting the collective", where(CollectiveKind::Permute, group));
      return waitAll(count, reqs, [&] { return where(CollectiveKind::Permute, group); });
    });
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
      waitAll(1, &req, [&] { return what; });
  }

  static constexpr int kJobFailedExitStatus = 5;

  /// Prints the first failure and ends every process of the job.
  [[noreturn]] void endJob() const {
    std::fprintf(stderr, "shardrt: %s; aborting the MPI job\n", firstMessage.c_str());
    std::fflush(stderr);
    // The job's exit status is `shardc run`'s "running failed" (5).
    MPI_Abort(MPI_COMM_WORLD, kJobFailedExitStatus);
    std::_Exit(kJobFailedExitStatus); // MPI_Abort does not return; be sure
  }

  const bool ownsMpi;

private:
  std::string where(CollectiveKind kind, const Group &group) const {
    return format("rank %d: collective %s over group %s", rank, collectiveName(kind),
                  formatIds(group.members, group.size).c_str());
  }

  shardrt_status mpiFailure(int rc, const char *call, const std::string &what) {
    std::string message =
        format("%s: %s failed: %s", what.c_str(), call, mpiErrorString(rc).c_str());
    fail(SHARDRT_ERR_BACKEND, message);
    setLastError(message);
    return SHARDRT_ERR_BACKEND;
  }

  /// Polls `count` requests until all complete; a timeout ends the job.
  /// `what()` names the operation for messages ("rank 2: collective ..."),
  /// made only when one is needed: formatting it on every call cost a small
  /// all-reduce a noticeable share of its time.
  template <typename What>
  shardrt_status waitAll(int count, MPI_Request *reqs, const What &what) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto limit = std::chrono::duration<double>(std::min(timeoutSeconds, 1e7));
    // Poll (MPI progresses a nonblocking collective only while it is
    // tested): for 20 us without a pause, as MPI's own blocking collectives
    // do (yielding from the start cost a 16 KiB all-reduce 10-15 %), then
    // yielding so that ranks sharing cores (mpirun --oversubscribe) still
    // run; sleep only once a collective has waited 10 ms, so a long wait
    // for a late peer does not burn a core. Sleeping sooner (after a fixed
    // number of polls) made a 64 KiB all-reduce 10x slower than
    // MPI_Allreduce (bench/collectives).
    for (;;) {
      int done = 0;
      int rc = MPI_Testall(count, reqs, &done, MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS)
        return mpiFailure(rc, "MPI_Test", what());
      if (done)
        return SHARDRT_OK;
      if (Clock::now() - start > limit) {
        std::string message = format("%s timed out after %g s", what().c_str(), timeoutSeconds);
        fail(SHARDRT_ERR_ABORTED, message);
        setLastError(message);
        endJob();
      }
      auto waited = Clock::now() - start;
      if (waited < std::chrono::microseconds(20))
        continue;
      if (waited < std::chrono::milliseconds(10))
        sched_yield();
      else
        std::this_thread::sleep_for(
            std::chrono::microseconds(waited > std::chrono::milliseconds(200) ? 1000 : 50));
    }
  }

  shardrt_status complete(int rc, MPI_Request *req, CollectiveKind kind, const Group &group) {
    if (rc != MPI_SUCCESS)
      return mpiFailure(rc, "starting the collective", where(kind, group));
    return waitAll(1, req, [&] { return where(kind, group); });
  }

  /// The cached communicator of `group`, creating it on first use.
  shardrt_status groupComm(const Group &group, CollectiveKind kind, MPI_Comm *out) {
    // A step's collectives mostly use one group after another: the last
    // one found is checked first, without building a key.
    if (lastGroup && std::equal(group.members, group.members + group.size,
                                lastGroup->first.begin(), lastGroup->first.end())) {
      *out = lastGroup->second;
      return SHARDRT_OK;
    }
    std::vector<int64_t> key(group.members, group.members + group.size);
    auto it = groups.find(key);
    if (it != groups.end()) {
      lastGroup = &*it;
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
    if (shardrt_status s = waitAll(static_cast<int>(reqs.size()), reqs.data(),
                                   [&] { return where(kind, group); }))
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
  const int64_t chunkBytes; // most bytes one MPI call moves (readChunkBytes)
  bool aborted = false;
  std::string firstMessage;
  std::map<std::vector<int64_t>, MPI_Comm> groups;
  const std::pair<const std::vector<int64_t>, MPI_Comm> *lastGroup = nullptr; // in `groups`

  /// A started all_reduce or reduce_scatter (see allReduce, reduceScatter):
  /// its messages in flight, and the copies of this member's part received
  /// in the first round.
  struct PendingReduce {
    CollectiveKind kind = CollectiveKind::AllReduce; // or ReduceScatter
    MPI_Comm comm = MPI_COMM_NULL;
    int64_t g = 0, pos = 0; // group size, this member's position
    std::vector<int64_t> members;
    char *buf = nullptr;          // all_reduce: in place; reduce_scatter: the output
    const char *in = nullptr;     // reduce_scatter's input
    int64_t outer = 0, inner = 0; // reduce_scatter's [outer, inner] output
    int64_t count = 0;
    int32_t dtype = 0, op = 0;
    bool oneRound = false;
    std::vector<ScratchPool::Buffer> incoming; // by member
    std::vector<ScratchPool::Buffer> outgoing; // reduce_scatter's packed blocks, by member
    std::vector<MPI_Request> reqs;

    /// Member m's slice: [first, first + size) elements.
    std::pair<int64_t, int64_t> slice(int64_t m) const {
      int64_t base = count / g, rem = count % g;
      return {m * base + std::min(m, rem), base + (m < rem ? 1 : 0)};
    }
  };

  /// Waits for `p`'s messages in flight; errors name the collective.
  shardrt_status waitAll(PendingReduce &p) {
    shardrt_status s = SHARDRT_OK;
    if (!p.reqs.empty()) {
      Group group{p.members.data(), p.g, p.pos};
      s = waitAll(static_cast<int>(p.reqs.size()), p.reqs.data(),
                  [&] { return where(p.kind, group); });
    }
    p.reqs.clear();
    return s;
  }

  /// Gives `p`'s message buffers back to the pool.
  void release(PendingReduce &p) {
    for (ScratchPool::Buffer &b : p.incoming)
      scratch.give(std::move(b));
    for (ScratchPool::Buffer &b : p.outgoing)
      scratch.give(std::move(b));
    p.incoming.clear();
    p.outgoing.clear();
  }

  /// Moves the pending `request` of kind `kind` out into `*p`; an error
  /// when this rank has no such request.
  shardrt_status takePending(int64_t request, CollectiveKind kind, PendingReduce *p) {
    auto it = pendingReduces.find(request);
    if (it == pendingReduces.end() || it->second.kind != kind)
      return reject(format("rank %d: %s_done: %lld is not a pending %s request of this rank",
                           rank, collectiveName(kind), (long long)request,
                           collectiveName(kind)));
    *p = std::move(it->second);
    pendingReduces.erase(it);
    return SHARDRT_OK;
  }

  /// Fails the world with `message`, an argument error of this rank.
  shardrt_status reject(const std::string &message) {
    fail(SHARDRT_ERR_ARGUMENT, message);
    setLastError(message);
    return SHARDRT_ERR_ARGUMENT;
  }

  /// Posts a send to (or a receive from) member `peer` of `p`'s group of
  /// `bytes` at `data`, in messages of at most chunkBytes.
  shardrt_status post(PendingReduce &p, bool send, void *data, int64_t bytes, int64_t peer) {
    for (int64_t off = 0; off < bytes; off += chunkBytes) {
      int n = static_cast<int>(std::min(chunkBytes, bytes - off));
      char *at = static_cast<char *>(data) + off;
      p.reqs.emplace_back();
      int rc = send ? MPI_Isend(at, n, MPI_BYTE, static_cast<int>(peer), kAllReduceTag, p.comm,
                                &p.reqs.back())
                    : MPI_Irecv(at, n, MPI_BYTE, static_cast<int>(peer), kAllReduceTag, p.comm,
                                &p.reqs.back());
      if (rc != MPI_SUCCESS) {
        p.reqs.pop_back();
        Group group{p.members.data(), p.g, p.pos};
        return mpiFailure(rc, send ? "MPI_Isend" : "MPI_Irecv", where(p.kind, group));
      }
    }
    return SHARDRT_OK;
  }
  std::map<int64_t, PendingReduce> pendingReduces;
  int64_t nextRequest = 1;
  ScratchPool scratch; // all_reduce receive buffers, reused across calls
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
  int64_t chunkBytes;
  if (shardrt_status s = readChunkBytes(&chunkBytes))
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
  // Every member must cut a buffer into the same calls: the ranks agree on
  // the smallest chunk size any of them read (mpirun forwards an environment
  // variable to remote hosts only with -x). Collective, like MPI_Comm_dup.
  rc = MPI_Allreduce(MPI_IN_PLACE, &chunkBytes, 1, MPI_INT64_T, MPI_MIN, world);
  if (rc != MPI_SUCCESS)
    return fail(SHARDRT_ERR_BACKEND, "shardrt_mpi_init: agreeing on the chunk size failed: %s",
                mpiErrorString(rc).c_str());
  try {
    processComm = new MpiComm(rank, size, world, timeout, chunkBytes, !initialized);
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
