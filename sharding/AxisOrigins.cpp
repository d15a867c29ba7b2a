//===- AxisOrigins.cpp - where each axis a value holds came from ----------===//
#include "sharding/AxisOrigins.h"

#include <algorithm>
#include <limits>

namespace shardc {

unsigned AxisOrigins::stateOf(unsigned value, int axis) {
  uint64_t key = (uint64_t(value) << 16) | uint64_t(uint16_t(axis));
  auto [it, inserted] = states.try_emplace(key, static_cast<unsigned>(labelsOf.size()));
  if (inserted) {
    labelsOf.emplace_back();
    groupsOf.emplace_back();
  }
  return it->second;
}

int AxisOrigins::findState(unsigned value, int axis) const {
  auto it = states.find((uint64_t(value) << 16) | uint64_t(uint16_t(axis)));
  return it == states.end() ? -1 : static_cast<int>(it->second);
}

void AxisOrigins::addLink(int via, const std::vector<Hold> &holds) {
  // One group per (axis, key): the holds that pass that axis to each other.
  std::vector<std::pair<std::pair<int, int>, unsigned>> mine;
  for (const Hold &h : holds) {
    unsigned state = stateOf(h.value, h.axis);
    auto at = std::find_if(mine.begin(), mine.end(),
                           [&](auto &g) { return g.first == std::make_pair(h.axis, h.key); });
    if (at == mine.end()) {
      groups.push_back({via, {}, {}, 0});
      mine.push_back({{h.axis, h.key}, static_cast<unsigned>(groups.size() - 1)});
      at = mine.end() - 1;
    }
    Group &g = groups[at->second];
    auto member = std::find(g.states.begin(), g.states.end(), state);
    if (member == g.states.end()) {
      g.states.push_back(state);
      g.receives.push_back(h.receives);
    } else if (h.receives) {
      g.receives[member - g.states.begin()] = true;
    }
  }
  for (auto &[key, g] : mine) {
    if (groups[g].states.size() < 2)
      continue; // connects nothing
    groups[g].open = groups[g].states.size();
    for (unsigned s : groups[g].states)
      groupsOf[s].push_back(g);
  }
}

void AxisOrigins::activateIn(unsigned value, int axis, int64_t priority) {
  activations.push_back({stateOf(value, axis), priority});
}

void AxisOrigins::addSource(unsigned value, int axis, int64_t priority, int source, int via) {
  sources.push_back({stateOf(value, axis), priority, source, via, sources.size()});
}

bool AxisOrigins::hasSource(unsigned state, int source) const {
  for (int l : labelsOf[state])
    if (labels[l].source == source)
      return true;
  return false;
}

void AxisOrigins::addLabel(unsigned state, int source, int parent, int via,
                           std::vector<int> &queue) {
  int index = static_cast<int>(labels.size());
  size_t depth = parent < 0 ? 0 : labels[parent].depth;
  if (via >= 0)
    ++depth;
  int anchor = parent < 0 || depth <= kAnchorDepth ? index : labels[parent].anchor;
  labels.push_back({source, parent, via, state, depth, anchor});
  labelsOf[state].push_back(index);
  queue.push_back(index);
  if (labelsOf[state].size() == kMaxOrigins)
    for (unsigned g : groupsOf[state])
      --groups[g].open;
}

void AxisOrigins::solve() {
  std::stable_sort(sources.begin(), sources.end(), [](const auto &a, const auto &b) {
    return a.priority != b.priority ? a.priority < b.priority : a.order < b.order;
  });
  std::stable_sort(activations.begin(), activations.end(),
                   [](const auto &a, const auto &b) { return a.priority < b.priority; });
  activeFrom.assign(labelsOf.size(), std::numeric_limits<int64_t>::min());
  for (const Activation &a : activations)
    activeFrom[a.state] = std::max(activeFrom[a.state], a.priority);
  // Every round that sources or activations name, in order.
  std::vector<int64_t> rounds;
  for (const PendingSource &s : sources)
    rounds.push_back(s.priority);
  for (const Activation &a : activations)
    rounds.push_back(a.priority);
  std::sort(rounds.begin(), rounds.end());
  rounds.erase(std::unique(rounds.begin(), rounds.end()), rounds.end());
  std::vector<int> queue;
  size_t nextSource = 0, nextActivation = 0;
  for (int64_t round : rounds) {
    queue.clear();
    // This round's sources first (a value's own annotation before what
    // reaches it), then what neighbours of values that take part from this
    // round on already hold: it can reach them now.
    for (; nextSource < sources.size() && sources[nextSource].priority == round; ++nextSource) {
      const PendingSource &s = sources[nextSource];
      if (activeFrom[s.state] <= round && labelsOf[s.state].size() < kMaxOrigins &&
          !hasSource(s.state, s.source))
        addLabel(s.state, s.source, -1, s.via, queue);
    }
    for (; nextActivation < activations.size() && activations[nextActivation].priority == round;
         ++nextActivation)
      for (unsigned g : groupsOf[activations[nextActivation].state])
        for (unsigned m : groups[g].states)
          for (int l : labelsOf[m])
            queue.push_back(l);
    for (size_t head = 0; head < queue.size(); ++head) {
      int from = queue[head];
      unsigned state = labels[from].state;
      int source = labels[from].source;
      for (unsigned g : groupsOf[state]) {
        if (groups[g].open == 0)
          continue;
        for (size_t i = 0; i < groups[g].states.size(); ++i) {
          unsigned m = groups[g].states[i];
          if (m != state && groups[g].receives[i] && activeFrom[m] <= round &&
              labelsOf[m].size() < kMaxOrigins && !hasSource(m, source))
            addLabel(m, source, from, groups[g].via, queue);
        }
      }
    }
  }
}

std::vector<int> AxisOrigins::vias(int label, size_t limit) const {
  // The last `limit` hops only: walking a whole path per value would make
  // explaining a deep chain quadratic.
  std::vector<int> out;
  for (int l = label; l >= 0 && out.size() < limit; l = labels[l].parent)
    if (labels[l].via >= 0)
      out.push_back(labels[l].via);
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<AxisOrigins::Origin> AxisOrigins::origins(unsigned value, int axis,
                                                      size_t ends) const {
  std::vector<Origin> out;
  int state = findState(value, axis);
  if (state < 0)
    return out;
  for (int l : labelsOf[state]) {
    const Label &label = labels[l];
    Origin o{label.source, label.depth, {}};
    if (label.depth <= 2 * ends + 1 || ends > kAnchorDepth) {
      o.path = vias(l, label.depth);
    } else {
      // The first `ends` hops from the anchor (a few hops from the source),
      // the last `ends` from the value.
      o.path = vias(label.anchor, kAnchorDepth);
      o.path.resize(ends);
      std::vector<int> last = vias(l, ends);
      o.path.insert(o.path.end(), last.begin(), last.end());
    }
    out.push_back(std::move(o));
  }
  return out;
}

} // namespace shardc
