//===- Profile.h - per-rank kernel and collective times ---------*- C++ -*-===//
//
// `shardc run --profile`: an object compiled with profiling times each call
// of a kernel or collective (a *site*, cpu-instrument-profile) on the rank
// that makes it; the host sums a rank's times over the steps it runs and
// prints one table per rank, largest first, with the time in the local
// program that no site accounts for (copies, allocation, small loops).
// No MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_HOST_PROFILE_H
#define SHARDC_COMPILER_HOST_PROFILE_H

#include <cstdint>
#include <string>
#include <vector>

namespace shardc {

/// One rank's times, summed over the steps it ran.
struct RankProfile {
  int64_t device = 0;
  int64_t steps = 0;
  int64_t entryNanos = 0;            // wall time in the local program
  std::vector<int64_t> calls, nanos; // per site
};

/// The site names of a profiled object: its SHARDRT_PROFILE_SITES_SYMBOL
/// string, one name per line.
std::vector<std::string> parseProfileSites(const char *text);

/// Starts the calling thread's probes for `sites` sites, runs `body`, and
/// adds what they measured (and the wall time of `body`) to `profile`;
/// false with the runtime's message in `error` when the probes' sites do
/// not match.
bool runProfiled(int64_t sites, RankProfile &profile, std::string &error,
                 void (*body)(void *), void *context);

/// The table of one rank, its `maxRows` costliest sites first, after the
/// time by kind, e.g.
///   rank 1 (3 steps, 812.400 ms in the local program):
///     kernels 700.120 ms, collectives 90.300 ms (waiting for reductions
///     to finish: 61.200 ms)
///            ms   share   calls  site
///       410.213   50.5%       3  kernel main_body_par0 mlp_train.mlir:40:10
///         ...
///        31.020    3.8%          57 more sites
///        12.004    1.5%          not in a site (copies, allocation, small loops)
std::string formatProfile(const std::vector<std::string> &sites, const RankProfile &profile,
                          size_t maxRows = 20);

} // namespace shardc

#endif // SHARDC_COMPILER_HOST_PROFILE_H
