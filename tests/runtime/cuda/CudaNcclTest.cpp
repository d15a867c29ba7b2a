// shardrt's NCCL collectives against the fake driver and the fake NCCL
// (FakeNccl.h): when a run connects over NCCL and when it stays staged,
// every collective's result against the host collective of the same name
// on the same inputs (every dtype and reduction, pieces that need 2-D
// copies, device groups split from the world), and the errors: a failed
// NCCL call, an asynchronous NCCL error, a timeout.
#include "shardrt_cuda.h"

#include "tests/runtime/TestUtil.h"
#include "tests/runtime/cuda/FakeDriver.h"
#include "tests/runtime/cuda/FakeNccl.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using shardrt_test::fake;
using shardrt_test::FakeDriverGuard;
using shardrt_test::FakeNcclGuard;
using shardrt_test::fakeNcclCalls;

namespace {

constexpr int32_t kDtypes[] = {SHARDRT_F32, SHARDRT_F64, SHARDRT_F16, SHARDRT_BF16,
                               SHARDRT_I64, SHARDRT_I32, SHARDRT_I8,  SHARDRT_BOOL};
constexpr int32_t kOps[] = {SHARDRT_SUM, SHARDRT_MAX, SHARDRT_MIN, SHARDRT_PROD};

/// A rank's input: small integers, exact in every dtype; 0/1 for bool, 1/2
/// for products (no overflow), different on every rank and element.
std::vector<unsigned char> input(int32_t dtype, int32_t op, int32_t rank, int64_t count) {
  std::vector<unsigned char> buf(static_cast<size_t>(count) * shardrt_dtype_size(dtype));
  for (int64_t i = 0; i < count; ++i) {
    double v = dtype == SHARDRT_BOOL   ? (rank + i) % 3 == 0
               : op == SHARDRT_PROD   ? 1 + (rank + i) % 2
                                      : ((rank * 7 + i * 5) % 11) - 5;
    shardrt_test::storeValue(buf.data(), i, dtype, v);
  }
  return buf;
}

/// Runs `device` on device copies of `in` (out: `outBytes`) and `host` on
/// host copies; "" when both give the same bytes, else what differed.
std::string compare(const std::string &what, const std::vector<unsigned char> &in,
                    size_t outBytes, const std::function<int32_t(const void *, void *)> &device,
                    const std::function<int32_t(const void *, void *)> &host) {
  std::vector<unsigned char> hostOut(outBytes, 0xAB), deviceOut(outBytes, 0xCD);
  if (host(in.data(), hostOut.data()) != SHARDRT_OK)
    return what + ": host collective failed: " + shardrt_last_error();
  void *dIn = shardrt_cuda_alloc(static_cast<int64_t>(in.size()), nullptr);
  void *dOut = shardrt_cuda_alloc(static_cast<int64_t>(outBytes), nullptr);
  if (!dIn || !dOut)
    return what + ": alloc failed";
  int32_t s = shardrt_cuda_upload(dIn, in.data(), static_cast<int64_t>(in.size()));
  if (s == SHARDRT_OK)
    s = device(dIn, dOut);
  if (s == SHARDRT_OK)
    s = shardrt_cuda_download(deviceOut.data(), dOut, static_cast<int64_t>(outBytes));
  shardrt_cuda_free(dIn);
  shardrt_cuda_free(dOut);
  if (s != SHARDRT_OK)
    return what + ": device collective failed: " + shardrt_last_error();
  return deviceOut == hostOut ? "" : what + ": results differ";
}

/// The same for an in-place all_reduce.
std::string compareAllReduce(int32_t dtype, int32_t op, int32_t rank, int64_t count,
                             const std::vector<int64_t> &groups, int64_t groupSize) {
  const std::vector<unsigned char> in = input(dtype, op, rank, count);
  const int64_t numGroups = static_cast<int64_t>(groups.size()) / groupSize;
  return compare(
      std::string("all_reduce ") + shardrt_dtype_name(dtype) + " op " + std::to_string(op), in,
      in.size(),
      [&](const void *dIn, void *dOut) {
        shardrt_cuda_copy(dOut, dIn, static_cast<int64_t>(in.size()));
        return shardrt_cuda_all_reduce(dOut, count, dtype, op, groups.data(), numGroups,
                                       groupSize);
      },
      [&](const void *hIn, void *hOut) {
        std::memcpy(hOut, hIn, in.size());
        return shardrt_all_reduce(hOut, count, dtype, op, groups.data(), numGroups, groupSize);
      });
}

/// Every collective on 4 ranks, for the device groups `groups` (of
/// `groupSize`): the list of what differed on `rank`.
std::vector<std::string> everyCollective(int32_t rank, const std::vector<int64_t> &groups,
                                         int64_t groupSize) {
  std::vector<std::string> wrong;
  auto note = [&](const std::string &s) {
    if (!s.empty())
      wrong.push_back(s);
  };
  const int64_t numGroups = static_cast<int64_t>(groups.size()) / groupSize;
  const int64_t *g = groups.data();
  for (int32_t dtype : kDtypes)
    for (int32_t op : kOps)
      note(compareAllReduce(dtype, op, rank, 5, groups, groupSize));
  for (int64_t outer : {1, 3}) {
    const int64_t inner = 2, piece = outer * inner;
    // 16-bit integers move as NCCL's 2-byte elements.
    for (int32_t dtype : {SHARDRT_F32, SHARDRT_I16, SHARDRT_U16}) {
      const std::vector<unsigned char> in = input(dtype, SHARDRT_SUM, rank, piece);
      note(compare(
          std::string("all_gather ") + shardrt_dtype_name(dtype) + " outer " +
              std::to_string(outer),
          in, in.size() * groupSize,
          [&](const void *d, void *o) {
            return shardrt_cuda_all_gather(d, o, outer, inner, dtype, g, numGroups, groupSize);
          },
          [&](const void *h, void *o) {
            return shardrt_all_gather(h, o, outer, inner, dtype, g, numGroups, groupSize);
          }));
    }
    for (int32_t dtype : {SHARDRT_I32, SHARDRT_BOOL}) {
      const std::vector<unsigned char> wide = input(dtype, SHARDRT_SUM, rank, piece * groupSize);
      note(compare(
          std::string("reduce_scatter ") + shardrt_dtype_name(dtype) + " outer " +
              std::to_string(outer),
          wide, wide.size() / groupSize,
          [&](const void *d, void *o) {
            return shardrt_cuda_reduce_scatter(d, o, outer, inner, dtype, SHARDRT_SUM, g,
                                               numGroups, groupSize);
          },
          [&](const void *h, void *o) {
            return shardrt_reduce_scatter(h, o, outer, inner, dtype, SHARDRT_SUM, g, numGroups,
                                          groupSize);
          }));
    }
  }
  // Pieces of 6: split [2, g, 3] or [1, g, 6], concatenated [3, g, 2] or
  // [1, g, 6]: packed and unpacked on each side.
  for (const std::array<int64_t, 4> &shape :
       {std::array<int64_t, 4>{2, 3, 3, 2}, {1, 6, 1, 6}, {1, 6, 2, 3}}) {
    const int64_t so = shape[0], si = shape[1], co = shape[2], ci = shape[3];
    const std::vector<unsigned char> in = input(SHARDRT_I64, SHARDRT_SUM, rank, 6 * groupSize);
    note(compare(
        "all_to_all " + std::to_string(so) + "x" + std::to_string(si) + " -> " +
            std::to_string(co) + "x" + std::to_string(ci),
        in, in.size(),
        [&](const void *d, void *o) {
          return shardrt_cuda_all_to_all(d, o, so, si, co, ci, SHARDRT_I64, g, numGroups,
                                         groupSize);
        },
        [&](const void *h, void *o) {
          return shardrt_all_to_all(h, o, so, si, co, ci, SHARDRT_I64, g, numGroups, groupSize);
        }));
  }
  return wrong;
}

std::vector<std::string> permutes(int32_t rank) {
  std::vector<std::string> wrong;
  // A cycle with a fixed point, then one pair (every other rank gets zeros).
  const std::vector<std::vector<int64_t>> cases = {{0, 1, 1, 2, 2, 0, 3, 3}, {0, 1}};
  for (const std::vector<int64_t> &pairs : cases) {
    const int64_t n = static_cast<int64_t>(pairs.size()) / 2;
    const std::vector<unsigned char> in = input(SHARDRT_F16, SHARDRT_SUM, rank, 7);
    std::string s = compare(
        "collective_permute of " + std::to_string(n) + " pairs", in, in.size(),
        [&](const void *d, void *o) {
          return shardrt_cuda_collective_permute(d, o, 7, SHARDRT_F16, pairs.data(), n);
        },
        [&](const void *h, void *o) {
          return shardrt_collective_permute(h, o, 7, SHARDRT_F16, pairs.data(), n);
        });
    if (!s.empty())
      wrong.push_back(s);
  }
  return wrong;
}

std::string join(const std::vector<std::string> &lines) {
  std::string all;
  for (const std::string &l : lines)
    all += l + "\n";
  return all;
}

/// What each rank of a connected run saw.
struct ConnectedRun {
  shardrt_status status = SHARDRT_OK;
  std::vector<std::string> modes, wrong; // per rank
};

/// Runs `body(rank)` ("" or what went wrong) on every rank of an `n`-rank
/// world, each bound to GPU `rank % gpus` and connected first.
ConnectedRun runConnected(int32_t n, int32_t gpus,
                          const std::function<std::string(int32_t)> &body) {
  ConnectedRun run;
  run.modes.resize(static_cast<size_t>(n));
  run.wrong.resize(static_cast<size_t>(n));
  run.status = shardrt_test::runWorld(n, [&](shardrt_comm *comm) -> int32_t {
    const int32_t rank = shardrt_comm_rank(comm);
    if (shardrt_cuda_bind(rank % gpus, rank) != SHARDRT_OK)
      return 1;
    if (shardrt_cuda_connect() != SHARDRT_OK) {
      shardrt_cuda_unbind();
      return 1;
    }
    run.modes[rank] = shardrt_cuda_collectives();
    run.wrong[rank] = body(rank);
    return shardrt_cuda_unbind() == SHARDRT_OK ? 0 : 1;
  });
  return run;
}

/// One rank on GPU 0 sums 16 elements of `dtype` once, with NCCL's next
/// all-reduce failing with `failNcclWith` when it is nonzero: the world's
/// status, the call's, and the rank's last error.
struct OneAllReduce {
  shardrt_status world = SHARDRT_OK;
  int32_t status = SHARDRT_OK;
  std::string error;
};
OneAllReduce oneAllReduce(int32_t dtype, int failNcclWith = 0) {
  OneAllReduce r;
  r.world = shardrt_test::runWorld(1, [&](shardrt_comm *) -> int32_t {
    if (shardrt_cuda_bind(0, 0) != SHARDRT_OK || shardrt_cuda_connect() != SHARDRT_OK)
      return 1;
    void *buf = shardrt_cuda_alloc(64, nullptr);
    const int64_t group[] = {0};
    if (failNcclWith)
      shardrt_test::failNextAllReduce(failNcclWith);
    r.status = shardrt_cuda_all_reduce(buf, 16, dtype, SHARDRT_SUM, group, 1, 1);
    r.error = shardrt_last_error();
    shardrt_cuda_unbind();
    return 0;
  });
  return r;
}

} // namespace

