// Run by mpi_test.sh under `mpirun -np 4`.  Modes:
//   collectives  all_reduce (every dtype and op; blocking and start/done),
//                all_gather (outer > 1),
//                reduce_scatter (blocking and start/done), all_to_all and
//                collective_permute over the world and over groups; prints
//                "rank R: OK".
//   timeout      rank 3 is alive but late; the others must time out and end
//                the job (the script checks the exit status and message).
//   finalize     rank 3 skips a collective and finalizes; the job must end.
//   abort        rank 1 calls shardrt_abort while the others wait.
// Not a Catch2 test: four processes would interleave Catch2's reports, and
// each rank must report its own result for the script to count.
#include "TestUtil.h"
#include "shardrt_mpi.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace shardrt_test;

namespace {

int failures = 0;

#define EXPECT(cond)                                                                             \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      std::fprintf(stderr, "rank %lld: %s:%d: EXPECT(%s) failed; last error: %s\n",              \
                   (long long)shardrt_rank(), __FILE__, __LINE__, #cond, shardrt_last_error());  \
      ++failures;                                                                                \
    }                                                                                            \
  } while (0)

/// The first of `count` all-reduced elements that differs from the
/// expected value, or -1 (one EXPECT per buffer, not one per element).
int64_t firstWrongElement(const char *buf, int64_t count, int32_t dtype, int32_t op,
                          const std::vector<int64_t> &members) {
  for (int64_t i = 0; i < count; ++i)
    if (loadValue(buf, i, dtype) != reduceExpected(op, dtype, members, i))
      return i;
  return -1;
}

void checkAllReduce(int64_t rank, const std::vector<int64_t> &groups, int64_t groupSize,
                    int64_t count) {
  size_t at = std::find(groups.begin(), groups.end(), rank) - groups.begin();
  std::vector<int64_t> members(groups.begin() + (at / groupSize) * groupSize,
                               groups.begin() + (at / groupSize + 1) * groupSize);
  for (int32_t dtype : kAllDtypes) {
    for (int32_t op : kAllOps) {
      const size_t es = shardrt_dtype_size(dtype);
      std::vector<char> buf(count * es);
      for (int64_t i = 0; i < count; ++i)
        storeValue(buf.data(), i, dtype, reduceInput(op, dtype, rank, i));
      int32_t st = shardrt_all_reduce(buf.data(), count, dtype, op, groups.data(),
                                      (int64_t)groups.size() / groupSize, groupSize);
      EXPECT(st == SHARDRT_OK);
      EXPECT(firstWrongElement(buf.data(), count, dtype, op, members) == -1);
    }
  }
}

/// 13 elements take one round of messages; 40003 (over 32 KiB in every
/// dtype, split unevenly) two rounds of slices. Small chunks make every
/// buffer take two rounds, so only 13 is run then (40003 would be ~10^5
/// messages per call).
std::vector<int64_t> allReduceCounts() {
  const char *chunk = std::getenv("SHARDRT_MPI_CHUNK_BYTES");
  if (chunk && *chunk)
    return {13};
  return {13, 40003};
}

void checkAllReduce(int64_t rank, const std::vector<int64_t> &groups, int64_t groupSize) {
  for (int64_t count : allReduceCounts())
    checkAllReduce(rank, groups, groupSize, count);
}

