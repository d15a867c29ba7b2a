//===- Kernels.cpp - shardc's CPU kernels against named baselines ---------===//
//
//   bazel build //bench/kernels:kernels
//   env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE bazel-bin/bench/kernels/kernels \
//       [--reps N] [--cpu NAME] [--threads N]
//
// Compiles tiny garray models with compileModule for a one-device mesh, loads
// the object (ObjectLoader + shardrt_symbols()) and times its entry as rank
// 0 of a one-rank threads world (what `shardc run` does for one device),
// with --threads kernel threads (SHARDRT_THREADS; default 1) against
// OpenBLAS on as many threads. Each line compares with a baseline measured in the same run:
//
//   gemm FORM     C = op(A) @ op(B) in f32 for square and training-step
//                 shapes, every transposition, batched; against OpenBLAS
//                 cblas_sgemm on the same layout with one thread
//                 (openblas_set_num_threads(1)); ratio = OpenBLAS time /
//                 shardc time (1.0x = as fast as OpenBLAS). The bf16 and
//                 f16 forms (inputs and result 16-bit, summed in f32) are
//                 against the same cblas_sgemm on the same values in f32.
//   elementwise   out = -|max(x*y + x - y, x)| over 16M f32 (6 ops, one fused
//                 loop), against memcpy. Like with like: the chain reads two
//                 arrays and writes one (3 x 64 MiB of traffic); memcpy copies
//                 1.5 x 64 MiB, so it also reads and writes 192 MiB in total.
//                 GB/s = those bytes / time; ratio = shardc GB/s / memcpy GB/s.
//
// What is timed is code compiled elsewhere (shardc's object at LLVM O3,
// OpenBLAS, libc's memcpy), so Bazel's compilation mode of this file does
// not matter. Results are verified against the baseline before timing. Every timing is
// the median of --reps repetitions (default 7) after a warm-up, with shardc
// and baseline interleaved so that noise from other load hits both alike.
//
//===----------------------------------------------------------------------===//
#include "bench/peak/FmaPeak.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/targets/ObjectLoader.h"
#include "shardrt.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

enum class ExitCode : int { Ok = 0, Usage = 2, CompileError = 3, Mismatch = 4, RunError = 5 };

struct Options {
  int reps = 7;
  int threads = 1;
  std::string cpu = "host";
  std::string only; // run only the forms whose name contains this ("" = all)
};

//===----------------------------------------------------------------------===//
// Compiling and running a model on one device
//===----------------------------------------------------------------------===//

struct Program {
  std::unique_ptr<shardc::LoadedObject> object;
  shardc::LoadedObject::EntryFn entry = nullptr;
};

bool compileAndLoad(const std::string &text, const Options &opts, Program &p) {
  std::string diagnostics;
  shardc::CompileOptions options;
  options.cpu = opts.cpu;
  std::optional<shardc::CompileResult> result =
      shardc::compileText(text, "kernel.mlir", options, diagnostics);
  if (!result) {
    std::fprintf(stderr, "kernels: the model does not compile:\n%s\n%s", text.c_str(),
                 diagnostics.c_str());
    return false;
  }
  std::vector<shardc::LoadedObject::Symbol> symbols;
  for (const shardrt_symbol *s = shardrt_symbols(); s->name; ++s)
    symbols.emplace_back(s->name, s->address);
  auto loaded = shardc::LoadedObject::load(result->object, symbols);
  if (!loaded) {
    std::fprintf(stderr, "kernels: loading: %s\n", llvm::toString(loaded.takeError()).c_str());
    return false;
  }
  p.object = std::move(*loaded);
  auto entry = p.object->lookup(result->signature.entry);
  if (!entry) {
    std::fprintf(stderr, "kernels: %s\n", llvm::toString(entry.takeError()).c_str());
    return false;
  }
  p.entry = *entry;
  return true;
}

/// Runs `body` as rank 0 of a one-rank threads world.
bool onOneRank(const std::function<void()> &body) {
  shardrt_world *world = shardrt_threads_create(1);
  if (!world)
    return false;
  shardrt_status st = shardrt_threads_run(
      world,
      [](shardrt_comm *, void *user) -> int32_t {
        (*static_cast<const std::function<void()> *>(user))();
        return 0;
      },
      const_cast<std::function<void()> *>(&body));
  shardrt_world_destroy(world);
  if (st != SHARDRT_OK)
    std::fprintf(stderr, "kernels: %s\n", shardrt_last_error());
  return st == SHARDRT_OK;
}

