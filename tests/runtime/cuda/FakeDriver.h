// A CUDA driver in host memory, for the runtime's unit tests.
//
// It fills shardrt's driver table with functions over one global state:
// device memory is host memory, a stream runs each call as it is enqueued,
// and a "kernel" is a host function registered by name, called with the
// launch shape and cuLaunchKernel's parameter array. Tests script failures
// (a launch error, a stream that never finishes, a device memory limit) and
// read what the runtime asked of the driver (allocations, module loads,
// attribute calls).
#ifndef SHARDRT_TESTS_CUDA_FAKEDRIVER_H
#define SHARDRT_TESTS_CUDA_FAKEDRIVER_H

#include "runtime/src/cuda/Driver.h"

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace shardrt_test {

using KernelFn = std::function<void(const unsigned grid[3], const unsigned block[3], void **params)>;

struct Launch {
  std::string kernel;
  unsigned grid[3], block[3], smem;
};

struct FakeDriverState {
  std::mutex mutex;
  int devices = 1;
  uint64_t capacity = 1ull << 30;   // device memory per process, all devices together
  uint64_t inUse = 0;
  std::map<unsigned long long, std::vector<unsigned char>> blocks;
  int allocCalls = 0, freeCalls = 0, moduleLoads = 0, attributeCalls = 0, copies2D = 0;
  std::map<std::string, KernelFn> kernels;   // by name
  // Parameters of a kernel launched while capturing (each pointer-sized).
  std::map<std::string, int> paramCounts;
  std::vector<Launch> launches;
  int launchError = 0;          // returned by the next launches when non-zero
  bool streamNeverIdle = false; // cuStreamQuery answers CUDA_ERROR_NOT_READY
  int retainedContexts = 0, liveStreams = 0;
  // Capture: a capturing stream records its work (run when a graph of it
  // is launched); host copies on it are CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
  // and invalidate the capture, as the driver's do.
  std::map<void *, std::vector<std::function<void()>>> capturing; // by stream
  std::map<void *, bool> invalidated;
  int graphsLive = 0, graphLaunches = 0;
};

/// The fake's state; reset() clears it.
FakeDriverState &fake();
void resetFake();

/// Registers "add_one", the kernel the tests launch: params = {float *data,
/// int64_t n}; data[i] += 1 for i < n.
void registerAddOne();
/// Launches "add_one" of module `image` (2 blocks of 128 threads) on the
/// calling rank.
int32_t launchAddOne(const void *image, float *data, int64_t n, int32_t smem = 0);

/// Installs the fake as the process's driver until the guard dies.
class FakeDriverGuard {
public:
  FakeDriverGuard();
  ~FakeDriverGuard();
  const shardrt::cuda::DriverLoad &load() const { return loadInfo; }
  /// The number of GPUs the fake has (1 unless set).
  void setDevices(int n);

private:
  shardrt::cuda::DriverLoad loadInfo;
};

} // namespace shardrt_test

#endif // SHARDRT_TESTS_CUDA_FAKEDRIVER_H
