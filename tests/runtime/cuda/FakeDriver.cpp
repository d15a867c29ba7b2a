// The fake driver's entry points (FakeDriver.h).
#include "tests/runtime/cuda/FakeDriver.h"

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
CUresult memcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream) {
  std::memmove(hostOf(d), hostOf(s), n);
  return CUDA_SUCCESS;
}
CUresult memcpyHtoD(CUdeviceptr d, const void *s, size_t n, CUstream) {
  std::memcpy(hostOf(d), s, n);
  return CUDA_SUCCESS;
}
CUresult memcpyDtoH(void *d, CUdeviceptr s, size_t n, CUstream) {
  std::memcpy(d, hostOf(s), n);
  return CUDA_SUCCESS;
}
CUresult memcpy2D(const CudaMemcpy2D *c, CUstream) {
  if (c->srcMemoryType != CU_MEMORYTYPE_DEVICE || c->dstMemoryType != CU_MEMORYTYPE_DEVICE ||
      c->widthInBytes > c->srcPitch || c->widthInBytes > c->dstPitch)
    return kInvalidValue;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    ++state->copies2D;
  }
  for (size_t row = 0; row < c->height; ++row)
    std::memmove(hostOf(c->dstDevice) + c->dstXInBytes + (c->dstY + row) * c->dstPitch,
                 hostOf(c->srcDevice) + c->srcXInBytes + (c->srcY + row) * c->srcPitch,
                 c->widthInBytes);
  return CUDA_SUCCESS;
}
template <typename T> CUresult fill(CUdeviceptr p, T v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    std::memcpy(hostOf(p) + i * sizeof(T), &v, sizeof(T));
  return CUDA_SUCCESS;
}
CUresult memsetD8(CUdeviceptr p, unsigned char v, size_t n, CUstream) { return fill(p, v, n); }
CUresult memsetD16(CUdeviceptr p, unsigned short v, size_t n, CUstream) { return fill(p, v, n); }
CUresult memsetD32(CUdeviceptr p, unsigned v, size_t n, CUstream) { return fill(p, v, n); }
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
                      unsigned by, unsigned bz, unsigned smem, CUstream, void **params, void **) {
  KernelFn fn;
  Launch launch;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    if (state->launchError)
      return state->launchError;
    launch = Launch{names().at(reinterpret_cast<uintptr_t>(f) - 1), {gx, gy, gz}, {bx, by, bz},
                    smem};
    state->launches.push_back(launch);
    fn = state->kernels.at(launch.kernel);
  }
  fn(launch.grid, launch.block, params);
  return CUDA_SUCCESS;
}

const DriverTable kTable = {
    init,          driverGetVersion, getErrorName,   deviceGetCount,   deviceGet,
    deviceGetName, deviceGetAttribute, deviceTotalMem, primaryCtxRetain, primaryCtxRelease,
    ctxSetCurrent, streamCreate,     streamDestroy,  streamQuery,      memAlloc,
    memFree,       memGetInfo,       memcpyDtoD,     memcpyHtoD,       memcpyDtoH,
    memcpy2D,      memsetD8,      memsetD16,        memsetD32,      moduleLoadData,   moduleUnload,
    moduleGetFunction, funcSetAttribute, launchKernel,
};

} // namespace

FakeDriverState &fake() { return *state; }

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