/// The asynchronous all_reduce: every dtype and op pending at once over
/// `groups`, with a blocking all_reduce in between, finished in reverse
/// order; each gives what the blocking one does. Every other one is large
/// (allReduceCounts), so both forms are pending at once.
void checkAsyncAllReduce(int64_t rank, const std::vector<int64_t> &groups, int64_t groupSize) {
  const std::vector<int64_t> counts = allReduceCounts();
  size_t at = std::find(groups.begin(), groups.end(), rank) - groups.begin();
  std::vector<int64_t> members(groups.begin() + (at / groupSize) * groupSize,
                               groups.begin() + (at / groupSize + 1) * groupSize);
  struct Pending {
    int32_t dtype, op;
    int64_t count;
    std::vector<char> buf;
    int64_t request;
  };
  std::vector<Pending> pending;
  for (int32_t dtype : kAllDtypes)
    for (int32_t op : kAllOps) {
      const int64_t count = counts[pending.size() % counts.size()];
      Pending p{dtype, op, count, std::vector<char>(count * shardrt_dtype_size(dtype)), -1};
      for (int64_t i = 0; i < count; ++i)
        storeValue(p.buf.data(), i, dtype, reduceInput(op, dtype, rank, i));
      pending.push_back(std::move(p));
    }
  for (Pending &p : pending) {
    p.request = shardrt_all_reduce_start(p.buf.data(), p.count, p.dtype, p.op, groups.data(),
                                         (int64_t)groups.size() / groupSize, groupSize);
    EXPECT(p.request >= 0);
  }
  int32_t one = 1;
  EXPECT(shardrt_all_reduce(&one, 1, SHARDRT_I32, SHARDRT_SUM, groups.data(),
                            (int64_t)groups.size() / groupSize, groupSize) == SHARDRT_OK);
  EXPECT(one == groupSize);
  for (auto it = pending.rbegin(); it != pending.rend(); ++it) {
    EXPECT(shardrt_all_reduce_done(it->request) == SHARDRT_OK);
    EXPECT(firstWrongElement(it->buf.data(), it->count, it->dtype, it->op, members) == -1);
  }
}

void checkAllGather(int64_t rank, const std::vector<int64_t> &groups, int64_t groupSize) {
  const int64_t outer = 2, inner = 3, g = groupSize;
  size_t at = std::find(groups.begin(), groups.end(), rank) - groups.begin();
  const int64_t *members = groups.data() + (at / g) * g;
  for (int32_t dtype : kAllDtypes) {
    const size_t es = shardrt_dtype_size(dtype);
    auto byte = [&](int64_t r, int64_t o, int64_t i, size_t k) {
      return static_cast<char>(r * 31 + o * 7 + i * 3 + k + 1);
    };
    std::vector<char> in(outer * inner * es), out(outer * g * inner * es, 'x');
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        for (size_t k = 0; k < es; ++k)
          in[(o * inner + i) * es + k] = byte(rank, o, i, k);
    int32_t st = shardrt_all_gather(in.data(), out.data(), outer, inner, dtype, groups.data(),
                                    (int64_t)groups.size() / g, g);
    EXPECT(st == SHARDRT_OK);
    int bad = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t m = 0; m < g; ++m)
        for (int64_t i = 0; i < inner; ++i)
          for (size_t k = 0; k < es; ++k)
            bad += out[((o * g + m) * inner + i) * es + k] != byte(members[m], o, i, k);
    EXPECT(bad == 0);
  }
}

void checkReduceScatter(int64_t rank, const std::vector<int64_t> &groups, int64_t g) {
  const int64_t outer = 2, inner = 3;
  size_t at = std::find(groups.begin(), groups.end(), rank) - groups.begin();
  std::vector<int64_t> members(groups.begin() + (at / g) * g, groups.begin() + (at / g + 1) * g);
  const int64_t p = static_cast<int64_t>(at % g);
  for (int32_t dtype : kAllDtypes)
    for (int32_t op : kAllOps) {
      const size_t es = shardrt_dtype_size(dtype);
      std::vector<char> in(outer * g * inner * es), out(outer * inner * es);
      for (int64_t k = 0; k < outer * g * inner; ++k)
        storeValue(in.data(), k, dtype, reduceInput(op, dtype, rank, k));
      EXPECT(shardrt_reduce_scatter(in.data(), out.data(), outer, inner, dtype, op, groups.data(),
                                    (int64_t)groups.size() / g, g) == SHARDRT_OK);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i)
          EXPECT(loadValue(out.data(), o * inner + i, dtype) ==
                 reduceExpected(op, dtype, members, (o * g + p) * inner + i));
      // start/done, with a blocking collective while it is pending: the
      // blocking form's bits.
      std::vector<char> async(out.size(), 'x');
      int64_t request = shardrt_reduce_scatter_start(in.data(), async.data(), outer, inner, dtype,
                                                     op, groups.data(),
                                                     (int64_t)groups.size() / g, g);
      EXPECT(request >= 0);
      int32_t one = 1;
      EXPECT(shardrt_all_reduce(&one, 1, SHARDRT_I32, SHARDRT_SUM, groups.data(),
                                (int64_t)groups.size() / g, g) == SHARDRT_OK);
      EXPECT(shardrt_reduce_scatter_done(request, in.data(), async.data()) == SHARDRT_OK);
      EXPECT(async == out);
    }
}

