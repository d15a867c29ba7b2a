// Opening libcuda with dlopen and filling the entry-point table (Driver.h).
#include "runtime/src/cuda/Driver.h"

#include "runtime/src/Error.h"
#include "runtime/src/cuda/Resolve.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>

namespace shardrt::cuda {
namespace {

bool resolveAll(void *lib, DriverTable &t, std::string &missing) {
  bool ok = true;
  ok &= resolve(lib, "cuInit", t.init, missing);
  ok &= resolve(lib, "cuDriverGetVersion", t.driverGetVersion, missing);
  ok &= resolve(lib, "cuGetErrorName", t.getErrorName, missing);
  ok &= resolve(lib, "cuDeviceGetCount", t.deviceGetCount, missing);
  ok &= resolve(lib, "cuDeviceGet", t.deviceGet, missing);
  ok &= resolve(lib, "cuDeviceGetName", t.deviceGetName, missing);
  ok &= resolve(lib, "cuDeviceGetAttribute", t.deviceGetAttribute, missing);
  ok &= resolve(lib, "cuDeviceTotalMem_v2", t.deviceTotalMem, missing);
  ok &= resolve(lib, "cuDevicePrimaryCtxRetain", t.primaryCtxRetain, missing);
  ok &= resolve(lib, "cuDevicePrimaryCtxRelease_v2", t.primaryCtxRelease, missing);
  ok &= resolve(lib, "cuCtxSetCurrent", t.ctxSetCurrent, missing);
  ok &= resolve(lib, "cuStreamCreate", t.streamCreate, missing);
  ok &= resolve(lib, "cuStreamDestroy_v2", t.streamDestroy, missing);
  ok &= resolve(lib, "cuStreamQuery", t.streamQuery, missing);
  ok &= resolve(lib, "cuMemAlloc_v2", t.memAlloc, missing);
  ok &= resolve(lib, "cuMemFree_v2", t.memFree, missing);
  ok &= resolve(lib, "cuMemGetInfo_v2", t.memGetInfo, missing);
  ok &= resolve(lib, "cuMemcpyDtoDAsync_v2", t.memcpyDtoDAsync, missing);
  ok &= resolve(lib, "cuMemcpyHtoDAsync_v2", t.memcpyHtoDAsync, missing);
  ok &= resolve(lib, "cuMemcpyDtoHAsync_v2", t.memcpyDtoHAsync, missing);
  ok &= resolve(lib, "cuMemcpy2DAsync_v2", t.memcpy2DAsync, missing);
  ok &= resolve(lib, "cuMemsetD8Async", t.memsetD8Async, missing);
  ok &= resolve(lib, "cuMemsetD16Async", t.memsetD16Async, missing);
  ok &= resolve(lib, "cuMemsetD32Async", t.memsetD32Async, missing);
  ok &= resolve(lib, "cuModuleLoadData", t.moduleLoadData, missing);
  ok &= resolve(lib, "cuModuleUnload", t.moduleUnload, missing);
  ok &= resolve(lib, "cuModuleGetFunction", t.moduleGetFunction, missing);
  ok &= resolve(lib, "cuFuncSetAttribute", t.funcSetAttribute, missing);
  ok &= resolve(lib, "cuLaunchKernel", t.launchKernel, missing);
  ok &= resolve(lib, "cuStreamBeginCapture_v2", t.streamBeginCapture, missing);
  ok &= resolve(lib, "cuStreamEndCapture", t.streamEndCapture, missing);
  ok &= resolve(lib, "cuGraphInstantiateWithFlags", t.graphInstantiate, missing);
  ok &= resolve(lib, "cuGraphLaunch", t.graphLaunch, missing);
  ok &= resolve(lib, "cuGraphExecDestroy", t.graphExecDestroy, missing);
  ok &= resolve(lib, "cuGraphDestroy", t.graphDestroy, missing);
  return ok;
}

std::mutex processMutex;
const DriverLoad *injected = nullptr;
std::unique_ptr<DriverLoad> opened;

} // namespace

std::string errorName(const DriverTable &table, CUresult result) {
  const char *name = nullptr;
  if (table.getErrorName && table.getErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  return format("CUresult %d", result);
}

DriverLoad openDriver(const std::string &path) {
  DriverLoad load;
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    load.reason = format("the CUDA driver library could not be loaded (%s)",
                         why ? why : path.c_str());
    return load;
  }
  auto table = std::make_unique<DriverTable>();
  std::string missing;
  if (!resolveAll(lib, *table, missing)) {
    load.reason = format("%s has no %s: not a CUDA driver of version 12 or later",
                         path.c_str(), missing.c_str());
    dlclose(lib);
    return load;
  }
  CUresult r = table->init(0);
  if (r == CUDA_ERROR_STUB_LIBRARY) {
    load.reason = format("%s is the CUDA toolkit's link stub, not a driver", path.c_str());
    dlclose(lib);
    return load;
  }
  if (r != CUDA_SUCCESS) {
    load.reason = format("cuInit failed: %s", errorName(*table, r).c_str());
    dlclose(lib);
    return load;
  }
  table->driverGetVersion(&load.version);
  int count = 0;
  r = table->deviceGetCount(&count);
  if (r != CUDA_SUCCESS || count <= 0) {
    load.reason = r != CUDA_SUCCESS
                      ? format("cuDeviceGetCount failed: %s", errorName(*table, r).c_str())
                      : std::string("the driver sees no GPU");
    dlclose(lib);
    return load;
  }
  load.deviceCount = count;
  // Usable: the library stays open for the process's lifetime.
  load.table = table.release();
  return load;
}

const DriverLoad &processDriver() {
  std::lock_guard<std::mutex> lock(processMutex);
  if (injected)
    return *injected;
  if (!opened) {
    const char *path = std::getenv("SHARDRT_CUDA_DRIVER");
    opened = std::make_unique<DriverLoad>(
        openDriver(path && *path ? std::string(path) : std::string("libcuda.so.1")));
  }
  return *opened;
}

void injectDriverForTesting(const DriverLoad *load) {
  std::lock_guard<std::mutex> lock(processMutex);
  injected = load;
  opened.reset();
}

} // namespace shardrt::cuda
