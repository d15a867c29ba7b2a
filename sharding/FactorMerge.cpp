//===- FactorMerge.cpp - the propagation core -----------------------------===//
//
// See FactorMerge.h for the policy. Keeps: results depend only on the rule and
// the input shardings (never on container order), and dims only grow.
//
//===----------------------------------------------------------------------===//
#include "sharding/FactorMerge.h"

#include <algorithm>

namespace shardc {

namespace {
/// Whether a dim holds two or more factors of size > 1 (a reshape's merged
/// dim). There every factor must be split evenly, the minor-most one too:
/// with a short block in a minor factor, the dim's ceil-layout blocks
/// would no longer be whole blocks of its factors (20 = [4 x 5] over 4 x 2
/// devices gives blocks of 3, while rows of 5 split 3 + 2).
bool isCompound(const FactorRule &rule, const FactorRule::DimFactors &dim) {
  int sized = 0;
  for (int f : dim)
    sized += rule.factorSizes[f] > 1;
  return sized > 1;
}
} // namespace

std::vector<std::optional<std::vector<int>>>
projectToFactors(const FactorRule &rule, size_t t, const TensorSharding &sharding,
                 const Mesh &mesh) {
  std::vector<std::optional<std::vector<int>>> out(rule.numFactors());
  const FactorRule::TensorFactors &dims = rule.tensor(t);
  for (size_t d = 0; d < dims.size(); ++d) {
    const std::vector<int> empty;
    const std::vector<int> &axes = d < sharding.dims.size() ? sharding.dims[d].axes : empty;
    // Split the dim's axes over its factors major→minor: a factor takes axes
    // while their product still divides its size; a minor factor only gets
    // axes once every major one is split completely (otherwise a shard would
    // not be a contiguous block of the minor factor); the minor-most factor
    // takes the rest.
    size_t next = 0;
    bool majorWhole = true;
    bool compound = isCompound(rule, dims[d]);
    for (size_t k = 0; k < dims[d].size(); ++k) {
      int f = dims[d][k];
      std::vector<int> mine;
      int64_t product = 1;
      bool last = k + 1 == dims[d].size();
      while (majorWhole && next < axes.size()) {
        int64_t s = mesh.sizes[axes[next]];
        if ((!last || compound) && rule.factorSizes[f] % (product * s) != 0)
          break;
        product *= s;
        mine.push_back(axes[next++]);
        if (!last && product == rule.factorSizes[f])
          break;
      }
      if (product != rule.factorSizes[f])
        majorWhole = false;
      // A factor that appears in two dims of one tensor takes the first.
      if (!out[f])
        out[f] = std::move(mine);
    }
  }
  return out;
}

std::vector<int> mergeAxisLists(const std::vector<const std::vector<int> *> &candidates) {
  const std::vector<int> *longest = nullptr;
  for (const std::vector<int> *c : candidates)
    if (!longest || c->size() > longest->size())
      longest = c;
  if (!longest)
    return {};
  std::vector<int> chosen = *longest;
  for (const std::vector<int> *c : candidates) {
    if (isPrefix(*c, chosen))
      continue;
    size_t n = 0; // conflict: keep the common prefix
    while (n < c->size() && n < chosen.size() && (*c)[n] == chosen[n])
      ++n;
    chosen.resize(n);
  }
  return chosen;
}

FactorAxes mergeFactors(const FactorRule &rule,
                        const std::vector<const TensorSharding *> &tensors, const Mesh &mesh) {
  std::vector<std::vector<std::vector<int>>> candidates(rule.numFactors());
  for (size_t t = 0; t < tensors.size(); ++t) {
    if (!tensors[t])
      continue;
    auto proj = projectToFactors(rule, t, *tensors[t], mesh);
    for (size_t f = 0; f < proj.size(); ++f)
      if (proj[f] && !proj[f]->empty())
        candidates[f].push_back(*proj[f]);
  }
  FactorAxes merged(rule.numFactors());
  std::vector<bool> taken(mesh.axes.size(), false);
  for (size_t f = 0; f < rule.numFactors(); ++f) {
    if (rule.kinds[f] == FactorKind::NeedReplication || candidates[f].empty())
      continue;
    std::vector<const std::vector<int> *> lists;
    for (const auto &c : candidates[f])
      lists.push_back(&c);
    std::vector<int> chosen = mergeAxisLists(lists);
    for (size_t i = 0; i < chosen.size(); ++i)
      if (taken[chosen[i]]) {
        chosen.resize(i);
        break;
      }
    for (int a : chosen)
      taken[a] = true;
    merged[f] = std::move(chosen);
  }
  return merged;
}

FactorAxes executionAxes(const FactorRule &rule, const std::vector<TensorSharding> &operands,
                         const std::vector<TensorSharding> &results, const Mesh &mesh) {
  FactorAxes axes(rule.numFactors());
  std::vector<bool> fixed(rule.numFactors(), false);
  std::vector<bool> taken(mesh.axes.size(), false);
  // A NeedReplication factor stays whole even when the result was given a
  // sharding along it (by a user or a declared function result): the op
  // computes it whole and a reshard slices it for that user.
  for (size_t r = 0; r < results.size(); ++r) {
    auto proj = projectToFactors(rule, operands.size() + r, results[r], mesh);
    for (size_t f = 0; f < proj.size(); ++f)
      if (proj[f] && !fixed[f] && rule.kinds[f] != FactorKind::NeedReplication) {
        axes[f] = *proj[f];
        fixed[f] = true;
        for (int a : axes[f])
          taken[a] = true;
      }
  }
  std::vector<const TensorSharding *> views;
  for (const TensorSharding &s : operands)
    views.push_back(&s);
  FactorAxes fromOperands = mergeFactors(rule, views, mesh);
  for (size_t f = 0; f < rule.numFactors(); ++f) {
    if (fixed[f])
      continue;
    for (int a : fromOperands[f]) {
      if (taken[a])
        break;
      axes[f].push_back(a);
      taken[a] = true;
    }
  }
  // Every tensor must hold the factors in blocks: in a dim of several
  // factors (a reshape's), a minor factor is split only once every major
  // one is split completely, and a major factor only by axes that divide it
  // (as projectToFactors reads a dim). A result given a split no operand
  // layout can run (P(None, "a") on a reshape 4 -> 2x2) keeps its factor
  // whole here: the op computes it whole and a reshard slices it after.
  // Clearing a factor for one tensor can strand a minor factor in another
  // (a factor is major in one dim and minor in another), so this repeats
  // until nothing changes; factors only lose axes, so it ends.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t t = 0; t < rule.numTensors(); ++t)
      for (const FactorRule::DimFactors &dim : rule.tensor(t)) {
        bool majorWhole = true;
        bool compound = isCompound(rule, dim);
        for (size_t k = 0; k < dim.size(); ++k) {
          int f = dim[k];
          int64_t product = mesh.product(axes[f]);
          bool last = k + 1 == dim.size();
          if (!axes[f].empty() &&
              (!majorWhole || ((!last || compound) && rule.factorSizes[f] % product != 0))) {
            axes[f].clear();
            product = 1;
            changed = true;
          }
          majorWhole = majorWhole && product == rule.factorSizes[f];
        }
      }
  }
  return axes;
}

