//===- PropagationExplain.cpp - garray-propagate's explain remarks -------===//
//
// One remark per value: its final sharding and, per axis it holds, the
// annotations that wrote it and the ops it came through (traced on the final
// shardings by sharding/AxisOrigins.h), or why it holds none; partial
// sums with where their split came from; conflicts with who proposed what.
// Runs after the fixed point, before the result is written; reads the
// propagation's state and changes nothing (docs/propagation.md,
// "Explanations").
//
//===----------------------------------------------------------------------===//
#include "passes/propagation/FunctionPropagation.h"

#include "mlir/IR/AsmState.h"

#include <deque>
#include <map>
#include <memory>

namespace shardc::propagation {

/// " annotated " between an annotation's description and its sharding; a
/// hand-written reshard is an op the user wrote, not an annotation.
static StringRef annotatedVerb(const Annotation &a) {
  return a.kind == Annotation::Kind::OpResult && isa<ReshardOp>(a.op) ? " written to "
                                                                      : " annotated ";
}

int FunctionPropagation::viaOf(Operation *op) {
  auto [it, inserted] = viaIndex.try_emplace(op, originVias.size());
  if (inserted)
    originVias.push_back({op, 0});
  return it->second;
}

std::vector<std::vector<int>>
FunctionPropagation::tieMerge(ArrayRef<std::pair<Value, Operation *>> members) {
  std::vector<TensorSharding> finals;
  for (auto &[m, via] : members)
    finals.push_back(closedFinal(m));
  std::vector<std::vector<int>> merged;
  for (size_t d = 0; d < finals.front().dims.size(); ++d) {
    std::vector<const std::vector<int> *> lists;
    for (const TensorSharding &f : finals)
      lists.push_back(&f.dims[d].axes);
    merged.push_back(shardc::mergeAxisLists(lists));
  }
  return merged;
}

void FunctionPropagation::holdsByDim(Value v, std::vector<Hold> &out,
                                     llvm::function_ref<int(int, ArrayRef<int>)> key) {
  TensorSharding s = closedFinal(v);
  for (auto [d, dim] : llvm::enumerate(s.dims))
    for (auto [i, a] : llvm::enumerate(dim.axes))
      out.push_back({idOf(v), a, key(static_cast<int>(d), ArrayRef(dim.axes).take_front(i))});
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

void FunctionPropagation::traceAxes() {
  // Two searches over the same holds: `o` links an axis only where the op
  // runs with it (shardc::executionAxes, shared with insert-reshards) and
  // at its place in the dim; `detour` wherever both values hold it under
  // one factor or dim, for an axis that came through an op that in the end
  // does not use it (it lost there; a reshard follows).
  shardc::AxisOrigins o, detour;
  heldPending.assign(valueOf.size(), {});
  ownPartial.assign(valueOf.size(), false);
  std::vector<std::vector<int>> seenPending(valueOf.size());
  std::vector<shardc::Reduction> pendingKind(valueOf.size(), shardc::Reduction::Sum);
  // Arguments annotated as partial sums are pending from the start (as
  // insert-reshards reads them), by their own annotation.
  for (func::FuncOp func : funcs)
    for (BlockArgument arg : func.getArguments())
      if (isTensor(arg))
        if (TensorSharding s = closedFinal(arg); s.isPending()) {
          unsigned id = idOf(arg);
          seenPending[id] = heldPending[id] = s.pending;
          pendingKind[id] = s.pendingKind;
          annotatedPartial.insert(id);
        }
  // In program order (nodes follow the ops), so an operand's pending state
  // is known before its users'.
  for (const Node &n : nodes) {
    if (n.kind == Node::Kind::Return)
      continue; // a function result annotation is a source, below
    // A rule op, or a constraint (its identity rule): operands and results
    // hold an axis under the factor it shards.
    ArrayRef<unsigned> vals(nodeValues.data() + n.first, n.count);
    const FactorRule &rule = n.rule->rule;
    std::vector<TensorSharding> operands, results;
    for (auto [t, v] : llvm::enumerate(vals))
      (rule.isResult(t) ? results : operands).push_back(closedFinal(valueOf[v]));
    // What a rule op's operands are pending over, as insert-reshards will
    // see them (a constraint's operand is reduced: it becomes a reshard).
    if (n.kind == Node::Kind::Rule)
      for (size_t i = 0; i < operands.size(); ++i) {
        operands[i].pending = seenPending[vals[i]];
        operands[i].pendingKind = pendingKind[vals[i]];
      }
    shardc::FactorAxes factors = shardc::executionAxes(rule, operands, results, core);
    std::vector<Hold> holds, loose;
    auto both = [&](Hold h) {
      holds.push_back(h);
      loose.push_back(h);
    };
    for (auto [t, v] : llvm::enumerate(vals)) {
      const TensorSharding &s = rule.isResult(t) ? results[t - operands.size()] : operands[t];
      for (auto [f, axes] : llvm::enumerate(shardc::projectToFactors(rule, t, s, core)))
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
          shardc::pendingThrough(rule, operands, factors, repeated, core);
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
        // Reduced right after its op when some use may not read it
        // pending (insert-reshards' reduceEagerlyIfNeeded, which asks every
        // op with a rule, whatever its operand types).
        bool allKeep = llvm::all_of(valueOf[r].getUses(), [&](OpOperand &use) {
          const CachedRule *userRule = rules.lookup(use.getOwner());
          return userRule &&
                 shardc::mayStayPending(userRule->rule.pending, use.getOperandNumber());
        });
        if (allKeep)
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
  unsigned nextHub = valueOf.size();
  for (auto &members : callTies) {
    // The hub is what the members that took the tie's merge hold: an
    // annotated member keeps what was written, and with priorities the
    // merge ran in the round it first had axes, so the final merge of every
    // member (policy 2) would drop what an earlier round placed (x's p0
    // "data" against a later y's "model": the callee's argument holds
    // "data" from x).
    SmallVector<std::pair<Value, Operation *>> took;
    for (auto &m : members)
      if (!annotations.count(m.first))
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
  for (auto &[group, members] : groups) {
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
    const TensorSharding &written = table.get(a.full);
    TensorSharding held = closedFinal(v);
    // A source of what the value holds where it was written (a result
    // annotated P("a") is no source of the "a" in a returned P(("b", "a"))).
    for (auto [d, dim] : llvm::enumerate(written.dims))
      for (auto [i, x] : llvm::enumerate(dim.axes)) {
        if (samePlace(dim.axes, i, held.dims[d].axes))
          o.addSource(idOf(v), x, a.priorityOf(d), source, via);
        if (llvm::is_contained(held.dims[d].axes, x))
          detour.addSource(idOf(v), x, a.priorityOf(d), source, via);
      }
    // And of the partial sum it wrote (an argument annotated unreduced):
    // linear ops pass it on (the holds under an op's "kept" key).
    for (int x : written.pending)
      if (llvm::is_contained(heldPending[idOf(v)], x)) {
        o.addSource(idOf(v), x, kLastRound, source, via);
        detour.addSource(idOf(v), x, kLastRound, source, via);
      }
    return source;
  };
  for (auto &[v, a] : annotations) {
    ownSource[v] = addSources(a, v, -1);
    // Its dims take part from their own round (closed and empty before;
    // a `?` without axes is open in every round).
    const TensorSharding &asWritten = table.get(a.full);
    for (auto [d, dim] : llvm::enumerate(closedFinal(v).dims))
      for (int x : dim.axes) {
        if (shardc::isOpenEmpty(asWritten.dims[d]))
          continue;
        o.activateIn(idOf(v), x, a.priorityOf(d));
        detour.activateIn(idOf(v), x, a.priorityOf(d));
      }
    for (int x : heldPending[idOf(v)])
      if (annotatedPartial.contains(idOf(v))) {
        o.activateIn(idOf(v), x, kLastRound);
        detour.activateIn(idOf(v), x, kLastRound);
      }
  }
  for (func::FuncOp f : funcs)
    for (func::ReturnOp ret : returnsOf[f])
      for (auto [i, v] : llvm::enumerate(ret.getOperands()))
        if (auto a = sinkAnnotations.find({ret, static_cast<unsigned>(i)});
            a != sinkAnnotations.end())
          addSources(a->second, v, viaOf(ret));
  o.solve();
  detour.solve();
  axisOrigins = std::move(o);
  detourOrigins = std::move(detour);
}

std::string FunctionPropagation::written(const Annotation &a) {
  const TensorSharding &s = table.get(a.full);
  std::string out = "P(";
  for (auto [d, dim] : llvm::enumerate(s.dims)) {
    TensorSharding one;
    one.dims = {dim};
    std::string text = one.str(core); // "P(...)"
    out += (d ? ", " : "") + text.substr(2, text.size() - 3);
    if (!a.priority.empty() && a.priority[d] != kLastRound)
      out += " p" + std::to_string(a.priority[d]);
  }
  out += ")";
  if (s.isPending()) {
    out += std::string(", unreduced = ") + shardc::reductionName(s.pendingKind) + "(";
    for (auto [i, axis] : llvm::enumerate(s.pending))
      out += (i ? ", \"" : "\"") + core.axes[axis] + "\"";
    out += ")";
  }
  return out;
}

auto FunctionPropagation::sourcesOf(Value v, ArrayRef<int> axes, std::vector<Named> &detours,
                                    std::vector<int> &unexplained) -> std::vector<Named> {
  using Origin = shardc::AxisOrigins::Origin;
  std::vector<Named> named;
  auto own = ownSource.find(v);
  if (own != ownSource.end())
    named.push_back({own->second, Origin{own->second, 0, {}}, {}});
  for (int a : axes) {
    std::vector<Origin> origins = axisOrigins->origins(idOf(v), a, kViaEnds);
    // Its own annotation wrote it: that is the reason, whoever agrees.
    if (own != ownSource.end() &&
        llvm::any_of(origins, [&](const Origin &o) { return o.source == own->second; })) {
      named.front().axes.push_back(a);
      continue;
    }
    if (origins.empty()) {
      std::vector<Origin> around = detourOrigins->origins(idOf(v), a, kViaEnds);
      if (around.empty())
        unexplained.push_back(a);
      for (Origin &o : around) {
        auto at = llvm::find_if(detours, [&](const Named &n) { return n.source == o.source; });
        if (at == detours.end())
          at = detours.insert(detours.end(), Named{o.source, o, {}});
        at->axes.push_back(a);
      }
    }
    for (Origin &o : origins) {
      auto at = llvm::find_if(named, [&](const Named &n) { return n.source == o.source; });
      if (at == named.end())
        at = named.insert(named.end(), Named{o.source, o, {}});
      at->axes.push_back(a);
    }
  }
  llvm::erase_if(named, [](const Named &n) { return n.axes.empty(); });
  return named;
}

void FunctionPropagation::printSources(llvm::raw_ostream &os, Value v, ArrayRef<Named> named,
                                       ArrayRef<int> axes, ArrayRef<Named> detours,
                                       ArrayRef<int> unexplained, StringRef also,
                                       bool apartAgreeing,
                                       llvm::function_ref<std::string(Value)> name,
                                       const llvm::DenseSet<int> *parts) {
  // One annotation is named once, however it is seen: a declared result
  // from its return and its calls, a group member's annotation itself and
  // through the group's copy on another member (same text, same place).
  std::set<std::string> said;
  std::set<int> explained;
  bool first = true;
  SmallVector<const Named *> agreeing;
  for (const Named &n : named) {
    const OriginSource &src = originSources[n.source];
    if (!said.insert(written(*src.annotation) + "@" + locationText(src.annotation->loc)).second)
      continue;
    // A source whose axes an earlier one already explained only agrees:
    // named after the others, without its way (the first way is the one
    // propagation took; repeating each agreeing way made remarks of 2 KB).
    bool agrees = parts ? !parts->contains(n.source)
                        : apartAgreeing &&
                              llvm::all_of(n.axes, [&](int a) { return explained.count(a); });
    if (agrees) {
      agreeing.push_back(&n);
      continue;
    }
    explained.insert(n.axes.begin(), n.axes.end());
    // Each source says which axes it gave when not all (the first too: an
    // annotation of P("a", "b") may give only "a" here).
    if (!first)
      os << also;
    if (n.axes.size() != axes.size())
      os << "for " << axisList(core, n.axes) << ", ";
    first = false;
    printSource(os, v, n, name);
  }
  if (!agreeing.empty()) {
    os << " (also reached by annotations that agree: ";
    llvm::interleaveComma(agreeing, os, [&](const Named *n) {
      Named bare = *n;
      bare.path.length = 0; // the source only, with how far it is
      printSource(os, v, bare, name);
      if (n->path.length > 0)
        os << ", " << n->path.length << (n->path.length == 1 ? " op" : " ops") << " away";
    });
    os << ")";
  }
  // Axes that came through an op that, in the end, does not run with them
  // there (another factor or operand took the axis): named with the path
  // they came by, and said so (dims only grow, so the value kept them).
  for (const Named &n : detours) {
    os << (first ? "" : also) << "for " << axisList(core, n.axes) << ", ";
    first = false;
    printSource(os, v, n, name);
    os << ", though an op on that way ends up not running with "
       << (n.axes.size() == 1 ? "it" : "them")
       << " there (a conflict gave the axis to another dim or operand; a reshard follows)";
  }
  // The one way known to leave an axis no chain of holders: it came in an
  // earlier priority round through an open dim that a later round's
  // annotation took it back from (rounds only grow what others hold).
  if (!unexplained.empty())
    os << (first ? "" : "; also ") << "for " << axisList(core, unexplained)
       << ", no value between it and an annotation holds that axis now: it came in an "
          "earlier priority round through an open dim that gave it back when a later "
          "round's annotation claimed it";
}

void FunctionPropagation::printSource(llvm::raw_ostream &os, Value v, const Named &n,
                                      llvm::function_ref<std::string(Value)> name) {
  const OriginSource &src = originSources[n.source];
  const Annotation &a = *src.annotation;
  bool elsewhere = !src.sink && src.value != v;
  if (!a.group) {
    os << describe(a);
    if (elsewhere)
      os << " (" << name(src.value) << ")";
    os << annotatedVerb(a) << written(a) << " at " << locationText(a.loc);
  } else {
    // A group's copy: the annotation where it is written, then the member
    // the group gave it to ("argument 'W' (%5)" read as if W were %5).
    os << describeWritten(a) << annotatedVerb(a) << written(a) << " at " << locationText(a.loc)
       << ", given ";
    if (elsewhere)
      os << "to " << name(src.value) << " ";
    os << "by sharding group " << *a.group;
  }
  if (n.path.length > 0)
    os << " via " << pathOf(n.path);
}

std::string FunctionPropagation::originOf(Value v, llvm::function_ref<std::string(Value)> name) {
  // A call's result is written as its callee's result (one sharding per
  // signature, writtenLayout): explained from inside the callee. (Its
  // users propagated from the call's own state; where that differs, the
  // tie conflicted and insert-reshards reshards them.)
  if (auto r = dyn_cast<OpResult>(v); r && !ownSource.count(v))
    if (auto call = dyn_cast<func::CallOp>(r.getOwner()))
      if (func::FuncOp callee = calleeInSet(call)) {
        // Keyed by the returned value: a recursive call returns what its
        // caller's call returns, which is said once.
        Value ret = returnsOf[callee].front().getOperand(r.getResultNumber());
        if (ret != v && explainingCalls.insert(ret).second) {
          std::string out = "as @" + callee.getSymName().str() + " returns it (" + name(ret) +
                            ", one sharding per signature): " + originOf(ret, name);
          explainingCalls.erase(ret);
          return out;
        }
      }
  // The axes its dims hold (a pending value's partial sum is partialOf's).
  std::vector<int> axes;
  for (const shardc::DimSharding &d : closedFinal(v).dims)
    axes.insert(axes.end(), d.axes.begin(), d.axes.end());
  if (axes.empty())
    return replicatedOrigin(v, name);
  std::vector<int> unexplained;
  std::vector<Named> detours;
  std::vector<Named> named = sourcesOf(v, axes, detours, unexplained);
  std::string out;
  llvm::raw_string_ostream os(out);
  printSources(os, v, named, axes, detours, unexplained, "; also ", true, name);
  return out;
}

std::string FunctionPropagation::partialOf(Value v, llvm::function_ref<std::string(Value)> name) {
  const std::vector<int> &axes = heldPending[idOf(v)];
  if (axes.empty())
    return "";
  if (annotatedPartial.contains(idOf(v)))
    return "; each device holds a partial result over " + axisList(core, axes) +
           " (as its annotation says), which insert-reshards reduces where a use needs it "
           "whole";
  std::vector<int> unexplained;
  std::vector<Named> detours;
  std::vector<Named> named = sourcesOf(v, axes, detours, unexplained);
  std::string out;
  llvm::raw_string_ostream os(out);
  // Its own reduced dims, or a partial sum an operand passed on (a
  // linear op: neg, a sum of partial sums, a reduce of one).
  os << "; each device holds a partial result over " << axisList(core, axes)
     << (ownPartial[idOf(v)] ? " (the axes its operands split the reduced dims by: "
              : " (a partial sum it passes on from its operands: ");
  // The parts of an op's own partial sum are what split its operands'
  // reduced dims: per operand and axis, the first (strongest, nearest)
  // source. Another source that reaches the result came to an operand that
  // held the axis already: it agrees, and is named last without its way.
  llvm::DenseSet<int> parts;
  if (Operation *def = v.getDefiningOp(); def && ownPartial[idOf(v)])
    for (Value u : def->getOperands())
      if (isTensor(u))
        for (int a : axes)
          if (std::vector<shardc::AxisOrigins::Origin> o =
                  axisOrigins->origins(idOf(u), a, kViaEnds);
              !o.empty())
            parts.insert(o.front().source);
  bool partNamed = llvm::any_of(named, [&](const Named &n) { return parts.contains(n.source); });
  printSources(os, v, named, axes, detours, unexplained, ", and ", false, name,
               partNamed ? &parts : nullptr);
  os << "), which insert-reshards reduces where a use needs it whole";
  return out;
}

std::string FunctionPropagation::pathOf(const shardc::AxisOrigins::Origin &o) {
  std::string out;
  llvm::raw_string_ostream os(out);
  auto print = [&](ArrayRef<int> vias) {
    SmallVector<int> once; // two hops in a row through one op name it once
    for (int via : vias)
      if (once.empty() || once.back() != via)
        once.push_back(via);
    llvm::interleave(
        once, os,
        [&](int via) {
          auto [op, group] = originVias[via];
          if (op)
            os << op->getName() << " (" << locationText(op->getLoc()) << ")";
          else
            os << "sharding group " << group;
        },
        ", ");
  };
  // A long way shows its first and last kViaEnds ops. `o.path` holds the
  // whole way or (AxisOrigins::origins, for long ones) those ends only.
  if (o.length <= 2 * kViaEnds + 1) {
    print(o.path);
  } else {
    print(ArrayRef<int>(o.path).take_front(kViaEnds));
    os << ", ... " << o.length - 2 * kViaEnds << " more ops ..., ";
    print(ArrayRef<int>(o.path).take_back(kViaEnds));
  }
  return out;
}

std::string FunctionPropagation::replicatedOrigin(Value v,
                                                  llvm::function_ref<std::string(Value)> name) {
  std::string own = ownReplicatedCause(v, name);
  if (!own.empty())
    return own;
  // Whole because a neighbour is: a replicated annotation, a conflict or a
  // reduction a few ops away, reached through ops that carry it here.
  if (!nearDone) {
    nearDone = true;
    findReplicatedCauses(name);
  }
  if (auto it = replicatedNear.find(v); it != replicatedNear.end() && !it->second.empty()) {
    ArrayRef<Near> groups = it->second;
    unsigned rank = cast<RankedTensorType>(v.getType()).getRank();
    SmallVector<unsigned> unreached;
    for (unsigned d = 0; d < rank; ++d)
      if (llvm::none_of(groups, [&](const Near &n) { return llvm::is_contained(n.dims, d); }))
        unreached.push_back(d);
    bool byDim = groups.size() > 1 || !unreached.empty();
    std::string out;
    llvm::raw_string_ostream os(out);
    auto dims = [&](ArrayRef<unsigned> list) {
      os << (list.size() == 1 ? "dim " : "dims ");
      llvm::interleaveComma(list, os);
      os << ": ";
    };
    for (auto [i, n] : llvm::enumerate(groups)) {
      if (i)
        os << "; ";
      if (byDim)
        dims(n.dims);
      // The source by what makes it too: "%11" alone sends a reader to the
      // printed IR.
      os << "whole like " << name(n.source);
      if (Operation *d = n.source.getDefiningOp())
        os << " (" << d->getName() << " at " << locationText(d->getLoc()) << ")";
      else if (Block *b = cast<BlockArgument>(n.source).getOwner();
               !isa<func::FuncOp>(b->getParentOp()) || !b->isEntryBlock())
        os << " (a block argument at " << locationText(n.source.getLoc()) << ")";
      os << ", " << n.hops << (n.hops == 1 ? " op" : " ops") << " away through "
         << n.via->getName() << " (" << locationText(n.via->getLoc())
         << "): " << ownReplicatedCause(n.source, name);
    }
    if (!unreached.empty()) {
      os << "; ";
      dims(unreached);
      os << "no annotation reaches " << (unreached.size() == 1 ? "it" : "them");
    }
    return out;
  }
  return "no annotation reaches it: replicated";
}

/// Whether `s` splits some dim (its pending axes aside: a partial sum is
/// explained on its own, by partialOf).
static bool splitsDims(const TensorSharding &s) {
  return llvm::any_of(s.dims, [](const shardc::DimSharding &d) { return !d.axes.empty(); });
}

/// The ops next to `v`: its definition (if any), then its users.
static SmallVector<Operation *> definitionAndUsers(Value v) {
  SmallVector<Operation *> ops;
  if (Operation *def = v.getDefiningOp())
    ops.push_back(def);
  for (Operation *user : v.getUsers())
    ops.push_back(user);
  return ops;
}

/// What a pending value with no other cause says of its dims (its partial
/// sum is named after it).
static constexpr llvm::StringLiteral kDimsNotSplit = "its dims are not split";

void FunctionPropagation::findReplicatedCauses(llvm::function_ref<std::string(Value)> name) {
  // One breadth-first search over (value, dim) pairs from every whole
  // value with a cause of its own, through rule ops, from a dim to the dims
  // its op maps to the same factor: a value all of whose dims are reached
  // is whole for its nearest cause (ties: the first found, in program
  // order). Per dim, so that a conflict on a dim an op reduces away is no
  // cause for the op's result.
  using Key = std::pair<Value, unsigned>;
  llvm::DenseMap<Key, Near> reach;
  std::deque<Key> queue;
  // Dims not split (a pending value's too: its partial sum is explained
  // apart, and what it is reduced to is whole).
  auto whole = [&](Value t) { return isTensor(t) && !splitsDims(closedFinal(t)); };
  auto rank = [](Value t) { return cast<RankedTensorType>(t.getType()).getRank(); };
  auto tensorsOf = [](Operation *op) {
    SmallVector<Value> tensors(op->getOperands());
    tensors.append(op->getResults().begin(), op->getResults().end());
    return tensors;
  };
  // The dims of `u` its own cause concerns: all of them, but for operands
  // that conflict at its op, the dims of the factors they conflict on.
  auto causeDims = [&](Value u) {
    SmallVector<unsigned> dims;
    Operation *def = u.getDefiningOp();
    const FactorRule *rule = def && !ownSource.count(u) ? ruleFor(def) : nullptr;
    std::vector<bool> conflicting = rule ? conflictFactors(def) : std::vector<bool>();
    bool byConflict = llvm::is_contained(conflicting, true);
    SmallVector<Value> tensors = rule ? tensorsOf(def) : SmallVector<Value>();
    for (unsigned d = 0; d < rank(u); ++d) {
      bool concerns = !byConflict;
      for (size_t i = 0; byConflict && i < tensors.size(); ++i)
        if (tensors[i] == u && i < rule->numTensors())
          concerns |= llvm::any_of(rule->tensor(i)[d], [&](int f) { return conflicting[f]; });
      if (concerns)
        dims.push_back(d);
    }
    return dims;
  };
  auto consider = [&](Value t) {
    // A scalar's cause ("nothing to split") is no cause for its neighbours,
    // nor is a partial sum's remark that its dims are not split.
    if (!whole(t) || rank(t) == 0)
      return;
    std::string cause = ownReplicatedCause(t, name);
    if (cause.empty() || cause == kDimsNotSplit)
      return;
    for (unsigned d : causeDims(t))
      if (reach.try_emplace({t, d}, Near{t, nullptr, 0}).second)
        queue.push_back({t, d});
  };
  for (func::FuncOp func : funcs) {
    // Every block's arguments (a branch target's are whole), then results.
    func.walk([&](Block *block) {
      for (BlockArgument arg : block->getArguments())
        consider(arg);
    });
    func.walk([&](Operation *op) {
      for (Value r : op->getResults())
        consider(r);
    });
  }
  while (!queue.empty()) {
    auto [u, du] = queue.front();
    queue.pop_front();
    Near from = reach.find({u, du})->second;
    for (Operation *op : definitionAndUsers(u)) {
      const FactorRule *rule = ruleFor(op);
      SmallVector<Value> tensors = tensorsOf(op);
      if (!rule || tensors.size() != rule->numTensors())
        continue;
      llvm::SmallDenseSet<int, 8> factors;
      for (size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i] == u)
          factors.insert(rule->tensor(i)[du].begin(), rule->tensor(i)[du].end());
      for (size_t i = 0; i < tensors.size(); ++i) {
        Value t = tensors[i];
        if (t == u || !whole(t))
          continue;
        for (unsigned dt = 0; dt < rank(t); ++dt)
          if (llvm::any_of(rule->tensor(i)[dt], [&](int f) { return factors.contains(f); }) &&
              reach.try_emplace({t, dt}, Near{from.source, op, from.hops + 1}).second)
            queue.push_back({t, dt});
      }
    }
  }
  // A value is explained per dim by the cause that reached it: one group
  // per source, in dim order (the same whatever order `reach` is iterated
  // in); dims no cause reached are named apart by replicatedOrigin.
  for (auto &entry : reach) {
    Value t = entry.first.first;
    if (replicatedNear.count(t))
      continue;
    SmallVector<Near, 1> &groups = replicatedNear[t];
    bool own = false;
    for (unsigned e = 0; e < rank(t) && !own; ++e) {
      auto it = reach.find({t, e});
      if (it == reach.end())
        continue;
      own = it->second.hops == 0; // its own cause explains it: said instead
      Near *group = llvm::find_if(groups, [&](const Near &n) { return n.source == it->second.source; });
      if (group == groups.end()) {
        groups.push_back(it->second);
        group = &groups.back();
      }
      group->dims.push_back(e);
    }
    if (own)
      groups.clear();
  }
}

std::string FunctionPropagation::ownReplicatedCause(Value v,
                                                    llvm::function_ref<std::string(Value)> name) {
  std::string out;
  llvm::raw_string_ostream os(out);
  bool partial = !heldPending[idOf(v)].empty();
  if (auto own = ownSource.find(v); own != ownSource.end()) {
    printSource(os, v, Named{own->second, shardc::AxisOrigins::Origin{own->second, 0, {}}, {}},
                name);
    return out;
  }
  // Seeded replicated (seedBodies): no sharding can be written on it.
  if (auto arg = dyn_cast<BlockArgument>(v);
      arg && !(isa<func::FuncOp>(arg.getOwner()->getParentOp()) &&
               arg.getOwner()->isEntryBlock()))
    return "an argument of a block other than a function's entry, which comes through a "
           "branch or region op without a sharding rule: whole on every device";
  // A callee's argument or result whose calls disagree: the tie keeps
  // what they share (policy 2), here nothing.
  for (auto &members : callTies) {
    if (llvm::none_of(members, [&](auto &m) { return m.first == v; }))
      continue;
    // Only when the calls conflict (not all prefixes of the longest):
    // else the tie kept their axes and something else dropped them.
    std::vector<std::vector<int>> merged = tieMerge(members);
    bool conflict = false;
    SmallVector<std::pair<Operation *, std::string>> layouts;
    for (auto &[m, call] : members) {
      if (!isa_and_nonnull<func::CallOp>(call) || closedFinal(m).isFullyReplicated())
        continue;
      layouts.push_back({call, closedFinal(m).str(core)});
      for (auto [d, dim] : llvm::enumerate(closedFinal(m).dims))
        conflict |= !shardc::isPrefix(dim.axes, merged[d]);
    }
    if (!conflict)
      break;
    os << "its calls give it different layouts (";
    llvm::interleave(
        layouts, os,
        [&](auto &l) { os << l.second << " at the call at " << locationText(l.first->getLoc()); }, ", ");
    os << "): one sharding per signature keeps what they share, nothing; the calls are "
          "resharded";
    return out;
  }
  // A call's result is written as its callee's (one sharding per
  // signature): whole here because the callee returns it whole, which
  // the remark on the returned value explains.
  if (auto r = dyn_cast<OpResult>(v))
    if (auto call = dyn_cast<func::CallOp>(r.getOwner()))
      if (func::FuncOp callee = calleeInSet(call)) {
        // (A recursive call that returns its own result says nothing here.)
        Value ret = returnsOf[callee].front().getOperand(r.getResultNumber());
        if (ret != v) {
          os << "@" << callee.getSymName() << " returns it whole (one sharding per signature; "
             << "the remark on " << name(ret) << " says why)";
          return out;
        }
      }
  Operation *def = v.getDefiningOp();
  // Operands with different layouts that left nothing to propagate:
  // their annotations met at this op and cancelled (policy 2).
  SmallVector<std::pair<unsigned, std::string>> layouts;
  if (def)
    for (auto [i, operand] : llvm::enumerate(def->getOperands()))
      if (isTensor(operand) && splitsDims(closedFinal(operand)))
        layouts.push_back({i, closedFinal(operand).str(core)});
  auto listLayouts = [&] {
    llvm::interleave(
        layouts, os, [&](auto &l) { os << "operand #" << l.first << " " << l.second; },
        ", ");
  };
  auto call = dyn_cast_or_null<func::CallOp>(def);
  if (def && !isa<ShardingRuleOpInterface>(def) && !(call && calleeInSet(call))) {
    os << "made by '" << def->getName() << "', which has no sharding rule: replicated";
  } else if (!layouts.empty() && operandsConflict(def)) {
    os << "its operands' layouts conflict here (";
    listLayouts();
    os << "): it keeps what they share, nothing; the operands are resharded";
  } else if (conflicts.count(idOf(v))) {
    os << "annotations reach it through several ops and conflict: replicated";
  } else if (!layouts.empty() && isa<ReshapeOp>(def) && unevenDim(def->getOperand(0))) {
    // ReshapeRule carries a split through a merge or a split of dims only
    // when it divides evenly: padded blocks would not line up.
    auto [d, k] = *unevenDim(def->getOperand(0));
    int64_t n = cast<RankedTensorType>(def->getOperand(0).getType()).getDimSize(d);
    os << "its operand (";
    listLayouts();
    os << ") splits dim " << d << " (size " << n << ") over " << k
       << " devices unevenly, and a reshape carries a split across merged or split dims only "
          "when it divides evenly, so the operand is gathered: its own dims are replicated";
  } else if (std::string drops = isa_and_nonnull<ReshapeOp>(def) ? reshapeDrops(def) : "";
             !drops.empty()) {
    os << "its operand (";
    listLayouts();
    os << ") " << drops << ", so the operand is gathered: its own dims are replicated";
  } else if (!layouts.empty() && !call) {
    os << "its operands (";
    listLayouts();
    std::string rivals = onlyReduced(def) ? reducedRivals(def) : "";
    if (!rivals.empty())
      os << ") split only dims it reduces, and by different axes (" << rivals
         << "): no partial sum can keep both, so the operands are gathered and its own dims "
            "are replicated";
    else
      os << (onlyReduced(def) ? ") are split only along dims it reduces"
                              : ") are split only along dims it computes whole, so they are "
                                "gathered")
         << ": its own dims are replicated";
  } else if (cast<RankedTensorType>(v.getType()).getRank() == 0) {
    // A pending scalar is not whole until reduced: its partial note follows.
    os << (partial ? "a scalar: nothing to split" : "a scalar: nothing to split, whole on every device");
  } else if (auto [op, held] = heldNextTo(v); op) {
    // A neighbour through a rule op holds axes that op did not carry
    // here: its rule maps none of their dims onto this value's, or a
    // dim they would split unevenly (a reshape's).
    os << "annotations reach " << name(held) << " (" << closedFinal(held).str(core)
       << "), but " << op->getName() << " (" << locationText(op->getLoc())
       << ") carries none of its axes onto this value: replicated";
  } else if (partial) {
    // Its split is a partial sum passed on from its operands (named next).
    os << kDimsNotSplit;
  } else if (std::optional<unsigned> i = reducedOperand(def)) {
    Value operand = def->getOperand(*i);
    os << "operand #" << *i << " (" << name(operand) << ") is a partial sum over "
       << axisList(core, heldPending[idOf(operand)]) << ", which insert-reshards reduces before "
       << def->getName() << " (its collective below says why): what it computes from is whole";
  }
  return out;
}

std::optional<unsigned> FunctionPropagation::reducedOperand(Operation *op) {
  if (!op || !ruleFor(op))
    return std::nullopt;
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (isTensor(operand) && !heldPending[idOf(operand)].empty())
      return static_cast<unsigned>(i);
  return std::nullopt;
}

std::pair<Operation *, Value> FunctionPropagation::heldNextTo(Value v) {
  for (Operation *op : definitionAndUsers(v)) {
    if (!ruleFor(op))
      continue;
    for (Value t : llvm::concat<Value>(op->getOperands(), op->getResults()))
      if (t != v && isTensor(t) && splitsDims(closedFinal(t)))
        return {op, t};
  }
  return {nullptr, Value()};
}

void FunctionPropagation::explainAll() {
  traceAxes();
  findLosses();
  for (func::FuncOp func : funcs)
    explainAll(func);
}

void FunctionPropagation::explainAll(func::FuncOp func) {
  // A chain may cross a call: a value of another function is named with
  // that function's numbering and its name ("%arg0 in @main").
  std::map<Operation *, std::unique_ptr<AsmState>> states;
  auto name = [&](Value v) {
    auto owner = v.getParentRegion()->getParentOfType<func::FuncOp>();
    if (!owner)
      owner = func;
    std::unique_ptr<AsmState> &state = states[owner];
    if (!state)
      state = std::make_unique<AsmState>(owner);
    std::string s;
    llvm::raw_string_ostream os(s);
    v.printAsOperand(os, *state);
    if (owner != func)
      os << " in @" << owner.getSymName();
    return s;
  };
  auto finalStr = [&](Value v) { return writtenLayout(v).str(core); };
  for (BlockArgument arg : func.getArguments())
    if (isTensor(arg)) {
      std::string what = name(arg);
      if (auto n = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "garray.name"))
        what += " '" + n.str() + "'";
      emitRemark(arg.getLoc()) << what << " (argument of @" << func.getSymName()
                               << "): " << finalStr(arg) << " <- " << originOf(arg, name)
                               << conflictOf(arg) << lostOf(arg, name);
    }
  func.walk([&](Operation *op) {
    for (Region &region : op->getRegions()) // arguments of non-entry blocks
      for (Block &block : region)
        if (&block != &region.front() || op != func)
          for (BlockArgument arg : block.getArguments())
            if (isTensor(arg))
              emitRemark(arg.getLoc()) << name(arg) << " (block argument): " << finalStr(arg)
                                       << " <- " << originOf(arg, name) << conflictOf(arg)
                                       << lostOf(arg, name);
    if (op == func)
      return;
    // An op the compiler derived says from what ("garray.div, from
    // garray.mean"), its location being the user's op's.
    std::string label = derivedLabel(op->getLoc());
    if (!label.empty())
      label = ", " + label;
    for (Value r : op->getResults())
      if (isTensor(r))
        emitRemark(op->getLoc()) << name(r) << " (" << op->getName() << label
                                 << "): " << finalStr(r)
                                 << " <- " << originOf(r, name) << conflictOf(r)
                                 << droppedOf(r) << lostOf(r, name) << partialOf(r, name);
  });
}

bool FunctionPropagation::operandsConflict(Operation *op) {
  return llvm::is_contained(conflictFactors(op), true);
}

std::vector<bool> FunctionPropagation::conflictFactors(Operation *op) {
  const FactorRule *ruled = ruleFor(op);
  if (!ruled)
    return {};
  const FactorRule &rule = *ruled;
  std::vector<bool> conflicting(rule.numFactors(), false);
  std::vector<bool> inResult(rule.numFactors(), false);
  for (const auto &result : rule.results)
    for (const auto &dim : result)
      for (int f : dim)
        inResult[f] = true;
  std::vector<TensorSharding> operands = finalShardings(op->getOperands());
  std::vector<const TensorSharding *> views;
  for (const TensorSharding &s : operands)
    views.push_back(&s);
  shardc::FactorAxes merged = shardc::mergeFactors(rule, views, core);
  for (size_t t = 0; t < operands.size(); ++t) {
    auto proj = shardc::projectToFactors(rule, t, operands[t], core);
    for (size_t f = 0; f < proj.size(); ++f)
      if (inResult[f] && rule.kinds[f] != shardc::FactorKind::NeedReplication && proj[f] &&
          !shardc::isPrefix(*proj[f], merged[f]))
        conflicting[f] = true;
  }
  return conflicting;
}

std::optional<std::pair<unsigned, int64_t>> FunctionPropagation::unevenDim(Value v) {
  TensorSharding s = closedFinal(v);
  auto type = cast<RankedTensorType>(v.getType());
  for (auto [d, dim] : llvm::enumerate(s.dims)) {
    int64_t k = core.product(dim.axes);
    if (k > 1 && type.getDimSize(d) % k != 0)
      return std::make_pair(static_cast<unsigned>(d), k);
  }
  return std::nullopt;
}

std::string FunctionPropagation::reshapeDrops(Operation *op) {
  const FactorRule *rule = ruleFor(op);
  if (!rule)
    return "";
  TensorSharding in = closedFinal(op->getOperand(0));
  auto sizes = [&](llvm::raw_ostream &os, ArrayRef<int> pieces) {
    llvm::interleave(pieces, os, [&](int f) { os << rule->factorSizes[f]; }, " x ");
  };
  for (auto [d, dim] : llvm::enumerate(in.dims)) {
    int64_t k = core.product(dim.axes);
    const FactorRule::DimFactors &pieces = rule->operands[0][d];
    if (k <= 1 || pieces.empty())
      continue;
    std::string out;
    llvm::raw_string_ostream os(out);
    os << "splits dim " << d << " (size "
       << cast<RankedTensorType>(op->getOperand(0).getType()).getDimSize(d) << ") into " << k
       << " contiguous blocks";
    int lead = pieces.front();
    if (pieces.size() > 1) {
      os << ", and the reshape regroups that dim into pieces ";
      sizes(os, pieces);
      if (rule->kinds[lead] == shardc::FactorKind::NeedReplication)
        os << " (major first) that do not line up with the result's dims";
      else
        os << " (major first): the blocks stay blocks of the result only when the " << k
           << " devices divide the leading piece (" << rule->factorSizes[lead]
           << "), and a mesh axis is never split across dims";
      return out;
    }
    // One piece: dropped when the result dim holding it has pieces before
    // it (a block of a minor piece is not a contiguous block there).
    for (auto [e, resultPieces] : llvm::enumerate(rule->results[0])) {
      auto at = llvm::find(resultPieces, lead);
      if (at == resultPieces.end() || at == resultPieces.begin())
        continue;
      os << ", and the reshape merges that dim into result dim " << e << " after pieces ";
      sizes(os, ArrayRef<int>(resultPieces).take_front(at - resultPieces.begin()));
      os << ": blocks of a minor piece are not contiguous blocks of the merged dim";
      return out;
    }
  }
  return "";
}

bool FunctionPropagation::onlyReduced(Operation *op) {
  const FactorRule *rule = ruleFor(op);
  if (!rule)
    return false;
  for (auto [t, v] : llvm::enumerate(op->getOperands()))
    for (auto [f, axes] : llvm::enumerate(shardc::projectToFactors(*rule, t, closedFinal(v), core)))
      if (axes && !axes->empty() && rule->kinds[f] != shardc::FactorKind::Reduction)
        return false;
  return true;
}

std::string FunctionPropagation::reducedRivals(Operation *op) {
  const FactorRule *rule = ruleFor(op);
  if (!rule)
    return "";
  std::vector<TensorSharding> operands = finalShardings(op->getOperands());
  for (size_t f = 0; f < rule->numFactors(); ++f) {
    if (rule->kinds[f] != shardc::FactorKind::Reduction)
      continue;
    for (size_t t = 0; t < operands.size(); ++t)
      if (auto rival = shardc::rivalSplit(*rule, operands, t, static_cast<int>(f));
          rival && rival->operand > t)
        return "operand #" + std::to_string(t) + " by " + axisList(core, rival->against) +
               ", operand #" +
               std::to_string(rival->operand) + " by " + axisList(core, rival->axes);
  }
  return "";
}

std::string FunctionPropagation::droppedOf(Value v) {
  auto r = dyn_cast<OpResult>(v);
  Operation *op = r ? r.getOwner() : nullptr;
  const FactorRule *rule = op && isa<ShardingRuleOpInterface>(op) ? ruleFor(op) : nullptr;
  if (!rule || rule->results.size() != op->getNumResults() ||
      rule->operands.size() != op->getNumOperands() ||
      !llvm::all_of(op->getOperands(), isTensor) || !llvm::all_of(op->getResults(), isTensor))
    return "";
  std::vector<TensorSharding> operands = finalShardings(op->getOperands());
  std::vector<TensorSharding> results = finalShardings(op->getResults());
  // The op as insert-reshards runs it (shared with its reasons).
  shardc::FactorAxes axes = shardc::executionAxes(*rule, operands, results, core);
  const FactorRule::TensorFactors &resDims = rule->results[r.getResultNumber()];
  for (size_t t = 0; t < operands.size(); ++t)
    for (const shardc::MovedAxis &m : shardc::movedAxes(*rule, axes, operands, t, core)) {
      size_t d = m.dim;
      if (d >= rule->operands[t].size() || rule->operands[t][d].size() != 1)
        continue; // a reshape's regrouped dim: said by reshapeDrops
      int f = rule->operands[t][d].front();
      auto e = llvm::find_if(resDims, [&](const FactorRule::DimFactors &dim) {
        return llvm::is_contained(dim, f);
      });
      if (e == resDims.end())
        continue; // a dim the op reduces: said by partialOf
      if (m.where.empty())
        continue; // not used at all: the value is whole there, said elsewhere
      // On its own dims the value says where the axis went; another
      // result's or a reduced dim is the op's.
      std::string use = m.usedByResult == static_cast<int>(r.getResultNumber())
                            ? "it splits dim " + std::to_string(m.usedForDim) + " instead"
                            : "the op uses it for " + m.where;
      return "; operand #" + std::to_string(t) + "'s \"" + core.axes[m.axis] + "\" (its dim " +
             std::to_string(d) + ") does not split dim " + std::to_string(e - resDims.begin()) +
             " here: " + use;
    }
  return "";
}

std::string FunctionPropagation::conflictOf(Value v) {
  auto it = conflicts.find(idOf(v));
  if (it == conflicts.end())
    return "";
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "; conflicting proposals (the defining op's holds against its users'; users and "
        "ties keep what they share):";
  // An op that reads the value in two slots (x * x) proposes twice: say each
  // proposal once.
  SmallVector<std::pair<int64_t, ShardingTable::Id>> said;
  for (auto entry : it->second) {
    if (llvm::is_contained(said, entry))
      continue;
    auto [proposer, id] = entry;
    Operation *op = proposer >= 0 ? nodes[proposer].op : ties[~proposer].second;
    os << (said.empty() ? "" : ",") << " " << closed(table.get(id)).str(core) << " from ";
    said.push_back(entry);
    if (op)
      os << op->getName() << " (" << locationText(op->getLoc()) << ")";
    else
      os << "a sharding group";
  }
  return out;
}

} // namespace shardc::propagation
