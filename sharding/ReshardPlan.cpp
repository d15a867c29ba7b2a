//===- ReshardPlan.cpp - the reshard planner ------------------------------===//
//
// A cheapest-path search over layouts (see ReshardPlan.h). Every move is
// built from the current layout so that it is valid by construction; the
// search state is the layout alone (dims' axis lists and the pending set).
//
//===----------------------------------------------------------------------===//
#include "sharding/ReshardPlan.h"

#include <algorithm>
#include <deque>
#include <map>
#include <queue>
#include <tuple>

namespace shardc {

const char *collectiveName(CollectiveStep::Kind k) {
  switch (k) {
  case CollectiveStep::Kind::AllReduce: return "all_reduce";
  case CollectiveStep::Kind::AllGather: return "all_gather";
  case CollectiveStep::Kind::AllSlice: return "all_slice";
  case CollectiveStep::Kind::ReduceScatter: return "reduce_scatter";
  case CollectiveStep::Kind::AllToAll: return "all_to_all";
  case CollectiveStep::Kind::CollectivePermute: return "collective_permute";
  }
  return "?";
}

int64_t ringBytes(CollectiveStep::Kind kind, int64_t n, int64_t in, int64_t out) {
  using Kind = CollectiveStep::Kind;
  switch (kind) {
  case Kind::AllReduce: return 2 * (n - 1) * in / n;
  case Kind::AllGather: return (n - 1) * out / n;
  case Kind::ReduceScatter:
  case Kind::AllToAll: return (n - 1) * in / n;
  case Kind::CollectivePermute: return in;
  case Kind::AllSlice: return 0;
  }
  return 0;
}

int64_t ReshardPlan::totalBytes() const {
  int64_t n = 0;
  for (const CollectiveStep &s : steps)
    n += s.bytesPerDevice;
  return n;
}

namespace {

using Axes = std::vector<int>;

bool has(const Axes &v, int a) { return std::find(v.begin(), v.end(), a) != v.end(); }

bool sameSet(Axes a, Axes b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

struct Planner {
  const TensorSharding &to;
  const Mesh &mesh;
  const std::vector<int64_t> &shape;
  int64_t elementBytes;

  int64_t bytes(const TensorSharding &s) const {
    int64_t n = elementBytes;
    for (int64_t d : localShape(shape, s, mesh))
      n *= d;
    return n;
  }

  /// Removes `axes` from the pending set; once the set is the target's, the
  /// target's order is used so the final layout compares equal.
  void unpend(TensorSharding &s, const Axes &axes) const {
    Axes rest;
    for (int a : s.pending)
      if (!has(axes, a))
        rest.push_back(a);
    s.pending = sameSet(rest, to.pending) ? to.pending : rest;
  }

  bool reached(const TensorSharding &s) const {
    for (size_t d = 0; d < s.dims.size(); ++d)
      if (s.dims[d].axes != to.dims[d].axes)
        return false;
    return sameSet(s.pending, to.pending);
  }

  CollectiveStep allReduce(const TensorSharding &cur, const Axes &axes) const {
    CollectiveStep s{CollectiveStep::Kind::AllReduce};
    s.axes = axes;
    s.reduction = cur.pendingKind;
    s.bytesPerDevice = ringBytes(s.kind, mesh.product(axes), bytes(cur), bytes(cur));
    s.after = cur;
    unpend(s.after, axes);
    return s;
  }

  CollectiveStep allGather(const TensorSharding &cur, int d, size_t k) const {
    CollectiveStep s{CollectiveStep::Kind::AllGather};
    s.dim = d;
    const Axes &axes = cur.dims[d].axes;
    s.axes.assign(axes.end() - k, axes.end());
    s.after = cur;
    s.after.dims[d].axes.resize(axes.size() - k);
    s.bytesPerDevice = ringBytes(s.kind, mesh.product(s.axes), bytes(cur), bytes(s.after));
    return s;
  }

  CollectiveStep allSlice(const TensorSharding &cur, int d, const Axes &axes) const {
    CollectiveStep s{CollectiveStep::Kind::AllSlice};
    s.dim = d;
    s.axes = axes;
    s.after = cur;
    s.after.dims[d].axes.insert(s.after.dims[d].axes.end(), axes.begin(), axes.end());
    return s;
  }

  CollectiveStep reduceScatter(const TensorSharding &cur, int d, const Axes &axes) const {
    CollectiveStep s{CollectiveStep::Kind::ReduceScatter};
    s.dim = d;
    s.axes = axes;
    s.reduction = cur.pendingKind;
    s.bytesPerDevice = ringBytes(s.kind, mesh.product(axes), bytes(cur), 0);
    s.after = cur;
    s.after.dims[d].axes.insert(s.after.dims[d].axes.end(), axes.begin(), axes.end());
    unpend(s.after, axes);
    return s;
  }

  CollectiveStep allToAll(const TensorSharding &cur, int a, size_t k, int b) const {
    CollectiveStep s{CollectiveStep::Kind::AllToAll};
    s.dim = a;
    s.toDim = b;
    const Axes &axes = cur.dims[a].axes;
    s.axes.assign(axes.end() - k, axes.end());
    s.bytesPerDevice = ringBytes(s.kind, mesh.product(s.axes), bytes(cur), bytes(cur));
    s.after = cur;
    s.after.dims[a].axes.resize(axes.size() - k);
    s.after.dims[b].axes.insert(s.after.dims[b].axes.end(), s.axes.begin(), s.axes.end());
    return s;
  }

  /// Whether dim `d` of `whole`'s local block is exactly `n` of `split`'s:
  /// reduce_scatter and all_to_all cut a local dim into n equal pieces (and
  /// all_to_all concatenates n), which is only the target's local layout when
  /// the ceil layout has no padding there. Uneven dims use gather and slice.
  bool exactSplit(const TensorSharding &whole, const TensorSharding &split, int d,
                  int64_t n) const {
    return localShape(shape, whole, mesh)[d] == n * localShape(shape, split, mesh)[d];
  }

  /// Every move from `cur` the search considers (see the header).
  std::vector<CollectiveStep> moves(const TensorSharding &cur) const {
    std::vector<CollectiveStep> out;
    const int rank = static_cast<int>(cur.dims.size());
    Axes reduce;
    for (int a : cur.pending)
      if (!has(to.pending, a))
        reduce.push_back(a);
    if (!reduce.empty())
      out.push_back(allReduce(cur, reduce));
    Axes used = cur.usedAxes();
    for (int d = 0; d < rank; ++d) {
      const Axes &axes = cur.dims[d].axes, &want = to.dims[d].axes;
      for (size_t k = 1; k <= axes.size(); ++k)
        out.push_back(allGather(cur, d, k));
      if (!isPrefix(axes, want))
        continue;
      // Towards the target: its next axes, either free (slice) or pending
      // and to be reduced (reduce_scatter).
      Axes free, pend;
      for (size_t i = axes.size(); i < want.size() && !has(used, want[i]); ++i) {
        free.push_back(want[i]);
        out.push_back(allSlice(cur, d, free));
      }
      for (size_t i = axes.size(); i < want.size() && has(reduce, want[i]); ++i) {
        pend.push_back(want[i]);
        CollectiveStep s = reduceScatter(cur, d, pend);
        if (exactSplit(cur, s.after, d, mesh.product(pend)))
          out.push_back(std::move(s));
      }
    }
    for (int a = 0; a < rank; ++a)
      for (size_t k = 1; k <= cur.dims[a].axes.size(); ++k)
        for (int b = 0; b < rank; ++b) {
          if (b == a)
            continue;
          Axes grown = cur.dims[b].axes;
          grown.insert(grown.end(), cur.dims[a].axes.end() - k, cur.dims[a].axes.end());
          if (!isPrefix(grown, to.dims[b].axes))
            continue;
          CollectiveStep s = allToAll(cur, a, k, b);
          int64_t n = mesh.product(s.axes);
          if (exactSplit(cur, s.after, b, n) && exactSplit(s.after, cur, a, n))
            out.push_back(std::move(s));
        }
    if (cur.pending.empty() && to.pending.empty() && !reached(cur)) {
      bool sameBlocks = true;
      for (int d = 0; d < rank; ++d)
        sameBlocks &= mesh.product(cur.dims[d].axes) == mesh.product(to.dims[d].axes);
      if (sameBlocks) {
        // With as many blocks per dim on both sides, every block has as
        // many holders as wanters, so a pairing exists; it costs O(devices)
        // to write down, and planReshard does that only for the plan it
        // keeps (the search may visit thousands of layouts).
        CollectiveStep s{CollectiveStep::Kind::CollectivePermute};
        for (int a : cur.usedAxes())
          s.axes.push_back(a);
        for (int a : to.usedAxes())
          if (!has(s.axes, a))
            s.axes.push_back(a);
        std::sort(s.axes.begin(), s.axes.end());
        s.bytesPerDevice = ringBytes(s.kind, 0, bytes(cur), bytes(to));
        s.after = to;
        for (DimSharding &dim : s.after.dims)
          dim.open = false;
        out.push_back(std::move(s));
      }
    }
    return out;
  }

  static std::string key(const TensorSharding &s) {
    std::string k;
    for (const DimSharding &d : s.dims) {
      for (int a : d.axes)
        k += std::to_string(a) + ",";
      k += "|";
    }
    Axes p = s.pending;
    std::sort(p.begin(), p.end());
    for (int a : p)
      k += std::to_string(a) + ",";
    return k;
  }
};

} // namespace

/// The block each device holds under `s`, as one number: the dims' indices
/// within their groups in mixed radix. The radices multiply to at most the
/// device count (a dim's axes are disjoint from every other dim's), so every
/// id is below it. One pass over the devices, their coordinates advanced
/// like an odometer: O(devices x mesh rank).
static std::vector<int64_t> blockIds(const TensorSharding &s, const Mesh &mesh) {
  const int64_t n = mesh.deviceCount();
  std::vector<int64_t> ids(static_cast<size_t>(n));
  std::vector<int64_t> c(mesh.sizes.size(), 0);
  for (int64_t d = 0; d < n; ++d) {
    int64_t id = 0;
    for (const DimSharding &dim : s.dims)
      for (int a : dim.axes)
        id = id * mesh.sizes[a] + c[a];
    ids[d] = id;
    for (size_t i = c.size(); i-- > 0;) { // the last axis is minor
      if (++c[i] < mesh.sizes[i])
        break;
      c[i] = 0;
    }
  }
  return ids;
}

std::vector<std::pair<int64_t, int64_t>> permutePairs(const TensorSharding &from,
                                                      const TensorSharding &to,
                                                      const Mesh &mesh) {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  if (from.dims.size() != to.dims.size())
    return pairs;
  // Comparing mixed-radix ids compares blocks only when both layouts split
  // every dim into the same number of blocks.
  for (size_t d = 0; d < from.dims.size(); ++d)
    if (mesh.product(from.dims[d].axes) != mesh.product(to.dims[d].axes))
      return pairs;
  const int64_t n = mesh.deviceCount();
  std::vector<int64_t> held = blockIds(from, mesh), wanted = blockIds(to, mesh);
  std::vector<int64_t> source(n, -1);
  std::vector<bool> sending(n, false);
  // Devices that already hold their block keep it (a local copy) ...
  for (int64_t t = 0; t < n; ++t)
    if (held[t] == wanted[t]) {
      source[t] = t;
      sending[t] = true;
    }
  // ... and the others take the first unused holder, in device order:
  // holders bucketed by the block they hold (a counting sort, since block
  // ids are below n), so the whole pairing is O(n). A 256x256 mesh has
  // 65,536 devices.
  std::vector<int64_t> start(n + 1, 0);
  for (int64_t s = 0; s < n; ++s)
    if (!sending[s])
      ++start[held[s] + 1];
  for (int64_t b = 0; b < n; ++b)
    start[b + 1] += start[b];
  std::vector<int64_t> next(start.begin(), start.end() - 1), order(start[n]);
  for (int64_t s = 0; s < n; ++s)
    if (!sending[s])
      order[next[held[s]]++] = s; // in device order within a bucket
  std::vector<int64_t> cursor(start.begin(), start.end() - 1);
  for (int64_t t = 0; t < n; ++t) {
    if (source[t] >= 0)
      continue;
    int64_t b = wanted[t];
    if (cursor[b] == start[b + 1])
      return {};
    source[t] = order[cursor[b]++];
  }
  pairs.reserve(static_cast<size_t>(n));
  for (int64_t t = 0; t < n; ++t)
    pairs.emplace_back(source[t], t);
  return pairs;
}

static std::string checkRequest(const TensorSharding &from, const TensorSharding &to,
                                const Mesh &mesh, const std::vector<int64_t> &shape) {
  for (int a : to.pending)
    if (!has(from.pending, a))
      return "cannot make a value unreduced over mesh axis \"" + mesh.axes[a] +
             "\" from one that is reduced over it";
  if (!to.pending.empty() && to.pendingKind != from.pendingKind)
    return std::string("cannot turn a pending ") + reductionName(from.pendingKind) +
           " into a pending " + reductionName(to.pendingKind);
  if (from.dims.size() != to.dims.size() || from.dims.size() != shape.size())
    return "source and target shardings have different ranks";
  return "";
}

ReshardPlan planGatherThenSlice(const TensorSharding &from, const TensorSharding &to,
                                const Mesh &mesh, const std::vector<int64_t> &shape,
                                int64_t elementBytes) {
  ReshardPlan plan;
  plan.error = checkRequest(from, to, mesh, shape);
  if (!plan.error.empty())
    return plan;
  Planner p{to, mesh, shape, elementBytes};
  TensorSharding cur = from;
  for (DimSharding &d : cur.dims)
    d.open = false;
  Axes reduce;
  for (int a : from.pending)
    if (!has(to.pending, a))
      reduce.push_back(a);
  if (!reduce.empty()) {
    plan.steps.push_back(p.allReduce(cur, reduce));
    cur = plan.steps.back().after;
  }
  std::vector<size_t> common(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    const Axes &a = cur.dims[d].axes, &b = to.dims[d].axes;
    size_t n = 0;
    while (n < a.size() && n < b.size() && a[n] == b[n])
      ++n;
    common[d] = n;
  }
  for (size_t d = 0; d < shape.size(); ++d)
    if (cur.dims[d].axes.size() != common[d]) {
      plan.steps.push_back(p.allGather(cur, d, cur.dims[d].axes.size() - common[d]));
      cur = plan.steps.back().after;
    }
  for (size_t d = 0; d < shape.size(); ++d)
    if (to.dims[d].axes.size() != common[d]) {
      plan.steps.push_back(
          p.allSlice(cur, d, Axes(to.dims[d].axes.begin() + common[d], to.dims[d].axes.end())));
      cur = plan.steps.back().after;
    }
  return plan;
}

ReshardPlan planReshard(const TensorSharding &from, const TensorSharding &to, const Mesh &mesh,
                        const std::vector<int64_t> &shape, int64_t elementBytes,
                        bool listPairs) {
  ReshardPlan plan;
  plan.error = checkRequest(from, to, mesh, shape);
  if (!plan.error.empty())
    return plan;
  Planner p{to, mesh, shape, elementBytes};

  struct Node {
    TensorSharding state;
    int64_t bytes;
    int steps;
    int parent;
    CollectiveStep step; // the move from the parent
    bool superseded;     // a cheaper node reached the same layout later
  };
  std::vector<Node> nodes;
  std::map<std::string, int> seen; // key -> index of its best node
  using Entry = std::tuple<int64_t, int, int>; // bytes, steps, node
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;

  TensorSharding start = from;
  for (DimSharding &d : start.dims)
    d.open = false;
  nodes.push_back(Node{start, 0, 0, -1, CollectiveStep{CollectiveStep::Kind::AllSlice}, false});
  seen[Planner::key(start)] = 0;
  queue.emplace(0, 0, 0);
  int found = -1;
  while (!queue.empty()) {
    auto [bytes, steps, index] = queue.top();
    queue.pop();
    if (nodes[index].superseded)
      continue;
    if (p.reached(nodes[index].state)) {
      found = index;
      break;
    }
    if (static_cast<int>(nodes.size()) > kMaxSearchStates)
      break;
    for (CollectiveStep &s : p.moves(nodes[index].state)) {
      if (!s.after.validate(mesh).empty())
        continue;
      int64_t b = bytes + s.bytesPerDevice;
      int n = steps + 1;
      std::string k = Planner::key(s.after);
      auto it = seen.find(k);
      if (it != seen.end() && std::make_pair(nodes[it->second].bytes, nodes[it->second].steps) <=
                                  std::make_pair(b, n))
        continue;
      if (it != seen.end())
        nodes[it->second].superseded = true;
      TensorSharding after = s.after;
      nodes.push_back(Node{std::move(after), b, n, index, std::move(s), false});
      seen[k] = static_cast<int>(nodes.size()) - 1;
      queue.emplace(b, n, static_cast<int>(nodes.size()) - 1);
    }
  }
  if (found < 0)
    return planGatherThenSlice(from, to, mesh, shape, elementBytes);
  for (int i = found; nodes[i].parent >= 0; i = nodes[i].parent)
    plan.steps.push_back(nodes[i].step);
  std::reverse(plan.steps.begin(), plan.steps.end());
  const TensorSharding *before = &start;
  for (CollectiveStep &step : plan.steps) {
    if (listPairs && step.kind == CollectiveStep::Kind::CollectivePermute)
      step.pairs = permutePairs(*before, step.after, mesh);
    before = &step.after;
  }
  return plan;
}

} // namespace shardc
