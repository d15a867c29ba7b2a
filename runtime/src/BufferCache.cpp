// shardrt_buffer_alloc / shardrt_buffer_free: the buffers generated code
// allocates (every memref.alloc of a CPU object), kept for reuse.
//
// Why: a step allocates its intermediates afresh on every call, and glibc
// maps a block above its mmap threshold (32 MiB at most; in a thread's
// arena, above 64 MiB whatever the threshold) freshly each time and unmaps
// it when it is freed, so each step faulted in and zeroed those pages
// again. An MLP step with 8192 x 2048 f32 activations (64 MiB each) spent
// about 100 ms of kernel time per step doing so, a fifth of its wall time
// (bench/README.md).
//
// Policy: a block of at least kLargeBytes is mapped here and, when freed,
// kept in a process-wide cache keyed by its size; an allocation of that size
// (or up to an eighth less) takes it back with its pages already resident.
// A training loop allocates the same sizes every step, so after the first
// step nothing is mapped or faulted. Smaller blocks come from malloc, whose
// arenas already reuse them. The cache holds at most SHARDRT_BUFFER_CACHE
// bytes (default: a quarter of physical memory); a block freed beyond that
// is unmapped. shardrt_buffer_cache_release unmaps everything cached.
//
// Large blocks are advised as transparent huge pages (measured: the 64 MiB
// MLP step's 1-rank time 156-159 -> 148-152 ms on a host whose THP mode is
// `madvise`).
//
// Each block starts with a 64-byte header, before the pointer returned,
// that records how it was obtained, so free needs no lookup; the pointer is
// 16-byte aligned like malloc's (the lowering aligns memref.alloc further).
#include "shardrt.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

namespace {

constexpr size_t kHeaderBytes = 64;
constexpr size_t kLargeBytes = size_t{1} << 20;
/// Past this a mapping holds at least one whole 2 MiB page, wherever it lies.
constexpr size_t kHugeAdviceBytes = size_t{4} << 20;

struct Header {
  size_t mapped; // bytes mapped at the header, or 0 for a malloc'd block
};

size_t pageBytes() {
  static const size_t bytes = [] {
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<size_t>(p) : size_t{4096};
  }();
  return bytes;
}

/// SHARDRT_BUFFER_CACHE bytes when set to a number (0 turns the cache off),
/// else a quarter of physical memory.
size_t cacheLimit() {
  if (const char *v = std::getenv("SHARDRT_BUFFER_CACHE"); v && *v) {
    char *end = nullptr;
    unsigned long long n = std::strtoull(v, &end, 10);
    if (*end == '\0')
      return static_cast<size_t>(n);
  }
  long pages = sysconf(_SC_PHYS_PAGES);
  return pages > 0 ? static_cast<size_t>(pages) * pageBytes() / 4 : size_t{1} << 30;
}

/// Freed large blocks by size. Never destroyed: generated code may free a
/// block while the process exits.
class Cache {
public:
  /// A cached block of `bytes` to `bytes` + 1/8, or null.
  void *take(size_t bytes, size_t &mapped) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = blocks.lower_bound(bytes);
    if (it == blocks.end() || it->first > bytes + bytes / 8)
      return nullptr;
    void *block = it->second;
    mapped = it->first;
    cached -= mapped;
    blocks.erase(it);
    return block;
  }

  /// Keeps `block` unless the cache would exceed its limit.
  bool keep(void *block, size_t mapped) {
    std::lock_guard<std::mutex> lock(mutex);
    if (cached + mapped > limit)
      return false;
    blocks.emplace(mapped, block);
    cached += mapped;
    return true;
  }

  void release() {
    std::multimap<size_t, void *> all;
    {
      std::lock_guard<std::mutex> lock(mutex);
      all.swap(blocks);
      cached = 0;
    }
    for (auto [mapped, block] : all)
      munmap(block, mapped);
  }

private:
  std::mutex mutex;
  std::multimap<size_t, void *> blocks;
  size_t cached = 0;
  const size_t limit = cacheLimit();
};

Cache &cache() {
  static Cache *instance = new Cache;
  return *instance;
}

void *userPointer(void *block, size_t mapped) {
  static_cast<Header *>(block)->mapped = mapped;
  return static_cast<char *>(block) + kHeaderBytes;
}

} // namespace

extern "C" void *shardrt_buffer_alloc(int64_t bytes) {
  if (bytes < 0 || static_cast<uint64_t>(bytes) > SIZE_MAX - kHeaderBytes - pageBytes())
    return nullptr;
  size_t need = static_cast<size_t>(bytes) + kHeaderBytes;
  if (need < kLargeBytes) {
    void *block = std::malloc(need);
    return block ? userPointer(block, 0) : nullptr;
  }
  need = (need + pageBytes() - 1) / pageBytes() * pageBytes();
  size_t mapped = 0;
  if (void *block = cache().take(need, mapped))
    return userPointer(block, mapped);
  void *block = mmap(nullptr, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED)
    return nullptr;
  // Transparent huge pages where the host offers them on request: the
  // kernels sweep these blocks, and 2 MiB pages spare them most TLB misses.
  // Advice only; a host without them ignores it.
  if (need >= kHugeAdviceBytes)
    (void)madvise(block, need, MADV_HUGEPAGE);
  return userPointer(block, need);
}

extern "C" void shardrt_buffer_free(void *pointer) {
  if (!pointer)
    return;
  void *block = static_cast<char *>(pointer) - kHeaderBytes;
  size_t mapped = static_cast<Header *>(block)->mapped;
  if (mapped == 0)
    std::free(block);
  else if (!cache().keep(block, mapped))
    munmap(block, mapped);
}

extern "C" void shardrt_buffer_cache_release(void) { cache().release(); }
