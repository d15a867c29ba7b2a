//===- Main.cpp - fma_peak: print the host's measured FMA peak ------------===//
//
//   bazel build //bench/peak:fma_peak
//   bazel-bin/bench/peak/fma_peak [THREADS]     (default: every CPU)
//
// Prints one line (FmaPeak.h); bench/train/run.sh prints it before and
// after its runs, so that a contended host shows in the results.
//
//===----------------------------------------------------------------------===//
#include "bench/peak/FmaPeak.h"

#include <cstdio>
#include <cstdlib>
#include <thread>

int main(int argc, char **argv) {
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  if (argc > 2 || (argc == 2 && (threads = std::atoi(argv[1])) <= 0)) {
    std::fprintf(stderr, "usage: fma_peak [THREADS (a positive count; default: every CPU)]\n");
    return 2;
  }
  std::printf("%s\n", shardc::bench::describe(shardc::bench::measureFmaPeak(threads)).c_str());
  return 0;
}