void checkAllToAll(int64_t rank, const std::vector<int64_t> &groups, int64_t g) {
  const int64_t so = 2, si = 3, co = 3, ci = 2;
  size_t at = std::find(groups.begin(), groups.end(), rank) - groups.begin();
  const int64_t *members = groups.data() + (at / g) * g;
  const int64_t p = static_cast<int64_t>(at % g);
  for (int32_t dtype : kAllDtypes) {
    const size_t es = shardrt_dtype_size(dtype);
    auto byte = [&](int64_t r, int64_t k, size_t b) { return static_cast<char>(r * 53 + k * 5 + b + 1); };
    std::vector<char> in(so * g * si * es), out(in.size(), 'x');
    for (int64_t k = 0; k < so * g * si; ++k)
      for (size_t b = 0; b < es; ++b)
        in[k * es + b] = byte(rank, k, b);
    EXPECT(shardrt_all_to_all(in.data(), out.data(), so, si, co, ci, dtype, groups.data(),
                              (int64_t)groups.size() / g, g) == SHARDRT_OK);
    int bad = 0;
    for (int64_t m = 0; m < g; ++m)
      for (int64_t k = 0; k < so * si; ++k)
        for (size_t b = 0; b < es; ++b)
          bad += out[(((k / ci) * g + m) * ci + k % ci) * es + b] !=
                 byte(members[m], ((k / si) * g + p) * si + k % si, b);
    EXPECT(bad == 0);
  }
}

void checkPermute(int64_t rank, const std::vector<int64_t> &pairs) {
  const int64_t count = 5;
  std::vector<int64_t> in(count), out(count, -7);
  for (int64_t i = 0; i < count; ++i)
    in[i] = rank * 100 + i;
  bool named = std::find(pairs.begin(), pairs.end(), rank) != pairs.end();
  if (!named)
    return; // bystanders may skip
  EXPECT(shardrt_collective_permute(in.data(), out.data(), count, SHARDRT_I64, pairs.data(),
                                    (int64_t)pairs.size() / 2) == SHARDRT_OK);
  int64_t source = -1;
  for (size_t k = 0; k < pairs.size(); k += 2)
    if (pairs[k + 1] == rank)
      source = pairs[k];
  for (int64_t i = 0; i < count; ++i)
    EXPECT(out[i] == (source < 0 ? 0 : source * 100 + i));
}

