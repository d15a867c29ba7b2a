//===- ReshardPlan.cpp - the reshard planner ------------------------------===//
#include "passes/core/ReshardPlan.h"

#include <algorithm>

namespace shardc {

const char *collectiveName(CollectiveStep::Kind k) {
  switch (k) {
  case CollectiveStep::Kind::AllReduce: return "all_reduce";
  case CollectiveStep::Kind::AllGather: return "all_gather";
  case CollectiveStep::Kind::AllSlice: return "all_slice";
  }
  return "?";
}

static int64_t localBytes(const std::vector<int64_t> &shape, const TensorSharding &s,
                          const Mesh &mesh, int64_t elementBytes) {
  int64_t n = elementBytes;
  for (int64_t d : localShape(shape, s, mesh))
    n *= d;
  return n;
}

ReshardPlan planReshard(const TensorSharding &from, const TensorSharding &to, const Mesh &mesh,
                        const std::vector<int64_t> &shape, int64_t elementBytes) {
  ReshardPlan plan;
  auto has = [](const std::vector<int> &v, int a) {
    return std::find(v.begin(), v.end(), a) != v.end();
  };
  for (int a : to.pending)
    if (!has(from.pending, a)) {
      plan.error = "cannot make a value unreduced over mesh axis \"" + mesh.axes[a] +
                   "\" from one that is reduced over it";
      return plan;
    }
  if (!to.pending.empty() && to.pendingKind != from.pendingKind) {
    plan.error = std::string("cannot turn a pending ") + reductionName(from.pendingKind) +
                 " into a pending " + reductionName(to.pendingKind);
    return plan;
  }
  if (from.dims.size() != to.dims.size() || from.dims.size() != shape.size()) {
    plan.error = "source and target shardings have different ranks";
    return plan;
  }

  TensorSharding cur = from;
  for (DimSharding &d : cur.dims)
    d.open = false;

  std::vector<int> reduceAxes;
  for (int a : from.pending)
    if (!has(to.pending, a))
      reduceAxes.push_back(a);
  if (!reduceAxes.empty()) {
    CollectiveStep s{CollectiveStep::Kind::AllReduce};
    s.axes = reduceAxes;
    s.reduction = from.pendingKind;
    int64_t n = mesh.product(reduceAxes);
    s.bytesPerDevice = 2 * (n - 1) * localBytes(shape, cur, mesh, elementBytes) / n;
    cur.pending = to.pending;
    s.after = cur;
    plan.steps.push_back(std::move(s));
  }

  std::vector<size_t> common(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    const std::vector<int> &a = cur.dims[d].axes, &b = to.dims[d].axes;
    size_t n = 0;
    while (n < a.size() && n < b.size() && a[n] == b[n])
      ++n;
    common[d] = n;
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (cur.dims[d].axes.size() == common[d])
      continue;
    CollectiveStep s{CollectiveStep::Kind::AllGather};
    s.dim = static_cast<int>(d);
    s.axes.assign(cur.dims[d].axes.begin() + common[d], cur.dims[d].axes.end());
    cur.dims[d].axes.resize(common[d]);
    int64_t n = mesh.product(s.axes);
    s.bytesPerDevice = (n - 1) * localBytes(shape, cur, mesh, elementBytes) / n;
    s.after = cur;
    plan.steps.push_back(std::move(s));
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (to.dims[d].axes.size() == common[d])
      continue;
    CollectiveStep s{CollectiveStep::Kind::AllSlice};
    s.dim = static_cast<int>(d);
    s.axes.assign(to.dims[d].axes.begin() + common[d], to.dims[d].axes.end());
    cur.dims[d].axes = to.dims[d].axes;
    s.after = cur;
    plan.steps.push_back(std::move(s));
  }
  return plan;
}

} // namespace shardc
