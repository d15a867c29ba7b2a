// shardrt's CUDA part against the fake driver (FakeDriver.h): binding,
// the caching allocator, copies, launches with their module cache, sticky
// errors with their messages, aborts of the rank's world, the timeout.
#include "shardrt_cuda.h"

#include "runtime/src/cuda/Allocator.h"
#include "tests/runtime/TestUtil.h"
#include "tests/runtime/cuda/FakeDriver.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using shardrt_test::fake;
using shardrt_test::FakeDriverGuard;
using shardrt_test::launchAddOne;
using shardrt_test::registerAddOne;

namespace {

// A module image: the fake only uses its address.
const char kImage[] = "fake module";
const char kOtherImage[] = "another fake module";

} // namespace

TEST_CASE("size classes round to 512 B below 1 MiB and to 2 MiB above") {
  using shardrt::cuda::Allocator;
  CHECK(Allocator::sizeClass(0) == 512);
  CHECK(Allocator::sizeClass(1) == 512);
  CHECK(Allocator::sizeClass(512) == 512);
  CHECK(Allocator::sizeClass(513) == 1024);
  CHECK(Allocator::sizeClass((1 << 20) - 1) == (1 << 20));
  CHECK(Allocator::sizeClass(1 << 20) == (2 << 20));
  CHECK(Allocator::sizeClass((2 << 20) + 1) == (4 << 20));
}

TEST_CASE("a freed block is reused for its size class without a driver call") {
  FakeDriverGuard guard;
  REQUIRE(shardrt_cuda_bind(0, 0) == SHARDRT_OK);
  void *a = shardrt_cuda_alloc(1000, "model.mlir:1:1");
  REQUIRE(a != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(a) % 256 == 0);
  shardrt_cuda_free(a);
  void *b = shardrt_cuda_alloc(900, "model.mlir:2:1"); // same class (1024)
  CHECK(b == a);
  void *c = shardrt_cuda_alloc(300, "model.mlir:3:1"); // class 512: the cache has none
  CHECK(c != a);
  CHECK(fake().allocCalls == 2);
  shardrt_cuda_free(b);
  void *big = shardrt_cuda_alloc(100 << 10, "model.mlir:4:1");
  shardrt_cuda_free(big);
  // A 512-byte request may take the cached 1024-byte block (at most twice
  // its class), never the 100 KiB one.
  void *small = shardrt_cuda_alloc(512, "model.mlir:5:1");
  CHECK(small == a);
  CHECK(fake().allocCalls == 3);
  int64_t held = 0, used = 0;
  shardrt_cuda_memory_stats(&held, &used);
  CHECK(used == 512 + 1024);
  CHECK(held == 1024 + 512 + (100 << 10));
  CHECK(shardrt_cuda_unbind() == SHARDRT_OK);
  CHECK(fake().blocks.empty());
  CHECK(fake().liveStreams == 0);
  CHECK(fake().retainedContexts == 0);
}

TEST_CASE("out of memory empties the cache and retries once, then names the site") {
  FakeDriverGuard guard;
  fake().capacity = 8 << 20;
  REQUIRE(shardrt_cuda_bind(0, 3) == SHARDRT_OK);
  void *a = shardrt_cuda_alloc(4 << 20, "model.mlir:1:1");
  REQUIRE(a != nullptr);
  shardrt_cuda_free(a); // cached: the driver still holds 4 MiB for us
  void *b = shardrt_cuda_alloc(6 << 20, "model.mlir:2:1"); // fits only once the cache is released
  CHECK(b != nullptr);
  CHECK(fake().freeCalls == 1);
  void *c = shardrt_cuda_alloc(4 << 20, "model.mlir:17:1");
  CHECK(c == nullptr);
  std::string message = shardrt_last_error();
  CHECK(message.find("rank 3, GPU 0 (Fake H200, sm_90): cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY") !=
        std::string::npos);
  CHECK(message.find("4194304 bytes for the value of model.mlir:17:1") != std::string::npos);
  CHECK(message.find("of 8388608 bytes free") != std::string::npos);
  // Sticky: later calls do nothing and report the same error.
  CHECK(shardrt_cuda_memset(b, 0, 4, 4) == SHARDRT_ERR_BACKEND);
  CHECK(shardrt_cuda_synchronize() == SHARDRT_ERR_BACKEND);
  CHECK(std::string(shardrt_last_error()) == message);
  CHECK(shardrt_cuda_unbind() == SHARDRT_ERR_BACKEND);
  CHECK(fake().blocks.empty());
}

