//===- ExplainLosses.cpp - explain: annotations that lost a round ------------===//
//
// AxisOrigins names the annotations an axis came from; an annotation whose
// axis lost never reaches a value holding it, so it is never named there.
// A reader who wrote y: P("model" p1, None) and finds exp(y) split by "data"
// asks where "model" went. This file answers that for the losses priorities
// decide: the axis stops at a value whose dim (or whose other dim, for an
// axis already in use) was placed in a stronger round.
//
// Per annotated axis, a search follows the axis as the ops' rules carry it
// (a dim of one value to the dims of the op's other values under the same
// parallel factor; a tie's members dim by dim) through the values that hold
// it there. The first value on a way that does not hold it is where it
// stopped; when what holds that place came in an earlier round than the
// annotation's, the value's remark names the annotation, its way and the
// round that came first. Other stops (a conflict within one round, an op
// that gathers) are said by conflictOf, droppedOf and the reshard reasons.
//
//===----------------------------------------------------------------------===//
#include "passes/propagation/explain/PropagationExplainer.h"

#include "sharding/FactorMerge.h"

#include "mlir/IR/AsmState.h"

#include <deque>
#include <map>
#include <memory>

namespace shardc::propagation {

using namespace mlir;
using namespace mlir::garray;



/// "round p1", or what an unprioritised dim's round is called.
static std::string roundName(int64_t round) {
  return round == kLastRound ? std::string("the last round, of dims without a priority")
                             : "round p" + std::to_string(round);
}

std::optional<int64_t> PropagationExplainer::strongestRound(unsigned id, int axis) {
  std::vector<shardc::AxisOrigins::Origin> origins = axisOrigins->origins(id, axis, 0);
  if (origins.empty())
    return std::nullopt;
  // Strongest first: the first origin's round is the one that placed it.
  const Annotation &a = *originSources[origins.front().source].annotation;
  const TensorSharding &s = st.table.get(a.full);
  for (auto [d, dim] : llvm::enumerate(s.dims))
    if (llvm::is_contained(dim.axes, axis))
      return a.priorityOf(d);
  return std::nullopt;
}

void PropagationExplainer::findLosses() {
  // A place on the way: a value id and one of its dims.
  struct Place {
    unsigned id;
    unsigned dim;
    int parent; // index into `seen`, -1 at an annotated value
    int via;    // originVias index of the op or tie entered by, -1: none
    int source; // the annotation whose axis reached it first
  };
  // The op a step through a call tie crosses, named in the way: the call
  // (of the tie's callee) whose result or operand one of the two values is,
  // where it arrives first; else the callee's return that returns it. A
  // sharding group's tie crosses no op (-1). Calls of one callee are told
  // by their callee symbol, without a lookup.
  auto tieVia = [&](unsigned from, unsigned to, Operation *tieOp) -> int {
    auto first = dyn_cast_or_null<func::CallOp>(tieOp);
    if (!first)
      return -1;
    auto ofCallee = [&](Operation *op) {
      auto call = dyn_cast<func::CallOp>(op);
      return call && call.getCalleeAttr() == first.getCalleeAttr() ? call : func::CallOp();
    };
    for (Value v : {st.valueOf[to], st.valueOf[from]}) {
      if (auto r = dyn_cast<OpResult>(v))
        if (func::CallOp call = ofCallee(r.getOwner()))
          return viaOf(call);
      for (OpOperand &use : v.getUses())
        if (func::CallOp call = ofCallee(use.getOwner()))
          return viaOf(call);
    }
    for (Value v : {st.valueOf[to], st.valueOf[from]})
      for (OpOperand &use : v.getUses())
        if (isa<func::ReturnOp>(use.getOwner()))
          return viaOf(use.getOwner());
    return viaOf(tieOp);
  };
  // Only a round after the strongest written one can lose to an earlier
  // round; without priorities there is nothing to find.
  int64_t strongest = kLastRound;
  auto lower = [&](const Annotation &a) {
    for (int64_t p : a.priority)
      strongest = std::min(strongest, p);
  };
  for (auto &entry : st.annotations)
    lower(entry.second);
  for (auto &entry : st.sinkAnnotations)
    lower(entry.second);
  // One search per (axis, round) from all the places it was written in
  // that round, each place labelled by the annotation that reached it
  // first: linear in the graph per distinct (axis, round), however many
  // annotations (a model's parameters) write it.
  std::map<std::pair<int, int64_t>, std::vector<Place>> starts;
  for (auto &[u, a] : st.annotations) {
    auto source = ownSource.find(u);
    if (source == ownSource.end())
      continue;
    for (auto [d, dim] : llvm::enumerate(st.table.get(a.full).dims))
      for (int axis : dim.axes)
        if (a.priorityOf(d) > strongest)
          starts[{axis, a.priorityOf(d)}].push_back(
              {st.idOf(u), static_cast<unsigned>(d), -1, -1, source->second});
  }
  for (auto &[key, places] : starts) {
    int axis = key.first;
    int64_t round = key.second;
    std::vector<Place> seen;
    llvm::DenseSet<uint64_t> visited, expandedTies;
    std::deque<int> queue;
    for (const Place &p : places)
      if (visited.insert((uint64_t(p.id) << 32) | p.dim).second) {
        seen.push_back(p);
        queue.push_back(static_cast<int>(seen.size() - 1));
      }
    // Where the axis would go next from place `at` into (w, e).
    auto reach = [&](int at, unsigned w, unsigned e, int via) {
      if (!visited.insert((uint64_t(w) << 32) | e).second)
        return;
      TensorSharding held = st.closedFinal(st.valueOf[w]);
      if (e >= held.dims.size())
        return;
      seen.push_back({w, e, at, via, seen[at].source});
      if (llvm::is_contained(held.dims[e].axes, axis)) {
        queue.push_back(static_cast<int>(seen.size() - 1));
        return;
      }
      // It stopped at w. An annotated value's closed dim keeps what
      // was written: its own annotation is the reason, not a round.
      if (auto own = st.annotations.find(st.valueOf[w]);
          own != st.annotations.end() && !st.table.get(own->second.full).dims[e].open)
        return;
      // Name it only when a stronger round placed what holds it
      // there: the axis on another dim, else dim e's.
      Loss loss{seen[at].source, axis, e, {}, e, {}, round, round};
      for (auto [f, dim] : llvm::enumerate(held.dims))
        if (llvm::is_contained(dim.axes, axis))
          loss.winnerDim = f, loss.winnerAxes = {axis};
      if (loss.winnerAxes.empty())
        loss.winnerAxes = held.dims[e].axes;
      if (loss.winnerAxes.empty())
        return;
      for (int x : loss.winnerAxes)
        if (std::optional<int64_t> r = strongestRound(w, x))
          loss.winnerRound = std::min(loss.winnerRound, *r);
      if (loss.winnerRound >= round)
        return;
      for (int p = static_cast<int>(seen.size() - 1); seen[p].parent >= 0; p = seen[p].parent)
        if (seen[p].via >= 0)
          loss.vias.push_back(seen[p].via);
      std::reverse(loss.vias.begin(), loss.vias.end());
      SmallVector<Loss, 1> &list = losses[w];
      if (!llvm::any_of(list,
                        [&](const Loss &l) { return l.source == loss.source && l.axis == axis; }))
        list.push_back(std::move(loss));
    };
    while (!queue.empty()) {
      int at = queue.front();
      queue.pop_front();
      auto [id, dim, parent, via, source] = seen[at];
      // Every node it takes part in: the op that defines it and its users.
      SmallVector<unsigned, 4> around(st.users[id].begin(), st.users[id].end());
      if (st.defNode[id] != kNoNode)
        around.push_back(st.defNode[id]);
      for (unsigned n : around) {
        const Node &node = st.nodes[n];
        if (!node.rule)
          continue; // a return: its function result's tie, below
        const FactorRule &rule = node.rule->rule;
        ArrayRef<unsigned> vals(st.nodeValues.data() + node.first, node.count);
        for (auto [t, v] : llvm::enumerate(vals)) {
          if (v != id || dim >= rule.tensor(t).size() || rule.tensor(t)[dim].size() != 1)
            continue;
          int f = rule.tensor(t)[dim].front();
          if (rule.kinds[f] != shardc::FactorKind::Parallel)
            continue;
          for (auto [t2, w] : llvm::enumerate(vals))
            for (auto [e, factors] : llvm::enumerate(rule.tensor(t2)))
              if (t2 != t && factors.size() == 1 && factors.front() == f)
                reach(at, w, static_cast<unsigned>(e), viaOf(node.op));
        }
      }
      // A tie joins all its members at once: the first member the axis
      // reaches it by passes it to the others, once per dim (a helper
      // called from K places is one tie of K + 1 members).
      if (auto it = st.tiesOf.find(id); it != st.tiesOf.end())
        for (size_t t : it->second) {
          if (!expandedTies.insert((uint64_t(t) << 32) | dim).second)
            continue;
          for (unsigned w : st.ties[t].first)
            if (w != id && !visited.contains((uint64_t(w) << 32) | dim))
              reach(at, w, dim, tieVia(id, w, st.ties[t].second));
        }
    }
  }
}

std::string PropagationExplainer::lostOf(Value v, llvm::function_ref<std::string(Value)> name) {
  auto it = losses.find(st.idOf(v));
  if (it == losses.end())
    return "";
  std::string out;
  llvm::raw_string_ostream os(out);
  for (const Loss &loss : it->second) {
    os << "; not \"" << st.core.axes[loss.axis] << "\" on dim " << loss.dim << " from ";
    // The way it came (pathOf shows a long one by its ends).
    shardc::AxisOrigins::Origin path{loss.source, loss.vias.size(), loss.vias};
    printSource(os, v, Named{loss.source, path, {loss.axis}}, name);
    os << ": ";
    if (loss.winnerDim != loss.dim)
      os << "\"" << st.core.axes[loss.axis] << "\" already splits its dim " << loss.winnerDim;
    else
      os << "dim " << loss.dim << " holds " << shardc::axisList(st.core, loss.winnerAxes);
    os << " from " << roundName(loss.winnerRound) << ", which comes before this annotation's ("
       << roundName(loss.round) << "): the stronger priority wins";
  }
  return out;
}



} // namespace shardc::propagation
