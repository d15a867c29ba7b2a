//===- ExplainReplicated.cpp - explain: why a whole value is whole ----------===//
//
// A value that holds no axis names its own cause (its annotation, a
// conflict at it, its op's rule), or the nearest whole value that has one.
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

std::string PropagationExplainer::replicatedOrigin(Value v,
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

void PropagationExplainer::findReplicatedCauses(llvm::function_ref<std::string(Value)> name) {
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
  auto whole = [&](Value t) { return isTensor(t) && !splitsDims(st.closedFinal(t)); };
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
    const FactorRule *rule = def && !ownSource.count(u) ? st.ruleFor(def) : nullptr;
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
  for (func::FuncOp func : st.funcs) {
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
      const FactorRule *rule = st.ruleFor(op);
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
      Near *group =
          llvm::find_if(groups, [&](const Near &n) { return n.source == it->second.source; });
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

std::string PropagationExplainer::ownReplicatedCause(Value v,
                                                    llvm::function_ref<std::string(Value)> name) {
  std::string out;
  llvm::raw_string_ostream os(out);
  bool partial = !heldPending[st.idOf(v)].empty();
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
  for (auto &members : st.callTies) {
    if (llvm::none_of(members, [&](auto &m) { return m.first == v; }))
      continue;
    // Only when the calls conflict (not all prefixes of the longest):
    // else the tie kept their axes and something else dropped them.
    std::vector<std::vector<int>> merged = tieMerge(members);
    bool conflict = false;
    SmallVector<std::pair<Operation *, std::string>> layouts;
    for (auto &[m, call] : members) {
      if (!isa_and_nonnull<func::CallOp>(call) || st.closedFinal(m).isFullyReplicated())
        continue;
      layouts.push_back({call, st.closedFinal(m).str(st.core)});
      for (auto [d, dim] : llvm::enumerate(st.closedFinal(m).dims))
        conflict |= !shardc::isPrefix(dim.axes, merged[d]);
    }
    if (!conflict)
      break;
    os << "its calls give it different layouts (";
    llvm::interleave(
        layouts, os,
        [&](auto &l) { os << l.second << " at the call at " << locationText(l.first->getLoc()); },
        ", ");
    os << "): one sharding per signature keeps what they share, nothing; the calls are "
          "resharded";
    return out;
  }
  // A call's result is written as its callee's (one sharding per
  // signature): whole here because the callee returns it whole, which
  // the remark on the returned value explains.
  if (auto r = dyn_cast<OpResult>(v))
    if (auto call = dyn_cast<func::CallOp>(r.getOwner()))
      if (func::FuncOp callee = st.calleeInSet(call)) {
        // (A recursive call that returns its own result says nothing here.)
        Value ret = st.returnsOf(callee).front().getOperand(r.getResultNumber());
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
      if (isTensor(operand) && splitsDims(st.closedFinal(operand)))
        layouts.push_back({i, st.closedFinal(operand).str(st.core)});
  auto listLayouts = [&] {
    llvm::interleave(
        layouts, os, [&](auto &l) { os << "operand #" << l.first << " " << l.second; },
        ", ");
  };
  auto call = dyn_cast_or_null<func::CallOp>(def);
  if (def && !isa<ShardingRuleOpInterface>(def) && !(call && st.calleeInSet(call))) {
    os << "made by '" << def->getName() << "', which has no sharding rule: replicated";
  } else if (!layouts.empty() && operandsConflict(def)) {
    os << "its operands' layouts conflict here (";
    listLayouts();
    os << "): it keeps what they share, nothing; the operands are resharded";
  } else if (st.conflicts.count(st.idOf(v))) {
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
    os << (partial ? "a scalar: nothing to split"
                   : "a scalar: nothing to split, whole on every device");
  } else if (auto [op, held] = heldNextTo(v); op) {
    // A neighbour through a rule op holds axes that op did not carry
    // here: its rule maps none of their dims onto this value's, or a
    // dim they would split unevenly (a reshape's).
    os << "annotations reach " << name(held) << " (" << st.closedFinal(held).str(st.core)
       << "), but " << op->getName() << " (" << locationText(op->getLoc())
       << ") carries none of its axes onto this value: replicated";
  } else if (partial) {
    // Its split is a partial sum passed on from its operands (named next).
    os << kDimsNotSplit;
  } else if (std::optional<unsigned> i = reducedOperand(def)) {
    Value operand = def->getOperand(*i);
    os << "operand #" << *i << " (" << name(operand) << ") is a partial sum over "
       << axisList(st.core, heldPending[st.idOf(operand)])
       << ", which insert-reshards reduces before " << def->getName()
       << " (its collective below says why): what it computes from is whole";
  }
  return out;
}

std::optional<unsigned> PropagationExplainer::reducedOperand(Operation *op) {
  if (!op || !st.ruleFor(op))
    return std::nullopt;
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (isTensor(operand) && !heldPending[st.idOf(operand)].empty())
      return static_cast<unsigned>(i);
  return std::nullopt;
}

std::pair<Operation *, Value> PropagationExplainer::heldNextTo(Value v) {
  for (Operation *op : definitionAndUsers(v)) {
    if (!st.ruleFor(op))
      continue;
    for (Value t : llvm::concat<Value>(op->getOperands(), op->getResults()))
      if (t != v && isTensor(t) && splitsDims(st.closedFinal(t)))
        return {op, t};
  }
  return {nullptr, Value()};
}


} // namespace shardc::propagation
