// A rank's binding to a GPU (RankDevice.h).
#include "runtime/src/cuda/RankDevice.h"

#include "runtime/src/Comm.h"
#include "runtime/src/Error.h"
#include "runtime/src/cuda/NcclRank.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace shardrt::cuda {
namespace {

thread_local RankDevice *currentRank = nullptr;

/// Modules and kernels of one device, shared by the ranks bound to it.
struct DeviceModules {
  std::mutex mutex;
  std::map<const void *, CUmodule> modules;
  std::map<std::pair<CUmodule, std::string>, CUfunction> functions;
  std::map<CUfunction, int> sharedLimit; // dynamic smem the kernel allows
  // Device copies of the program's constants, by host address; they live
  // as long as the process uses the device.
  std::map<const void *, CUdeviceptr> constants;
};

std::mutex devicesMutex;
std::map<std::pair<const DriverTable *, int>, std::unique_ptr<DeviceModules>> devices;

DeviceModules &modulesOf(const DriverTable *driver, int ordinal) {
  std::lock_guard<std::mutex> lock(devicesMutex);
  auto &slot = devices[{driver, ordinal}];
  if (!slot)
    slot = std::make_unique<DeviceModules>();
  return *slot;
}

bool envFlag(const char *name, bool fallback) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return fallback;
  return std::strcmp(v, "0") != 0;
}

CUdeviceptr dptr(const void *p) { return reinterpret_cast<CUdeviceptr>(p); }

constexpr int64_t kStaticSharedLimit = 48 * 1024;

} // namespace

void dropModuleCachesForTesting() {
  std::lock_guard<std::mutex> lock(devicesMutex);
  devices.clear();
}

RankDevice::RankDevice(const DriverTable &driver, int ordinal, int rank)
    : driver(driver), ordinal(ordinal), rank(rank),
      memory(driver, envFlag("SHARDRT_CUDA_CACHE", true)) {}

RankDevice::~RankDevice() = default;

RankDevice *RankDevice::current() { return currentRank; }

void RankDevice::attachNccl(NcclRank *nr) {
  ncclRank.reset(nr);
  if (nr)
    collectivesMode = nr->describe();
}

