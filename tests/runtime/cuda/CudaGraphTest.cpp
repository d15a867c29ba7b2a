// Step graphs against the fake driver (FakeDriver.h records a capturing
// stream's work and runs it when a graph of it is launched): a captured
// step replays on the same buffers; a host wait during capture breaks the
// capture without failing the rank; graphs keep the blocks their work used;
// unbind destroys them.
#include "shardrt_cuda.h"

#include "tests/runtime/TestUtil.h"
#include "tests/runtime/cuda/FakeDriver.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

using shardrt_test::fake;
using shardrt_test::FakeDriverGuard;

namespace {

const char kImage[] = "fake module";

int32_t addOne(float *data, int64_t n) { return shardrt_test::launchAddOne(kImage, data, n); }

std::vector<float> read(const float *device, int n) {
  std::vector<float> host(static_cast<size_t>(n));
  shardrt_cuda_download(host.data(), device, n * static_cast<int64_t>(sizeof(float)));
  return host;
}

} // namespace

TEST_CASE("a captured step replays as one graph on the same buffers") {
  FakeDriverGuard guard;
  shardrt_test::registerAddOne();
  REQUIRE(shardrt_cuda_bind(0, 0) == SHARDRT_OK);
  auto *a = static_cast<float *>(shardrt_cuda_alloc(4 * sizeof(float), nullptr));
  auto *b = static_cast<float *>(shardrt_cuda_alloc(4 * sizeof(float), nullptr));
  const std::vector<float> zeros(4, 0.0f);
  REQUIRE(shardrt_cuda_upload(a, zeros.data(), sizeof(float) * 4) == SHARDRT_OK);
  // The step: a += 1 (through a temporary), b = a.
  auto step = [&] {
    auto *t = static_cast<float *>(shardrt_cuda_alloc(4 * sizeof(float), nullptr));
    bool ok = shardrt_cuda_copy(t, a, 4 * sizeof(float)) == SHARDRT_OK &&
              addOne(t, 4) == SHARDRT_OK && shardrt_cuda_copy(a, t, 4 * sizeof(float)) == SHARDRT_OK &&
              shardrt_cuda_copy(b, a, 4 * sizeof(float)) == SHARDRT_OK;
    shardrt_cuda_free(t);
    return ok;
  };
  REQUIRE(step()); // warm: the temporary's block is cached now
  const int64_t waits = shardrt_cuda_host_waits();
  REQUIRE(shardrt_cuda_capture_begin() == SHARDRT_OK);
  REQUIRE(step());
  const int64_t graph = shardrt_cuda_capture_end();
  INFO(shardrt_last_error());
  REQUIRE(graph > 0);
  CHECK(shardrt_cuda_host_waits() == waits); // the step waited for nothing
  // Captured work is recorded, not run.
  CHECK(read(a, 4) == std::vector<float>(4, 1.0f));
  const size_t launchesBefore = fake().launches.size();
  for (int i = 0; i < 3; ++i)
    REQUIRE(shardrt_cuda_graph_launch(graph) == SHARDRT_OK);
  CHECK(read(a, 4) == std::vector<float>(4, 4.0f));
  CHECK(read(b, 4) == std::vector<float>(4, 4.0f));
  CHECK(fake().graphLaunches == 3);
  CHECK(fake().launches.size() == launchesBefore + 3);
  CHECK(shardrt_cuda_graph_launch(graph + 1) == SHARDRT_ERR_ARGUMENT);
  CHECK(std::string(shardrt_last_error()).find("graph " + std::to_string(graph + 1) +
                                               " does not exist") != std::string::npos);
  shardrt_cuda_unbind();
  CHECK(fake().graphsLive == 0);
}

TEST_CASE("a host wait during capture breaks it, not the rank") {
  FakeDriverGuard guard;
  shardrt_test::registerAddOne();
  REQUIRE(shardrt_cuda_bind(0, 0) == SHARDRT_OK);
  auto *a = static_cast<float *>(shardrt_cuda_alloc(4 * sizeof(float), nullptr));
  const std::vector<float> zeros(4, 0.0f);
  REQUIRE(shardrt_cuda_upload(a, zeros.data(), sizeof(float) * 4) == SHARDRT_OK);
  REQUIRE(shardrt_cuda_capture_begin() == SHARDRT_OK);
  REQUIRE(addOne(a, 4) == SHARDRT_OK);
  std::vector<float> host(4, -1.0f);
  // A scalar the host would read: returns at once, and the capture breaks.
  CHECK(shardrt_cuda_download(host.data(), a, sizeof(float) * 4) == SHARDRT_OK);
  CHECK(shardrt_cuda_capture_end() == 0);
  CHECK(std::string(shardrt_last_error()) ==
        "rank 0, GPU 0 (Fake H200, sm_90): the step could not be captured as a CUDA graph: it "
        "waits for the GPU on the host (a download)");
  CHECK(host == std::vector<float>(4, -1.0f));
  // The rank goes on; the captured launch never ran.
  CHECK(read(a, 4) == std::vector<float>(4, 0.0f));
  REQUIRE(addOne(a, 4) == SHARDRT_OK);
  CHECK(read(a, 4) == std::vector<float>(4, 1.0f));
  CHECK(shardrt_cuda_synchronize() == SHARDRT_OK);
  CHECK(shardrt_cuda_unbind() == SHARDRT_OK);
}

TEST_CASE("while a rank holds graphs, its freed blocks stay with it") {
  FakeDriverGuard guard;
  shardrt_test::registerAddOne();
  setenv("SHARDRT_CUDA_CACHE", "0", 1); // frees would go to the driver
  REQUIRE(shardrt_cuda_bind(0, 0) == SHARDRT_OK);
  unsetenv("SHARDRT_CUDA_CACHE");
  REQUIRE(shardrt_cuda_capture_begin() == SHARDRT_OK);
  auto *t = static_cast<float *>(shardrt_cuda_alloc(4 * sizeof(float), nullptr));
  REQUIRE(addOne(t, 4) == SHARDRT_OK);
  const int64_t graph = shardrt_cuda_capture_end();
  REQUIRE(graph > 0);
  const int freesBefore = fake().freeCalls;
  shardrt_cuda_free(t); // the graph still writes to it
  int64_t held = 0, used = 0;
  shardrt_cuda_memory_stats(&held, &used);
  CHECK(fake().freeCalls == freesBefore);
  CHECK(held > 0);
  CHECK(used == 0);
  shardrt_cuda_graph_destroy(graph);
  CHECK(fake().graphsLive == 0);
  CHECK(shardrt_cuda_unbind() == SHARDRT_OK);
  CHECK(fake().freeCalls == freesBefore + 1); // unbind returned the block
}
