//===- FunctionPropagation.cpp - garray-propagate's fixed point ----------===//
//
// The op graph, the rounds and the worklist of waves with its merge, and
// writing the result back (FunctionPropagation.h says what it keeps; the
// seeding and the checks after the fixed point are PropagationSeed.cpp).
//
//===----------------------------------------------------------------------===//
#include "passes/propagation/FunctionPropagation.h"

#include "passes/ShardingWriter.h"

#include "mlir/IR/Builders.h"

namespace shardc::propagation {

using namespace mlir;
using namespace mlir::garray;


FunctionPropagation::FunctionPropagation(SmallVector<func::FuncOp> funcs, MeshOp mesh,
                                         const shardc::Mesh &core, bool explain)
    : PropagationState(std::move(funcs), mesh, core, explain) {
  for (func::FuncOp f : this->funcs) {
    inSet.insert(f.getOperation());
    size_t begin = allOps.size();
    f.walk([&](Operation *op) {
      opIndex.try_emplace(op, allOps.size());
      allOps.push_back(op);
      // A rule op over tensors is a node of the graph; its rule comes from
      // the cache, which answers ops like recent ones without searching
      // their interface maps. A rule op over non-tensors is no node.
      bool tensorsOnly =
          llvm::all_of(op->getOperands(), isTensor) && llvm::all_of(op->getResults(), isTensor);
      const CachedRule *rule = tensorsOnly ? rules.lookup(op) : nullptr;
      bool hasRule = rule || (!tensorsOnly && isa<ShardingRuleOpInterface>(op));
      ruleOf.push_back(rule);
      opFlags.push_back((hasRule ? kHasRule : kNoRule) |
                        (op->getRawDictionaryAttrs().empty() ? 0 : kHasAttrs) |
                        (isa<ShardingConstraintOp>(op) ? kConstraint : 0) |
                        (isa<func::ReturnOp>(op) ? kReturn : 0));
      // Every result gets its id here, in program order: idOf of a result
      // is then an index computation, not a map insertion.
      firstResult.push_back(valueOf.size());
      numResults.push_back(op->getNumResults());
      for (Value r : op->getResults())
        valueOf.push_back(r);
      // Operands are resolved now, while their definitions' entries in
      // opIndex were just written and are still in cache (looked up later,
      // each cost a cache miss on a 100k-op function).
      firstOperand.push_back(operandIds.size());
      for (Value v : op->getOperands())
        operandIds.push_back(!isTensor(v) ? kNoValue : resolvedId(v));
      if (auto r = dyn_cast<func::ReturnOp>(op))
        returns[f].push_back(r);
    });
    opRange.push_back({begin, allOps.size()});
  }
  firstOperand.push_back(operandIds.size()); // so that entry i + 1 ends entry i
  ids.assign(valueOf.size(), ShardingTable::kUnknown);
}

LogicalResult FunctionPropagation::run() {
  if (failed(seed()) || failed(collectGroups()))
    return failure();
  collectCallTies();
  annotateGroups(); // after the call ties: a declared call result is annotated
  buildGraph();
  // Rounds: every distinct written priority, then the unprioritised one.
  std::set<int64_t> rounds = {kLastRound};
  for (auto &entry : annotations)
    rounds.insert(entry.second.priority.begin(), entry.second.priority.end());
  for (auto &entry : sinkAnnotations)
    rounds.insert(entry.second.priority.begin(), entry.second.priority.end());
  int64_t previous = -1;
  for (int64_t round : rounds) {
    activate(previous, round);
    passThroughSettled = false; // the round's sources are new
    previous = round;
    for (OpClass cls : kSubRounds)
      runWorklist(cls);
  }
  if (failed(checkGroups()) || failed(checkRuleless()) || failed(checkCallResults()))
    return failure();
  return success();
}

void FunctionPropagation::activate(int64_t previous, int64_t round) {
  for (auto &[v, a] : annotations) {
    ShardingTable::Id &state = ids[idOf(v)];
    if (a.priority.empty()) {
      // No written priority: every dim comes in the last round, and a
      // value nothing has grown since its seed simply becomes what was
      // written (what the general case below computes, without copies).
      if (round != kLastRound)
        continue;
      if (state == a.initial) {
        state = a.full;
        continue;
      }
    }
    TensorSharding cur = table.get(state);
    const TensorSharding &want = table.get(activeIn(a, round));
    for (size_t d = 0; d < cur.dims.size(); ++d) {
      if (a.priorityOf(d) > round || a.priorityOf(d) <= previous)
        continue;
      // What the user wrote on a dim is kept: a closed dim is exact (a
      // constraint is hard), an open one may only grow past it. An open
      // dim of this value that took one of those axes in a stronger round
      // gives it back (and what it took after it).
      for (size_t e = 0; e < cur.dims.size(); ++e) {
        std::vector<int> &axes = cur.dims[e].axes;
        if (e == d)
          continue;
        auto clash =
            llvm::find_if(axes, [&](int x) { return llvm::is_contained(want.dims[d].axes, x); });
        axes.erase(clash, axes.end());
      }
      // An open dim keeps what it grew past the written axes (a `?`
      // without axes took part in every round).
      ArrayRef<int> written = want.dims[d].axes;
      if (!want.dims[d].open ||
          !llvm::equal(written, ArrayRef(cur.dims[d].axes).take_front(written.size())))
        cur.dims[d] = want.dims[d];
    }
    state = table.intern(cur);
  }
  for (auto &[key, a] : sinkAnnotations)
    sinks[key] = activeIn(a, round);
}

ShardingTable::Id FunctionPropagation::activeIn(const Annotation &a, int64_t round) {
  if (a.priority.empty())
    return round == kLastRound ? a.full : a.initial;
  return table.intern(shardc::activeInRound(table.get(a.full), a.priority, round));
}

void FunctionPropagation::buildGraph() {
  nodeOf.assign(allOps.size(), kNoNode);
  // At most one node per op and one entry per operand and result: sized
  // once instead of growing (the copies cost ~3% of the pass on long chains).
  nodes.reserve(allOps.size());
  nodeValues.reserve(operandIds.size() + valueOf.size());
  for (size_t i = 0; i < allOps.size(); ++i) {
    Operation *op = allOps[i];
    unsigned numOperands = firstOperand[i + 1] - firstOperand[i];
    Node n{op, Node::Kind::Rule, nullptr, static_cast<unsigned>(nodeValues.size()), 0,
           numOperands};
    if (ruleOf[i]) {
      n.rule = ruleOf[i];
    } else if (opFlags[i] & kHasRule) {
      continue; // a rule over non-tensor values: nothing to propagate
    } else if (opFlags[i] & kConstraint) {
      n.kind = Node::Kind::Constraint;
      n.rule = &rules.identity(cast<ShardingConstraintOp>(op).getType(), 2);
    } else if (opFlags[i] & kReturn) {
      n.kind = Node::Kind::Return;
    } else {
      continue;
    }
    for (unsigned k = 0; k < numOperands; ++k) {
      unsigned id = operandIds[firstOperand[i] + k];
      nodeValues.push_back(id == kUnresolved ? idOf(op->getOperand(k)) : id);
    }
    for (unsigned r = 0; r < numResults[i]; ++r)
      nodeValues.push_back(firstResult[i] + r);
    n.count = nodeValues.size() - n.first;
    nodeOf[i] = nodes.size();
    nodes.push_back(n);
  }
  // Edges from the nodes' side: a value's users are the nodes that read
  // it, in program order (ops outside the nodes cannot change anything).
  users.resize(valueOf.size());
  defNode.assign(valueOf.size(), kNoNode);
  for (unsigned n = 0; n < nodes.size(); ++n) {
    const Node &node = nodes[n];
    for (unsigned k = 0; k < node.count; ++k) {
      unsigned v = nodeValues[node.first + k];
      if (v == kNoValue)
        continue;
      if (k >= node.numOperands)
        defNode[v] = n;
      else if (users[v].empty() || users[v].back() != n)
        users[v].push_back(n);
    }
  }
}

void FunctionPropagation::runWorklist(OpClass cls) {
  // Items: a node index, or ~t for tie t (a sharding group or call tie).
  std::vector<int64_t> wave, next;
  std::vector<bool> queued(nodes.size(), false), queuedTies(ties.size(), false);
  auto push = [&](unsigned n) {
    if (n == kNoNode || queued[n])
      return;
    const Node &node = nodes[n];
    // Constraints and returns are identities: pass-through.
    bool inClass = cls == OpClass::Any || node.kind != Node::Kind::Rule ||
                   node.rule->passThrough;
    if (inClass) {
      queued[n] = true;
      next.push_back(n);
    }
  };
  auto pushTie = [&](size_t t) {
    if (!queuedTies[t]) {
      queuedTies[t] = true;
      next.push_back(~static_cast<int64_t>(t));
    }
  };
  // The first wave: the ops and ties that see a known value. One that sees
  // none would only make unknown values known and empty, which it does
  // not propose (isEmpty).
  auto seesKnown = [&](ArrayRef<unsigned> vals) {
    return llvm::any_of(vals, [&](unsigned v) {
      return v != kNoValue && ids[v] != ShardingTable::kUnknown;
    });
  };
  // After a settled pass-through sub-round, only the other ops can start
  // something (the settled ones propose nothing against this state).
  bool settled = cls != OpClass::PassThrough && passThroughSettled;
  auto settledHere = [&](const Node &node) {
    return settled && (node.kind != Node::Kind::Rule || node.rule->passThrough);
  };
  for (unsigned n = 0; n < nodes.size(); ++n)
    if (!settledHere(nodes[n]) &&
        (nodes[n].kind == Node::Kind::Return ||
         seesKnown(ArrayRef<unsigned>(nodeValues.data() + nodes[n].first, nodes[n].count))))
      push(n);
  for (size_t t = 0; t < ties.size(); ++t)
    if (!settled && seesKnown(ties[t].first))
      pushTie(t);
  waveHead.assign(valueOf.size(), kNone);
  contested.assign(valueOf.size(), false);
  contestedOf.clear();
  numContested = 0;
  SmallVector<unsigned> changed;
  while (!next.empty()) {
    std::swap(wave, next);
    next.clear();
    for (int64_t item : wave) {
      proposer = item;
      if (item >= 0) {
        queued[item] = false;
        step(nodes[item]);
      } else {
        queuedTies[~item] = false;
        tieStep(~item);
      }
    }
    changed.clear();
    for (unsigned v : touched)
      commit(v, changed);
    // An op whose proposal for v is exactly what v became has nothing new
    // to say about v: its step already merged that state (a chain's op is
    // not revisited for the value it just made).
    for (unsigned v : changed) {
      SmallVector<int64_t, 4> exact;
      for (unsigned p = waveHead[v]; p != kNone; p = proposals[p].next)
        if (proposals[p].id == ids[v])
          exact.push_back(proposals[p].proposer);
      auto heard = [&](int64_t item) { return llvm::is_contained(exact, item); };
      for (unsigned user : users[v])
        if (!heard(user))
          push(user);
      if (defNode[v] != kNoNode && !heard(defNode[v]))
        push(defNode[v]);
      auto member = tiesOf.find(v);
      if (member != tiesOf.end())
        for (size_t t : member->second)
          if (!heard(~static_cast<int64_t>(t)))
            pushTie(t);
    }
    for (unsigned v : touched)
      waveHead[v] = kNone;
    touched.clear();
    proposals.clear();
  }
  passThroughSettled = cls == OpClass::PassThrough && numContested == 0;
}






void FunctionPropagation::tieStep(size_t t) {
  ArrayRef<unsigned> members = ties[t].first;
  apply(rules.identity(cast<RankedTensorType>(valueOf[members.front()].getType()),
                       members.size()),
        members, ShardingTable::kUnknown);
}

auto FunctionPropagation::memoizedStep(const CachedRule &rule, ArrayRef<uint32_t> key)
    -> const StepResult & {
  return steps.get(key, [&] {
    std::vector<std::optional<TensorSharding>> tensors;
    for (uint32_t id : key.drop_front())
      tensors.push_back(id == ShardingTable::kUnknown
                            ? std::nullopt
                            : std::optional<TensorSharding>(table.get(id)));
    StepResult r;
    for (size_t t : shardc::propagateStep(rule.rule, tensors, core))
      r.changed.push_back(t);
    for (const std::optional<TensorSharding> &t : tensors)
      r.after.push_back(table.intern(*t)); // propagateStep leaves none unknown
    return r;
  });
}

void FunctionPropagation::apply(const CachedRule &rule, ArrayRef<unsigned> vals,
                                ShardingTable::Id fixed) {
  key.clear();
  key.push_back(rule.index);
  for (unsigned v : vals)
    key.push_back(v == kSink ? fixed : ids[v]);
  const StepResult &r = memoizedStep(rule, key);
  size_t firstNew = proposals.size();
  for (unsigned t : r.changed) {
    unsigned v = vals[t];
    if (v == kSink)
      continue;
    ShardingTable::Id before = ids[v], now = r.after[t];
    if (before == ShardingTable::kUnknown ? isEmpty(now)
                                          : before == now ||
                                                table.get(before).dims == table.get(now).dims)
      continue;
    propose(v, now);
  }
  // A value whose growth is contested hears from every neighbour each
  // time it steps, changed or not: the proposal replaces the stale one.
  if (numContested == 0)
    return;
  for (auto [t, v] : llvm::enumerate(vals))
    if (v != kSink && contested[v] &&
        llvm::none_of(ArrayRef<Proposal>(proposals).drop_front(firstNew),
                      [&, v = v](const Proposal &p) { return p.v == v; }))
      propose(v, r.after[t]);
}

bool FunctionPropagation::isEmpty(ShardingTable::Id id) {
  if (id == emptyMemo.first)
    return emptyMemo.second;
  const TensorSharding &s = table.get(id);
  bool empty = s.pending.empty() && llvm::all_of(s.dims, [](const shardc::DimSharding &d) {
                 return d.axes.empty() && d.open;
               });
  emptyMemo = {id, empty};
  return empty;
}

void FunctionPropagation::propose(unsigned v, ShardingTable::Id id) {
  unsigned &head = waveHead[v];
  if (head == kNone)
    touched.push_back(v);
  proposals.push_back({v, id, proposer, head});
  head = proposals.size() - 1;
}

void FunctionPropagation::commit(unsigned v, SmallVectorImpl<unsigned> &changed) {
  SmallVector<unsigned, 4> mine; // proposal indices, in wave order
  for (unsigned p = waveHead[v]; p != kNone; p = proposals[p].next)
    mine.push_back(p);
  std::reverse(mine.begin(), mine.end());
  ShardingTable::Id merged = proposals[mine.front()].id;
  bool same = llvm::all_of(mine, [&](unsigned p) { return proposals[p].id == merged; });
  if (!same || contested[v]) {
    // Every proposer's latest word: this wave's, then the contested ones
    // of proposers that did not step in it (their inputs did not change).
    // (One proposer may have several words: a value in two operand slots.)
    SmallVector<std::pair<int64_t, ShardingTable::Id>, 4> all;
    SmallVector<int64_t, 4> stepped;
    for (unsigned p : mine) {
      all.push_back({proposals[p].proposer, proposals[p].id});
      stepped.push_back(proposals[p].proposer);
    }
    if (contested[v])
      for (auto &entry : contestedOf[v])
        if (!llvm::is_contained(stepped, entry.first))
          all.push_back(entry);
    SmallVector<ShardingTable::Id, 4> candidates;
    ShardingTable::Id fromDef = ShardingTable::kUnknown;
    for (auto &a : all) {
      if (defNode[v] != kNoNode && a.first == static_cast<int64_t>(defNode[v]))
        fromDef = a.second;
      else
        candidates.push_back(a.second);
    }
    merged = mergeProposals(fromDef, candidates);
    SmallVector<std::pair<int64_t, ShardingTable::Id>, 2> unsatisfied;
    for (auto &a : all)
      if (!satisfies(merged, a.second))
        unsatisfied.push_back(a);
    if (explain && !unsatisfied.empty())
      conflicts[v].assign(all.begin(), all.end());
    bool was = contested[v];
    contested[v] = !unsatisfied.empty();
    numContested += static_cast<int>(contested[v]) - static_cast<int>(was);
    // Every word is kept, the satisfied ones too: a proposer that does not
    // step next wave still holds its word then. Keeping only the
    // unsatisfied ones let the merge flip with who stepped (the defining
    // op's word, which holds against users', was forgotten whenever it did
    // not step, and propagation never ended).
    if (contested[v])
      contestedOf[v].assign(all.begin(), all.end());
    else
      contestedOf.erase(v);
  }
  ShardingTable::Id before = ids[v];
  if (before != ShardingTable::kUnknown &&
      (before == merged || table.get(before).dims == table.get(merged).dims))
    return;
  ids[v] = merged;
  changed.push_back(v);
}

ShardingTable::Id FunctionPropagation::mergeProposals(ShardingTable::Id fromDef,
                                   ArrayRef<ShardingTable::Id> candidates) {
  bool hasDef = fromDef != ShardingTable::kUnknown;
  TensorSharding out = table.get(hasDef ? fromDef : candidates.front());
  size_t rank = out.dims.size();
  // Axes the candidates place on different dims conflict like different
  // axes on one dim: no dim keeps them.
  std::map<int, std::set<size_t>> dimsOf;
  for (ShardingTable::Id c : candidates)
    for (size_t d = 0; d < rank; ++d)
      for (int axis : table.get(c).dims[d].axes)
        dimsOf[axis].insert(d);
  std::vector<int> taken = out.pending;
  if (hasDef) // the defining op's axes hold, on their dims
    for (size_t d = 0; d < rank; ++d)
      llvm::append_range(taken, table.get(fromDef).dims[d].axes);
  for (size_t d = 0; d < rank; ++d) {
    std::vector<const std::vector<int> *> lists;
    for (ShardingTable::Id c : candidates)
      lists.push_back(&table.get(c).dims[d].axes);
    std::vector<int> chosen = shardc::mergeAxisLists(lists); // policy 2, as in a step
    for (size_t i = 0; i < chosen.size(); ++i)
      if (dimsOf[chosen[i]].size() > 1) {
        chosen.resize(i);
        break;
      }
    std::vector<int> result = hasDef ? table.get(fromDef).dims[d].axes : std::vector<int>();
    // Extend what holds by the candidates' merge where it is a prefix of
    // it, up to the first axis another dim already has.
    if (chosen.size() > result.size() && shardc::isPrefix(result, chosen))
      for (size_t i = result.size(); i < chosen.size(); ++i) {
        if (llvm::is_contained(taken, chosen[i]))
          break;
        result.push_back(chosen[i]);
        taken.push_back(chosen[i]);
      }
    out.dims[d].axes = std::move(result);
  }
  return table.intern(out);
}

bool FunctionPropagation::satisfies(ShardingTable::Id merged, ShardingTable::Id c) {
  if (merged == c)
    return true;
  const TensorSharding &m = table.get(merged), &s = table.get(c);
  for (size_t d = 0; d < s.dims.size(); ++d)
    if (!shardc::isPrefix(s.dims[d].axes, m.dims[d].axes))
      return false;
  return true;
}

void FunctionPropagation::step(const Node &n) {
  ArrayRef<unsigned> vals(nodeValues.data() + n.first, n.count);
  if (n.kind != Node::Kind::Return) // a rule op, or a constraint's identity
    return apply(*n.rule, vals, ShardingTable::kUnknown);
  for (auto [i, v] : llvm::enumerate(vals)) {
    auto sink = sinks.find({n.op, static_cast<unsigned>(i)});
    if (sink == sinks.end() || v == kNoValue)
      continue;
    unsigned pair[2] = {v, kSink};
    apply(rules.identity(cast<RankedTensorType>(valueOf[v].getType()), 2), pair, sink->second);
  }
}

void FunctionPropagation::finalize() {
  for (size_t i = 0; i < funcs.size(); ++i)
    finalize(funcs[i], opRange[i].first, opRange[i].second);
}



void FunctionPropagation::finalize(func::FuncOp func, size_t begin, size_t end) {
  MLIRContext *ctx = func.getContext();
  FlatSymbolRefAttr meshRef = FlatSymbolRefAttr::get(ctx, mesh.getSymName());
  // One attribute per distinct final sharding (by interned id; unknown
  // values by rank), not one fromCore per value.
  llvm::DenseMap<std::pair<ShardingTable::Id, int64_t>, ShardingAttr> attrs;
  auto finalOf = [&](Value v, unsigned valueId) {
    ShardingTable::Id id = ids[valueId];
    int64_t rank = id == ShardingTable::kUnknown ? cast<RankedTensorType>(v.getType()).getRank()
                                                 : -1;
    ShardingAttr &a = attrs[{id, rank}];
    if (!a)
      a = fromCore(ctx, meshRef, core, closedFinal(v));
    return a;
  };
  shardc::ShardingWriter writer(ctx);
  SmallVector<Attribute> argShardings;
  for (BlockArgument arg : func.getArguments())
    argShardings.push_back(isTensor(arg) ? Attribute(finalOf(arg, idOf(arg)))
                                         : func.getArgAttr(arg.getArgNumber(), kShardingAttrName));
  writer.setArguments(func, argShardings);
  for (size_t i = begin; i < end; ++i) {
    if ((opFlags[i] & kReturn) || numResults[i] == 0)
      continue;
    Operation *op = allOps[i];
    // A constraint's open dims and priorities are decided now: its target
    // is written closed, like arguments, so a second run starts from the
    // decision and changes nothing.
    if (opFlags[i] & kConstraint) {
      auto c = cast<ShardingConstraintOp>(op);
      if (llvm::any_of(c.getSharding().getDims(), [](DimShardingAttr d) {
            return d.getOpen() || d.getPriority() >= 0;
          }))
        c.setShardingAttr(finalOf(c.getResult(), firstResult[i]));
    }
    if (!llvm::all_of(op->getResults(), isTensor))
      continue;
    // One sharding per signature: a call's results are written as its
    // callee's results (writtenLayout; insert-reshards reshards a user
    // that wants another layout), not where a nearer user pulled them.
    auto call = dyn_cast<func::CallOp>(op);
    bool intoSet = call && calleeInSet(call);
    for (OpResult r : op->getResults())
      writer.set(r, intoSet ? fromCore(ctx, meshRef, core, writtenLayout(r))
                            : finalOf(r, firstResult[i] + r.getResultNumber()));
  }
  // An undeclared result takes the sharding its returns give (what they
  // share, when there are several); a declared one is written closed and
  // without priorities, its open dims filled from that as far as they
  // agree.
  SmallVector<func::ReturnOp> &rets = returns[func];
  SmallVector<Attribute> resultShardings;
  bool resultsChange = false;
  for (auto [i, v] : llvm::enumerate(rets.front().getOperands())) {
    resultShardings.push_back(func.getResultAttr(i, kShardingAttrName));
    if (!isTensor(v))
      continue;
    Attribute now = getResultSharding(func, i) ? fromCore(ctx, meshRef, core, declaredResult(func, i))
                    : rets.size() == 1         ? finalOf(v, idOf(v))
                                       : fromCore(ctx, meshRef, core, returnedLayout(func, i));
    resultsChange |= now != resultShardings.back();
    resultShardings.back() = now;
  }
  if (resultsChange)
    writer.setResults(func, resultShardings);
}







unsigned FunctionPropagation::resolvedId(Value v) {
  if (auto r = dyn_cast<OpResult>(v)) {
    // Most operands were made a few ops before their user (collected just
    // before it): those are found without hashing.
    Operation *owner = r.getOwner();
    size_t n = allOps.size();
    for (size_t back = 2; back <= 4 && back <= n; ++back)
      if (allOps[n - back] == owner)
        return firstResult[n - back] + r.getResultNumber();
    auto it = opIndex.find(owner);
    return it == opIndex.end() ? kUnresolved : firstResult[it->second] + r.getResultNumber();
  }
  return idOf(v);
}

} // namespace shardc::propagation
