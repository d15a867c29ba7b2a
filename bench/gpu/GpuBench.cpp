// bench/gpu: a compiled model's step on one GPU against a baseline of the
// same work in the same run (the bench's README section has the table):
//
//   BENCH gemm_f32|gemm_tf32|gemm_bf16|chain|allreduce [--reps N]
//
// linked with the model's GPU object (bazel/shardc_executable.bzl's main is
// replaced by this one). The model's inputs get deterministic values, its
// step runs 3 times to warm up, then --reps times (default 20), each timed
// from enqueue to the stream being idle; the median is reported. Baselines:
// cuBLAS (loaded with dlopen: SHARDRT_CUBLAS_LIBRARY, libcublas.so.13 from
// the loader's path, the toolkit, or the Python wheel under
// /opt/torch/.venv or $VIRTUAL_ENV) for the GEMMs, on the same device
// buffers and stream, whose result is also compared with shardc's
// (gemm_tf32, the f32 model compiled with --matmul-precision tf32: cuBLAS
// GemmEx in f32 with CUBLAS_COMPUTE_32F_FAST_TF32); a
// device-to-device copy of the same bytes for the elementwise chain.
// `allreduce` (with any 1-rank model's bench) times shardrt's all-reduce of
// f32 buffers from 8 B to 64 MiB at one rank, over NCCL, against a raw
// ncclAllReduce on a communicator of its own, on the same stream.
#include "runtime/exe/SignatureText.h"
#include "runtime/src/cuda/Nccl.h"
#include "shardrt.h"
#include "shardrt_cuda.h"

#include <dlfcn.h>
#include <glob.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

extern "C" const char shardc_signature[];
extern "C" void (*const shardc_entry)(void **);

