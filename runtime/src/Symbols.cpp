// The symbol table a JIT loader registers so generated code can resolve the
// runtime's functions by name.  Invariant: it lists exactly the functions that
// generated code calls (the ones acting on the current communicator, and the
// kernel thread pool's parallel loops, the buffer allocator, the profiling
// probes), is NULL-terminated, and has static storage, so the pointer stays
// valid forever.
#include "shardrt.h"

extern "C" __bf16 __truncsfbf2(float);
extern "C" __bf16 __truncdfbf2(double);

namespace {
template <typename Fn> void *address(Fn *fn) { return reinterpret_cast<void *>(fn); }

} // namespace

extern "C" const shardrt_symbol *shardrt_symbols(void) {
  // Function-local, so it is initialised on first use even when a loader asks
  // before this file's static initialisers have run.
  static const shardrt_symbol kSymbols[] = {
      {"shardrt_rank", address(&shardrt_rank)},
      {"shardrt_all_reduce", address(&shardrt_all_reduce)},
      {"shardrt_all_reduce_start", address(&shardrt_all_reduce_start)},
      {"shardrt_all_reduce_done", address(&shardrt_all_reduce_done)},
      {"shardrt_all_gather", address(&shardrt_all_gather)},
      {"shardrt_reduce_scatter", address(&shardrt_reduce_scatter)},
      {"shardrt_reduce_scatter_start", address(&shardrt_reduce_scatter_start)},
      {"shardrt_reduce_scatter_done", address(&shardrt_reduce_scatter_done)},
      {"shardrt_all_to_all", address(&shardrt_all_to_all)},
      {"shardrt_collective_permute", address(&shardrt_collective_permute)},
      {"shardrt_parallel_for", address(&shardrt_parallel_for)},
      {"shardrt_parallel_for_own", address(&shardrt_parallel_for_own)},
      {"shardrt_loop_chunks", address(&shardrt_loop_chunks)},
      {"shardrt_buffer_alloc", address(&shardrt_buffer_alloc)},
      {"shardrt_buffer_free", address(&shardrt_buffer_free)},
      {"shardrt_profile_begin", address(&shardrt_profile_begin)},
      {"shardrt_profile_end", address(&shardrt_profile_end)},
      // Soft-float helpers LLVM may call for bf16 (SoftFloat.cpp).
      {"__truncsfbf2", address(&__truncsfbf2)},
      {"__truncdfbf2", address(&__truncdfbf2)},
      {nullptr, nullptr},
  };
  return kSymbols;
}
