//===- AllocatorTuning.h - glibc malloc settings for the compiler drivers -*- C++ -*-===//
//
// A compile allocates and frees many large arrays: each pass builds per-op
// tables of hundreds of kilobytes to megabytes over a large program, and
// MLIR's IR itself grows and shrinks. With glibc's defaults, blocks over the
// (dynamic) mmap threshold are mapped fresh and unmapped when freed, and
// free memory at the heap's top is given back to the OS past 128 KiB, so the
// next pass's tables fault in zeroed pages again: ~5,100 page faults in
// the sharding passes on a 100k-op chain, ~250 with the settings below
// (`perf stat -e page-faults`, bench/propagation's `ew 100000`; pass-only
// median 0.144 s to 0.139 s over ten runs each).
//
// The drivers (shardc-opt, shardc) keep freed memory for reuse instead:
// blocks up to 32 MiB come from the heap, and the heap is neither trimmed
// nor grown in small steps. Peak RSS is what the program needed at its
// peak either way; only processes (not the libraries, which must not
// change process-wide allocator settings) opt in. `shardc run` gives the
// compiler's memory back (releaseCompilerMemory) before the ranks start.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TOOLS_ALLOCATORTUNING_H
#define SHARDC_COMPILER_TOOLS_ALLOCATORTUNING_H

// <cstddef> defines __GLIBC__ (through <features.h>) on glibc systems.
#include <cstddef>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace shardc {

inline void tuneAllocatorForCompiling() {
#if defined(__GLIBC__)
  // 32 MiB is the largest threshold glibc accepts on 64-bit hosts; setting
  // any of these turns off its dynamic threshold, so all three are set.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

/// Returns the freed memory the settings above kept to the OS.
inline void releaseCompilerMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

} // namespace shardc

#endif // SHARDC_COMPILER_TOOLS_ALLOCATORTUNING_H