namespace {

double medianMs(int reps, const std::function<bool()> &step) {
  std::vector<double> ms;
  for (int i = 0; i < reps + 3; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (!step())
      return -1;
    auto t1 = std::chrono::steady_clock::now();
    if (i >= 3)
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void *openCublas(std::string &tried) {
  std::vector<std::string> candidates;
  if (const char *p = std::getenv("SHARDRT_CUBLAS_LIBRARY"))
    candidates.push_back(p);
  candidates.push_back("libcublas.so.13");
  candidates.push_back("/usr/local/cuda/lib64/libcublas.so.13");
  const char *venv = std::getenv("VIRTUAL_ENV");
  for (const char *root : {venv, "/opt/torch/.venv", "/usr/local", "/usr"}) {
    if (!root)
      continue;
    glob_t g;
    std::string pattern = std::string(root) + "/lib/python3*/*-packages/nvidia/*/lib/libcublas.so*";
    if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i)
        candidates.push_back(g.gl_pathv[i]);
    globfree(&g);
  }
  for (const std::string &c : candidates) {
    tried += (tried.empty() ? "" : ", ") + c;
    if (void *h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL))
      return h;
  }
  return nullptr;
}

uint16_t toBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return static_cast<uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

float fromBf16(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// shardrt_cuda_all_reduce against a raw ncclAllReduce, both on the rank's
/// stream, each timed to the stream being idle.
int benchAllReduce(int reps) {
  if (shardrt_cuda_connect() != SHARDRT_OK) {
    std::fprintf(stderr, "error: %s\n", shardrt_last_error());
    return 5;
  }
  std::printf("all_reduce f32 sum at 1 rank, collectives: %s\n", shardrt_cuda_collectives());
  using namespace shardrt::cuda;
  const NcclLoad &nccl = processNccl();
  ncclComm_t raw = nullptr;
  ncclUniqueId id{};
  if (!nccl.table || nccl.table->getUniqueId(&id) != ncclSuccess ||
      nccl.table->commInitRank(&raw, 1, id, 0) != ncclSuccess) {
    std::printf("raw NCCL baseline unavailable: %s\n",
                nccl.table ? "ncclCommInitRank failed" : nccl.reason.c_str());
    return shardrt_cuda_unbind() == SHARDRT_OK ? 0 : 5;
  }
  const int64_t group[] = {0};
  auto *stream = static_cast<CUstream>(shardrt_cuda_stream());
  for (int64_t bytes = 8; bytes <= (int64_t(64) << 20); bytes *= 8) {
    void *buf = shardrt_cuda_alloc(bytes, nullptr);
    const int64_t count = bytes / 4;
    double ours = medianMs(reps, [&] {
      return shardrt_cuda_all_reduce(buf, count, SHARDRT_F32, SHARDRT_SUM, group, 1, 1) ==
                 SHARDRT_OK &&
             shardrt_cuda_synchronize() == SHARDRT_OK;
    });
    double theirs = medianMs(reps, [&] {
      return nccl.table->allReduce(buf, buf, static_cast<size_t>(count), ncclFloat32, ncclSum,
                                   raw, stream) == ncclSuccess &&
             shardrt_cuda_synchronize() == SHARDRT_OK;
    });
    std::printf("  %9lld B: shardc %.4f ms, raw NCCL %.4f ms: ratio %.2f\n",
                static_cast<long long>(bytes), ours, theirs, theirs / ours);
    shardrt_cuda_free(buf);
  }
  nccl.table->commDestroy(raw);
  return shardrt_cuda_unbind() == SHARDRT_OK ? 0 : 5;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s gemm_f32|gemm_tf32|gemm_bf16|chain|allreduce [--reps N]\n",
                 argv[0]);
    return 2;
  }
  std::string kind = argv[1];
  int reps = 20;
  if (argc >= 4 && !std::strcmp(argv[2], "--reps"))
    reps = std::max(1, std::atoi(argv[3]));
  shardrt::exe::Signature sig;
  std::string error;
  if (!shardrt::exe::parseSignature(shardc_signature, sig, error) || sig.ranks() != 1) {
    std::fprintf(stderr, "error: %s\n", error.empty() ? "the bench model must be 1 rank" : error.c_str());
    return 4;
  }
  if (shardrt_cuda_init() != SHARDRT_OK || shardrt_cuda_bind(0, 0) != SHARDRT_OK) {
    std::fprintf(stderr, "error: %s\n", shardrt_last_error());
    return 5;
  }
  shardrt_cuda_device_info info;
  shardrt_cuda_device_info_get(0, &info);
  if (kind == "allreduce") {
    std::printf("GPU: %s (sm_%d%d), %d reps (median)\n", info.name, info.major, info.minor, reps);
    return benchAllReduce(reps);
  }
  // Buffers in entry order, inputs filled with a deterministic pattern.
  std::vector<void *> buffers;
  std::vector<int64_t> bytes;
  for (size_t k = 0; k < sig.inputs.size() + sig.outputs.size(); ++k) {
    const auto &t = k < sig.inputs.size() ? sig.inputs[k] : sig.outputs[k - sig.inputs.size()];
    int64_t n = 1;
    for (int64_t d : t.shape)
      n *= d;
    const int64_t size = n * static_cast<int64_t>(shardrt_dtype_size(t.dtype));
    void *d = shardrt_cuda_alloc(size, nullptr);
    if (!d) {
      std::fprintf(stderr, "error: %s\n", shardrt_last_error());
      return 5;
    }
    std::vector<unsigned char> host(static_cast<size_t>(size), 0);
    if (k < sig.inputs.size())
      for (int64_t i = 0; i < n; ++i) {
        float v = static_cast<float>((i * 7 + k * 3) % 17) / 16.0f - 0.5f;
        if (t.dtype == SHARDRT_F32)
          std::memcpy(&host[i * 4], &v, 4);
        else if (t.dtype == SHARDRT_BF16) {
          uint16_t h = toBf16(v);
          std::memcpy(&host[i * 2], &h, 2);
        }
      }
    shardrt_cuda_upload(d, host.data(), size);
    buffers.push_back(d);
    bytes.push_back(size);
  }
  auto step = [&] {
    shardc_entry(buffers.data());
    return shardrt_cuda_synchronize() == SHARDRT_OK;
  };
  const double ours = medianMs(reps, step);
  if (ours < 0) {
    std::fprintf(stderr, "error: %s\n", shardrt_last_error());
    return 5;
  }
  std::printf("GPU: %s (sm_%d%d), %s, %d reps (median)\n", info.name, info.major, info.minor,
              sig.target.c_str(), reps);
  if (kind == "chain") {
    void *dst = shardrt_cuda_alloc(bytes[1], nullptr);
    double copy = medianMs(reps, [&] {
      shardrt_cuda_copy(dst, buffers[0], bytes[0]);
      return shardrt_cuda_synchronize() == SHARDRT_OK;
    });
    double gbs = 2.0 * bytes[0] / (ours * 1e6), copyGbs = 2.0 * bytes[0] / (copy * 1e6);
    std::printf("chain (mul, add, tanh) %lld MiB: shardc %.3f ms (%.0f GB/s), device copy %.3f ms "
                "(%.0f GB/s): ratio %.2f\n",
                static_cast<long long>(bytes[0] >> 20), ours, gbs, copy, copyGbs, copy / ours);
    return shardrt_cuda_unbind() == SHARDRT_OK ? 0 : 5;
  }
  // GEMMs: C = A B, 4096³, against cuBLAS on the same buffers and stream.
  const int n = static_cast<int>(sig.inputs[0].shape[0]);
  const double flop = 2.0 * n * n * n;
  std::string tried;
  void *cublas = openCublas(tried);
  if (!cublas) {
    std::printf("%s %d^3: shardc %.3f ms (%.2f TFLOP/s); cuBLAS not found (tried %s)\n",
                kind.c_str(), n, ours, flop / (ours * 1e9), tried.c_str());
    return shardrt_cuda_unbind() == SHARDRT_OK ? 0 : 5;
  }
  using Handle = void *;
  auto create = reinterpret_cast<int (*)(Handle *)>(dlsym(cublas, "cublasCreate_v2"));
  auto setStream = reinterpret_cast<int (*)(Handle, void *)>(dlsym(cublas, "cublasSetStream_v2"));
  auto sgemm = reinterpret_cast<int (*)(Handle, int, int, int, int, int, const float *,
                                        const void *, int, const void *, int, const float *,
                                        void *, int)>(dlsym(cublas, "cublasSgemm_v2"));
  auto gemmEx = reinterpret_cast<int (*)(Handle, int, int, int, int, int, const void *,
                                         const void *, int, int, const void *, int, int,
                                         const void *, void *, int, int, int, int)>(
      dlsym(cublas, "cublasGemmEx"));
  Handle h = nullptr;
  if (!create || !setStream || !sgemm || !gemmEx || create(&h) != 0 ||
      setStream(h, shardrt_cuda_stream()) != 0) {
    std::fprintf(stderr, "error: cuBLAS could not be set up\n");
    return 5;
  }
  void *c = shardrt_cuda_alloc(bytes[2], nullptr);
  const float one = 1, zero = 0;
  // Row-major C = A B is column-major C^T = B^T A^T.
  constexpr int kOpN = 0, kR16BF = 14, kR32F = 0, kCompute32F = 68, kCompute32FFastTf32 = 77,
                kDefaultAlgo = -1;
  auto theirs = [&] {
    int r = kind == "gemm_f32"
                ? sgemm(h, kOpN, kOpN, n, n, n, &one, buffers[1], n, buffers[0], n, &zero, c, n)
            : kind == "gemm_tf32"
                ? gemmEx(h, kOpN, kOpN, n, n, n, &one, buffers[1], kR32F, n, buffers[0], kR32F,
                         n, &zero, c, kR32F, n, kCompute32FFastTf32, kDefaultAlgo)
                : gemmEx(h, kOpN, kOpN, n, n, n, &one, buffers[1], kR16BF, n, buffers[0],
                         kR16BF, n, &zero, c, kR16BF, n, kCompute32F, kDefaultAlgo);
    return r == 0 && shardrt_cuda_synchronize() == SHARDRT_OK;
  };
  const double base = medianMs(reps, theirs);
  // The two results, compared.
  const size_t elems = static_cast<size_t>(n) * n, width = kind == "gemm_bf16" ? 2 : 4;
  std::vector<unsigned char> a(elems * width), b(elems * width);
  shardrt_cuda_download(a.data(), buffers[2], bytes[2]);
  shardrt_cuda_download(b.data(), c, bytes[2]);
  double worst = 0;
  for (size_t i = 0; i < elems; i += 97) {
    float x, y;
    if (width == 4) {
      std::memcpy(&x, &a[i * 4], 4);
      std::memcpy(&y, &b[i * 4], 4);
    } else {
      uint16_t p, q;
      std::memcpy(&p, &a[i * 2], 2);
      std::memcpy(&q, &b[i * 2], 2);
      x = fromBf16(p);
      y = fromBf16(q);
    }
    worst = std::max(worst, std::fabs(double(x) - double(y)) / (1.0 + std::fabs(double(y))));
  }
  std::printf("%s %d^3: shardc %.3f ms (%.2f TFLOP/s), cuBLAS %s %.3f ms (%.2f TFLOP/s): ratio "
              "%.3f; max relative difference %.2g\n",
              kind.c_str(), n, ours, flop / (ours * 1e9),
              kind == "gemm_f32"    ? "SGEMM"
              : kind == "gemm_tf32" ? "GemmEx f32/TF32"
                                    : "GemmEx bf16/f32",
              base, flop / (base * 1e9),
              base / ours, worst);
  return shardrt_cuda_unbind() == SHARDRT_OK ? 0 : 5;
}