int collectives(shardrt_comm *comm) {
  const int64_t rank = shardrt_rank();
  EXPECT(shardrt_comm_size(comm) == 4);
  EXPECT(rank == shardrt_comm_rank(comm));
  EXPECT(shardrt_current() == comm);

  const std::vector<int64_t> world = {0, 1, 2, 3};
  float v[5];
  for (int i = 0; i < 5; ++i)
    v[i] = float(rank) + 0.5f * i;
  EXPECT(shardrt_all_reduce(v, 5, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, 4) == SHARDRT_OK);
  for (int i = 0; i < 5; ++i)
    EXPECT(v[i] == 6.0f + 2.0f * i);

  // A 2x2 mesh: reduce and gather over each axis, in group order.
  const std::vector<int64_t> rows = {0, 1, 2, 3}, cols = {0, 2, 1, 3}, reversed = {3, 2, 1, 0};
  checkAllReduce(rank, world, 4);
  checkAllReduce(rank, rows, 2);
  checkAllReduce(rank, cols, 2);
  checkAsyncAllReduce(rank, world, 4);
  checkAsyncAllReduce(rank, cols, 2);
  checkAllGather(rank, cols, 2);
  checkAllGather(rank, rows, 2);
  checkAllGather(rank, reversed, 4);
  checkReduceScatter(rank, world, 4);
  checkReduceScatter(rank, cols, 2);
  checkReduceScatter(rank, reversed, 4);
  checkAllToAll(rank, rows, 2);
  checkAllToAll(rank, cols, 2);
  checkAllToAll(rank, reversed, 4);
  checkPermute(rank, {0, 1, 1, 2, 2, 3, 3, 0});
  checkPermute(rank, {0, 0, 2, 1, 1, 2, 3, 3}); // the (x,y) -> (y,x) reorder on 2x2
  checkPermute(rank, {3, 1});                  // 1 receives, 3 gets zeros, 0 and 2 skip

  // Only three ranks are in a group; rank 2 sits this one out.
  if (rank != 2) {
    const std::vector<int64_t> three = {3, 0, 1};
    checkAllReduce(rank, three, 3);
    checkAllGather(rank, three, 3);
  }
  // Groups of one, and an empty reduction.
  const std::vector<int64_t> singles = {0, 1, 2, 3};
  int32_t x = int32_t(rank);
  EXPECT(shardrt_all_reduce(&x, 1, SHARDRT_I32, SHARDRT_SUM, singles.data(), 4, 1) == SHARDRT_OK);
  EXPECT(x == rank);
  EXPECT(shardrt_all_reduce(nullptr, 0, SHARDRT_F32, SHARDRT_SUM, world.data(), 1, 4) == SHARDRT_OK);
  EXPECT(shardrt_barrier_on(comm) == SHARDRT_OK);
  return failures;
}

} // namespace

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "collectives";
  shardrt_comm *comm = nullptr;
  if (shardrt_mpi_init(&argc, &argv, &comm) != SHARDRT_OK) {
    std::fprintf(stderr, "shardrt_mpi_init: %s\n", shardrt_last_error());
    return 1;
  }
  const int64_t rank = shardrt_rank();
  const std::vector<int64_t> world = {0, 1, 2, 3};
  if (mode == "collectives") {
    int bad = collectives(comm);
    if (bad == 0)
      std::printf("rank %lld: OK\n", (long long)rank);
    std::fflush(stdout);
    shardrt_mpi_finalize();
    return bad ? 1 : 0;
  }
  if (mode == "timeout" || mode == "finalize" || mode == "abort") {
    double v = 1;
    if (rank == 3 && mode == "timeout")
      sleep(60); // far past the timeout; the job ends while this rank sleeps
    if (rank == 3 && mode == "finalize") {
      shardrt_mpi_finalize(); // never joins the all_reduce below
      std::printf("rank 3: finalize returned, which it should not have\n");
      return 0;
    }
    if (rank == 1 && mode == "abort")
      shardrt_abort(comm, "bad batch"); // does not return
    int32_t st = shardrt_all_reduce(&v, 1, SHARDRT_F64, SHARDRT_SUM, world.data(), 1, 4);
    std::printf("rank %lld: all_reduce returned %d, which it should not have\n",
                (long long)rank, st);
    shardrt_mpi_finalize();
    return 0;
  }
  std::fprintf(stderr, "unknown mode '%s'\n", mode.c_str());
  shardrt_mpi_finalize();
  return 2;
}
