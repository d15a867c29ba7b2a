// The part of the CUDA driver API shardrt calls, as a table of entry points.
//
// shardrt builds without CUDA headers and never links libcuda, so the few
// types and codes it needs are declared here. They are the driver's stable
// C ABI (cuda.h, CUDA 12 and 13): handles are opaque pointers, a device is
// an int, a device pointer a 64-bit integer. The versioned names the table
// is filled from (`cuMemAlloc_v2`, ...) are the ones cuda.h maps the plain
// names to; dlsym on a plain name would return the legacy entry point.
//
// The table is injectable: unit tests install a fake driver in host memory
// (tests/runtime/cuda/FakeDriver.h) and run the allocator, launches and the
// messages against it.
#ifndef SHARDRT_SRC_CUDA_DRIVER_H
#define SHARDRT_SRC_CUDA_DRIVER_H

#include <cstddef>
#include <string>

namespace shardrt::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphExec = struct CUgraphExec_st *;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
inline constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
inline constexpr CUresult CUDA_ERROR_NOT_READY = 600;
inline constexpr CUresult CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900;
inline constexpr CUresult CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901;
// Relaxed: calls that are not stream-ordered (cuMemAlloc on a cache miss)
// may run while a rank captures; they are not recorded.
inline constexpr int CU_STREAM_CAPTURE_MODE_RELAXED = 2;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
inline constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
inline constexpr int CU_MEMORYTYPE_DEVICE = 2;

/// cuMemcpy2DAsync's parameters (cuda.h's CUDA_MEMCPY2D_v2); shardrt only
/// copies device to device, so the host and array fields stay null.
struct CudaMemcpy2D {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t widthInBytes, height;
};

struct DriverTable {
  CUresult (*init)(unsigned flags);
  CUresult (*driverGetVersion)(int *version);
  CUresult (*getErrorName)(CUresult error, const char **name);
  CUresult (*deviceGetCount)(int *count);
  CUresult (*deviceGet)(CUdevice *device, int ordinal);
  CUresult (*deviceGetName)(char *name, int length, CUdevice device);
  CUresult (*deviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*deviceTotalMem)(size_t *bytes, CUdevice device);
  CUresult (*primaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*primaryCtxRelease)(CUdevice device);
  CUresult (*ctxSetCurrent)(CUcontext context);
  CUresult (*streamCreate)(CUstream *stream, unsigned flags);
  CUresult (*streamDestroy)(CUstream stream);
  CUresult (*streamQuery)(CUstream stream);
  CUresult (*memAlloc)(CUdeviceptr *ptr, size_t bytes);
  CUresult (*memFree)(CUdeviceptr ptr);
  CUresult (*memGetInfo)(size_t *free, size_t *total);
  CUresult (*memcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
  CUresult (*memcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream);
  CUresult (*memcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes, CUstream stream);
  CUresult (*memcpy2DAsync)(const CudaMemcpy2D *copy, CUstream stream);
  CUresult (*memsetD8Async)(CUdeviceptr ptr, unsigned char value, size_t count, CUstream stream);
  CUresult (*memsetD16Async)(CUdeviceptr ptr, unsigned short value, size_t count,
                             CUstream stream);
  CUresult (*memsetD32Async)(CUdeviceptr ptr, unsigned value, size_t count, CUstream stream);
  CUresult (*moduleLoadData)(CUmodule *module, const void *image);
  CUresult (*moduleUnload)(CUmodule module);
  CUresult (*moduleGetFunction)(CUfunction *function, CUmodule module, const char *name);
  CUresult (*funcSetAttribute)(CUfunction function, int attribute, int value);
  CUresult (*launchKernel)(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                           unsigned by, unsigned bz, unsigned smem, CUstream stream,
                           void **params, void **extra);
  CUresult (*streamBeginCapture)(CUstream stream, int mode);
  CUresult (*streamEndCapture)(CUstream stream, CUgraph *graph);
  CUresult (*graphInstantiate)(CUgraphExec *exec, CUgraph graph, unsigned long long flags);
  CUresult (*graphLaunch)(CUgraphExec exec, CUstream stream);
  CUresult (*graphExecDestroy)(CUgraphExec exec);
  CUresult (*graphDestroy)(CUgraph graph);
};

/// What opening a driver library found: a filled table and the devices, or
/// why there is no usable device.
struct DriverLoad {
  const DriverTable *table = nullptr; // null when unusable
  int deviceCount = 0;
  int version = 0;                    // cuDriverGetVersion, e.g. 13000
  std::string reason;                 // why unusable ("" when usable)
};

/// Opens `path` (a file, or a name for the loader's search), resolves every
/// entry point, runs cuInit and counts devices. Never aborts: a missing
/// library, a missing symbol, the link stub, a cuInit failure and zero
/// devices each give a reason. The library stays open when usable.
DriverLoad openDriver(const std::string &path);

/// The process's driver: the injected one if any, else openDriver() of
/// SHARDRT_CUDA_DRIVER or "libcuda.so.1", opened once.
const DriverLoad &processDriver();

/// Makes `load` the process's driver from now on (tests); null restores
/// the real one (opened anew on next use).
void injectDriverForTesting(const DriverLoad *load);

/// "CUDA_ERROR_OUT_OF_MEMORY", or "CUresult 2" when the driver has no name.
std::string errorName(const DriverTable &table, CUresult result);

} // namespace shardrt::cuda

#endif // SHARDRT_SRC_CUDA_DRIVER_H