TEST_CASE("without caching every free goes to the driver") {
  setenv("SHARDRT_CUDA_CACHE", "0", 1);
  FakeDriverGuard guard;
  REQUIRE(shardrt_cuda_bind(0, 0) == SHARDRT_OK);
  shardrt_cuda_free(shardrt_cuda_alloc(100, "model.mlir:1:1"));
  shardrt_cuda_free(shardrt_cuda_alloc(100, "model.mlir:1:1"));
  CHECK(fake().allocCalls == 2);
  CHECK(fake().freeCalls == 2);
  CHECK(shardrt_cuda_unbind() == SHARDRT_OK);
  unsetenv("SHARDRT_CUDA_CACHE");
}

TEST_CASE("upload, launch, copy, memset and download round-trip") {
  FakeDriverGuard guard;
  registerAddOne();
  REQUIRE(shardrt_cuda_bind(0, 0) == SHARDRT_OK);
  std::vector<float> host = {1, 2, 3, 4, 5};
  auto *d = static_cast<float *>(shardrt_cuda_alloc(5 * sizeof(float), nullptr));
  auto *e = static_cast<float *>(shardrt_cuda_alloc(5 * sizeof(float), nullptr));
  REQUIRE(shardrt_cuda_upload(d, host.data(), 5 * sizeof(float)) == SHARDRT_OK);
  REQUIRE(launchAddOne(kImage, d, 5) == SHARDRT_OK);
  REQUIRE(launchAddOne(kImage, d, 5) == SHARDRT_OK);
  REQUIRE(shardrt_cuda_copy(e, d, 5 * sizeof(float)) == SHARDRT_OK);
  REQUIRE(shardrt_cuda_memset(d, 0x3f800000, 2, 4) == SHARDRT_OK); // 1.0f
  std::vector<float> out(5), copied(5);
  REQUIRE(shardrt_cuda_download(out.data(), d, 5 * sizeof(float)) == SHARDRT_OK);
  REQUIRE(shardrt_cuda_download(copied.data(), e, 5 * sizeof(float)) == SHARDRT_OK);
  CHECK(out == std::vector<float>{1, 1, 5, 6, 7});
  CHECK(copied == std::vector<float>{3, 4, 5, 6, 7});
  // One module load, one lookup, both launches recorded with their shape.
  CHECK(fake().moduleLoads == 1);
  REQUIRE(fake().launches.size() == 2);
  CHECK(fake().launches[1].grid[0] == 2);
  CHECK(fake().launches[1].block[0] == 128);
  CHECK(shardrt_cuda_unbind() == SHARDRT_OK);
}

TEST_CASE("a kernel asking for more than 48 KiB of shared memory raises its limit once") {
  FakeDriverGuard guard;
  registerAddOne();
  REQUIRE(shardrt_cuda_bind(0, 0) == SHARDRT_OK);
  auto *d = static_cast<float *>(shardrt_cuda_alloc(16, "model.mlir:1:1"));
  REQUIRE(launchAddOne(kImage, d, 1, 48 * 1024) == SHARDRT_OK);
  CHECK(fake().attributeCalls == 0);
  REQUIRE(launchAddOne(kImage, d, 1, 100 * 1024) == SHARDRT_OK);
  REQUIRE(launchAddOne(kImage, d, 1, 100 * 1024) == SHARDRT_OK);
  CHECK(fake().attributeCalls == 1);
  CHECK(fake().launches.back().smem == 100 * 1024);
  CHECK(shardrt_cuda_unbind() == SHARDRT_OK);
}

