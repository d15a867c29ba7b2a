// The caching allocator (Allocator.h).
#include "runtime/src/cuda/Allocator.h"

namespace shardrt::cuda {

uint64_t Allocator::sizeClass(uint64_t bytes) {
  constexpr uint64_t kSmall = 512, kLarge = 2ull << 20, kLargeFrom = 1ull << 20;
  const uint64_t unit = bytes < kLargeFrom ? kSmall : kLarge;
  const uint64_t rounded = (bytes + unit - 1) / unit * unit;
  return rounded == 0 ? kSmall : rounded;
}

CUresult Allocator::allocate(uint64_t bytes, CUdeviceptr *out,
                             const std::function<CUresult()> &waitIdle) {
  const uint64_t size = sizeClass(bytes);
  auto it = cache.lower_bound(size);
  if (it != cache.end() && it->first <= 2 * size) {
    *out = it->second;
    live.emplace(it->second, it->first);
    used += it->first;
    cache.erase(it);
    return CUDA_SUCCESS;
  }
  CUdeviceptr ptr = 0;
  CUresult r = driver.memAlloc(&ptr, size);
  if (r == CUDA_ERROR_OUT_OF_MEMORY && !cache.empty() && !pinned) {
    // Cached blocks may still be read by enqueued work until the stream is
    // idle; only then can they go back to the driver.
    CUresult w = waitIdle();
    if (w != CUDA_SUCCESS)
      return w;
    CUresult f = releaseCache();
    if (f != CUDA_SUCCESS)
      return f;
    r = driver.memAlloc(&ptr, size);
  }
  if (r != CUDA_SUCCESS)
    return r;
  live.emplace(ptr, size);
  held += size;
  used += size;
  *out = ptr;
  return CUDA_SUCCESS;
}

bool Allocator::release(CUdeviceptr ptr, CUresult *driverResult) {
  *driverResult = CUDA_SUCCESS;
  auto it = live.find(ptr);
  if (it == live.end())
    return false;
  const uint64_t size = it->second;
  live.erase(it);
  used -= size;
  if (caching || pinned) {
    cache.emplace(size, ptr);
    return true;
  }
  held -= size;
  *driverResult = driver.memFree(ptr);
  return true;
}

CUresult Allocator::releaseCache() {
  CUresult first = CUDA_SUCCESS;
  for (const auto &[size, ptr] : cache) {
    CUresult r = driver.memFree(ptr);
    if (first == CUDA_SUCCESS)
      first = r;
    held -= size;
  }
  cache.clear();
  return first;
}

CUresult Allocator::releaseAll() {
  CUresult first = releaseCache();
  for (const auto &[ptr, size] : live) {
    CUresult r = driver.memFree(ptr);
    if (first == CUDA_SUCCESS)
      first = r;
    held -= size;
    used -= size;
  }
  live.clear();
  return first;
}

} // namespace shardrt::cuda
