// The fake driver's entry points (FakeDriver.h).
#include "tests/runtime/cuda/FakeDriver.h"

#include "shardrt_cuda.h"

#include "runtime/src/cuda/RankDevice.h"

#include <cstring>

namespace shardrt_test {
namespace {

using namespace shardrt::cuda;

FakeDriverState *state = new FakeDriverState;

constexpr CUresult kIllegalAddress = 700, kInvalidValue = 1, kNotFound = 500;

// Each device is its own context; modules and functions are handles into
// per-process tables (a function handle is 1 + its index in `names`).
std::vector<std::string> &names() {
  static std::vector<std::string> v;
  return v;
}

unsigned char *hostOf(CUdeviceptr p) { return reinterpret_cast<unsigned char *>(p); }

/// Runs `work` now, or records it when `stream` is capturing.
CUresult enqueue(CUstream stream, std::function<void()> work) {
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    auto it = state->capturing.find(stream);
    if (it != state->capturing.end()) {
      it->second.push_back(std::move(work));
      return CUDA_SUCCESS;
    }
  }
  work();
  return CUDA_SUCCESS;
}

/// A host copy on a capturing stream: refused, and the capture is void.
bool refusedInCapture(CUstream stream) {
  std::lock_guard<std::mutex> lock(state->mutex);
  if (!state->capturing.count(stream))
    return false;
  state->invalidated[stream] = true;
  return true;
}

struct FakeGraph {
  std::vector<std::function<void()>> work;
};

CUresult init(unsigned) { return CUDA_SUCCESS; }
CUresult driverGetVersion(int *v) {
  *v = 13000;
  return CUDA_SUCCESS;
}
CUresult getErrorName(CUresult r, const char **name) {
  switch (r) {
  case CUDA_ERROR_OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return CUDA_SUCCESS;
  case kIllegalAddress: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; return CUDA_SUCCESS;
  case kInvalidValue: *name = "CUDA_ERROR_INVALID_VALUE"; return CUDA_SUCCESS;
  case kNotFound: *name = "CUDA_ERROR_NOT_FOUND"; return CUDA_SUCCESS;
  case CUDA_ERROR_NOT_READY: *name = "CUDA_ERROR_NOT_READY"; return CUDA_SUCCESS;
  default: return kInvalidValue;
  }
}
CUresult deviceGetCount(int *n) {
  *n = state->devices;
  return CUDA_SUCCESS;
}
CUresult deviceGet(CUdevice *d, int ordinal) {
  if (ordinal < 0 || ordinal >= state->devices)
    return kInvalidValue;
  *d = ordinal;
  return CUDA_SUCCESS;
}
CUresult deviceGetName(char *name, int length, CUdevice) {
  std::strncpy(name, "Fake H200", static_cast<size_t>(length));
  return CUDA_SUCCESS;
}
CUresult deviceGetAttribute(int *v, int attribute, CUdevice) {
  *v = attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9 : 0;
  return CUDA_SUCCESS;
}
CUresult deviceTotalMem(size_t *bytes, CUdevice) {
  *bytes = state->capacity;
  return CUDA_SUCCESS;
}
CUresult primaryCtxRetain(CUcontext *c, CUdevice d) {
  std::lock_guard<std::mutex> lock(state->mutex);
  ++state->retainedContexts;
  *c = reinterpret_cast<CUcontext>(static_cast<uintptr_t>(0x1000 + d));
  return CUDA_SUCCESS;
}
CUresult primaryCtxRelease(CUdevice) {
  std::lock_guard<std::mutex> lock(state->mutex);
  --state->retainedContexts;
  return CUDA_SUCCESS;
}
CUresult ctxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult streamCreate(CUstream *s, unsigned) {
  std::lock_guard<std::mutex> lock(state->mutex);
  ++state->liveStreams;
  *s = reinterpret_cast<CUstream>(new int(0));
  return CUDA_SUCCESS;
}
CUresult streamDestroy(CUstream s) {
  std::lock_guard<std::mutex> lock(state->mutex);
  --state->liveStreams;
  delete reinterpret_cast<int *>(s);
  return CUDA_SUCCESS;
}
CUresult streamQuery(CUstream) {
  return state->streamNeverIdle ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}
CUresult memAlloc(CUdeviceptr *p, size_t bytes) {
  std::lock_guard<std::mutex> lock(state->mutex);
  ++state->allocCalls;
  if (state->inUse + bytes > state->capacity)
    return CUDA_ERROR_OUT_OF_MEMORY;
  std::vector<unsigned char> block(bytes + 256);
  // 256-byte alignment, as the driver gives.
  auto base = reinterpret_cast<uintptr_t>(block.data());
  *p = static_cast<CUdeviceptr>((base + 255) & ~uintptr_t(255));
  state->blocks.emplace(*p, std::move(block));
  state->inUse += bytes;
  return CUDA_SUCCESS;
}
CUresult memFree(CUdeviceptr p) {
  std::lock_guard<std::mutex> lock(state->mutex);
  ++state->freeCalls;
  auto it = state->blocks.find(p);
  if (it == state->blocks.end())
    return kInvalidValue;
  state->inUse -= it->second.size() - 256;
  state->blocks.erase(it);
  return CUDA_SUCCESS;
}
CUresult memGetInfo(size_t *freeBytes, size_t *total) {
  std::lock_guard<std::mutex> lock(state->mutex);
  *freeBytes = state->capacity - state->inUse;
  *total = state->capacity;
  return CUDA_SUCCESS;
}
CUresult memcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream stream) {
  return enqueue(stream, [=] { std::memmove(hostOf(d), hostOf(s), n); });
}
CUresult memcpyHtoD(CUdeviceptr d, const void *s, size_t n, CUstream stream) {
  if (refusedInCapture(stream))
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  std::memcpy(hostOf(d), s, n);
  return CUDA_SUCCESS;
}
CUresult memcpyDtoH(void *d, CUdeviceptr s, size_t n, CUstream stream) {
  if (refusedInCapture(stream))
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  std::memcpy(d, hostOf(s), n);
  return CUDA_SUCCESS;
}
CUresult memcpy2D(const CudaMemcpy2D *c, CUstream stream) {
  if (c->srcMemoryType != CU_MEMORYTYPE_DEVICE || c->dstMemoryType != CU_MEMORYTYPE_DEVICE ||
      c->widthInBytes > c->srcPitch || c->widthInBytes > c->dstPitch)
    return kInvalidValue;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    ++state->copies2D;
  }
  CudaMemcpy2D copy = *c;
  return enqueue(stream, [copy] {
    for (size_t row = 0; row < copy.height; ++row)
      std::memmove(hostOf(copy.dstDevice) + copy.dstXInBytes + (copy.dstY + row) * copy.dstPitch,
                   hostOf(copy.srcDevice) + copy.srcXInBytes + (copy.srcY + row) * copy.srcPitch,
                   copy.widthInBytes);
  });
}
template <typename T> CUresult fill(CUdeviceptr p, T v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    std::memcpy(hostOf(p) + i * sizeof(T), &v, sizeof(T));
  return CUDA_SUCCESS;
}
CUresult memsetD8(CUdeviceptr p, unsigned char v, size_t n, CUstream s) {
  return enqueue(s, [=] { fill(p, v, n); });
}
CUresult memsetD16(CUdeviceptr p, unsigned short v, size_t n, CUstream s) {
  return enqueue(s, [=] { fill(p, v, n); });
}
CUresult memsetD32(CUdeviceptr p, unsigned v, size_t n, CUstream s) {
  return enqueue(s, [=] { fill(p, v, n); });
}
CUresult moduleLoadData(CUmodule *m, const void *image) {
  std::lock_guard<std::mutex> lock(state->mutex);
  ++state->moduleLoads;
  *m = reinterpret_cast<CUmodule>(const_cast<void *>(image));
  return CUDA_SUCCESS;
}
CUresult moduleUnload(CUmodule) { return CUDA_SUCCESS; }
CUresult moduleGetFunction(CUfunction *f, CUmodule, const char *name) {
  std::lock_guard<std::mutex> lock(state->mutex);
  if (!state->kernels.count(name))
    return kNotFound;
  names().push_back(name);
  *f = reinterpret_cast<CUfunction>(static_cast<uintptr_t>(names().size()));
  return CUDA_SUCCESS;
}
CUresult funcSetAttribute(CUfunction, int, int) {
  std::lock_guard<std::mutex> lock(state->mutex);
  ++state->attributeCalls;
  return CUDA_SUCCESS;
}
CUresult launchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                      unsigned by, unsigned bz, unsigned smem, CUstream stream, void **params,
                      void **) {
  KernelFn fn;
  Launch launch;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    if (state->launchError)
      return state->launchError;
    launch = Launch{names().at(reinterpret_cast<uintptr_t>(f) - 1), {gx, gy, gz}, {bx, by, bz},
                    smem};
    fn = state->kernels.at(launch.kernel);
  }
  bool recording = false;
  int count = 0;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    recording = state->capturing.count(stream) > 0;
    if (recording)
      count = state->paramCounts.at(launch.kernel);
  }
  if (!recording) {
    {
      std::lock_guard<std::mutex> lock(state->mutex);
      state->launches.push_back(launch);
    }
    fn(launch.grid, launch.block, params);
    return CUDA_SUCCESS;
  }
  // A launch reads its parameters when it is made (the driver copies
  // them), so a recorded one keeps their values, as a graph node does;
  // each is one pointer-sized value in these tests.
  std::vector<void *> values(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i)
    values[i] = *static_cast<void **>(params[i]);
  return enqueue(stream, [=]() mutable {
    {
      std::lock_guard<std::mutex> lock(state->mutex);
      state->launches.push_back(launch);
    }
    std::vector<void *> slots(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      slots[i] = &values[i];
    fn(launch.grid, launch.block, slots.data());
  });
}
CUresult streamBeginCapture(CUstream s, int) {
  std::lock_guard<std::mutex> lock(state->mutex);
  if (state->capturing.count(s))
    return kInvalidValue;
  state->capturing[s];
  state->invalidated[s] = false;
  return CUDA_SUCCESS;
}
CUresult streamEndCapture(CUstream s, CUgraph *graph) {
  std::lock_guard<std::mutex> lock(state->mutex);
  auto it = state->capturing.find(s);
  if (it == state->capturing.end())
    return kInvalidValue;
  auto work = std::move(it->second);
  state->capturing.erase(it);
  *graph = nullptr;
  if (state->invalidated[s])
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  *graph = reinterpret_cast<CUgraph>(new FakeGraph{std::move(work)});
  return CUDA_SUCCESS;
}
CUresult graphInstantiate(CUgraphExec *exec, CUgraph g, unsigned long long) {
  std::lock_guard<std::mutex> lock(state->mutex);
  ++state->graphsLive;
  *exec = reinterpret_cast<CUgraphExec>(new FakeGraph(*reinterpret_cast<FakeGraph *>(g)));
  return CUDA_SUCCESS;
}
CUresult graphLaunch(CUgraphExec exec, CUstream s) {
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    ++state->graphLaunches;
  }
  for (const auto &work : reinterpret_cast<FakeGraph *>(exec)->work)
    enqueue(s, work);
  return CUDA_SUCCESS;
}
CUresult graphExecDestroy(CUgraphExec exec) {
  std::lock_guard<std::mutex> lock(state->mutex);
  --state->graphsLive;
  delete reinterpret_cast<FakeGraph *>(exec);
  return CUDA_SUCCESS;
}
CUresult graphDestroy(CUgraph g) {
  delete reinterpret_cast<FakeGraph *>(g);
  return CUDA_SUCCESS;
}