TEST_CASE("with a GPU per rank, collectives run on NCCL and match the host collectives") {
  FakeDriverGuard driver;
  driver.setDevices(4);
  FakeNcclGuard nccl;
  constexpr int32_t n = 4;
  ConnectedRun run = runConnected(n, n, [](int32_t rank) {
    std::vector<std::string> bad = everyCollective(rank, shardrt_test::iota(n), n);
    for (const std::vector<int64_t> &groups :
         {std::vector<int64_t>{0, 1, 2, 3}, {0, 2, 1, 3}, {1, 0, 3, 2}}) {
      std::vector<std::string> more = everyCollective(rank, groups, 2);
      bad.insert(bad.end(), more.begin(), more.end());
    }
    std::vector<std::string> more = permutes(rank);
    bad.insert(bad.end(), more.begin(), more.end());
    return join(bad);
  });
  INFO(shardrt_last_error());
  REQUIRE(run.status == SHARDRT_OK);
  for (int32_t r = 0; r < n; ++r) {
    CHECK(run.modes[r] == "NCCL 2.28.9");
    INFO("rank " << r);
    CHECK(run.wrong[r] == "");
  }
  const shardrt_test::FakeNcclCalls calls = fakeNcclCalls();
  CHECK(calls.initRank == n);
  // Three device-group tables besides the whole world, split once each.
  CHECK(calls.split == 3 * n);
  CHECK(calls.allReduce > 0);
  CHECK(calls.allGather > 0);
  CHECK(calls.reduceScatter > 0);
  CHECK(calls.send > 0);
  CHECK(calls.recv > 0);
  CHECK(calls.destroy == 4 * n);
  CHECK(calls.abort == 0);
  CHECK(fake().copies2D > 0);
}