TEST_CASE("ranks sharing a GPU share its modules, each with its own stream") {
  FakeDriverGuard guard;
  registerAddOne();
  std::vector<float> results(4, 0.0f);
  shardrt_status s = shardrt_test::runWorld(4, [&](shardrt_comm *comm) -> int32_t {
    const int32_t rank = shardrt_comm_rank(comm);
    if (shardrt_cuda_bind(0, rank) != SHARDRT_OK)
      return 1;
    float value = static_cast<float>(rank);
    auto *d = static_cast<float *>(shardrt_cuda_alloc(sizeof(float), nullptr));
    if (shardrt_cuda_upload(d, &value, sizeof(float)) != SHARDRT_OK ||
        launchAddOne(rank % 2 ? kImage : kOtherImage, d, 1) != SHARDRT_OK ||
        shardrt_cuda_download(&results[rank], d, sizeof(float)) != SHARDRT_OK)
      return 1;
    return shardrt_cuda_unbind();
  });
  REQUIRE(s == SHARDRT_OK);
  CHECK(results == std::vector<float>{1, 2, 3, 4});
  CHECK(fake().moduleLoads == 2); // two images, one device
  CHECK(fake().liveStreams == 0);
}

TEST_CASE("a failed launch names the call, rank, GPU and kernel, and aborts the world") {
  FakeDriverGuard guard;
  registerAddOne();
  fake().launchError = 700;
  shardrt_status s = shardrt_test::runWorld(2, [&](shardrt_comm *comm) -> int32_t {
    const int32_t rank = shardrt_comm_rank(comm);
    if (shardrt_cuda_bind(0, rank) != SHARDRT_OK)
      return 1;
    auto *d = static_cast<float *>(shardrt_cuda_alloc(sizeof(float), nullptr));
    int32_t launched = SHARDRT_OK;
    if (rank == 1)
      launched = launchAddOne(kImage, d, 1);
    // Rank 0 waits in a collective: rank 1's failure must release it.
    float x = 1;
    const std::vector<int64_t> group = shardrt_test::iota(2);
    int32_t reduced = shardrt_all_reduce(&x, 1, SHARDRT_F32, SHARDRT_SUM, group.data(), 1, 2);
    shardrt_cuda_unbind();
    return launched != SHARDRT_OK || reduced != SHARDRT_OK;
  });
  CHECK(s != SHARDRT_OK);
  std::string message = shardrt_last_error();
  INFO(message);
  CHECK(message.find("rank 1, GPU 0 (Fake H200, sm_90): cuLaunchKernel: "
                     "CUDA_ERROR_ILLEGAL_ADDRESS (kernel add_one)") != std::string::npos);
}

TEST_CASE("an unknown kernel and a bad launch shape are errors naming the kernel") {
  FakeDriverGuard guard;
  REQUIRE(shardrt_cuda_bind(0, 0) == SHARDRT_OK);
  void *params[] = {nullptr};
  CHECK(shardrt_cuda_launch(kImage, 1, "missing", 1, 1, 1, 1, 1, 1, 0, params) ==
        SHARDRT_ERR_BACKEND);
  CHECK(std::string(shardrt_last_error()).find("cuModuleGetFunction: CUDA_ERROR_NOT_FOUND "
                                               "(kernel missing)") != std::string::npos);
  shardrt_cuda_unbind();
  REQUIRE(shardrt_cuda_bind(0, 0) == SHARDRT_OK);
  registerAddOne();
  CHECK(shardrt_cuda_launch(kImage, 1, "add_one", 1, 1, 1, 2048, 1, 1, 0, params) ==
        SHARDRT_ERR_ARGUMENT);
  CHECK(std::string(shardrt_last_error()).find("launch shape (1, 1, 1) x (2048, 1, 1) is out of "
                                               "range") != std::string::npos);
  shardrt_cuda_unbind();
}