PendingThrough pendingThrough(const FactorRule &rule, const std::vector<TensorSharding> &operands,
                              const FactorAxes &axes, const std::vector<bool> &repeated,
                              const Mesh &mesh) {
  PendingThrough out;
  size_t n = operands.size();
  out.keep.assign(n, false);
  out.kind = rule.reduction;
  std::vector<bool> taken(mesh.axes.size(), false);
  for (const std::vector<int> &factor : axes)
    for (int a : factor)
      taken[a] = true;
  const PendingFlow &flow = rule.pending;
  auto sortedAxes = [](std::vector<int> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  // Pending over the flow's kind, on axes the op does not run its own
  // factors with.
  auto passes = [&](const TensorSharding &s) {
    return s.isPending() && s.pendingKind == flow.kind &&
           std::none_of(s.pending.begin(), s.pending.end(), [&](int a) { return taken[a]; });
  };
  if (flow.mode == PendingFlow::Mode::AllSame && n > 0) {
    // The flow's operands pending alike, the others not pending at all.
    int first = -1;
    for (size_t i = 0; i < n && first < 0; ++i)
      if (flow.inFlow(static_cast<int>(i)))
        first = static_cast<int>(i);
    bool all = first >= 0;
    for (size_t i = 0; i < n && all; ++i)
      all = flow.inFlow(static_cast<int>(i))
                ? passes(operands[i]) &&
                      sortedAxes(operands[i].pending) == sortedAxes(operands[first].pending)
                : !operands[i].isPending();
    for (size_t i = 0; i < n; ++i)
      out.keep[i] = all && flow.inFlow(static_cast<int>(i));
  } else if (flow.mode == PendingFlow::Mode::OneOf) {
    for (int i : flow.operands)
      if (passes(operands[i]) && !repeated[i]) {
        out.keep[i] = true;
        break;
      }
  }
  for (size_t i = 0; i < n; ++i)
    if (out.keep[i]) {
      out.pending = operands[i].pending;
      out.kind = operands[i].pendingKind;
    }
  // Why each pending operand that is not kept is reduced first, in the
  // order the checks above decide it.
  using R = PendingThrough::Reduced;
  out.why.assign(n, {});
  auto firstWhere = [&](auto pred) {
    for (size_t j = 0; j < n; ++j)
      if (pred(j))
        return static_cast<int>(j);
    return -1;
  };
  for (size_t i = 0; i < n; ++i) {
    const TensorSharding &s = operands[i];
    PendingThrough::Why &w = out.why[i];
    if (out.keep[i] || !s.isPending())
      continue;
    if (flow.mode == PendingFlow::Mode::None) {
      w.reason = R::NoFlow;
    } else if (s.pendingKind != flow.kind) {
      w.reason = R::OtherKind;
    } else if (std::any_of(s.pending.begin(), s.pending.end(), [&](int a) { return taken[a]; })) {
      w.reason = R::AxesTaken;
    } else if (!flow.inFlow(static_cast<int>(i))) {
      w.reason = R::NotThisSlot;
    } else if (flow.mode == PendingFlow::Mode::AllSame) {
      w = {R::NotAllSame, firstWhere([&](size_t j) {
             return flow.inFlow(static_cast<int>(j))
                        ? !passes(operands[j]) ||
                              sortedAxes(operands[j].pending) != sortedAxes(s.pending)
                        : operands[j].isPending();
           })};
    } else if (repeated[i]) {
      w.reason = R::Repeated;
    } else {
      w = {R::OtherKept, firstWhere([&](size_t j) { return out.keep[j]; })};
    }
  }
  for (size_t f = 0; f < rule.numFactors(); ++f)
    if (rule.kinds[f] == FactorKind::Reduction && !axes[f].empty()) {
      if (!out.pending.empty() && out.kind != rule.reduction) {
        out.mixed = true;
        return out;
      }
      out.kind = rule.reduction;
      out.pending.insert(out.pending.end(), axes[f].begin(), axes[f].end());
    }
  return out;
}

bool mayStayPending(const PendingFlow &flow, unsigned i) {
  switch (flow.mode) {
  case PendingFlow::Mode::None:
    return false;
  case PendingFlow::Mode::AllSame:
  case PendingFlow::Mode::OneOf:
    return flow.inFlow(static_cast<int>(i));
  }
  return false;
}

TensorSharding projectFromFactors(const FactorRule &rule, size_t t, const FactorAxes &axes,
                                  const Mesh &mesh) {
  const FactorRule::TensorFactors &dims = rule.tensor(t);
  TensorSharding out = TensorSharding::replicated(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    // A minor factor's axes only count once every major factor is split
    // completely: otherwise the dim's shards would not be contiguous.
    // In a compound dim, every factor's axes must also divide it.
    bool compound = isCompound(rule, dims[d]);
    for (size_t k = 0; k < dims[d].size(); ++k) {
      int f = dims[d][k];
      const std::vector<int> &fa = axes[f];
      bool last = k + 1 == dims[d].size();
      if ((!last || compound) && rule.factorSizes[f] % mesh.product(fa) != 0)
        break;
      out.dims[d].axes.insert(out.dims[d].axes.end(), fa.begin(), fa.end());
      if (mesh.product(fa) != rule.factorSizes[f])
        break;
    }
  }
  return out;
}

bool extendOpenDims(TensorSharding &current, const TensorSharding &proposed) {
  // Axes already in use (every dim's current axes and the pending ones) are
  // never taken again; an extension stops at the first axis in use, so closed
  // dims and existing prefixes are never touched.
  std::vector<int> used = current.usedAxes();
  auto inUse = [&](int a) { return std::find(used.begin(), used.end(), a) != used.end(); };
  bool changed = false;
  for (size_t d = 0; d < current.dims.size() && d < proposed.dims.size(); ++d) {
    DimSharding &cur = current.dims[d];
    const std::vector<int> &want = proposed.dims[d].axes;
    if (!cur.open || want.size() <= cur.axes.size() || !isPrefix(cur.axes, want))
      continue;
    for (size_t i = cur.axes.size(); i < want.size() && !inUse(want[i]); ++i) {
      cur.axes.push_back(want[i]);
      used.push_back(want[i]);
      changed = true;
    }
  }
  return changed;
}

std::vector<size_t> propagateStep(const FactorRule &rule,
                                  std::vector<std::optional<TensorSharding>> &tensors,
                                  const Mesh &mesh) {
  std::vector<const TensorSharding *> view;
  for (const auto &t : tensors)
    view.push_back(t ? &*t : nullptr);
  FactorAxes merged = mergeFactors(rule, view, mesh);
  std::vector<size_t> changed;
  for (size_t t = 0; t < tensors.size(); ++t) {
    TensorSharding proposed = projectFromFactors(rule, t, merged, mesh);
    bool wasUnknown = !tensors[t];
    if (wasUnknown)
      tensors[t] = TensorSharding::replicated(rule.tensor(t).size(), /*open=*/true);
    if (extendOpenDims(*tensors[t], proposed) || wasUnknown)
      changed.push_back(t);
  }
  return changed;
}

/// A MovedAxis for axis `a` of operand dim `d`: where the op, run with
/// `axes`, uses `a` instead: "result dim 1" (" of result #r" when it has
/// several, and its place), "a dim it reduces, where operand #0 holds it
/// (its dim 1)", or "" when the op is not split by `a`.
static MovedAxis usedWhere(const FactorRule &rule, const FactorAxes &axes,
                           const std::vector<TensorSharding> &operands, size_t d, int a) {
  MovedAxis m{d, a, ""};
  for (size_t g = 0; g < axes.size(); ++g) {
    if (std::find(axes[g].begin(), axes[g].end(), a) == axes[g].end())
      continue;
    auto indexes = [&](const FactorRule::DimFactors &dim) {
      return std::find(dim.begin(), dim.end(), static_cast<int>(g)) != dim.end();
    };
    for (size_t r = 0; r < rule.results.size(); ++r)
      for (size_t e = 0; e < rule.results[r].size(); ++e)
        if (indexes(rule.results[r][e])) {
          m.where = "result dim " + std::to_string(e) +
                    (rule.results.size() > 1 ? " of result #" + std::to_string(r) : "");
          m.usedByResult = static_cast<int>(r);
          m.usedForDim = static_cast<int>(e);
          return m;
        }
    for (size_t j = 0; j < operands.size() && j < rule.operands.size(); ++j)
      for (size_t dj = 0; dj < rule.operands[j].size() && dj < operands[j].dims.size(); ++dj) {
        const std::vector<int> &held = operands[j].dims[dj].axes;
        if (indexes(rule.operands[j][dj]) && std::find(held.begin(), held.end(), a) != held.end()) {
          m.where = "a dim it reduces, where operand #" + std::to_string(j) +
                    " holds it (its dim " + std::to_string(dj) + ")";
          return m;
        }
      }
    m.where = "a dim it reduces";
    return m;
  }
  return m;
}

std::vector<MovedAxis> movedAxes(const FactorRule &rule, const FactorAxes &axes,
                                 const std::vector<TensorSharding> &operands, size_t t,
                                 const Mesh &mesh) {
  TensorSharding want = projectFromFactors(rule, t, axes, mesh);
  std::vector<MovedAxis> out;
  for (size_t d = 0; d < operands[t].dims.size(); ++d)
    for (int a : operands[t].dims[d].axes)
      if (d >= want.dims.size() ||
          std::find(want.dims[d].axes.begin(), want.dims[d].axes.end(), a) ==
              want.dims[d].axes.end())
        out.push_back(usedWhere(rule, axes, operands, d, a));
  return out;
}

std::optional<RivalSplit> rivalSplit(const FactorRule &rule,
                                     const std::vector<TensorSharding> &operands, size_t t, int f) {
  // The axes operand j holds on factor f, over a dim that is f alone.
  auto on = [&](size_t j, size_t &dim) -> const std::vector<int> * {
    for (size_t d = 0; j < rule.operands.size() && d < rule.operands[j].size() &&
                       d < operands[j].dims.size();
         ++d)
      if (rule.operands[j][d].size() == 1 && rule.operands[j][d].front() == f) {
        dim = d;
        return &operands[j].dims[d].axes;
      }
    return nullptr;
  };
  size_t dim = 0;
  const std::vector<int> *mine = on(t, dim);
  if (!mine || mine->empty())
    return std::nullopt;
  for (size_t j = 0; j < operands.size(); ++j) {
    const std::vector<int> *theirs = j == t ? nullptr : on(j, dim);
    if (theirs && !theirs->empty() && !isPrefix(*theirs, *mine) && !isPrefix(*mine, *theirs))
      return RivalSplit{j, dim, *theirs, *mine};
  }
  return std::nullopt;
}

std::string axisList(const Mesh &mesh, const std::vector<int> &axes) {
  std::string out;
  for (int a : axes)
    out += (out.empty() ? "\"" : ", \"") + mesh.axes[a] + "\"";
  return out;
}

} // namespace shardc
