// Loading the CUDA driver where there may be none: every way of having no
// usable device gives "no CUDA device" with its reason, never a crash.
// The link-stub case needs the CUDA toolkit; without it that case says it
// was skipped (and the test says "some cases skipped").
#include "shardrt_cuda.h"

#include "runtime/src/cuda/Driver.h"
#include "tests/runtime/cuda/CheckList.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

using shardrt_test::contains;
using shardrt_test::expect;

int main() {
  using shardrt::cuda::openDriver;

  auto missing = openDriver("/nonexistent/libcuda.so.1");
  expect(!missing.table && contains(missing.reason, "could not be loaded") &&
             contains(missing.reason, "/nonexistent/libcuda.so.1"),
         "a missing driver library is named", missing.reason);

  auto notDriver = openDriver("libm.so.6");
  expect(!notDriver.table && contains(notDriver.reason, "libm.so.6 has no cuInit"),
         "a library that is not a driver is refused", notDriver.reason);

  const char *cudaPath = std::getenv("CUDA_PATH");
  const std::string stub =
      std::string(cudaPath && *cudaPath ? cudaPath : "/usr/local/cuda") + "/lib64/stubs/libcuda.so";
  bool skipped = false;
  if (access(stub.c_str(), R_OK) == 0) {
    auto load = openDriver(stub);
    expect(!load.table && contains(load.reason, "the CUDA toolkit's link stub"),
           "the toolkit's link stub is refused", load.reason);
  } else {
    std::printf("skip the link-stub case: no %s\n", stub.c_str());
    skipped = true;
  }

  // The process's driver: on a machine without a GPU, a clean refusal.
  if (shardrt_cuda_init() == SHARDRT_OK) {
    expect(shardrt_cuda_device_count() > 0, "a usable driver counts its GPUs",
           std::to_string(shardrt_cuda_device_count()));
  } else {
    std::string message = shardrt_last_error();
    expect(message.rfind("no CUDA device: ", 0) == 0 && shardrt_cuda_device_count() == 0,
           "no driver means \"no CUDA device\" with its reason", message);
    std::printf("     (%s)\n", message.c_str());
  }

  return shardrt_test::finish(skipped);
}