TEST_CASE("a stream that never finishes times out instead of hanging") {
  setenv("SHARDRT_TIMEOUT_S", "0.2", 1);
  FakeDriverGuard guard;
  REQUIRE(shardrt_cuda_bind(0, 5) == SHARDRT_OK);
  fake().streamNeverIdle = true;
  CHECK(shardrt_cuda_synchronize() == SHARDRT_ERR_BACKEND);
  std::string message = shardrt_last_error();
  CHECK(message.find("rank 5, GPU 0 (Fake H200, sm_90): the GPU's work did not finish within "
                     "0.2 s (SHARDRT_TIMEOUT_S)") != std::string::npos);
  fake().streamNeverIdle = false;
  shardrt_cuda_unbind();
  unsetenv("SHARDRT_TIMEOUT_S");
}

TEST_CASE("calls on an unbound thread and binds to a missing GPU are errors") {
  FakeDriverGuard guard;
  CHECK(shardrt_cuda_alloc(4, "model.mlir:1:1") == nullptr);
  CHECK(std::string(shardrt_last_error()) ==
        "shardrt_cuda_alloc: the calling thread is bound to no GPU (shardrt_cuda_bind)");
  CHECK(shardrt_cuda_bind(1, 0) == SHARDRT_ERR_BACKEND);
  CHECK(std::string(shardrt_last_error()) == "rank 0: GPU 1 does not exist (1 CUDA device)");
  guard.setDevices(2);
  CHECK(shardrt_cuda_device_count() == 2);
  shardrt_cuda_device_info info;
  REQUIRE(shardrt_cuda_device_info_get(1, &info) == SHARDRT_OK);
  CHECK(std::string(info.name) == "Fake H200");
  CHECK(info.major == 9);
  REQUIRE(shardrt_cuda_bind(1, 0) == SHARDRT_OK);
  CHECK(shardrt_cuda_bind(0, 0) == SHARDRT_ERR_BACKEND);
  CHECK(std::string(shardrt_last_error()).find("already bound") != std::string::npos);
  CHECK(shardrt_cuda_unbind() == SHARDRT_OK);
}

TEST_CASE("the symbol table lists what generated code calls") {
  std::vector<std::string> names;
  for (const shardrt_symbol *s = shardrt_cuda_symbols(); s->name; ++s) {
    CHECK(s->address != nullptr);
    names.push_back(s->name);
  }
  CHECK(names == std::vector<std::string>{
                     "shardrt_cuda_alloc", "shardrt_cuda_free", "shardrt_cuda_constant",
                     "shardrt_cuda_copy", "shardrt_cuda_upload",
                     "shardrt_cuda_memset", "shardrt_cuda_launch", "shardrt_cuda_all_reduce",
                     "shardrt_cuda_all_reduce_start", "shardrt_cuda_all_reduce_done",
                     "shardrt_cuda_reduce_scatter_start", "shardrt_cuda_reduce_scatter_done",
                     "shardrt_cuda_all_gather", "shardrt_cuda_reduce_scatter",
                     "shardrt_cuda_all_to_all", "shardrt_cuda_collective_permute"});
}