const DriverTable kTable = {
    init,          driverGetVersion, getErrorName,   deviceGetCount,   deviceGet,
    deviceGetName, deviceGetAttribute, deviceTotalMem, primaryCtxRetain, primaryCtxRelease,
    ctxSetCurrent, streamCreate,     streamDestroy,  streamQuery,      memAlloc,
    memFree,       memGetInfo,       memcpyDtoD,     memcpyHtoD,       memcpyDtoH,
    memcpy2D,      memsetD8,      memsetD16,        memsetD32,      moduleLoadData,   moduleUnload,
    moduleGetFunction, funcSetAttribute, launchKernel, streamBeginCapture, streamEndCapture,
    graphInstantiate, graphLaunch, graphExecDestroy, graphDestroy,
};

} // namespace

FakeDriverState &fake() { return *state; }

void registerAddOne() {
  state->kernels["add_one"] = [](const unsigned *, const unsigned *, void **params) {
    float *data = *static_cast<float **>(params[0]);
    int64_t n = *static_cast<int64_t *>(params[1]);
    for (int64_t i = 0; i < n; ++i)
      data[i] += 1.0f;
  };
  state->paramCounts["add_one"] = 2;
}

int32_t launchAddOne(const void *image, float *data, int64_t n, int32_t smem) {
  void *params[] = {&data, &n};
  // The fake reads only the image's address, never its bytes.
  return shardrt_cuda_launch(image, 1, "add_one", 2, 1, 1, 128, 1, 1, smem, params);
}

void resetFake() {
  FakeDriverState *old = state;
  state = new FakeDriverState;
  delete old;
}

FakeDriverGuard::FakeDriverGuard() {
  resetFake();
  loadInfo.table = &kTable;
  loadInfo.deviceCount = state->devices;
  loadInfo.version = 13000;
  shardrt::cuda::injectDriverForTesting(&loadInfo);
}

FakeDriverGuard::~FakeDriverGuard() {
  shardrt::cuda::injectDriverForTesting(nullptr);
  shardrt::cuda::dropModuleCachesForTesting();
}

void FakeDriverGuard::setDevices(int n) {
  state->devices = n;
  loadInfo.deviceCount = n;
}

} // namespace shardrt_test