TEST_CASE("ranks sharing a GPU stay staged, and say why") {
  FakeDriverGuard driver;
  driver.setDevices(2);
  FakeNcclGuard nccl;
  constexpr int32_t n = 4;
  ConnectedRun run = runConnected(n, 2, [](int32_t rank) {
    return compareAllReduce(SHARDRT_F32, SHARDRT_SUM, rank, 9, shardrt_test::iota(n), n);
  });
  INFO(shardrt_last_error());
  REQUIRE(run.status == SHARDRT_OK);
  for (int32_t r = 0; r < n; ++r) {
    CHECK(run.modes[r] ==
          "staged through host memory: 4 ranks on 2 GPUs (NCCL needs one GPU per rank)");
    CHECK(run.wrong[r] == "");
  }
  CHECK(fakeNcclCalls().initRank == 0);
  CHECK(fakeNcclCalls().allReduce == 0);
}

TEST_CASE("SHARDRT_NCCL=0 keeps collectives staged") {
  FakeDriverGuard driver;
  driver.setDevices(2);
  FakeNcclGuard nccl;
  setenv("SHARDRT_NCCL", "0", 1);
  ConnectedRun run = runConnected(2, 2, [](int32_t) { return std::string(); });
  unsetenv("SHARDRT_NCCL");
  REQUIRE(run.status == SHARDRT_OK);
  CHECK(run.modes[0] == "staged through host memory: NCCL turned off (SHARDRT_NCCL=0)");
  CHECK(run.modes[1] == run.modes[0]);
  CHECK(fakeNcclCalls().initRank == 0);
}