RankDevice *RankDevice::bind(const DriverLoad &load, int ordinal, int rank) {
  if (!load.table) {
    shardrt::fail(SHARDRT_ERR_BACKEND, "no CUDA device: %s", load.reason.c_str());
    return nullptr;
  }
  if (ordinal < 0 || ordinal >= load.deviceCount) {
    shardrt::fail(SHARDRT_ERR_ARGUMENT, "rank %d: GPU %d does not exist (%d CUDA device%s)", rank,
         ordinal, load.deviceCount, load.deviceCount == 1 ? "" : "s");
    return nullptr;
  }
  if (currentRank) {
    shardrt::fail(SHARDRT_ERR_ARGUMENT, "rank %d: this thread is already bound to a GPU as rank %d", rank,
         currentRank->rank);
    return nullptr;
  }
  const DriverTable &t = *load.table;
  auto rd = std::unique_ptr<RankDevice>(new RankDevice(t, ordinal, rank));
  double seconds = 300;
  if (readTimeoutSeconds(&seconds) != SHARDRT_OK)
    return nullptr;
  rd->timeoutSeconds = seconds;
  rd->syncEveryLaunch = envFlag("SHARDRT_CUDA_SYNC", false);
  rd->comm = shardrt_current();
  const char *call = nullptr;
  CUresult r = CUDA_SUCCESS;
  char name[96] = {0};
  if ((r = t.deviceGet(&rd->device, ordinal)) != CUDA_SUCCESS)
    call = "cuDeviceGet";
  else if ((r = t.deviceGetName(name, sizeof(name) - 1, rd->device)) != CUDA_SUCCESS)
    call = "cuDeviceGetName";
  else if ((r = t.deviceGetAttribute(&rd->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                     rd->device)) != CUDA_SUCCESS ||
           (r = t.deviceGetAttribute(&rd->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                     rd->device)) != CUDA_SUCCESS)
    call = "cuDeviceGetAttribute";
  else if ((r = t.primaryCtxRetain(&rd->context, rd->device)) != CUDA_SUCCESS)
    call = "cuDevicePrimaryCtxRetain";
  else if ((r = t.ctxSetCurrent(rd->context)) != CUDA_SUCCESS)
    call = "cuCtxSetCurrent";
  else if ((r = t.streamCreate(&rd->stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
    call = "cuStreamCreate";
  rd->name = name;
  if (call) {
    shardrt::fail(SHARDRT_ERR_BACKEND, "rank %d, GPU %d: %s: %s", rank, ordinal, call,
         errorName(t, r).c_str());
    if (rd->context)
      t.primaryCtxRelease(rd->device);
    return nullptr;
  }
  currentRank = rd.release();
  return currentRank;
}

shardrt_status RankDevice::unbind() {
  if (capturing) { // a capture left open: end it, keep nothing
    CUgraph g = nullptr;
    driver.streamEndCapture(stream, &g);
    if (g)
      driver.graphDestroy(g);
    capturing = false;
  }
  std::string timeout;
  CUresult r = waitIdle(&timeout);
  while (!graphs.empty())
    graphDestroy(graphs.begin()->first);
  if (ncclRank && (failed() || !timeout.empty()))
    ncclRank->abortAll();
  ncclRank.reset();
  CUresult f = memory.releaseAll();
  driver.streamDestroy(stream);
  driver.primaryCtxRelease(device);
  currentRank = nullptr;
  shardrt_status status = SHARDRT_OK;
  if (!stickyError.empty())
    status = static_cast<shardrt_status>(report());
  else if (!timeout.empty())
    status = shardrt::fail(SHARDRT_ERR_BACKEND, "%s", timeout.c_str());
  else if (r != CUDA_SUCCESS || f != CUDA_SUCCESS)
    status = shardrt::fail(SHARDRT_ERR_BACKEND, "%s: %s: %s", where().c_str(),
                           r != CUDA_SUCCESS ? "cuStreamQuery" : "cuMemFree",
                           errorName(driver, r != CUDA_SUCCESS ? r : f).c_str());
  delete this;
  return status;
}

std::string RankDevice::where() const {
  return format("rank %d, GPU %d (%s, sm_%d%d)", rank, ordinal, name.c_str(), major, minor);
}

int32_t RankDevice::fail(const char *call, CUresult result, const std::string &detail) {
  // A result of CUDA_SUCCESS marks a misuse shardrt found itself.
  const std::string error =
      result == CUDA_SUCCESS ? std::string() : " " + errorName(driver, result);
  return failWith(result == CUDA_SUCCESS ? SHARDRT_ERR_ARGUMENT : SHARDRT_ERR_BACKEND,
                  format("%s:%s%s", call, error.c_str(), detail.c_str()));
}

int32_t RankDevice::failWith(shardrt_status status, const std::string &message) {
  if (stickyError.empty()) {
    stickyError = where() + ": " + message;
    stickyStatus = status;
    if (comm)
      shardrt_abort(comm, stickyError.c_str());
  }
  return report();
}

int32_t RankDevice::report() const {
  if (stickyError.empty())
    return SHARDRT_OK;
  return shardrt::fail(stickyStatus, "%s", stickyError.c_str());
}

CUresult RankDevice::waitIdle(std::string *failure) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(std::min(timeoutSeconds, 1e7));
  auto pause = std::chrono::microseconds(10);
  for (;;) {
    CUresult r = driver.streamQuery(stream);
    if (r != CUDA_ERROR_NOT_READY)
      return r;
    // The watchdog: NCCL work waiting for a peer that failed, or that never
    // comes, finishes only once its communicators are aborted.
    if (ncclRank) {
      std::string why = ncclRank->asyncError();
      if (why.empty() && comm && comm->isAborted(nullptr))
        why = "the run was aborted while NCCL work was pending";
      if (!why.empty()) {
        ncclRank->abortAll();
        *failure = format("%s: %s", where().c_str(), why.c_str());
        return r;
      }
    }
    if (Clock::now() >= deadline) {
      if (ncclRank)
        ncclRank->abortAll();
      *failure = format("%s: the GPU's work did not finish within %g s (SHARDRT_TIMEOUT_S)%s",
                        where().c_str(), timeoutSeconds,
                        ncclRank ? "; NCCL communicators aborted" : "");
      return r;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

bool RankDevice::breaksCapture(const char *what) {
  if (!capturing)
    return false;
  if (captureBrokenBy.empty())
    captureBrokenBy = what;
  return true;
}

int32_t RankDevice::synchronize(const char *after) {
  if (failed())
    return report();
  ++waits;
  if (breaksCapture(after ? after : "a synchronize"))
    return SHARDRT_OK;
  std::string timeout;
  CUresult r = waitIdle(&timeout);
  const std::string detail = after ? format(" (after %s)", after) : std::string();
  if (!timeout.empty()) {
    stickyError = timeout + detail;
    stickyStatus = SHARDRT_ERR_BACKEND;
    if (comm)
      shardrt_abort(comm, stickyError.c_str());
    return report();
  }
  if (r != CUDA_SUCCESS)
    return fail("cuStreamQuery", r, detail);
  return SHARDRT_OK;
}

void *RankDevice::alloc(int64_t bytes, const char *site) {
  const std::string value = site && *site ? format("the value of %s", site) : "a value";
  if (failed())
    return nullptr;
  if (bytes < 0) {
    fail("shardrt_cuda_alloc", CUDA_SUCCESS,
         format(" a negative size (%lld bytes) for %s", (long long)bytes, value.c_str()));
    return nullptr;
  }
  CUdeviceptr ptr = 0;
  std::string timeout;
  CUresult r = memory.allocate(static_cast<uint64_t>(bytes), &ptr,
                               [&] { return waitIdle(&timeout); });
  if (r == CUDA_SUCCESS)
    return reinterpret_cast<void *>(ptr);
  size_t freeBytes = 0, totalBytes = 0;
  driver.memGetInfo(&freeBytes, &totalBytes);
  fail("cuMemAlloc", r,
       format(" allocating %lld bytes for %s (%zu of %zu bytes free, %llu held by this "
              "rank's allocator)",
              (long long)bytes, value.c_str(), freeBytes, totalBytes,
              (unsigned long long)memory.heldBytes()));
  return nullptr;
}

void *RankDevice::constant(const void *host, int64_t bytes) {
  if (failed())
    return nullptr;
  DeviceModules &dm = modulesOf(&driver, ordinal);
  std::lock_guard<std::mutex> lock(dm.mutex);
  CUdeviceptr &slot = dm.constants[host];
  if (slot)
    return reinterpret_cast<void *>(slot);
  CUresult r = driver.memAlloc(&slot, static_cast<size_t>(std::max<int64_t>(bytes, 1)));
  if (r != CUDA_SUCCESS) {
    slot = 0;
    fail("cuMemAlloc", r, format(" (a constant of %lld bytes)", (long long)bytes));
    return nullptr;
  }
  // Other ranks on this device may use it as soon as the lock is released,
  // on their own streams: the upload must be complete by then.
  if (upload(reinterpret_cast<void *>(slot), host, bytes) != SHARDRT_OK) {
    driver.memFree(slot);
    slot = 0;
    return nullptr;
  }
  return reinterpret_cast<void *>(slot);
}

void RankDevice::free(void *ptr) {
  if (!ptr)
    return;
  CUresult r = CUDA_SUCCESS;
  if (!memory.release(dptr(ptr), &r))
    fail("shardrt_cuda_free", CUDA_SUCCESS,
         format(" %p is not a block this rank allocated", ptr));
  else if (r != CUDA_SUCCESS)
    fail("cuMemFree", r);
}

int32_t RankDevice::copy(void *dst, const void *src, int64_t bytes) {
  if (failed())
    return report();
  if (bytes <= 0)
    return SHARDRT_OK;
  CUresult r = driver.memcpyDtoDAsync(dptr(dst), dptr(src), static_cast<size_t>(bytes), stream);
  return r == CUDA_SUCCESS ? SHARDRT_OK : fail("cuMemcpyDtoDAsync", r);
}

int32_t RankDevice::copy2D(void *dst, int64_t dstPitch, const void *src, int64_t srcPitch,
                           int64_t width, int64_t height) {
  if (failed())
    return report();
  if (width <= 0 || height <= 0)
    return SHARDRT_OK;
  // cuMemcpy2D takes pitches up to the device's limit (2^31 - 1 bytes on
  // current GPUs); wider rows go one copy each.
  constexpr int64_t kMaxPitch = (int64_t(1) << 31) - 1;
  if (dstPitch > kMaxPitch || srcPitch > kMaxPitch) {
    for (int64_t row = 0; row < height; ++row)
      if (int32_t s = copy(static_cast<char *>(dst) + row * dstPitch,
                           static_cast<const char *>(src) + row * srcPitch, width))
        return s;
    return SHARDRT_OK;
  }
  CudaMemcpy2D c{};
  c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c.srcDevice = dptr(src);
  c.srcPitch = static_cast<size_t>(srcPitch);
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = dptr(dst);
  c.dstPitch = static_cast<size_t>(dstPitch);
  c.widthInBytes = static_cast<size_t>(width);
  c.height = static_cast<size_t>(height);
  CUresult r = driver.memcpy2DAsync(&c, stream);
  return r == CUDA_SUCCESS ? SHARDRT_OK : fail("cuMemcpy2DAsync", r);
}

int32_t RankDevice::memset(void *ptr, int32_t value, int64_t count, int32_t elemBytes) {
  if (failed())
    return report();
  if (count <= 0)
    return SHARDRT_OK;
  CUresult r;
  const char *call;
  switch (elemBytes) {
  case 1:
    call = "cuMemsetD8Async";
    r = driver.memsetD8Async(dptr(ptr), static_cast<unsigned char>(value), count, stream);
    break;
  case 2:
    call = "cuMemsetD16Async";
    r = driver.memsetD16Async(dptr(ptr), static_cast<unsigned short>(value), count, stream);
    break;
  case 4:
    call = "cuMemsetD32Async";
    r = driver.memsetD32Async(dptr(ptr), static_cast<unsigned>(value), count, stream);
    break;
  default:
    return fail("shardrt_cuda_memset", CUDA_SUCCESS,
                format(" element size %d (1, 2 or 4 bytes)", elemBytes));
  }
  return r == CUDA_SUCCESS ? SHARDRT_OK : fail(call, r);
}

int32_t RankDevice::upload(void *dst, const void *src, int64_t bytes) {
  if (failed())
    return report();
  if (breaksCapture("an upload")) {
    ++waits;
    return SHARDRT_OK;
  }
  if (bytes <= 0)
    return SHARDRT_OK;
  CUresult r = driver.memcpyHtoDAsync(dptr(dst), src, static_cast<size_t>(bytes), stream);
  if (r != CUDA_SUCCESS)
    return fail("cuMemcpyHtoDAsync", r);
  // The host buffer is the caller's again only once the copy has read it.
  return synchronize("an upload");
}

int32_t RankDevice::download(void *dst, const void *src, int64_t bytes) {
  if (failed())
    return report();
  if (breaksCapture("a download")) {
    ++waits;
    return SHARDRT_OK;
  }
  if (bytes <= 0)
    return synchronize("a download");
  CUresult r = driver.memcpyDtoHAsync(dst, dptr(src), static_cast<size_t>(bytes), stream);
  if (r != CUDA_SUCCESS)
    return fail("cuMemcpyDtoHAsync", r);
  return synchronize("a download");
}

int32_t RankDevice::launch(const void *image, int64_t bytes, const char *kernel,
                           const int64_t grid[3], const int64_t block[3], int32_t smem,
                           void **params) {
  if (failed())
    return report();
  for (int i = 0; i < 3; ++i)
    if (grid[i] < 1 || grid[i] > 0x7fffffff || block[i] < 1 || block[i] > 1024)
      return fail("cuLaunchKernel", CUDA_SUCCESS,
                  format(" kernel %s: launch shape (%lld, %lld, %lld) x (%lld, %lld, %lld) is "
                         "out of range",
                         kernel, (long long)grid[0], (long long)grid[1], (long long)grid[2],
                         (long long)block[0], (long long)block[1], (long long)block[2]));
  (void)bytes; // cuModuleLoadData reads the image's own header or NUL
  DeviceModules &dm = modulesOf(&driver, ordinal);
  CUfunction function = nullptr;
  {
    std::lock_guard<std::mutex> lock(dm.mutex);
    CUmodule &module = dm.modules[image];
    if (!module) {
      CUresult r = driver.moduleLoadData(&module, image);
      if (r != CUDA_SUCCESS) {
        module = nullptr;
        dm.modules.erase(image);
        return fail("cuModuleLoadData", r, format(" (the module of kernel %s)", kernel));
      }
    }
    CUfunction &slot = dm.functions[{module, kernel}];
    if (!slot) {
      CUresult r = driver.moduleGetFunction(&slot, module, kernel);
      if (r != CUDA_SUCCESS) {
        slot = nullptr;
        return fail("cuModuleGetFunction", r, format(" (kernel %s)", kernel));
      }
    }
    function = slot;
    if (smem > kStaticSharedLimit && dm.sharedLimit[function] < smem) {
      CUresult r = driver.funcSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           smem);
      if (r != CUDA_SUCCESS)
        return fail("cuFuncSetAttribute", r,
                    format(" (kernel %s asks for %d bytes of shared memory)", kernel, smem));
      dm.sharedLimit[function] = smem;
    }
  }
  CUresult r = driver.launchKernel(function, unsigned(grid[0]), unsigned(grid[1]),
                                   unsigned(grid[2]), unsigned(block[0]), unsigned(block[1]),
                                   unsigned(block[2]), unsigned(smem), stream, params, nullptr);
  if (r != CUDA_SUCCESS)
    return fail("cuLaunchKernel", r, format(" (kernel %s)", kernel));
  if (syncEveryLaunch)
    return synchronize(format("kernel %s", kernel).c_str());
  return SHARDRT_OK;
}

int32_t RankDevice::captureBegin() {
  if (failed())
    return report();
  if (capturing)
    return fail("shardrt_cuda_capture_begin", CUDA_SUCCESS, " (the rank is capturing already)");
  CUresult r = driver.streamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED);
  if (r != CUDA_SUCCESS)
    return fail("cuStreamBeginCapture", r);
  capturing = true;
  captureBrokenBy.clear();
  return SHARDRT_OK;
}

int64_t RankDevice::captureEnd() {
  if (!capturing) {
    fail("shardrt_cuda_capture_end", CUDA_SUCCESS, " (the rank is not capturing)");
    return 0;
  }
  capturing = false;
  CUgraph graph = nullptr;
  CUresult r = driver.streamEndCapture(stream, &graph);
  CUgraphExec exec = nullptr;
  if (r == CUDA_SUCCESS && captureBrokenBy.empty() && graph)
    r = driver.graphInstantiate(&exec, graph, 0);
  if (r != CUDA_SUCCESS || !captureBrokenBy.empty() || !exec) {
    if (graph)
      driver.graphDestroy(graph);
    // Not the rank's failure: the caller runs the work without a graph.
    shardrt::fail(SHARDRT_ERR_BACKEND, "%s: the step could not be captured as a CUDA graph: %s",
                  where().c_str(),
                  !captureBrokenBy.empty()
                      ? ("it waits for the GPU on the host (" + captureBrokenBy + ")").c_str()
                      : errorName(driver, r).c_str());
    return 0;
  }
  const int64_t id = nextGraph++;
  graphs.emplace(id, std::make_pair(graph, exec));
  // The graph holds the addresses of the blocks its work used: they must
  // stay with the rank as long as it lives.
  memory.setPinned(true);
  return id;
}

int32_t RankDevice::graphLaunch(int64_t graph) {
  if (failed())
    return report();
  auto it = graphs.find(graph);
  if (it == graphs.end())
    return fail("shardrt_cuda_graph_launch", CUDA_SUCCESS,
                format(" graph %lld does not exist", static_cast<long long>(graph)));
  CUresult r = driver.graphLaunch(it->second.second, stream);
  if (r != CUDA_SUCCESS)
    return fail("cuGraphLaunch", r);
  if (syncEveryLaunch)
    return synchronize("a graph launch");
  return SHARDRT_OK;
}

void RankDevice::graphDestroy(int64_t graph) {
  auto it = graphs.find(graph);
  if (it == graphs.end())
    return;
  driver.graphExecDestroy(it->second.second);
  driver.graphDestroy(it->second.first);
  graphs.erase(it);
  if (graphs.empty())
    memory.setPinned(false);
}

} // namespace shardrt::cuda
