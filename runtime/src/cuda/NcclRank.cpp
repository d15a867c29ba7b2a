// A rank's NCCL communicators and collectives (NcclRank.h).
#include "runtime/src/cuda/NcclRank.h"

#include "runtime/src/Dtype.h"
#include "runtime/src/Error.h"
#include "runtime/src/Reduce.h"
#include "runtime/src/cuda/RankDevice.h"

#include <cstring>
#include <memory>

namespace shardrt::cuda {
namespace {

/// NCCL's type for a shardrt dtype; bool travels as its 0/1 bytes.
ncclDataType_t ncclTypeOf(int32_t dtype) {
  switch (dtype) {
  case SHARDRT_F32: return ncclFloat32;
  case SHARDRT_F64: return ncclFloat64;
  case SHARDRT_F16: return ncclFloat16;
  case SHARDRT_BF16: return ncclBfloat16;
  case SHARDRT_I64: return ncclInt64;
  case SHARDRT_I32: return ncclInt32;
  case SHARDRT_I8: return ncclInt8;
  case SHARDRT_U32: return ncclUint32;
  case SHARDRT_U64: return ncclUint64;
  // NCCL has no 16-bit integers: they move as 2-byte elements (never
  // reduced here: the compiler widens their reductions to 32 bits).
  case SHARDRT_I16:
  case SHARDRT_U16: return ncclFloat16;
  default: return ncclUint8; // SHARDRT_BOOL, SHARDRT_U8
  }
}

/// NCCL's reduction for a shardrt one. On bool, sum and max are "or" and
/// prod and min "and" (the runtime's rule): max and min of 0/1 bytes.
ncclRedOp_t ncclOpOf(int32_t op, int32_t dtype) {
  if (dtype == SHARDRT_BOOL)
    return op == SHARDRT_SUM || op == SHARDRT_MAX ? ncclMax : ncclMin;
  switch (op) {
  case SHARDRT_SUM: return ncclSum;
  case SHARDRT_MAX: return ncclMax;
  case SHARDRT_MIN: return ncclMin;
  default: return ncclProd;
  }
}

char *bytesAt(void *p, int64_t offset) { return static_cast<char *>(p) + offset; }
const char *bytesAt(const void *p, int64_t offset) {
  return static_cast<const char *>(p) + offset;
}

/// A scratch block of the rank's allocator, returned in stream order.
struct Scratch {
  RankDevice &rd;
  void *ptr;
  Scratch(RankDevice &rd, int64_t bytes)
      : rd(rd), ptr(bytes > 0 ? rd.alloc(bytes, "an NCCL collective's staging") : nullptr) {}
  ~Scratch() { rd.free(ptr); }
};

} // namespace

NcclRank *NcclRank::join(RankDevice &rd, const NcclLoad &load, const ncclUniqueId &id, int size,
                         int rank, std::string &error) {
  auto nr = std::unique_ptr<NcclRank>(new NcclRank(rd, *load.table, load.version, size, rank));
  ncclResult_t r = load.table->commInitRank(&nr->world, size, id, rank);
  if (r != ncclSuccess) {
    nr->world = nullptr;
    error = "ncclCommInitRank: " + ncclErrorText(*load.table, r);
    return nullptr;
  }
  return nr.release();
}

NcclRank::~NcclRank() {
  // After abortAll() nothing is left to destroy.
  for (auto &[table, comm] : split)
    nccl.commDestroy(comm);
  if (world)
    nccl.commDestroy(world);
}

std::string NcclRank::describe() const { return "NCCL " + ncclVersionText(version); }

int32_t NcclRank::check(const char *call, ncclResult_t result) {
  if (result == ncclSuccess)
    return SHARDRT_OK;
  return rd.failWith(SHARDRT_ERR_BACKEND, format("%s: %s", call,
                                                 ncclErrorText(nccl, result).c_str()));
}

ncclComm_t NcclRank::commFor(const char *collective, const int64_t *groups, int64_t numGroups,
                             int64_t groupSize) {
  int64_t group = -1, position = 0;
  for (int64_t i = 0; groups && i < numGroups * groupSize && group < 0; ++i)
    if (groups[i] == rank) {
      group = i / groupSize;
      position = i % groupSize;
    }
  if (group < 0) {
    rd.failWith(SHARDRT_ERR_ARGUMENT,
                format("%s: rank %d is in none of the %lld device groups", collective, rank,
                       static_cast<long long>(numGroups)));
    return nullptr;
  }
  bool whole = numGroups == 1 && groupSize == size;
  for (int64_t i = 0; whole && i < groupSize; ++i)
    whole = groups[i] == i;
  if (whole)
    return world;
  std::vector<int64_t> key(groups, groups + numGroups * groupSize);
  auto it = split.find(key);
  if (it != split.end())
    return it->second;
  ncclComm_t comm = nullptr;
  ncclResult_t r = nccl.commSplit(world, static_cast<int>(group), static_cast<int>(position),
                                  &comm, nullptr);
  if (r != ncclSuccess) {
    check("ncclCommSplit", r);
    return nullptr;
  }
  split.emplace(std::move(key), comm);
  return comm;
}

int32_t NcclRank::validate(const char *collective, int32_t dtype, int32_t op) {
  if (!isValidDtype(dtype))
    return rd.failWith(SHARDRT_ERR_ARGUMENT, format("%s: unknown dtype %d", collective, dtype));
  if (!isValidReduceOp(op))
    return rd.failWith(SHARDRT_ERR_ARGUMENT, format("%s: unknown reduction %d", collective, op));
  const bool reduces = std::strcmp(collective, "all_reduce") == 0 ||
                       std::strcmp(collective, "reduce_scatter") == 0;
  if (reduces && (dtype == SHARDRT_I16 || dtype == SHARDRT_U16))
    return rd.failWith(SHARDRT_ERR_ARGUMENT,
                       format("%s: NCCL has no 16-bit integer reduction; reduce them as 32-bit "
                              "integers (shardc's code does)",
                              collective));
  return SHARDRT_OK;
}

ncclComm_t NcclRank::begin(const char *collective, int32_t dtype, int32_t op,
                           const int64_t *groups, int64_t numGroups, int64_t groupSize) {
  if (rd.failed() || validate(collective, dtype, op) != SHARDRT_OK)
    return nullptr;
  return commFor(collective, groups, numGroups, groupSize);
}

int32_t NcclRank::toBlocks(void *blocked, const void *interleaved, int64_t members, int64_t rows,
                           int64_t width) {
  int32_t s = SHARDRT_OK;
  for (int64_t m = 0; m < members && s == SHARDRT_OK; ++m)
    s = rd.copy2D(bytesAt(blocked, m * rows * width), width, bytesAt(interleaved, m * width),
                  members * width, width, rows);
  return s;
}

int32_t NcclRank::fromBlocks(void *interleaved, const void *blocked, int64_t members,
                             int64_t rows, int64_t width) {
  int32_t s = SHARDRT_OK;
  for (int64_t m = 0; m < members && s == SHARDRT_OK; ++m)
    s = rd.copy2D(bytesAt(interleaved, m * width), members * width,
                  bytesAt(blocked, m * rows * width), width, width, rows);
  return s;
}

int32_t NcclRank::allReduce(void *buf, int64_t count, int32_t dtype, int32_t op,
                            const int64_t *groups, int64_t numGroups, int64_t groupSize) {
  ncclComm_t comm = begin("all_reduce", dtype, op, groups, numGroups, groupSize);
  if (!comm)
    return rd.report();
  if (count <= 0)
    return SHARDRT_OK;
  return check("ncclAllReduce",
               nccl.allReduce(buf, buf, static_cast<size_t>(count), ncclTypeOf(dtype),
                              ncclOpOf(op, dtype), comm, rd.rankStream()));
}

int32_t NcclRank::allGather(const void *in, void *out, int64_t outer, int64_t inner,
                            int32_t dtype, const int64_t *groups, int64_t numGroups,
                            int64_t groupSize) {
  ncclComm_t comm = begin("all_gather", dtype, SHARDRT_SUM, groups, numGroups, groupSize);
  if (!comm)
    return rd.report();
  const int64_t elem = static_cast<int64_t>(shardrt_dtype_size(dtype));
  const int64_t piece = outer * inner;
  if (piece <= 0)
    return SHARDRT_OK;
  // NCCL gathers into [group, outer, inner]; shardrt's layout is [outer,
  // group * inner]. They agree when there is one row or one member.
  if (outer == 1 || groupSize == 1)
    return check("ncclAllGather", nccl.allGather(in, out, static_cast<size_t>(piece),
                                                 ncclTypeOf(dtype), comm, rd.rankStream()));
  Scratch gathered(rd, groupSize * piece * elem);
  if (!gathered.ptr)
    return rd.report();
  int32_t s = check("ncclAllGather", nccl.allGather(in, gathered.ptr, static_cast<size_t>(piece),
                                                    ncclTypeOf(dtype), comm, rd.rankStream()));
  return s == SHARDRT_OK ? fromBlocks(out, gathered.ptr, groupSize, outer, inner * elem) : s;
}

int32_t NcclRank::reduceScatter(const void *in, void *out, int64_t outer, int64_t inner,
                                int32_t dtype, int32_t op, const int64_t *groups,
                                int64_t numGroups, int64_t groupSize) {
  ncclComm_t comm = begin("reduce_scatter", dtype, op, groups, numGroups, groupSize);
  if (!comm)
    return rd.report();
  const int64_t elem = static_cast<int64_t>(shardrt_dtype_size(dtype));
  const int64_t piece = outer * inner;
  if (piece <= 0)
    return SHARDRT_OK;
  const ncclDataType_t type = ncclTypeOf(dtype);
  const ncclRedOp_t nop = ncclOpOf(op, dtype);
  // NCCL scatters block m of [group, outer, inner] to member m; shardrt's
  // input is [outer, group * inner].
  if (outer == 1 || groupSize == 1)
    return check("ncclReduceScatter", nccl.reduceScatter(in, out, static_cast<size_t>(piece),
                                                         type, nop, comm, rd.rankStream()));
  Scratch blocks(rd, groupSize * piece * elem);
  if (!blocks.ptr)
    return rd.report();
  int32_t s = toBlocks(blocks.ptr, in, groupSize, outer, inner * elem);
  if (s == SHARDRT_OK)
    s = check("ncclReduceScatter", nccl.reduceScatter(blocks.ptr, out, static_cast<size_t>(piece),
                                                      type, nop, comm, rd.rankStream()));
  return s;
}

int32_t NcclRank::allToAll(const void *in, void *out, int64_t splitOuter, int64_t splitInner,
                           int64_t concatOuter, int64_t concatInner, int32_t dtype,
                           const int64_t *groups, int64_t numGroups, int64_t groupSize) {
  ncclComm_t comm = begin("all_to_all", dtype, SHARDRT_SUM, groups, numGroups, groupSize);
  if (!comm)
    return rd.report();
  const int64_t elem = static_cast<int64_t>(shardrt_dtype_size(dtype));
  const int64_t piece = splitOuter * splitInner;
  if (piece <= 0)
    return SHARDRT_OK;
  const int64_t pieceBytes = piece * elem;
  // Piece j is in[:, j, :] and out[:, m, :] comes from member m: contiguous
  // when the outer extent is 1, packed through scratch otherwise.
  const bool packIn = splitOuter != 1, packOut = concatOuter != 1;
  Scratch sendBlocks(rd, packIn ? groupSize * pieceBytes : 0);
  Scratch recvBlocks(rd, packOut ? groupSize * pieceBytes : 0);
  if ((packIn && !sendBlocks.ptr) || (packOut && !recvBlocks.ptr))
    return rd.report();
  int32_t s = packIn ? toBlocks(sendBlocks.ptr, in, groupSize, splitOuter, splitInner * elem)
                    : SHARDRT_OK;
  if (s != SHARDRT_OK)
    return s;
  auto sendPiece = [&](int64_t j) -> const void * {
    return packIn ? bytesAt(sendBlocks.ptr, j * pieceBytes) : bytesAt(in, j * pieceBytes);
  };
  auto recvPiece = [&](int64_t m) -> void * {
    return packOut ? bytesAt(recvBlocks.ptr, m * pieceBytes) : bytesAt(out, m * pieceBytes);
  };
  s = check("ncclGroupStart", nccl.groupStart());
  if (s != SHARDRT_OK)
    return s;
  ncclResult_t r = ncclSuccess;
  const char *call = nullptr;
  for (int64_t j = 0; j < groupSize && r == ncclSuccess; ++j) {
    call = "ncclSend";
    r = nccl.send(sendPiece(j), static_cast<size_t>(pieceBytes), ncclUint8, static_cast<int>(j),
                  comm, rd.rankStream());
    if (r == ncclSuccess) {
      call = "ncclRecv";
      r = nccl.recv(recvPiece(j), static_cast<size_t>(pieceBytes), ncclUint8, static_cast<int>(j),
                    comm, rd.rankStream());
    }
  }
  // The group must be closed even after a failed call.
  ncclResult_t end = nccl.groupEnd();
  if (r != ncclSuccess)
    return check(call, r);
  if ((s = check("ncclGroupEnd", end)) != SHARDRT_OK)
    return s;
  return packOut ? fromBlocks(out, recvBlocks.ptr, groupSize, concatOuter, concatInner * elem)
                 : SHARDRT_OK;
}

int32_t NcclRank::permute(const void *in, void *out, int64_t count, int32_t dtype,
                          const int64_t *pairs, int64_t numPairs) {
  if (rd.failed())
    return rd.report();
  if (int32_t bad = validate("collective_permute", dtype))
    return bad;
  const int64_t bytes = count * static_cast<int64_t>(shardrt_dtype_size(dtype));
  int64_t target = -1, source = -1;
  for (int64_t i = 0; i < numPairs; ++i) {
    if (pairs[2 * i] == rank)
      target = pairs[2 * i + 1];
    if (pairs[2 * i + 1] == rank)
      source = pairs[2 * i];
  }
  if (bytes <= 0)
    return SHARDRT_OK;
  if (source == rank)
    return rd.copy(out, in, bytes); // the pair (rank, rank)
  // A rank that is no pair's target gets zeros (and may still send).
  if (source < 0 && rd.memset(out, 0, bytes, 1) != SHARDRT_OK)
    return rd.report();
  if (source < 0 && target < 0)
    return SHARDRT_OK;
  int32_t s = check("ncclGroupStart", nccl.groupStart());
  if (s != SHARDRT_OK)
    return s;
  ncclResult_t r = ncclSuccess;
  const char *call = nullptr;
  if (target >= 0 && target != rank) {
    call = "ncclSend";
    r = nccl.send(in, static_cast<size_t>(bytes), ncclUint8, static_cast<int>(target), world,
                  rd.rankStream());
  }
  if (r == ncclSuccess && source >= 0) {
    call = "ncclRecv";
    r = nccl.recv(out, static_cast<size_t>(bytes), ncclUint8, static_cast<int>(source), world,
                  rd.rankStream());
  }
  ncclResult_t end = nccl.groupEnd();
  if (r != ncclSuccess)
    return check(call, r);
  return check("ncclGroupEnd", end);
}

std::string NcclRank::asyncError() const {
  auto query = [&](ncclComm_t comm) -> std::string {
    ncclResult_t error = ncclSuccess;
    ncclResult_t r = nccl.commGetAsyncError(comm, &error);
    if (r != ncclSuccess)
      return "ncclCommGetAsyncError: " + ncclErrorText(nccl, r);
    if (error != ncclSuccess && error != ncclInProgress)
      return "ncclCommGetAsyncError: " + ncclErrorText(nccl, error);
    return "";
  };
  if (aborted || !world)
    return "";
  std::string e = query(world);
  for (auto it = split.begin(); e.empty() && it != split.end(); ++it)
    e = query(it->second);
  return e;
}

void NcclRank::abortAll() {
  if (aborted)
    return;
  aborted = true;
  for (auto &[table, comm] : split)
    nccl.commAbort(comm);
  if (world)
    nccl.commAbort(world);
  split.clear();
  world = nullptr;
}

} // namespace shardrt::cuda
