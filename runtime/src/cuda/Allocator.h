// A rank's caching allocator of device memory.
//
// cuMemAlloc and cuMemFree synchronize the device and cost tens of
// microseconds; a training step allocates and frees the same sizes every
// step. So a freed block goes to the rank's cache and the next request of
// its size class takes it back without a driver call. Blocks are cached per
// rank, and a rank's work runs on one stream in program order, so reusing a
// block right after its free is safe without an event: everything that
// reads it was enqueued before whatever reuses it.
//
// Size classes: requests round up to a multiple of 512 bytes below 1 MiB
// and of 2 MiB from there on. A request takes the smallest cached block of
// at least its class and at most twice it, so a small request never pins a
// large block. When the driver is out of memory, the allocator empties its
// cache (after the caller waited for the stream) and tries once more.
#ifndef SHARDRT_SRC_CUDA_ALLOCATOR_H
#define SHARDRT_SRC_CUDA_ALLOCATOR_H

#include "runtime/src/cuda/Driver.h"

#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>

namespace shardrt::cuda {

class Allocator {
public:
  explicit Allocator(const DriverTable &driver, bool caching = true)
      : driver(driver), caching(caching) {}
  Allocator(const Allocator &) = delete;
  Allocator &operator=(const Allocator &) = delete;

  /// The size class of a request (at least 512 bytes).
  static uint64_t sizeClass(uint64_t bytes);

  /// A block of at least `bytes`. On an out-of-memory result from the
  /// driver, calls `waitIdle` (which waits for the rank's stream), releases
  /// the cache and retries once. Returns the driver's last result.
  CUresult allocate(uint64_t bytes, CUdeviceptr *out, const std::function<CUresult()> &waitIdle);

  /// Takes back a block from allocate(); false when `ptr` is not one.
  /// Without caching (SHARDRT_CUDA_CACHE=0), the block goes to the driver.
  bool release(CUdeviceptr ptr, CUresult *driverResult);

  /// Returns every cached block to the driver.
  CUresult releaseCache();
  /// Returns every block, cached or still in use, to the driver.
  CUresult releaseAll();

  /// While pinned (a CUDA graph of the rank holds addresses of blocks it
  /// allocated and freed when it was captured), an out-of-memory result no
  /// longer empties the cache, and a freed block always goes to the cache.
  void setPinned(bool p) { pinned = p; }
  bool isPinned() const { return pinned; }

  uint64_t heldBytes() const { return held; }
  uint64_t usedBytes() const { return used; }
  int64_t liveBlocks() const { return static_cast<int64_t>(live.size()); }

private:
  const DriverTable &driver;
  const bool caching;
  bool pinned = false;
  std::multimap<uint64_t, CUdeviceptr> cache;        // size class -> block
  std::unordered_map<CUdeviceptr, uint64_t> live;    // block -> size class
  uint64_t held = 0, used = 0;
};

} // namespace shardrt::cuda

#endif // SHARDRT_SRC_CUDA_ALLOCATOR_H
