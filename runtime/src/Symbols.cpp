// The symbol table a JIT loader registers so generated code can resolve the
// runtime's functions by name.  Invariant: it lists exactly the functions that
// generated code calls (the ones acting on the current communicator), is
// NULL-terminated, and has static storage, so the pointer stays valid forever.
#include "shardrt.h"

namespace {
template <typename Fn> void *address(Fn *fn) { return reinterpret_cast<void *>(fn); }

} // namespace

extern "C" const shardrt_symbol *shardrt_symbols(void) {
  // Function-local, so it is initialised on first use even when a loader asks
  // before this file's static initialisers have run.
  static const shardrt_symbol kSymbols[] = {
      {"shardrt_rank", address(&shardrt_rank)},
      {"shardrt_all_reduce", address(&shardrt_all_reduce)},
      {"shardrt_all_gather", address(&shardrt_all_gather)},
      {nullptr, nullptr},
  };
  return kSymbols;
}
