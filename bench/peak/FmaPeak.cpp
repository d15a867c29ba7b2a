//===- FmaPeak.cpp - the host's measured FMA throughput -------------------===//
//
// The loops are compiled for AVX2 + FMA and for AVX-512 through target
// attributes, so this file needs no -march; the widest the host runs is
// picked at run time. Each thread runs a fixed number of iterations after
// a common start, and the run takes as long as its slowest thread.
//
//===----------------------------------------------------------------------===//
#include "bench/peak/FmaPeak.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

namespace shardc::bench {
namespace {

constexpr int kAccumulators = 12;

// Each iteration is kAccumulators dependent chains of one FMA each; the
// chains are independent of each other, so the FMA pipes stay full. The
// sum of every chain at the end keeps each of them from being removed.
__attribute__((target("avx2,fma"))) float fmaLoop256(int64_t iterations) {
  __m256 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i)
    acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 scale = _mm256_set1_ps(0.999999f), bias = _mm256_set1_ps(1e-7f);
  for (int64_t n = 0; n < iterations; ++n)
    for (int i = 0; i < kAccumulators; ++i)
      acc[i] = _mm256_fmadd_ps(acc[i], scale, bias);
  __m256 sum = acc[0];
  for (int i = 1; i < kAccumulators; ++i)
    sum = _mm256_add_ps(sum, acc[i]);
  return _mm256_cvtss_f32(sum);
}

__attribute__((target("avx512f"))) float fmaLoop512(int64_t iterations) {
  __m512 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i)
    acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 scale = _mm512_set1_ps(0.999999f), bias = _mm512_set1_ps(1e-7f);
  for (int64_t n = 0; n < iterations; ++n)
    for (int i = 0; i < kAccumulators; ++i)
      acc[i] = _mm512_fmadd_ps(acc[i], scale, bias);
  __m512 sum = acc[0];
  for (int i = 1; i < kAccumulators; ++i)
    sum = _mm512_add_ps(sum, acc[i]);
  return _mm512_reduce_add_ps(sum);
}

/// GFLOP/s of `threads` threads each running `iterations` iterations.
double run(int threads, int vectorBits, int64_t iterations) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  // Stored, so that no loop's result is dead.
  std::atomic<float> sink{0};
  auto body = [&] {
    ready.fetch_add(1);
    while (!go.load(std::memory_order_acquire)) {
    }
    sink.store(vectorBits == 512 ? fmaLoop512(iterations) : fmaLoop256(iterations),
               std::memory_order_relaxed);
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t)
    workers.emplace_back(body);
  while (ready.load() < threads - 1) {
  }
  auto start = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  body();
  for (std::thread &w : workers)
    w.join();
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double flops = 2.0 * (vectorBits / 32) * kAccumulators * static_cast<double>(iterations) * threads;
  return flops / elapsed * 1e-9;
}

double best(int threads, int vectorBits, int64_t iterations) {
  double rate = 0;
  for (int r = 0; r < 3; ++r)
    rate = std::max(rate, run(threads, vectorBits, iterations));
  return rate;
}

} // namespace

FmaPeak measureFmaPeak(int threads, double seconds) {
  FmaPeak peak;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    peak.vectorBits = 512;
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    peak.vectorBits = 256;
  else
    return peak;
  peak.threads = std::max(1, threads);
  // Size the runs from a short one: about `seconds` each.
  int64_t probe = 1 << 20;
  double rate = run(1, peak.vectorBits, probe);
  double flopsPerIteration = 2.0 * (peak.vectorBits / 32) * kAccumulators;
  auto iterations = static_cast<int64_t>(rate * 1e9 * seconds / flopsPerIteration);
  iterations = std::max<int64_t>(iterations, probe);
  peak.oneThread = best(1, peak.vectorBits, iterations);
  peak.allThreads = peak.threads == 1 ? peak.oneThread : best(peak.threads, peak.vectorBits, iterations);
  return peak;
}

std::string describe(const FmaPeak &peak) {
  if (peak.vectorBits == 0)
    return "FMA peak: not measured (the host has no AVX2 FMA)";
  char line[160];
  std::snprintf(line, sizeof line,
                "FMA peak (%d-bit): %.1f GFLOP/s on 1 thread, %.1f on %d (%.2fx)",
                peak.vectorBits, peak.oneThread, peak.allThreads, peak.threads,
                peak.allThreads / peak.oneThread);
  return line;
}

} // namespace shardc::bench