double seconds(const std::function<void()> &fn) {
  auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Per-call medians of `reps` interleaved samples of each. A sample is
/// `calls` back-to-back calls, with `calls` chosen so that a sample of the
/// baseline lasts about 0.1 s: on a shared machine a single 3 ms call is
/// often preempted for a whole time slice, which would make small sizes a
/// coin toss; batched and interleaved, preemption hits both sides alike.
std::pair<double, double> timeBoth(int reps, const std::function<void()> &ours,
                                   const std::function<void()> &baseline) {
  ours();
  double once = seconds(baseline);
  int calls = std::max(1, static_cast<int>(0.1 / std::max(once, 1e-6)));
  auto sample = [&](const std::function<void()> &fn) {
    return seconds([&] {
             for (int i = 0; i < calls; ++i)
               fn();
           }) /
           calls;
  };
  std::vector<double> a, b;
  for (int r = 0; r < reps; ++r) {
    a.push_back(sample(ours));
    b.push_back(sample(baseline));
  }
  return {median(a), median(b)};
}

/// Values on a dyadic grid in [-1, 1): exact in f32 (in steps of 2^-7, so
/// also in bf16 and f16, when `sixteenBit`), identical everywhere.
void fill(std::vector<float> &v, uint32_t seed, bool sixteenBit = false) {
  std::mt19937 gen(seed);
  for (float &x : v) {
    uint32_t bits = gen() >> 9;
    x = sixteenBit ? static_cast<float>(static_cast<double>(bits % 256) / 128.0 - 1.0)
                   : static_cast<float>(static_cast<double>(bits) / 4194304.0 - 1.0);
  }
}

/// A buffer of `elem` ("f32", "bf16" or "f16") holding `values`.
std::vector<char> encode(const std::vector<float> &values, const std::string &elem) {
  size_t width = elem == "f32" ? 4 : 2;
  std::vector<char> out(values.size() * width);
  for (size_t i = 0; i < values.size(); ++i) {
    if (elem == "bf16") {
      __bf16 h = static_cast<__bf16>(values[i]);
      std::memcpy(out.data() + 2 * i, &h, 2);
    } else if (elem == "f16") {
      _Float16 h = static_cast<_Float16>(values[i]);
      std::memcpy(out.data() + 2 * i, &h, 2);
    } else {
      std::memcpy(out.data() + 4 * i, &values[i], 4);
    }
  }
  return out;
}

float decode(const std::vector<char> &buffer, const std::string &elem, size_t i) {
  if (elem == "bf16") {
    __bf16 h;
    std::memcpy(&h, buffer.data() + 2 * i, 2);
    return static_cast<float>(h);
  }
  if (elem == "f16") {
    _Float16 h;
    std::memcpy(&h, buffer.data() + 2 * i, 2);
    return static_cast<float>(h);
  }
  float f;
  std::memcpy(&f, buffer.data() + 4 * i, 4);
  return f;
}

//===----------------------------------------------------------------------===//
// GEMM
//===----------------------------------------------------------------------===//

/// One dot_general form: C[b] = op(A[b]) @ op(B[b]) with A stored [M, K] or
/// (transposed) [K, M], B stored [K, N] or [N, K], and an optional leading
/// batch dim, as the forward and backward passes of a training step produce.
struct GemmForm {
  const char *name;
  int64_t batch, m, n, k;
  bool transA, transB;
  std::string elem = "f32";
};

std::string tensorType(std::vector<int64_t> shape, const std::string &elem = "f32") {
  std::string t = "tensor<";
  for (int64_t d : shape)
    t += std::to_string(d) + "x";
  return t + elem + ">";
}

std::string gemmModel(const GemmForm &f) {
  std::vector<int64_t> lead;
  if (f.batch > 1)
    lead.push_back(f.batch);
  auto shape = [&](int64_t r, int64_t c) {
    std::vector<int64_t> s(lead);
    s.push_back(r);
    s.push_back(c);
    return s;
  };
  std::string ta = tensorType(f.transA ? shape(f.k, f.m) : shape(f.m, f.k), f.elem);
  std::string tb = tensorType(f.transB ? shape(f.n, f.k) : shape(f.k, f.n), f.elem);
  std::string tc = tensorType(shape(f.m, f.n), f.elem);
  int64_t b = static_cast<int64_t>(lead.size());
  std::string batch = b ? "[0] x [0]" : "[] x []";
  std::string contracting = "[" + std::to_string(f.transA ? b : b + 1) + "] x [" +
                            std::to_string(f.transB ? b + 1 : b) + "]";
  return "func.func @main(%a: " + ta + " {garray.name = \"a\"}, %b: " + tb +
         " {garray.name = \"b\"}) -> (" + tc + " {garray.name = \"c\"}) {\n" +
         "  %c = garray.dot_general %a, %b, batch = " + batch + ", contracting = " + contracting +
         " : (" + ta + ", " + tb + ") -> " + tc + "\n  return %c : " + tc + "\n}\n";
}

/// OpenBLAS on the same layout: one cblas_sgemm per batch element.
void blasGemm(const GemmForm &f, const float *a, const float *b, float *c) {
  for (int64_t i = 0; i < f.batch; ++i)
    cblas_sgemm(CblasRowMajor, f.transA ? CblasTrans : CblasNoTrans,
                f.transB ? CblasTrans : CblasNoTrans, f.m, f.n, f.k, 1.0f, a + i * f.m * f.k,
                f.transA ? f.m : f.k, b + i * f.k * f.n, f.transB ? f.k : f.n, 0.0f,
                c + i * f.m * f.n, f.n);
}

ExitCode benchGemm(const GemmForm &f, const Options &opts) {
  Program p;
  if (!compileAndLoad(gemmModel(f), opts, p))
    return ExitCode::CompileError;
  size_t sizeA = f.batch * f.m * f.k, sizeB = f.batch * f.k * f.n, sizeC = f.batch * f.m * f.n;
  std::vector<float> a(sizeA), b(sizeB), ref(sizeC), bound(sizeC);
  bool sixteenBit = f.elem != "f32";
  fill(a, 1, sixteenBit);
  fill(b, 2, sixteenBit);
  std::vector<char> ourA = encode(a, f.elem), ourB = encode(b, f.elem),
                    c(sizeC * (sixteenBit ? 2 : 4));
  std::vector<void *> buffers = {ourA.data(), ourB.data(), c.data()};
  // The one rounding of a 16-bit result (its unit roundoff).
  double roundoff = f.elem == "bf16" ? std::ldexp(1.0, -8)
                    : f.elem == "f16" ? std::ldexp(1.0, -11)
                                      : 0.0;
  auto ours = [&] { p.entry(buffers.data()); };
  auto blas = [&] { blasGemm(f, a.data(), b.data(), ref.data()); };

  double tOurs = 0, tBlas = 0;
  bool agree = true;
  if (!onOneRank([&] {
        ours();
        blas();
        // Error bound per element: k * eps * (|A| @ |B|), both sides
        // accumulate in f32 in different orders; plus a 16-bit result's
        // rounding.
        std::vector<float> absA(a), absB(b);
        for (float &x : absA)
          x = std::fabs(x);
        for (float &x : absB)
          x = std::fabs(x);
        blasGemm(f, absA.data(), absB.data(), bound.data());
        for (size_t i = 0; i < sizeC && agree; ++i) {
          float got = decode(c, f.elem, i);
          if (!(std::fabs(got - ref[i]) <=
                2.0 * f.k * 1.1920929e-7 * bound[i] + roundoff * std::fabs(ref[i]))) {
            std::fprintf(stderr, "gemm %s: element %zu: shardc %g, openblas %g\n", f.name, i,
                         got, ref[i]);
            agree = false;
          }
        }
        if (agree)
          std::tie(tOurs, tBlas) = timeBoth(opts.reps, ours, blas);
      }))
    return ExitCode::RunError;
  if (!agree)
    return ExitCode::Mismatch;
  double gflop = 2.0 * f.batch * f.m * f.n * f.k / 1e9;
  std::printf("gemm %-30s shardc %.4f s (%5.1f GFLOP/s), openblas %.4f s (%5.1f GFLOP/s), "
              "ratio %.2fx\n",
              f.name, tOurs, gflop / tOurs, tBlas, gflop / tBlas, tBlas / tOurs);
  std::fflush(stdout);
  return ExitCode::Ok;
}

//===----------------------------------------------------------------------===//
// Fused elementwise chain
//===----------------------------------------------------------------------===//

std::string elementwiseModel(int64_t n) {
  std::string t = "tensor<" + std::to_string(n) + "xf32>";
  return "func.func @main(%x: " + t + " {garray.name = \"x\"}, %y: " + t +
         " {garray.name = \"y\"}) -> (" + t + " {garray.name = \"out\"}) {\n" +
         "  %0 = garray.mul %x, %y : " + t + "\n" + //
         "  %1 = garray.add %0, %x : " + t + "\n" + //
         "  %2 = garray.sub %1, %y : " + t + "\n" + //
         "  %3 = garray.max %2, %x : " + t + "\n" + //
         "  %4 = garray.abs %3 : " + t + "\n" +     //
         "  %5 = garray.neg %4 : " + t + "\n" +     //
         "  return %5 : " + t + "\n}\n";
}

ExitCode benchElementwise(int64_t n, const Options &opts) {
  Program p;
  if (!compileAndLoad(elementwiseModel(n), opts, p))
    return ExitCode::CompileError;
  size_t count = static_cast<size_t>(n);
  std::vector<float> x(count), y(count), out(count);
  fill(x, 3);
  fill(y, 4);
  // memcpy of the same traffic: 3 arrays' worth, as 1.5 arrays read + written.
  size_t copyBytes = 3 * count * sizeof(float) / 2;
  std::vector<char> src(copyBytes, 1), dst(copyBytes);
  std::vector<void *> buffers = {x.data(), y.data(), out.data()};
  auto ours = [&] { p.entry(buffers.data()); };
  auto copy = [&] { std::memcpy(dst.data(), src.data(), copyBytes); };

  double tOurs = 0, tCopy = 0;
  bool agree = true;
  if (!onOneRank([&] {
        ours();
        for (size_t i = 0; i < count && agree; ++i) {
          float t0 = x[i] * y[i];
          float t1 = t0 + x[i];
          float t2 = t1 - y[i];
          float expected = -std::fabs(std::max(t2, x[i]));
          if (out[i] != expected) {
            std::fprintf(stderr, "elementwise: element %zu: shardc %g, expected %g\n", i, out[i],
                         expected);
            agree = false;
          }
        }
        if (agree)
          std::tie(tOurs, tCopy) = timeBoth(opts.reps, ours, copy);
      }))
    return ExitCode::RunError;
  if (!agree)
    return ExitCode::Mismatch;
  double gb = 3.0 * count * sizeof(float) / 1e9;
  std::printf("elementwise %lldM: shardc %.2f GB/s (%.4f s), memcpy %.2f GB/s (%.4f s), "
              "ratio %.2fx\n",
              static_cast<long long>(n >> 20), gb / tOurs, tOurs, gb / tCopy, tCopy,
              tCopy / tOurs);
  std::fflush(stdout);
  return ExitCode::Ok;
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc && std::atoi(argv[i + 1]) > 0) {
      opts.reps = std::atoi(argv[++i]);
    } else if (arg == "--cpu" && i + 1 < argc) {
      opts.cpu = argv[++i];
    } else if (arg == "--threads" && i + 1 < argc && std::atoi(argv[i + 1]) > 0) {
      opts.threads = std::atoi(argv[++i]);
    } else if (arg == "--only" && i + 1 < argc) {
      opts.only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: kernels [--reps N (default 7)] [--cpu NAME (default host)] "
                           "[--threads N (default 1)] [--only TEXT (forms whose name "
                           "contains it; \"elementwise\" for that one)]\n");
      return static_cast<int>(ExitCode::Usage);
    }
  }
  // OpenBLAS 0.3.21 does not know CPUs newer than it (Sapphire and Emerald
  // Rapids, Zen 5) and falls back to its SSE3 "Prescott" kernel, which
  // would make every ratio meaningless. OpenBLAS reads OPENBLAS_CORETYPE when
  // it loads, so run this program again with the kernel of the host's vector
  // width (named on the first line).
  //
  // OpenBLAS's worker threads also spin for 2^28 cycles (about 0.1 s) after
  // each call before they sleep. The two sides' samples alternate, so with
  // --threads 2 a spinning OpenBLAS worker took one of the cores from
  // shardc's next sample: the MLP weight gradient measured 0.62-0.84x in
  // some runs and 0.98-1.01x in others. OPENBLAS_THREAD_TIMEOUT=18 (2^18
  // cycles, about 0.1 ms) matches shardrt's pool, whose threads spin up to
  // 100 us before they sleep; OpenBLAS also reads it when it loads.
  llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
  bool rerun = false;
  if (std::string(openblas_get_corename()) == "Prescott" && !std::getenv("OPENBLAS_CORETYPE") &&
      (hostFeatures.lookup("avx512f") || hostFeatures.lookup("avx2"))) {
    setenv("OPENBLAS_CORETYPE", hostFeatures.lookup("avx512f") ? "SkylakeX" : "Haswell", 1);
    rerun = true;
  }
  if (opts.threads > 1 && !std::getenv("OPENBLAS_THREAD_TIMEOUT")) {
    setenv("OPENBLAS_THREAD_TIMEOUT", "18", 1);
    rerun = true;
  }
  if (rerun) {
    execv("/proc/self/exe", argv);
    std::perror("kernels: re-running with OpenBLAS's settings");
    return static_cast<int>(ExitCode::RunError);
  }
  // Like with like: shardc's kernel threads per rank and OpenBLAS's threads.
  setenv("SHARDRT_THREADS", std::to_string(opts.threads).c_str(), 1);
  openblas_set_num_threads(opts.threads);
  std::string cpu = opts.cpu == "host" ? "host (" + llvm::sys::getHostCPUName().str() + ")"
                                       : opts.cpu;
  const char *vector = hostFeatures.lookup("avx512f") ? "512-bit (AVX-512)"
                       : hostFeatures.lookup("avx2")  ? "256-bit (AVX2)"
                                                      : "128-bit (SSE)";
  const char *timeout = std::getenv("OPENBLAS_THREAD_TIMEOUT");
  std::printf("host: %s, %s vectors; shardc cpu: %s; openblas: %s, core %s, %d thread(s)%s%s; "
              "shardc %d kernel thread(s); median of %d samples\n",
              llvm::sys::getHostCPUName().str().c_str(), vector, cpu.c_str(),
              openblas_get_config(), openblas_get_corename(), openblas_get_num_threads(),
              timeout ? ", OPENBLAS_THREAD_TIMEOUT=" : "", timeout ? timeout : "", opts.threads,
              opts.reps);
  // What the GFLOP/s below are a share of, and whether the cores were whole.
  std::printf("%s\n",
              shardc::bench::describe(shardc::bench::measureFmaPeak(opts.threads)).c_str());
  std::fflush(stdout);
  // Square NN, every transposition, and the shapes of a training step: an
  // MLP layer's forward (NN), weight gradient (xᵀ·dy: TN, K = batch) and
  // input gradient (dy·Wᵀ: NT), tall-skinny logits, a small K, and
  // attention's batched q·kᵀ (NT) and p·v (NN).
  const GemmForm forms[] = {
      {"512 NN", 1, 512, 512, 512, false, false},
      {"1024 NN", 1, 1024, 1024, 1024, false, false},
      {"2048 NN", 1, 2048, 2048, 2048, false, false},
      {"1024 NT", 1, 1024, 1024, 1024, false, true},
      {"1024 TN", 1, 1024, 1024, 1024, true, false},
      {"1024 TT", 1, 1024, 1024, 1024, true, true},
      {"mlp fwd 4096x1024x512 NN", 1, 4096, 1024, 512, false, false},
      {"mlp dW 512x1024x4096 TN", 1, 512, 1024, 4096, true, false},
      {"mlp dx 4096x512x1024 NT", 1, 4096, 512, 1024, false, true},
      // The same layer at batch 8192 and 2048 hidden (64 MiB activations).
      {"mlp-big fwd 8192x2048x512 NN", 1, 8192, 2048, 512, false, false},
      {"mlp-big dW 512x2048x8192 TN", 1, 512, 2048, 8192, true, false},
      {"logits 4096x32x1024 NN", 1, 4096, 32, 1024, false, false},
      {"small-k 4096x1024x32 NN", 1, 4096, 1024, 32, false, false},
      {"logits dW 32x1024x4096 TN", 1, 32, 1024, 4096, true, false},
      {"logits dx 4096x1024x32 NT", 1, 4096, 1024, 32, false, true},
      {"attn qk 16x128x128x64 NT", 16, 128, 128, 64, false, true},
      {"attn pv 16x128x64x128 NN", 16, 128, 64, 128, false, false},
      // A CNN's convolutions as GEMMs (bench/train/more_models.py, data=2):
      // 16 and 32 output channels, K = 3x3 taps x input channels.
      {"conv1 32768x16x27 NN", 1, 32768, 16, 27, false, false},
      {"conv2 8192x32x144 NN", 1, 8192, 32, 144, false, false},
      {"conv1 dW 27x16x32768 TN", 1, 27, 16, 32768, true, false},
      {"conv2 dx 8192x16x288 NN", 1, 8192, 16, 288, false, false},
      // A deeper MLP's layers of 512 at batch 2048 (more_models.py's deep).
      {"deep fwd 2048x512x512 NN", 1, 2048, 512, 512, false, false},
      {"deep dW 512x512x2048 TN", 1, 512, 512, 2048, true, false},
      {"deep dx 2048x512x512 NT", 1, 2048, 512, 512, false, true},
      // A transformer block's feed-forward layer (bench/train/models.py,
      // width 256, 1024 hidden) on 1024 tokens and on a quarter of them
      // (mesh 4): up-projection, its weight and input gradients.
      {"ffn up 1024x1024x256 NN", 1, 1024, 1024, 256, false, false},
      {"ffn up 256x1024x256 NN", 1, 256, 1024, 256, false, false},
      {"ffn up dW 256x1024x256 TN", 1, 256, 1024, 256, true, false},
      {"ffn down dx 256x1024x256 NT", 1, 256, 1024, 256, false, true},
      {"ffn down 256x256x1024 NN", 1, 256, 256, 1024, false, false},
      // A recurrent layer's products stacked over its 128 steps
      // (more_models.py's rnn: batch 32, 64 inputs, 128 hidden): the input
      // projection, and the weight gradients, K = steps x batch.
      {"rnn x·Wx 4096x128x64 NN", 1, 4096, 128, 64, false, false},
      {"rnn dWh 128x128x4096 TN", 1, 128, 128, 4096, true, false},
      {"rnn dWx 64x128x4096 TN", 1, 64, 128, 4096, true, false},
      // 16-bit floats against sgemm on the same values.
      {"bf16 1024 NN", 1, 1024, 1024, 1024, false, false, "bf16"},
      {"bf16 1024 TT", 1, 1024, 1024, 1024, true, true, "bf16"},
      {"bf16 mlp dW 512x1024x4096 TN", 1, 512, 1024, 4096, true, false, "bf16"},
      {"bf16 attn qk 16x128x128x64 NT", 16, 128, 128, 64, false, true, "bf16"},
      {"f16 1024 NN", 1, 1024, 1024, 1024, false, false, "f16"},
      {"f16 mlp dx 4096x512x1024 NT", 1, 4096, 512, 1024, false, true, "f16"},
  };
  auto selected = [&](llvm::StringRef name) { return name.contains(opts.only); };
  for (const GemmForm &f : forms)
    if (selected(std::string("gemm ") + f.name))
      if (ExitCode e = benchGemm(f, opts); e != ExitCode::Ok)
        return static_cast<int>(e);
  if (selected("elementwise 16M"))
    if (ExitCode e = benchElementwise(int64_t(16) << 20, opts); e != ExitCode::Ok)
      return static_cast<int>(e);
  return static_cast<int>(ExitCode::Ok);
}
