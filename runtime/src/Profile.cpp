// shardrt_profile_*: per-thread site tables for `shardc run --profile`.
//
// A rank's generated code runs on one thread (its kernels' parallel loops
// run inside the caller's site), so each table is thread_local and the
// probes take no lock. A probe on a thread without a started table does
// nothing: a profiled object also runs under hosts that do not profile.
#include "Error.h"
#include "shardrt.h"

#include <chrono>
#include <vector>

namespace {

struct Table {
  bool started = false;
  bool outOfRange = false; // a probe named a site past the table
  int64_t openedAt = 0;    // the last begin's time
  std::vector<int64_t> calls, nanos;
};

thread_local Table table;

int64_t now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

extern "C" void shardrt_profile_begin(int64_t) {
  if (table.started)
    table.openedAt = now();
}

extern "C" void shardrt_profile_end(int64_t site) {
  if (!table.started)
    return;
  int64_t t = now();
  if (site < 0 || site >= static_cast<int64_t>(table.calls.size())) {
    table.outOfRange = true;
    return;
  }
  table.calls[site] += 1;
  table.nanos[site] += t - table.openedAt;
}

extern "C" void shardrt_profile_start(int64_t num_sites) {
  table = Table();
  table.started = true;
  table.calls.assign(num_sites > 0 ? num_sites : 0, 0);
  table.nanos.assign(num_sites > 0 ? num_sites : 0, 0);
}

extern "C" int32_t shardrt_profile_stop(int64_t *calls, int64_t *nanos, int64_t num_sites) {
  if (!table.started)
    return shardrt::fail(SHARDRT_ERR_ARGUMENT,
                         "shardrt_profile_stop: no profile was started on this thread");
  Table t = std::move(table);
  table = Table();
  if (t.outOfRange || num_sites != static_cast<int64_t>(t.calls.size()))
    return shardrt::fail(SHARDRT_ERR_ARGUMENT,
                         "shardrt_profile_stop: the program's sites do not match a table "
                         "of %lld sites",
                         static_cast<long long>(num_sites));
  for (int64_t s = 0; s < num_sites; ++s) {
    calls[s] += t.calls[s];
    nanos[s] += t.nanos[s];
  }
  return SHARDRT_OK;
}
