//===- FmaPeak.h - the host's measured FMA throughput ----------*- C++ -*-===//
//
// What a GEMM's GFLOP/s is a share of. A register-only loop of independent
// fused multiply-adds (no loads, no stores: twelve accumulators, more than
// an FMA unit's latency times its pipes on every x86 core) measures the
// floating-point peak of the host's widest vectors, on one thread and on
// N threads at once.
//
// On a virtual machine the peak is not a constant: a vCPU that shares its
// physical core with another guest, or is descheduled, runs the same loop
// slower. N threads at N times one thread's rate say the cores are whole;
// a lower ratio says a benchmark run beside it measured a contended host
// (bench/README.md records both kinds of run).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_BENCH_PEAK_FMAPEAK_H
#define SHARDC_BENCH_PEAK_FMAPEAK_H

#include <string>

namespace shardc::bench {

/// One measurement.
struct FmaPeak {
  int vectorBits = 0;     // 512 (AVX-512), 256 (AVX2 + FMA); 0 without FMA
  int threads = 0;        // threads of the second figure
  double oneThread = 0;   // GFLOP/s (an FMA counts 2 per lane) of one thread
  double allThreads = 0;  // GFLOP/s of `threads` threads together
};

/// Measures the peak: the best of three runs of about `seconds` each, on
/// one thread and then on `threads`. A host without FMA returns zeros.
FmaPeak measureFmaPeak(int threads, double seconds = 0.1);

/// One line: "FMA peak (256-bit): 89.0 GFLOP/s on 1 thread, 178.0 on 2
/// (2.00x)".
std::string describe(const FmaPeak &peak);

} // namespace shardc::bench

#endif // SHARDC_BENCH_PEAK_FMAPEAK_H
