//===- ExplainTrace.cpp - explain: each axis traced to its annotations ------===//
//
// Runs after the fixed point, before the result is written: every op,
// constraint, call and group is a link between the values that hold an
// axis where it maps them to each other, every annotation a source of the
// axes it wrote that are still held (sharding/AxisOrigins.h); and, per
// value, what it is pending over as insert-reshards will run the ops.
//
//===----------------------------------------------------------------------===//
#include "passes/propagation/explain/PropagationExplainer.h"
#include "passes/PendingUses.h"

#include "sharding/FactorMerge.h"

#include "mlir/IR/AsmState.h"

#include <deque>
#include <map>
#include <memory>

namespace shardc::propagation {

using namespace mlir;
using namespace mlir::garray;

int PropagationExplainer::viaOf(Operation *op) {
  auto [it, inserted] = viaIndex.try_emplace(op, originVias.size());
  if (inserted)
    originVias.push_back({op, 0});
  return it->second;
}

std::vector<std::vector<int>>
PropagationExplainer::tieMerge(ArrayRef<std::pair<Value, Operation *>> members) {
  std::vector<TensorSharding> finals;
  for (auto &[m, via] : members)
    finals.push_back(st.closedFinal(m));
  std::vector<std::vector<int>> merged;
  for (size_t d = 0; d < finals.front().dims.size(); ++d) {
    std::vector<const std::vector<int> *> lists;
    for (const TensorSharding &f : finals)
      lists.push_back(&f.dims[d].axes);
    merged.push_back(shardc::mergeAxisLists(lists));
  }
  return merged;
}

void PropagationExplainer::holdsByDim(Value v, std::vector<Hold> &out,
                                     llvm::function_ref<int(int, ArrayRef<int>)> key) {
  TensorSharding s = st.closedFinal(v);
  for (auto [d, dim] : llvm::enumerate(s.dims))
    for (auto [i, a] : llvm::enumerate(dim.axes))
      out.push_back({st.idOf(v), a, key(static_cast<int>(d), ArrayRef(dim.axes).take_front(i))});
}

namespace {
/// Keys of one link for (dim, the axes before an axis there): an axis
/// passes between two values only at the same place in the dim. ("a"
/// under "b", in P(("b", "a")), is another layout than "a" alone.)
class PrefixKeys {
public:
  int operator()(int dim, ArrayRef<int> before) {
    std::vector<int> k{dim};
    k.insert(k.end(), before.begin(), before.end());
    return ids.try_emplace(std::move(k), static_cast<int>(ids.size())).first->second;
  }

private:
  std::map<std::vector<int>, int> ids;
};

/// The key of the loose links: the dim alone.
int byDim(int dim, ArrayRef<int>) { return dim; }

/// Whether `list` has `axes[0..i]` as its first i + 1 entries.
bool samePlace(ArrayRef<int> axes, size_t i, ArrayRef<int> list) {
  return i < list.size() && std::equal(axes.begin(), axes.begin() + i + 1, list.begin());
}
} // namespace

void PropagationExplainer::traceAxes() {
  // Two searches over the same holds: `o` links an axis only where the op
  // runs with it (shardc::executionAxes, shared with insert-reshards) and
  // at its place in the dim; `detour` wherever both values hold it under
  // one factor or dim, for an axis that came through an op that in the end
  // does not use it (it lost there; a reshard follows).
  shardc::AxisOrigins o, detour;
  heldPending.assign(st.valueOf.size(), {});
  ownPartial.assign(st.valueOf.size(), false);
  std::vector<std::vector<int>> seenPending(st.valueOf.size());
  std::vector<shardc::Reduction> pendingKind(st.valueOf.size(), shardc::Reduction::Sum);
  // Arguments annotated as partial sums are pending from the start (as
  // insert-reshards reads them), by their own annotation.
  for (func::FuncOp func : st.funcs)
    for (BlockArgument arg : func.getArguments())
      if (isTensor(arg))
        if (TensorSharding s = st.closedFinal(arg); s.isPending()) {
          unsigned id = st.idOf(arg);
          seenPending[id] = heldPending[id] = s.pending;
          pendingKind[id] = s.pendingKind;
          annotatedPartial.insert(id);
        }
  // In program order (nodes follow the ops), so an operand's pending state
  // is known before its users'.
  for (const Node &n : st.nodes) {
    if (n.kind == Node::Kind::Return)
      continue; // a function result annotation is a source, below
    // A rule op, or a constraint (its identity rule): operands and results
    // hold an axis under the factor it shards.
    ArrayRef<unsigned> vals(st.nodeValues.data() + n.first, n.count);
    const FactorRule &rule = n.rule->rule;
    std::vector<TensorSharding> operands, results;
    for (auto [t, v] : llvm::enumerate(vals))
      (rule.isResult(t) ? results : operands).push_back(st.closedFinal(st.valueOf[v]));
    // What a rule op's operands are pending over, as insert-reshards will
    // see them (a constraint's operand is reduced: it becomes a reshard).
    if (n.kind == Node::Kind::Rule)
      for (size_t i = 0; i < operands.size(); ++i) {
        operands[i].pending = seenPending[vals[i]];
        operands[i].pendingKind = pendingKind[vals[i]];
      }
    shardc::FactorAxes factors = shardc::executionAxes(rule, operands, results, st.core);
    std::vector<Hold> holds, loose;
    auto both = [&](Hold h) {
      holds.push_back(h);
      loose.push_back(h);
    };
    for (auto [t, v] : llvm::enumerate(vals)) {
      const TensorSharding &s = rule.isResult(t) ? results[t - operands.size()] : operands[t];
      for (auto [f, axes] : llvm::enumerate(shardc::projectToFactors(rule, t, s, st.core)))
        if (axes)
          for (auto [i, a] : llvm::enumerate(*axes)) {
            loose.push_back({v, a, static_cast<int>(f)});
            if (samePlace(*axes, i, factors[f]))
              holds.push_back({v, a, static_cast<int>(f)});
          }
    }
    // Its results are partial sums over the axes of the reduction factors
    // it runs with: held under that factor, like the operands' split; and
    // over what a pending operand it keeps pending is over, held under a
    // key of its own (one past the factors), passed from that operand to
    // the results only.
    for (size_t f = 0; f < rule.numFactors(); ++f)
      if (rule.kinds[f] == shardc::FactorKind::Reduction)
        for (int a : factors[f])
          for (size_t t = operands.size(); t < vals.size(); ++t)
            both({vals[t], a, static_cast<int>(f)});
    if (n.kind == Node::Kind::Rule) {
      std::vector<bool> repeated(operands.size());
      for (size_t i = 0; i < operands.size(); ++i)
        repeated[i] = llvm::count(vals.take_front(operands.size()), vals[i]) > 1;
      shardc::PendingThrough through =
          shardc::pendingThrough(rule, operands, factors, repeated, st.core);
      int kept = static_cast<int>(rule.numFactors());
      for (size_t i = 0; i < operands.size(); ++i)
        if (through.keep[i])
          for (int a : operands[i].pending) {
            both({vals[i], a, kept, /*receives=*/false});
            for (size_t t = operands.size(); t < vals.size(); ++t)
              both({vals[t], a, kept});
          }
      bool fromOperands = llvm::any_of(through.keep, [](bool k) { return k; });
      for (size_t t = operands.size(); t < vals.size() && !through.mixed; ++t) {
        unsigned r = vals[t];
        heldPending[r] = through.pending;
        ownPartial[r] = !fromOperands;
        pendingKind[r] = through.kind;
        // Reduced right after its op as insert-reshards decides it
        // (passes/PendingUses.h): kept pending only when every use reads it
        // so and at most one carries it at full size.
        if (decidePending(st.valueOf[r], st.rules).kind == PendingUse::KeptPending)
          seenPending[r] = through.pending;
      }
    }
    o.addLink(viaOf(n.op), holds);
    detour.addLink(viaOf(n.op), loose);
  }
  // A call tie joins all its members at once, as propagation steps it
  // (two call sites share an axis the callee's argument does not hold):
  // each member is linked, through its call (or return), to a hub per dim
  // that holds what the tie's merge keeps on that dim (policy 2): an axis
  // two call sites disagree on does not pass from one to the other. Hubs
  // are ids past the values.
  unsigned nextHub = st.valueOf.size();
  for (auto &members : st.callTies) {
    // The hub is what the members that took the tie's merge hold: an
    // annotated member keeps what was written, and with priorities the
    // merge ran in the round it first had axes, so the final merge of every
    // member (policy 2) would drop what an earlier round placed (x's p0
    // "data" against a later y's "model": the callee's argument holds
    // "data" from x).
    SmallVector<std::pair<Value, Operation *>> took;
    for (auto &m : members)
      if (!st.annotations.count(m.first))
        took.push_back(m);
    std::vector<std::vector<int>> merged = tieMerge(took.empty() ? ArrayRef(members) : took);
    unsigned hubs = nextHub;
    nextHub += merged.size();
    PrefixKeys keys;
    for (auto &[m, via] : members) {
      std::vector<Hold> holds, loose;
      holdsByDim(m, holds, keys);
      for (auto [d, axes] : llvm::enumerate(merged))
        for (auto [i, a] : llvm::enumerate(axes))
          holds.push_back({hubs + static_cast<unsigned>(d), a,
                           keys(static_cast<int>(d), ArrayRef(axes).take_front(i))});
      holdsByDim(m, loose, byDim);
      for (size_t k = 0, n = loose.size(); k < n; ++k)
        if (llvm::is_contained(merged[loose[k].key], loose[k].axis))
          loose.push_back({hubs + loose[k].key, loose[k].axis, loose[k].key});
      int name = via ? viaOf(via) : -1; // the callee's argument: no op to name
      o.addLink(name, holds);
      detour.addLink(name, loose);
    }
  }
  for (auto &[group, members] : st.groups) {
    std::vector<Hold> holds, loose;
    PrefixKeys keys;
    for (Value m : members) {
      holdsByDim(m, holds, keys);
      holdsByDim(m, loose, byDim);
    }
    originVias.push_back({nullptr, group});
    o.addLink(static_cast<int>(originVias.size() - 1), holds);
    detour.addLink(static_cast<int>(originVias.size() - 1), loose);
  }
  // Sources: what each annotation wrote that its value still holds there.
  auto addSources = [&](const Annotation &a, Value v, int via) {
    int source = static_cast<int>(originSources.size());
    originSources.push_back({&a, v, via >= 0});
    const TensorSharding &written = st.table.get(a.full);
    TensorSharding held = st.closedFinal(v);
    // A source of what the value holds where it was written (a result
    // annotated P("a") is no source of the "a" in a returned P(("b", "a"))).
    for (auto [d, dim] : llvm::enumerate(written.dims))
      for (auto [i, x] : llvm::enumerate(dim.axes)) {
        if (samePlace(dim.axes, i, held.dims[d].axes))
          o.addSource(st.idOf(v), x, a.priorityOf(d), source, via);
        if (llvm::is_contained(held.dims[d].axes, x))
          detour.addSource(st.idOf(v), x, a.priorityOf(d), source, via);
      }
    // And of the partial sum it wrote (an argument annotated unreduced):
    // linear ops pass it on (the holds under an op's "kept" key).
    for (int x : written.pending)
      if (llvm::is_contained(heldPending[st.idOf(v)], x)) {
        o.addSource(st.idOf(v), x, kLastRound, source, via);
        detour.addSource(st.idOf(v), x, kLastRound, source, via);
      }
    return source;
  };
  for (auto &[v, a] : st.annotations) {
    ownSource[v] = addSources(a, v, -1);
    // Its dims take part from their own round (closed and empty before;
    // a `?` without axes is open in every round).
    const TensorSharding &asWritten = st.table.get(a.full);
    for (auto [d, dim] : llvm::enumerate(st.closedFinal(v).dims))
      for (int x : dim.axes) {
        if (shardc::isOpenEmpty(asWritten.dims[d]))
          continue;
        o.activateIn(st.idOf(v), x, a.priorityOf(d));
        detour.activateIn(st.idOf(v), x, a.priorityOf(d));
      }
    for (int x : heldPending[st.idOf(v)])
      if (annotatedPartial.contains(st.idOf(v))) {
        o.activateIn(st.idOf(v), x, kLastRound);
        detour.activateIn(st.idOf(v), x, kLastRound);
      }
  }
  for (func::FuncOp f : st.funcs)
    for (func::ReturnOp ret : st.returnsOf(f))
      for (auto [i, v] : llvm::enumerate(ret.getOperands()))
        if (auto a = st.sinkAnnotations.find({ret, static_cast<unsigned>(i)});
            a != st.sinkAnnotations.end())
          addSources(a->second, v, viaOf(ret));
  o.solve();
  detour.solve();
  axisOrigins = std::move(o);
  detourOrigins = std::move(detour);
}


} // namespace shardc::propagation
