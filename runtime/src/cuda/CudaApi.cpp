// shardrt_cuda.h's C functions: each finds the calling thread's binding and
// forwards to it. A call on a thread bound to no GPU is an error naming the
// function, never a crash.
#include "shardrt_cuda.h"

#include "runtime/src/Error.h"
#include "runtime/src/cuda/Driver.h"
#include "runtime/src/cuda/RankDevice.h"

#include <cstdio>
#include <cstring>

using shardrt::fail;
using shardrt::cuda::RankDevice;

namespace {

RankDevice *bound(const char *function) {
  RankDevice *rd = RankDevice::current();
  if (!rd)
    fail(SHARDRT_ERR_ARGUMENT, "%s: the calling thread is bound to no GPU (shardrt_cuda_bind)",
         function);
  return rd;
}

template <typename Fn> void *address(Fn *fn) { return reinterpret_cast<void *>(fn); }

} // namespace

extern "C" {

shardrt_status shardrt_cuda_init(void) {
  const auto &load = shardrt::cuda::processDriver();
  if (!load.table)
    return fail(SHARDRT_ERR_BACKEND, "no CUDA device: %s", load.reason.c_str());
  return SHARDRT_OK;
}

int32_t shardrt_cuda_device_count(void) {
  const auto &load = shardrt::cuda::processDriver();
  return load.table ? load.deviceCount : 0;
}

shardrt_status shardrt_cuda_device_info_get(int32_t device, shardrt_cuda_device_info *info) {
  const auto &load = shardrt::cuda::processDriver();
  if (!load.table)
    return fail(SHARDRT_ERR_BACKEND, "no CUDA device: %s", load.reason.c_str());
  if (!info || device < 0 || device >= load.deviceCount)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_cuda_device_info_get: GPU %d does not exist (%d "
                "CUDA devices)", device, load.deviceCount);
  const auto &t = *load.table;
  std::memset(info, 0, sizeof(*info));
  shardrt::cuda::CUdevice d = 0;
  size_t total = 0;
  int r = t.deviceGet(&d, device);
  if (r == 0)
    r = t.deviceGetName(info->name, sizeof(info->name) - 1, d);
  if (r == 0)
    r = t.deviceGetAttribute(&info->major,
                             shardrt::cuda::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d);
  if (r == 0)
    r = t.deviceGetAttribute(&info->minor,
                             shardrt::cuda::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d);
  if (r == 0)
    r = t.deviceTotalMem(&total, d);
  if (r != 0)
    return fail(SHARDRT_ERR_BACKEND, "GPU %d: reading its properties failed: %s", device,
                shardrt::cuda::errorName(t, r).c_str());
  info->total_bytes = static_cast<int64_t>(total);
  return SHARDRT_OK;
}

shardrt_status shardrt_cuda_bind(int32_t device, int32_t rank) {
  return RankDevice::bind(shardrt::cuda::processDriver(), device, rank) ? SHARDRT_OK
                                                                        : SHARDRT_ERR_BACKEND;
}

shardrt_status shardrt_cuda_unbind(void) {
  RankDevice *rd = bound("shardrt_cuda_unbind");
  return rd ? rd->unbind() : SHARDRT_ERR_ARGUMENT;
}

int32_t shardrt_cuda_upload(void *device_dst, const void *host_src, int64_t bytes) {
  RankDevice *rd = bound("shardrt_cuda_upload");
  return rd ? rd->upload(device_dst, host_src, bytes) : SHARDRT_ERR_ARGUMENT;
}

int32_t shardrt_cuda_download(void *host_dst, const void *device_src, int64_t bytes) {
  RankDevice *rd = bound("shardrt_cuda_download");
  return rd ? rd->download(host_dst, device_src, bytes) : SHARDRT_ERR_ARGUMENT;
}

int32_t shardrt_cuda_synchronize(void) {
  RankDevice *rd = bound("shardrt_cuda_synchronize");
  return rd ? rd->synchronize() : SHARDRT_ERR_ARGUMENT;
}

shardrt_status shardrt_cuda_capture_begin(void) {
  RankDevice *rd = bound("shardrt_cuda_capture_begin");
  return rd ? static_cast<shardrt_status>(rd->captureBegin()) : SHARDRT_ERR_ARGUMENT;
}

int64_t shardrt_cuda_capture_end(void) {
  RankDevice *rd = bound("shardrt_cuda_capture_end");
  return rd ? rd->captureEnd() : 0;
}

int32_t shardrt_cuda_graph_launch(int64_t graph) {
  RankDevice *rd = bound("shardrt_cuda_graph_launch");
  return rd ? rd->graphLaunch(graph) : SHARDRT_ERR_ARGUMENT;
}

void shardrt_cuda_graph_destroy(int64_t graph) {
  if (RankDevice *rd = bound("shardrt_cuda_graph_destroy"))
    rd->graphDestroy(graph);
}

int64_t shardrt_cuda_host_waits(void) {
  RankDevice *rd = RankDevice::current();
  return rd ? rd->hostWaits() : 0;
}

void *shardrt_cuda_stream(void) {
  RankDevice *rd = RankDevice::current();
  return rd ? static_cast<void *>(rd->rankStream()) : nullptr;
}

void shardrt_cuda_memory_stats(int64_t *held_bytes, int64_t *used_bytes) {
  RankDevice *rd = RankDevice::current();
  *held_bytes = rd ? static_cast<int64_t>(rd->allocator().heldBytes()) : 0;
  *used_bytes = rd ? static_cast<int64_t>(rd->allocator().usedBytes()) : 0;
}

void *shardrt_cuda_alloc(int64_t bytes, const char *site) {
  RankDevice *rd = bound("shardrt_cuda_alloc");
  return rd ? rd->alloc(bytes, site) : nullptr;
}

void shardrt_cuda_free(void *ptr) {
  if (RankDevice *rd = bound("shardrt_cuda_free"))
    rd->free(ptr);
}

void *shardrt_cuda_constant(const void *host, int64_t bytes) {
  RankDevice *rd = bound("shardrt_cuda_constant");
  return rd ? rd->constant(host, bytes) : nullptr;
}

int32_t shardrt_cuda_copy(void *dst, const void *src, int64_t bytes) {
  RankDevice *rd = bound("shardrt_cuda_copy");
  return rd ? rd->copy(dst, src, bytes) : SHARDRT_ERR_ARGUMENT;
}

int32_t shardrt_cuda_memset(void *ptr, int32_t value, int64_t count, int32_t elem_bytes) {
  RankDevice *rd = bound("shardrt_cuda_memset");
  return rd ? rd->memset(ptr, value, count, elem_bytes) : SHARDRT_ERR_ARGUMENT;
}

int32_t shardrt_cuda_launch(const void *image, int64_t bytes, const char *name, int64_t grid_x,
                            int64_t grid_y, int64_t grid_z, int64_t block_x, int64_t block_y,
                            int64_t block_z, int32_t smem, void **params) {
  RankDevice *rd = bound("shardrt_cuda_launch");
  if (!rd)
    return SHARDRT_ERR_ARGUMENT;
  const int64_t grid[3] = {grid_x, grid_y, grid_z}, block[3] = {block_x, block_y, block_z};
  return rd->launch(image, bytes, name, grid, block, smem, params);
}

const shardrt_symbol *shardrt_cuda_symbols(void) {
  static const shardrt_symbol kSymbols[] = {
      {"shardrt_cuda_alloc", address(&shardrt_cuda_alloc)},
      {"shardrt_cuda_free", address(&shardrt_cuda_free)},
      {"shardrt_cuda_constant", address(&shardrt_cuda_constant)},
      {"shardrt_cuda_copy", address(&shardrt_cuda_copy)},
      {"shardrt_cuda_upload", address(&shardrt_cuda_upload)},
      {"shardrt_cuda_memset", address(&shardrt_cuda_memset)},
      {"shardrt_cuda_launch", address(&shardrt_cuda_launch)},
      {"shardrt_cuda_all_reduce", address(&shardrt_cuda_all_reduce)},
      {"shardrt_cuda_all_reduce_start", address(&shardrt_cuda_all_reduce_start)},
      {"shardrt_cuda_all_reduce_done", address(&shardrt_cuda_all_reduce_done)},
      {"shardrt_cuda_reduce_scatter_start", address(&shardrt_cuda_reduce_scatter_start)},
      {"shardrt_cuda_reduce_scatter_done", address(&shardrt_cuda_reduce_scatter_done)},
      {"shardrt_cuda_all_gather", address(&shardrt_cuda_all_gather)},
      {"shardrt_cuda_reduce_scatter", address(&shardrt_cuda_reduce_scatter)},
      {"shardrt_cuda_all_to_all", address(&shardrt_cuda_all_to_all)},
      {"shardrt_cuda_collective_permute", address(&shardrt_cuda_collective_permute)},
      {nullptr, nullptr},
  };
  return kSymbols;
}

} // extern "C"
