//===- Profile.cpp - per-rank kernel and collective times -----------------===//
#include "compiler/host/Profile.h"

#include "shardrt.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <numeric>

namespace shardc {

std::vector<std::string> parseProfileSites(const char *text) {
  std::vector<std::string> sites;
  std::string line;
  for (const char *c = text; *c; ++c) {
    if (*c == '\n') {
      sites.push_back(line);
      line.clear();
    } else {
      line += *c;
    }
  }
  return sites;
}

bool runProfiled(int64_t sites, RankProfile &profile, std::string &error,
                 void (*body)(void *), void *context) {
  profile.calls.resize(sites, 0);
  profile.nanos.resize(sites, 0);
  shardrt_profile_start(sites);
  auto start = std::chrono::steady_clock::now();
  body(context);
  auto end = std::chrono::steady_clock::now();
  if (shardrt_profile_stop(profile.calls.data(), profile.nanos.data(), sites) != SHARDRT_OK) {
    error = shardrt_last_error();
    return false;
  }
  profile.entryNanos +=
      std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
  profile.steps += 1;
  return true;
}

std::string formatProfile(const std::vector<std::string> &sites, const RankProfile &profile,
                          size_t maxRows) {
  char line[160];
  auto ms = [](int64_t ns) { return static_cast<double>(ns) / 1e6; };
  double total = static_cast<double>(std::max<int64_t>(profile.entryNanos, 1));
  std::snprintf(line, sizeof line,
                "rank %" PRId64 " (%" PRId64 " step%s, %.3f ms in the local program):\n",
                profile.device, profile.steps, profile.steps == 1 ? "" : "s",
                ms(profile.entryNanos));
  std::string text = line;
  // By kind: kernels, collectives, and within them the wait for
  // asynchronous all-reduces and reduce-scatters to finish (the
  // communication not overlapped).
  int64_t kernels = 0, collectives = 0, exposed = 0;
  for (size_t s = 0; s < sites.size() && s < profile.nanos.size(); ++s) {
    const std::string &name = sites[s];
    if (name.rfind("kernel ", 0) == 0) {
      kernels += profile.nanos[s];
    } else {
      collectives += profile.nanos[s];
      if (name.rfind("all_reduce_done", 0) == 0 || name.rfind("reduce_scatter_done", 0) == 0)
        exposed += profile.nanos[s];
    }
  }
  std::snprintf(line, sizeof line,
                "  kernels %.3f ms, collectives %.3f ms (waiting for reductions to finish: "
                "%.3f ms)\n",
                ms(kernels), ms(collectives), ms(exposed));
  text += line;
  text += "         ms   share   calls  site\n";
  auto row = [&](int64_t nanos, const std::string &calls, const std::string &what) {
    std::snprintf(line, sizeof line, "  %9.3f  %5.1f%%  %6s  ", ms(nanos), 100.0 * nanos / total,
                  calls.c_str());
    text += line + what + "\n";
  };
  std::vector<size_t> order;
  for (size_t s = 0; s < sites.size() && s < profile.calls.size(); ++s)
    if (profile.calls[s])
      order.push_back(s);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return profile.nanos[a] > profile.nanos[b]; });
  int64_t timed = 0, others = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    size_t s = order[k];
    timed += profile.nanos[s];
    if (k < maxRows)
      row(profile.nanos[s], std::to_string(profile.calls[s]), sites[s]);
    else
      others += profile.nanos[s];
  }
  if (order.size() > maxRows)
    row(others, "", std::to_string(order.size() - maxRows) + " more sites");
  row(std::max<int64_t>(profile.entryNanos - timed, 0), "",
      "not in a site (copies, allocation, small loops)");
  return text;
}

} // namespace shardc
