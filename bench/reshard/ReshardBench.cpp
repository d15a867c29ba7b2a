//===- ReshardBench.cpp - planner bytes vs gather-then-slice --------------===//
//
// For every pair of (unpending) layouts of a rank-2 [64, 64] f32 array on a
// few meshes, plans the reshard with planReshard() and with the baseline
// planGatherThenSlice(), and prints: the summed bytes per device of each, the
// ratio baseline / planner (higher = the planner moves less), how many pairs
// got strictly cheaper, the kinds of steps used, and the median and worst
// planning time per reshard.
//
//===----------------------------------------------------------------------===//
#include "sharding/ReshardPlan.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <vector>

using namespace shardc;

namespace {

/// Every ordered list of distinct axes drawn from 0..numAxes-1.
std::vector<std::vector<int>> axisLists(int numAxes) {
  std::vector<std::vector<int>> out = {{}};
  std::function<void(std::vector<int> &)> grow = [&](std::vector<int> &cur) {
    for (int a = 0; a < numAxes; ++a)
      if (std::find(cur.begin(), cur.end(), a) == cur.end()) {
        cur.push_back(a);
        out.push_back(cur);
        grow(cur);
        cur.pop_back();
      }
  };
  std::vector<int> cur;
  grow(cur);
  return out;
}

void run(const Mesh &mesh) {
  std::vector<TensorSharding> layouts;
  for (const auto &d0 : axisLists((int)mesh.axes.size()))
    for (const auto &d1 : axisLists((int)mesh.axes.size())) {
      TensorSharding s;
      s.dims = {DimSharding{d0, false}, DimSharding{d1, false}};
      if (s.validate(mesh).empty())
        layouts.push_back(s);
    }
  const std::vector<int64_t> shape = {64, 64};
  int64_t planned = 0, baseline = 0, pairs = 0, cheaper = 0;
  std::map<std::string, int64_t> kinds;
  std::vector<double> micros;
  for (const TensorSharding &from : layouts)
    for (const TensorSharding &to : layouts) {
      auto t0 = std::chrono::steady_clock::now();
      ReshardPlan p = planReshard(from, to, mesh, shape, 4);
      auto t1 = std::chrono::steady_clock::now();
      micros.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      ReshardPlan b = planGatherThenSlice(from, to, mesh, shape, 4);
      planned += p.totalBytes();
      baseline += b.totalBytes();
      cheaper += p.totalBytes() < b.totalBytes();
      ++pairs;
      for (const CollectiveStep &s : p.steps)
        ++kinds[collectiveName(s.kind)];
    }
  std::sort(micros.begin(), micros.end());
  std::printf("mesh %-28s %5lld pairs  planner %10lld B  gather-then-slice %10lld B  ratio "
              "%.2fx  cheaper %lld  plan time median %.0f us, max %.0f us\n",
              mesh.str().c_str(), (long long)pairs, (long long)planned, (long long)baseline,
              planned ? double(baseline) / double(planned) : 0.0, (long long)cheaper,
              micros[micros.size() / 2], micros.back());
  std::printf("   steps:");
  for (const auto &[k, n] : kinds)
    std::printf(" %s=%lld", k.c_str(), (long long)n);
  std::printf("\n");
}

} // namespace

int main() {
  run(Mesh{{"x"}, {8}});
  run(Mesh{{"x", "y"}, {2, 2}});
  run(Mesh{{"x", "y"}, {2, 4}});
  run(Mesh{{"x", "y", "z"}, {2, 2, 2}});
  run(Mesh{{"x", "y", "z", "w"}, {2, 2, 2, 2}});
  return 0;
}