TEST_CASE("collectives on device buffers are staged through the host collectives") {
  FakeDriverGuard guard;
  constexpr int32_t n = 4;
  std::vector<std::vector<float>> reduced(n), gathered(n), scattered(n);
  shardrt_status s = shardrt_test::runWorld(n, [&](shardrt_comm *comm) -> int32_t {
    const int32_t rank = shardrt_comm_rank(comm);
    if (shardrt_cuda_bind(0, rank) != SHARDRT_OK)
      return 1;
    const std::vector<int64_t> group = shardrt_test::iota(n);
    std::vector<float> mine = {float(rank), float(10 * rank)};
    auto *buf = static_cast<float *>(shardrt_cuda_alloc(2 * sizeof(float), nullptr));
    auto *all = static_cast<float *>(shardrt_cuda_alloc(2 * n * sizeof(float), nullptr));
    auto *part = static_cast<float *>(shardrt_cuda_alloc(sizeof(float), nullptr));
    reduced[rank].resize(2);
    gathered[rank].resize(2 * n);
    scattered[rank].resize(1);
    int64_t request = -1;
    std::vector<float> wide(n);
    for (int32_t i = 0; i < n; ++i)
      wide[i] = float(rank + i);
    bool ok = shardrt_cuda_upload(buf, mine.data(), 2 * sizeof(float)) == SHARDRT_OK &&
              shardrt_cuda_all_gather(buf, all, 1, 2, SHARDRT_F32, group.data(), 1, n) ==
                  SHARDRT_OK &&
              (request = shardrt_cuda_all_reduce_start(buf, 2, SHARDRT_F32, SHARDRT_SUM,
                                                       group.data(), 1, n)) >= 0 &&
              shardrt_cuda_all_reduce_done(request) == SHARDRT_OK &&
              shardrt_cuda_download(reduced[rank].data(), buf, 2 * sizeof(float)) ==
                  SHARDRT_OK &&
              shardrt_cuda_download(gathered[rank].data(), all, 2 * n * sizeof(float)) ==
                  SHARDRT_OK &&
              shardrt_cuda_upload(all, wide.data(), n * sizeof(float)) == SHARDRT_OK &&
              (request = shardrt_cuda_reduce_scatter_start(all, part, 1, 1, SHARDRT_F32,
                                                           SHARDRT_SUM, group.data(), 1, n)) >=
                  0 &&
              shardrt_cuda_reduce_scatter_done(request, all, part) == SHARDRT_OK &&
              shardrt_cuda_download(scattered[rank].data(), part, sizeof(float)) == SHARDRT_OK;
    return shardrt_cuda_unbind() == SHARDRT_OK && ok ? 0 : 1;
  });
  INFO(shardrt_last_error());
  REQUIRE(s == SHARDRT_OK);
  for (int32_t r = 0; r < n; ++r) {
    CHECK(reduced[r] == std::vector<float>{6, 60});
    CHECK(gathered[r] == std::vector<float>{0, 0, 1, 10, 2, 20, 3, 30});
    // Member r keeps the sum over ranks q of (q + r).
    CHECK(scattered[r] == std::vector<float>{float(6 + 4 * r)});
  }
}

TEST_CASE("a constant is uploaded once per device and shared by its ranks") {
  FakeDriverGuard guard;
  static const float kTable[3] = {1.5f, 2.5f, 3.5f};
  std::vector<void *> copies(4);
  std::vector<std::vector<float>> seen(4, std::vector<float>(3));
  shardrt_status s = shardrt_test::runWorld(4, [&](shardrt_comm *comm) -> int32_t {
    const int32_t rank = shardrt_comm_rank(comm);
    if (shardrt_cuda_bind(0, rank) != SHARDRT_OK)
      return 1;
    copies[rank] = shardrt_cuda_constant(kTable, sizeof(kTable));
    bool ok = copies[rank] &&
              shardrt_cuda_download(seen[rank].data(), copies[rank], sizeof(kTable)) == SHARDRT_OK;
    return shardrt_cuda_unbind() == SHARDRT_OK && ok ? 0 : 1;
  });
  REQUIRE(s == SHARDRT_OK);
  for (int r = 0; r < 4; ++r) {
    CHECK(copies[r] == copies[0]);
    CHECK(seen[r] == std::vector<float>{1.5f, 2.5f, 3.5f});
  }
  CHECK(fake().allocCalls == 1);
}