TEST_CASE("NCCL that cannot make the world communicator leaves the run staged") {
  FakeDriverGuard driver;
  driver.setDevices(2);
  FakeNcclGuard nccl;
  shardrt_test::failInitRank(1);
  ConnectedRun run = runConnected(2, 2, [](int32_t rank) {
    return compareAllReduce(SHARDRT_I32, SHARDRT_MAX, rank, 6, shardrt_test::iota(2), 2);
  });
  INFO(shardrt_last_error());
  REQUIRE(run.status == SHARDRT_OK);
  for (int32_t r = 0; r < 2; ++r) {
    CHECK(run.modes[r] ==
          "staged through host memory: NCCL failed: ncclCommInitRank: unhandled cuda error");
    CHECK(run.wrong[r] == "");
  }
  CHECK(fakeNcclCalls().initRank == 2);
  CHECK(fakeNcclCalls().allReduce == 0);
}

TEST_CASE("a failed NCCL call names the call, the rank and the GPU") {
  FakeDriverGuard driver;
  FakeNcclGuard nccl;
  OneAllReduce r = oneAllReduce(SHARDRT_F32, /*failNcclWith=*/2);
  CHECK(r.world != SHARDRT_OK); // the rank's failure aborted its world
  CHECK(r.status == SHARDRT_ERR_BACKEND);
  CHECK(r.error ==
        "rank 0, GPU 0 (Fake H200, sm_90): ncclAllReduce: unhandled system error");
}

TEST_CASE("NCCL refuses to reduce 16-bit integers, naming what to do") {
  FakeDriverGuard driver;
  FakeNcclGuard nccl;
  OneAllReduce r = oneAllReduce(SHARDRT_I16);
  CHECK(r.world != SHARDRT_OK);
  CHECK(r.status == SHARDRT_ERR_ARGUMENT);
  CHECK_THAT(r.error,
             Catch::Matchers::Contains("all_reduce: NCCL has no 16-bit integer reduction"));
}

TEST_CASE("the watchdog aborts NCCL on an asynchronous error and on a timeout") {
  FakeDriverGuard driver;
  FakeNcclGuard nccl;
  setenv("SHARDRT_TIMEOUT_S", "0.2", 1);
  std::string asyncMessage, timeoutMessage;
  int abortsAfterAsync = -1;
  shardrt_test::runWorld(1, [&](shardrt_comm *) -> int32_t {
    if (shardrt_cuda_bind(0, 0) != SHARDRT_OK || shardrt_cuda_connect() != SHARDRT_OK)
      return 1;
    fake().streamNeverIdle = true;
    shardrt_test::setNcclAsyncError(6);
    shardrt_cuda_synchronize();
    asyncMessage = shardrt_last_error();
    abortsAfterAsync = fakeNcclCalls().abort;
    shardrt_test::setNcclAsyncError(0);
    fake().streamNeverIdle = false;
    shardrt_cuda_unbind();
    return 0;
  });
  shardrt_test::runWorld(1, [&](shardrt_comm *) -> int32_t {
    if (shardrt_cuda_bind(0, 0) != SHARDRT_OK || shardrt_cuda_connect() != SHARDRT_OK)
      return 1;
    fake().streamNeverIdle = true;
    shardrt_cuda_synchronize();
    timeoutMessage = shardrt_last_error();
    fake().streamNeverIdle = false;
    shardrt_cuda_unbind();
    return 0;
  });
  unsetenv("SHARDRT_TIMEOUT_S");
  CHECK(asyncMessage == "rank 0, GPU 0 (Fake H200, sm_90): ncclCommGetAsyncError: remote "
                        "process exited or there was a network error");
  CHECK(abortsAfterAsync == 1);
  CHECK(timeoutMessage.find("did not finish within 0.2 s (SHARDRT_TIMEOUT_S); NCCL "
                            "communicators aborted") != std::string::npos);
  CHECK(fakeNcclCalls().abort == 2);
}
