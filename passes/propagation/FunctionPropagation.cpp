//===- FunctionPropagation.cpp - garray-propagate's fixed point ----------===//
//
// Seeding (annotations, groups, call ties), the op graph, the worklist of
// waves with its merge, and writing the result back (FunctionPropagation.h
// says what it keeps).
//
//===----------------------------------------------------------------------===//
#include "passes/propagation/FunctionPropagation.h"

#include "passes/ShardingWriter.h"

#include "mlir/IR/Builders.h"

namespace shardc::propagation {

/// A member `v` (at `loc`) of sharding group `id` whose type differs from
/// the group's first member's.
LogicalResult groupTypeError(int64_t id, Value first, Value v, Location loc) {
  InFlightDiagnostic d = emitError(loc) << "sharding group " << id << " ties values of types "
                                        << first.getType() << " and " << v.getType()
                                        << "; its members must have one type";
  d.attachNote(first.getLoc()) << "first member of the group";
  return failure();
}

/// Checks annotation `s` (null: none) at `where` in `func` against the mesh
/// `name` that an earlier annotation at `first` named; the first annotation
/// sets both. One function's annotations must all name one existing mesh.
static LogicalResult checkOneMesh(func::FuncOp func, ShardingAttr s, Operation *where,
                           FlatSymbolRefAttr &name, Operation *&first) {
  if (!s || s.getMesh() == name)
    return success();
  if (!lookupMesh(func, s.getMesh()))
    return where->emitError("the sharding names mesh ")
           << s.getMesh() << ", but no garray.mesh with that name is in scope";
  if (!name) {
    name = s.getMesh();
    first = where;
    return success();
  }
  InFlightDiagnostic d = where->emitError("a function may use one mesh, but this names ")
                         << s.getMesh() << " while an earlier annotation names " << name;
  d.attachNote(first->getLoc()) << "first mesh named here";
  return d;
}

/// The one mesh all annotations in `func` name; null if none; failure if two.
/// When the signature names one, the body is not searched here (a walk of
/// every op): FunctionPropagation checks the body's annotations against it
/// while seeding (checkBodyMeshes), with the same errors.
FailureOr<MeshOp> findMesh(func::FuncOp func) {
  FlatSymbolRefAttr name;
  Operation *first = nullptr;
  LogicalResult ok = success();
  auto visit = [&](ShardingAttr s, Operation *where) {
    if (succeeded(ok))
      ok = checkOneMesh(func, s, where, name, first);
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    visit(func.getArgAttrOfType<ShardingAttr>(i, kShardingAttrName), func);
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    visit(getResultSharding(func, i), func);
  if (!name && succeeded(ok))
    func.walk([&](Operation *op) {
      if (auto c = dyn_cast<ShardingConstraintOp>(op))
        visit(c.getSharding(), op);
      // Most ops carry no discardable attribute before propagation: skip
      // getAttr's name search for them.
      else if (op->getRawDictionaryAttrs().empty())
        return;
      else if (auto s = op->getAttrOfType<ShardingAttr>(kShardingAttrName))
        visit(s, op);
    });
  if (failed(ok))
    return failure();
  if (!name)
    return MeshOp();
  MeshOp mesh = lookupMesh(func, name);
  if (!mesh)
    return func.emitError("sharding annotations name mesh ")
           << name << ", but no garray.mesh with that name is in scope";
  return mesh;
}

/// file:line:col for remarks (the first of a fused location).
std::string where(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return where(fused.getLocations().front());
  if (auto name = dyn_cast<NameLoc>(loc))
    return where(name.getChildLoc());
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().str() + ":" + std::to_string(file.getLine()) + ":" +
            std::to_string(file.getColumn()));
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

/// What the annotation was written on.
static std::string describeWritten(const Annotation &a) {
  using Kind = Annotation::Kind;
  auto named = [&](StringRef noun, StringAttr name) {
    return name ? (noun + " '" + name.getValue() + "'").str()
                : (noun + " #" + Twine(a.index)).str();
  };
  switch (a.kind) {
  case Kind::Argument:
    return named("argument", cast<func::FuncOp>(a.op).getArgAttrOfType<StringAttr>(
                                 a.index, "garray.name"));
  case Kind::OpResult:
    return "result of '" + a.op->getName().getStringRef().str() + "'";
  case Kind::Constraint:
    // One the compiler wrote says which pass and why.
    if (auto reason = a.op->getAttrOfType<StringAttr>("reason"))
      return "sharding_constraint (" + reason.str() + ")";
    return "sharding_constraint";
  case Kind::FunctionResult: // a declared result, where its returns and its calls see it
  case Kind::CallResult:
    return named("result", cast<func::FuncOp>(a.op).getResultAttrOfType<StringAttr>(
                               a.index, "garray.name")) +
           " of @" + cast<func::FuncOp>(a.op).getSymName().str();
  }
  llvm_unreachable("every kind is worded");
}

/// "argument 'x'", "result #0 of @f", "sharding_constraint", "argument 'w'
/// through sharding group 0", ...
std::string describe(const Annotation &a) {
  std::string s = describeWritten(a);
  if (a.group)
    s += " through sharding group " + std::to_string(*a.group);
  return s;
}


/// `funcs`: the functions propagated together (callers and callees tied
/// through their calls), in module order; `mesh` is anchored at the first.
FunctionPropagation::FunctionPropagation(SmallVector<func::FuncOp> funcs, MeshOp mesh, const shardc::Mesh &core,
                      bool explain) : funcs(std::move(funcs)), mesh(mesh), core(core), explain(explain) {
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
        returnsOf[f].push_back(r);
    });
    opRange.push_back({begin, allOps.size()});
  }
  firstOperand.push_back(operandIds.size()); // so that entry i + 1 ends entry i
  ids.assign(valueOf.size(), ShardingTable::kUnknown);
}

auto FunctionPropagation::run() -> LogicalResult {
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
    previous = round;
    for (OpClass cls : kSubRounds)
      runWorklist(cls);
  }
  if (failed(checkGroups()) || failed(checkRuleless()) || failed(checkCallResults()))
    return failure();
  if (explain)
    explainAll();
  finalize();
  return success();
}

/// Makes the dims of round `round` sources: annotated values get the newly
/// active dims (axes already used by grown dims are dropped: the stronger
/// round keeps them); sinks take their view for this round.
auto FunctionPropagation::activate(int64_t previous, int64_t round) -> void {
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
      if (!want.dims[d].open) {
        // A closed written dim is exact (a constraint is hard, an
        // annotation keeps what the user wrote): an open dim of this value
        // that took one of its axes in a stronger round gives it back.
        for (size_t e = 0; e < cur.dims.size(); ++e) {
          std::vector<int> &axes = cur.dims[e].axes;
          if (e == d)
            continue;
          auto clash = llvm::find_if(
              axes, [&](int x) { return llvm::is_contained(want.dims[d].axes, x); });
          axes.erase(clash, axes.end());
        }
        cur.dims[d] = want.dims[d];
        continue;
      }
      std::vector<int> used = cur.usedAxes();
      shardc::DimSharding next{{}, want.dims[d].open};
      for (int axis : want.dims[d].axes) {
        if (llvm::is_contained(used, axis) && !llvm::is_contained(cur.dims[d].axes, axis))
          break;
        next.axes.push_back(axis);
      }
      cur.dims[d] = next;
    }
    state = table.intern(cur);
  }
  for (auto &[key, a] : sinkAnnotations)
    sinks[key] = activeIn(a, round);
}

/// `a` as a source in round `round`: dims whose round has not come are
/// closed and empty (they neither give nor take).
auto FunctionPropagation::activeIn(const Annotation &a, int64_t round) -> ShardingTable::Id {
  if (a.priority.empty())
    return round == kLastRound ? a.full : a.initial;
  return table.intern(shardc::activeInRound(table.get(a.full), a.priority, round));
}

/// An annotation of sharding `s` on a value of `type`: its core form is
/// verified and interned once per distinct (s, type) (a model's
/// parameters share a few); `what` and `emitError` word the error.
auto FunctionPropagation::makeAnnotation(ShardingAttr s, Type type, Annotation::Kind kind,
                                       Operation *op, unsigned index, Location loc,
                                       function_ref<InFlightDiagnostic()> emitError) -> FailureOr<Annotation> {
  Annotation a{ShardingTable::kUnknown, ShardingTable::kUnknown, {}, loc, kind, op, index};
  auto [it, inserted] = writtenIds.try_emplace({s, type});
  if (inserted) {
    FailureOr<TensorSharding> t;
    if (succeeded(verifyShardingFor(s, type, op, emitError, describe(a))))
      t = toCore(s, mesh, cast<RankedTensorType>(type).getRank(), emitError);
    if (failed(t)) {
      writtenIds.erase(it);
      return failure();
    }
    TensorSharding none = *t;
    for (shardc::DimSharding &d : none.dims)
      d = {};
    it->second = {table.intern(*t), table.intern(none)};
  }
  std::tie(a.full, a.initial) = it->second;
  if (llvm::any_of(s.getDims(), [](DimShardingAttr d) { return d.hasPriority(); }))
    for (DimShardingAttr d : s.getDims())
      a.priority.push_back(d.hasPriority() ? d.getPriority() : kLastRound);
  return a;
}

/// Records `v`'s annotation; `v` starts with every dim closed and empty
/// until the round of its priority (activate).
auto FunctionPropagation::annotate(Value v, Annotation a) -> void {
  ids[idOf(v)] = a.initial;
  annotations.insert({v, std::move(a)});
}

/// The graph the worklist runs on, built once: one node per op a step can
/// change (rule ops over tensors, constraints, returns), with its values as
/// ids (operands, then results), and per value its users (the nodes that
/// read it, in program order) and its defining node. Ops that no step can
/// change are not nodes: visiting them would do nothing. Built from what
/// the constructor collected, without reading the ops again: on a 100k-op
/// function every pass over the ops' memory costs a cache miss per op.
auto FunctionPropagation::buildGraph() -> void {
  nodeOf.assign(allOps.size(), kNoNode);
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

/// One sub-round, in waves: every item of a wave steps against the state
/// at the start of the wave, then each value takes the merge of what its
/// ops proposed (commit), and the next wave is the ops and ties of the
/// values that grew. Each wave is a set and each commit a function of a
/// set of proposals, so the result does not depend on the order of ops:
/// two ops that want different axes for one value meet in one merge
/// instead of the first one visited winning.
auto FunctionPropagation::runWorklist(OpClass cls) -> void {
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
  for (unsigned n = 0; n < nodes.size(); ++n)
    if (nodes[n].kind == Node::Kind::Return ||
        seesKnown(ArrayRef<unsigned>(nodeValues.data() + nodes[n].first, nodes[n].count)))
      push(n);
  for (size_t t = 0; t < ties.size(); ++t)
    if (seesKnown(ties[t].first))
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
}

/// Reads `garray.sharding_group = N` off arguments and op results.
auto FunctionPropagation::collectGroups() -> LogicalResult {
  LogicalResult ok = success();
  auto add = [&](Value v, Attribute attr, Location loc) {
    if (!attr)
      return;
    auto id = dyn_cast<IntegerAttr>(attr);
    if (!id || !isTensor(v)) {
      ok = emitError(loc) << kGroupAttrName
                          << " must be an integer on a tensor argument or tensor result";
      return;
    }
    auto &members = groups[id.getInt()];
    if (!members.empty() && members.front().getType() != v.getType()) {
      ok = groupTypeError(id.getInt(), members.front(), v, loc);
      return;
    }
    members.push_back(v);
  };
  for (func::FuncOp func : funcs) {
    for (BlockArgument arg : func.getArguments())
      add(arg, func.getArgAttr(arg.getArgNumber(), kGroupAttrName), arg.getLoc());
    for (unsigned i = 0; i < func.getNumResults() && succeeded(ok); ++i)
      if (func.getResultAttr(i, kGroupAttrName))
        ok = func.emitError() << kGroupAttrName << " on result #" << i
                              << " is not supported: put it on the op that makes the "
                                 "returned value, or on an argument";
  }
  walkAll(kHasAttrs, [&](Operation *op) {
    Attribute a = op->getAttr(kGroupAttrName);
    if (!a || failed(ok))
      return;
    if (op->getNumResults() == 0) // a return: the group would tie nothing
      ok = op->emitError() << kGroupAttrName << " on '" << op->getName()
                           << "' is not supported: put it on the op that makes the returned "
                              "value, or on an argument";
    for (Value r : op->getResults())
      add(r, a, op->getLoc());
  });
  for (auto &entry : groups)
    addTie(entry.second, nullptr);
  return ok;
}

/// The members of a group are one value: a closed sharding written on one
/// member holds for every unannotated member, from its round on, like a
/// constraint on each. Otherwise it would not stop an annotation nearer to
/// an unannotated optimizer moment from pulling the moment (and so the
/// group) apart. Members annotated differently keep what was written
/// (checkGroups names them). Not copied: an annotation with open dims
/// (an open dim leaves the decision to propagation; as an annotation it
/// would only keep the member empty until its round), and onto results
/// of ops without a sharding rule or of calls (computed whole, or in their
/// callee's layout: the tie reaches them as before).
auto FunctionPropagation::annotateGroups() -> void {
  for (auto &[id, members] : groups) {
    std::optional<Annotation> written;
    bool agree = true;
    for (Value m : members) {
      auto it = annotations.find(m);
      if (it == annotations.end())
        continue;
      const Annotation &a = it->second;
      if (!written)
        written = a;
      else
        agree &= a.full == written->full && a.priority == written->priority;
    }
    if (!written || !agree ||
        llvm::any_of(table.get(written->full).dims,
                     [](const shardc::DimSharding &d) { return d.open; }))
      continue;
    written->group = id;
    for (Value m : members)
      if (!annotations.count(m) && hasOwnRule(m))
        annotate(m, *written);
  }
}

/// Whether `v` is an argument or the result of an op that propagation
/// steps through with a sharding rule.
auto FunctionPropagation::hasOwnRule(Value v) -> bool {
  auto r = dyn_cast<OpResult>(v);
  return !r || ruleFor(r.getOwner());
}

/// The layout finalize writes for `v`: a call's result takes its callee's
/// result layout (one signature), any other value its own final state.
auto FunctionPropagation::writtenLayout(Value v) -> TensorSharding {
  if (auto r = dyn_cast<OpResult>(v))
    if (auto call = dyn_cast<func::CallOp>(r.getOwner()))
      if (func::FuncOp callee = calleeInSet(call))
        return resultLayout(callee, r.getResultNumber());
  return closedFinal(v);
}

/// Result i of a function, as finalize writes it: a declared result
/// closed (its open dims filled), else what the first return gives.
/// "Declared" as seeded, not read from the IR, which finalize rewrites.
auto FunctionPropagation::resultLayout(func::FuncOp func, unsigned i) -> TensorSharding {
  func::ReturnOp ret = returnsOf[func].front();
  Value out = ret.getOperand(i);
  return sinkAnnotations.count({ret, i}) ? declaredResult(ret, i, out) : closedFinal(out);
}

/// A sharding written on a call's result must be its callee's result
/// layout (what this pass writes there): one sharding per signature.
auto FunctionPropagation::checkCallResults() -> LogicalResult {
  LogicalResult ok = success();
  walkAll(kNoRule | kHasAttrs, [&](func::CallOp call) {
    func::FuncOp callee = calleeInSet(call);
    if (!callee || failed(ok))
      return;
    for (OpResult r : call->getResults()) {
      ShardingAttr written = getSharding(r);
      if (!written || !isTensor(r))
        continue;
      TensorSharding want = writtenLayout(r);
      FailureOr<TensorSharding> got =
          toCore(written, mesh, cast<RankedTensorType>(r.getType()).getRank());
      if (failed(got) || !got->sameLayout(want))
        ok = call.emitError("the result of a call to @")
             << callee.getSymName() << " has the callee's result layout " << want.str(core)
             << " (one sharding per function signature), not the "
             << (succeeded(got) ? got->str(core) : std::string("sharding"))
             << " written on it; put a garray.sharding_constraint after the call";
    }
  });
  return ok;
}

/// After the fixed point every member of a group must hold one sharding.
/// They cannot when members were annotated differently (annotations are
/// closed), or when annotations nearer to the members than to each other
/// pull them apart: an error naming both, instead of a group that silently
/// is not one.
auto FunctionPropagation::checkGroups() -> LogicalResult {
  for (auto &[id, members] : groups) {
    TensorSharding first = writtenLayout(members.front());
    for (Value v : ArrayRef<Value>(members).drop_front()) {
      TensorSharding s = writtenLayout(v);
      if (s.sameLayout(first))
        continue;
      // A member made by an op without a sharding rule (an external
      // call) is computed whole: no annotation can place it, so the
      // advice is to take it out of the group, not to annotate.
      auto ruleless = [&](Value m) -> Operation * {
        auto r = dyn_cast<OpResult>(m);
        auto at = r ? opIndex.find(r.getOwner()) : opIndex.end();
        if (at == opIndex.end() || (opFlags[at->second] & (kNoRule | kConstraint)) != kNoRule)
          return nullptr;
        auto call = dyn_cast<func::CallOp>(r.getOwner());
        return call && calleeInSet(call) ? nullptr : r.getOwner();
      };
      auto describe = [&](Value m) {
        std::string which;
        if (auto r = dyn_cast<OpResult>(m); r && r.getOwner()->getNumResults() > 1)
          which = "result #" + std::to_string(r.getResultNumber()) + ", ";
        if (auto a = annotations.find(m); a != annotations.end())
          return which + "annotated " + written(a->second);
        Operation *op = ruleless(m);
        if (!op)
          return which + "unannotated";
        std::string made = "made by '" + op->getName().getStringRef().str() + "'";
        if (auto call = dyn_cast<func::CallOp>(op))
          made += " of @" + call.getCallee().str();
        return which + made + ", which has no sharding rule: computed whole on every device";
      };
      InFlightDiagnostic d = emitError(v.getLoc())
                             << "sharding group " << id << " cannot give its members one "
                             << "sharding: this member ends " << s.str(core) << " ("
                             << describe(v) << "), the first ends " << first.str(core) << " ("
                             << describe(members.front()) << "); ";
      // The advice names what keeps the group's annotation from holding
      // for every member (annotateGroups copies only an agreed, closed one).
      SmallVector<const Annotation *> written;
      for (Value m : members)
        if (auto a = annotations.find(m); a != annotations.end() && !a->second.group)
          written.push_back(&a->second);
      auto differs = [&](const Annotation *a) {
        return a->full != written.front()->full || a->priority != written.front()->priority;
      };
      auto open = [&](const Annotation *a) {
        return llvm::any_of(table.get(a->full).dims,
                            [](const shardc::DimSharding &dim) { return dim.open; });
      };
      auto callResult = [&](Value m) {
        auto r = dyn_cast<OpResult>(m);
        auto call = r ? dyn_cast<func::CallOp>(r.getOwner()) : func::CallOp();
        return call && calleeInSet(call) && !annotations.count(m);
      };
      if (ruleless(v) || ruleless(members.front()))
        d << "take the value without a sharding rule out of the group, or give the group "
             "values that ops with a rule compute";
      else if (callResult(v) || callResult(members.front()))
        d << "a call's result is written as its callee's result (one sharding per "
             "signature), so the group's annotation cannot hold for it: annotate the callee's "
             "result, or group a sharding_constraint of the call's result instead";
      else if (llvm::any_of(written, differs))
        d << "its annotated members differ in sharding or priority, so neither holds for the "
             "others; write one sharding, with the same priorities, on each";
      else if (llvm::any_of(written, open))
        d << "an annotation with open dims does not hold for the other members; close its "
             "dims (None instead of ?) so that it holds for the whole group";
      else
        d << "make the annotations that reach the members agree, or annotate one member "
             "with the sharding the group should have";
      d.attachNote(members.front().getLoc()) << "first member of the group";
      return failure();
    }
  }
  return success();
}

/// A tie: values that share one sharding by an identity rule over all of
/// them at once (so the result depends on the set, not on visiting order).
auto FunctionPropagation::addTie(ArrayRef<Value> members, Operation *via) -> void {
  if (members.size() < 2)
    return;
  SmallVector<unsigned> ids;
  for (Value v : members)
    ids.push_back(idOf(v));
  ties.push_back({ids, via});
  for (unsigned v : ids)
    tiesOf[v].push_back(ties.size() - 1);
}

/// The callee of `call` when it is propagated with this set; else null.
auto FunctionPropagation::calleeInSet(func::CallOp call) -> func::FuncOp {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  return callee && inSet.contains(callee.getOperation()) ? callee : func::FuncOp();
}

/// One sharding per function signature: argument i of a callee is tied to
/// operand i of every call of it, result i (every return's operand i) to
/// result i of every call. Information flows into the callee and back out.
auto FunctionPropagation::collectCallTies() -> void {
  llvm::MapVector<Operation *, SmallVector<func::CallOp>> sites;
  for (func::FuncOp f : funcs)
    sites[f.getOperation()];
  walkAll(kNoRule, [&](func::CallOp call) {
    if (func::FuncOp callee = calleeInSet(call))
      sites[callee.getOperation()].push_back(call);
  });
  for (auto &[op, calls] : sites) {
    if (calls.empty())
      continue;
    auto callee = cast<func::FuncOp>(op);
    for (BlockArgument arg : callee.getArguments()) {
      if (!isTensor(arg))
        continue;
      SmallVector<Value> members = {arg};
      for (func::CallOp call : calls)
        members.push_back(call.getOperand(arg.getArgNumber()));
      if (explain) {
        callTies.push_back({{arg, nullptr}});
        for (func::CallOp call : calls)
          callTies.back().push_back({call.getOperand(arg.getArgNumber()), call});
      }
      addTie(members, calls.front());
    }
    ArrayRef<func::ReturnOp> rets = returnsOf[callee];
    for (unsigned i = 0; i < callee.getNumResults(); ++i) {
      auto type = dyn_cast<RankedTensorType>(callee.getResultTypes()[i]);
      if (!type)
        continue;
      // A declared result is the callee's interface: its call results
      // have exactly that layout (annotated with it), whatever the return
      // operands reach; those are pulled toward it as a sink.
      ShardingAttr declared = getResultSharding(callee, i);
      if (declared) {
        for (func::CallOp call : calls) {
          // The callee's signature was verified by seedSignature.
          // Located where the declared result is (its return), not at
          // the call: explain names one annotation, wherever seen from.
          Annotation a = *makeAnnotation(declared, type, Annotation::Kind::CallResult, callee, i,
                                         rets.front()->getLoc(), [&] { return call.emitError(); });
          annotate(call.getResult(i), std::move(a));
        }
        // A declared result with an open dim is written with that dim
        // filled from the returned value (declaredResult): the call
        // results are tied to it as well, so their users propagate from
        // what is written, not from the dim left empty.
        if (llvm::none_of(declared.getDims(), [](DimShardingAttr d) { return d.getOpen(); }))
          continue;
      }
      SmallVector<Value> members;
      for (func::ReturnOp r : rets)
        members.push_back(r.getOperand(i));
      for (func::CallOp call : calls)
        members.push_back(call.getResult(i));
      if (explain) {
        callTies.emplace_back();
        for (func::ReturnOp r : rets)
          callTies.back().push_back({r.getOperand(i), r});
        for (func::CallOp call : calls)
          callTies.back().push_back({call.getResult(i), call});
      }
      addTie(members, calls.front());
    }
  }
}

auto FunctionPropagation::tieStep(size_t t) -> void {
  ArrayRef<unsigned> members = ties[t].first;
  apply(rules.identity(cast<RankedTensorType>(valueOf[members.front()].getType()),
                       members.size()),
        members, ShardingTable::kUnknown);
}

auto FunctionPropagation::seed() -> LogicalResult {
  if (failed(checkBodyMeshes()))
    return failure();
  for (func::FuncOp func : funcs)
    if (failed(seedSignature(func)))
      return failure();
  return seedBodies();
}

/// The body annotations of functions whose signature names the mesh,
/// which findMesh did not search: each must name this mesh too (findMesh's
/// errors, in its order). Only ops flagged with attributes or as
/// constraints are read.
auto FunctionPropagation::checkBodyMeshes() -> LogicalResult {
  for (auto [f, range] : llvm::zip(funcs, opRange)) {
    FlatSymbolRefAttr name = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
    Operation *first = f;
    for (size_t i = range.first; i < range.second; ++i) {
      if (!(opFlags[i] & (kHasAttrs | kConstraint)))
        continue;
      Operation *op = allOps[i];
      ShardingAttr s = (opFlags[i] & kConstraint)
                           ? cast<ShardingConstraintOp>(op).getSharding()
                           : op->getAttrOfType<ShardingAttr>(kShardingAttrName);
      if (failed(checkOneMesh(f, s, op, name, first)))
        return failure();
    }
  }
  return success();
}

auto FunctionPropagation::seedSignature(func::FuncOp func) -> LogicalResult {
  for (BlockArgument arg : func.getArguments()) {
    if (!isTensor(arg))
      continue;
    if (auto s = func.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(), kShardingAttrName)) {
      FailureOr<Annotation> a =
          makeAnnotation(s, arg.getType(), Annotation::Kind::Argument, func, arg.getArgNumber(),
                         arg.getLoc(), [&] { return emitError(arg.getLoc()); });
      if (failed(a))
        return failure();
      annotate(arg, std::move(*a));
    }
  }
  ArrayRef<func::ReturnOp> rets = returnsOf[func];
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (auto s = getResultSharding(func, i)) {
      for (func::ReturnOp ret : rets) {
        FailureOr<Annotation> a =
            makeAnnotation(s, func.getResultTypes()[i], Annotation::Kind::FunctionResult, func,
                           i, ret.getLoc(), [&] { return func.emitError(); });
        if (failed(a))
          return failure();
        sinkAnnotations.insert({{ret, i}, std::move(*a)});
      }
    }
  return success();
}

auto FunctionPropagation::seedBodies() -> LogicalResult {
  LogicalResult ok = success();
  // Values made by ops without a rule are whole on every device: closed
  // and replicated, so propagation never pushes a sharding into them, and
  // a sharding written on one is an error rather than silently dropped.
  walkAll(kNoRule, [&](Operation *op) {
    if (auto reshard = dyn_cast<ReshardOp>(op); reshard && succeeded(ok)) {
      // A reshard written by hand: its result is exactly its target.
      FailureOr<Annotation> a =
          makeAnnotation(reshard.getSharding(), reshard.getType(), Annotation::Kind::OpResult,
                         op, 0, op->getLoc(), [&] { return op->emitError(); });
      if (failed(a))
        ok = failure();
      else
        annotate(reshard.getResult(), std::move(*a));
      return;
    }
    if (isa<ShardingConstraintOp>(op) || isGlobalCollective(op) || failed(ok))
      return;
    if (auto call = dyn_cast<func::CallOp>(op); call && calleeInSet(call))
      return;
    if (failed(ok = checkRulelessAnnotation(op)))
      return;
    for (Value r : op->getResults())
      if (isTensor(r))
        setState(r, TensorSharding::replicated(cast<RankedTensorType>(r.getType()).getRank()));
  });
  // So are the arguments of every block but a function's entry block: they
  // come through branches (ops without a rule, whose operands must be
  // replicated) and have no place to write a sharding.
  for (Operation *op : allOps)
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (!(isa<func::FuncOp>(op) && &block == &region.front()))
          for (BlockArgument arg : block.getArguments())
            if (isTensor(arg))
              setState(arg, TensorSharding::replicated(
                                cast<RankedTensorType>(arg.getType()).getRank()));
  // A sharding written on an op result (or left by an earlier run of this
  // pass) is an annotation like an argument's: re-running changes nothing.
  walkAll(kHasRule | kHasAttrs, [&](Operation *op) {
    auto s = op->getAttrOfType<ShardingAttr>(kShardingAttrName);
    if (!s || failed(ok) || op->getNumResults() != 1 || !isTensor(op->getResult(0)))
      return;
    Value r = op->getResult(0);
    FailureOr<Annotation> a = makeAnnotation(s, r.getType(), Annotation::Kind::OpResult, op, 0,
                                             op->getLoc(), [&] { return op->emitError(); });
    if (failed(a)) {
      ok = failure();
      return;
    }
    annotate(r, std::move(*a));
  });
  walkAll(kNoRule, [&](ShardingConstraintOp c) {
    if (failed(ok))
      return;
    FailureOr<Annotation> a =
        makeAnnotation(c.getSharding(), c.getType(), Annotation::Kind::Constraint, c, 0,
                       c.getLoc(), [&] { return c.emitError(); });
    if (failed(a)) {
      ok = failure();
      return;
    }
    annotate(c.getResult(), std::move(*a));
  });
  return ok;
}

/// An op without a rule computes whole values: a sharding written on its
/// result may only say so (replicated, as this pass itself writes).
auto FunctionPropagation::checkRulelessAnnotation(Operation *op) -> LogicalResult {
  for (OpResult r : op->getResults()) {
    ShardingAttr s = isTensor(r) ? getSharding(r) : ShardingAttr();
    if (!s)
      continue;
    FailureOr<TensorSharding> t = toCore(s, mesh, cast<RankedTensorType>(r.getType()).getRank(),
                                         [&] { return op->emitError(); });
    if (failed(t))
      return failure();
    if (!t->isFullyReplicated())
      return op->emitError("'")
             << op->getName() << "' has no sharding rule, so result #" << r.getResultNumber()
             << " is computed whole on every device and cannot be placed " << t->str(core)
             << "; write the sharding on a garray.sharding_constraint of the result instead, "
                "or express the op with garray ops";
  }
  return success();
}

/// propagateStep is a pure function of the rule and its tensors'
/// shardings (the mesh is fixed here), so it runs once per distinct
/// [rule index, input ids...] key: a long chain of same-typed ops with the
/// same shardings costs one core step and then one hash lookup per visit.
auto FunctionPropagation::memoizedStep(const CachedRule &rule, ArrayRef<uint32_t> key) -> const StepResult & {
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

/// Runs one core step on `rule` over `vals` (value ids, operands then
/// results; kSink stands for a fixed sink sharding `fixed`) against the
/// state at the start of the wave, and records what it would grow as
/// proposals of `proposer` (runWorklist commits them).
auto FunctionPropagation::apply(const CachedRule &rule, ArrayRef<unsigned> vals, ShardingTable::Id fixed) -> void {
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

/// An unknown value that a step would only make known and empty (open,
/// no axes, nothing pending) merges like an unknown one: no proposal, so
/// its neighbours are not revisited for nothing.
auto FunctionPropagation::isEmpty(ShardingTable::Id id) -> bool {
  if (id == emptyMemo.first)
    return emptyMemo.second;
  const TensorSharding &s = table.get(id);
  bool empty = s.pending.empty() && llvm::all_of(s.dims, [](const shardc::DimSharding &d) {
                 return d.axes.empty() && d.open;
               });
  emptyMemo = {id, empty};
  return empty;
}

auto FunctionPropagation::propose(unsigned v, ShardingTable::Id id) -> void {
  unsigned &head = waveHead[v];
  if (head == kNone)
    touched.push_back(v);
  proposals.push_back({v, id, proposer, head});
  head = proposals.size() - 1;
}

/// Commits the wave's proposals for `v`: one proposal (or several equal
/// ones) is taken as is; otherwise the merge of every live proposal for
/// `v` (conflict policy 2, across ops). While the merge leaves some
/// proposal unsatisfied, `v` is contested and every proposer's latest word
/// stays in the merge until that proposer steps again.
auto FunctionPropagation::commit(unsigned v, SmallVectorImpl<unsigned> &changed) -> void {
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

/// The growth of one value from what its ops proposed in one wave (each
/// extends its current sharding). Per dim, the users' and ties'
/// proposals merge by conflict policy 2: the longest if every one is a
/// prefix of it, else their longest common prefix. The defining op's
/// proposal (`fromDef`, kUnknown if none) holds against them: it stays
/// unless their merge extends it (a value keeps the layout it is computed
/// in; a user that wants another one reshards its operand). An axis used
/// by an earlier dim ends a dim. A function of the set of proposals, so
/// of no order.
auto FunctionPropagation::mergeProposals(ShardingTable::Id fromDef,
                                   ArrayRef<ShardingTable::Id> candidates) -> ShardingTable::Id {
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

/// Whether `merged` holds everything candidate `c` asks (per dim, c's
/// axes are a prefix of merged's).
auto FunctionPropagation::satisfies(ShardingTable::Id merged, ShardingTable::Id c) -> bool {
  if (merged == c)
    return true;
  const TensorSharding &m = table.get(merged), &s = table.get(c);
  for (size_t d = 0; d < s.dims.size(); ++d)
    if (!shardc::isPrefix(s.dims[d].axes, m.dims[d].axes))
      return false;
  return true;
}

auto FunctionPropagation::step(const Node &n) -> void {
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

auto FunctionPropagation::checkRuleless() -> LogicalResult {
  LogicalResult ok = success();
  walkAll(kNoRule, [&](Operation *op) {
    if (isa<ShardingConstraintOp, func::ReturnOp, ReshardOp>(op) || isGlobalCollective(op) ||
        failed(ok))
      return;
    if (auto call = dyn_cast<func::CallOp>(op); call && calleeInSet(call))
      return;
    for (auto [i, v] : llvm::enumerate(op->getOperands())) {
      const TensorSharding *s = known(v);
      if (!s || s->isFullyReplicated())
        continue;
      // A call is opaque when its callee is a declaration or is placed on
      // another mesh (propagated on its own): say which.
      auto call = dyn_cast<func::CallOp>(op);
      auto callee = call ? SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                               call, call.getCalleeAttr())
                         : func::FuncOp();
      InFlightDiagnostic d = op->emitError("'")
                             << op->getName() << "' has no sharding rule, but operand #" << i
                             << " is sharded " << closed(*s).str(core);
      if (callee && !callee.isExternal())
        d << " (@" << callee.getSymName()
          << " is propagated on its own: this module places values on more than one mesh, "
             "and a call between functions on different meshes is opaque)";
      else if (callee)
        d << " (@" << callee.getSymName() << " is a declaration, computed whole)";
      d << "; express it with garray ops, or replicate the value first with "
           "garray.sharding_constraint ... P()";
      ok = failure();
      return;
    }
  });
  return ok;
}

auto FunctionPropagation::finalize() -> void {
  for (size_t i = 0; i < funcs.size(); ++i)
    finalize(funcs[i], opRange[i].first, opRange[i].second);
}

/// The sharding propagation settled on for `v` (replicated if none), with
/// every dim closed: what is written back and what explain prints.
auto FunctionPropagation::closedFinal(Value v) -> TensorSharding {
  const TensorSharding *known = this->known(v);
  return closed(known ? *known
                      : TensorSharding::replicated(cast<RankedTensorType>(v.getType()).getRank()));
}

/// `s` with every dim closed: how shardings are written and printed.
auto FunctionPropagation::closed(TensorSharding s) -> TensorSharding {
  for (shardc::DimSharding &d : s.dims)
    d.open = false;
  return s;
}

/// Writes the final shardings of funcs[i], whose ops are allOps[begin, end).
auto FunctionPropagation::finalize(func::FuncOp func, size_t begin, size_t end) -> void {
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
  // An undeclared result takes the sharding of what the first return
  // gives; a declared one is written closed and without priorities, its
  // open dims filled from that value as far as they agree.
  func::ReturnOp ret = returnsOf[func].front();
  SmallVector<Attribute> resultShardings;
  bool resultsChange = false;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    resultShardings.push_back(func.getResultAttr(i, kShardingAttrName));
    if (!isTensor(v))
      continue;
    Attribute now = getResultSharding(func, i)
                        ? fromCore(ctx, meshRef, core, declaredResult(ret, i, v))
                        : finalOf(v, idOf(v));
    resultsChange |= now != resultShardings.back();
    resultShardings.back() = now;
  }
  if (resultsChange)
    writer.setResults(func, resultShardings);
}

/// A declared function result, closed: each open dim takes the returned
/// value's axes when what was written is a prefix of them and the added
/// axes are not used by another dim.
auto FunctionPropagation::declaredResult(func::ReturnOp ret, unsigned i, Value v) -> TensorSharding {
  TensorSharding s = table.get(sinkAnnotations.find({ret, i})->second.full);
  TensorSharding got = closedFinal(v);
  for (size_t d = 0; d < s.dims.size(); ++d) {
    shardc::DimSharding &dim = s.dims[d];
    const std::vector<int> &more = got.dims[d].axes;
    bool extends = dim.open && more.size() > dim.axes.size() && shardc::isPrefix(dim.axes, more);
    std::vector<int> used = s.usedAxes();
    for (size_t k = dim.axes.size(); extends && k < more.size(); ++k)
      extends = !llvm::is_contained(used, more[k]);
    if (extends)
      dim.axes = more;
    dim.open = false;
  }
  return s;
}

/// The factor rule propagation stepped `op` with, or null.
auto FunctionPropagation::ruleFor(Operation *op) -> const FactorRule * {
  auto at = opIndex.find(op);
  return at == opIndex.end() || !ruleOf[at->second] ? nullptr : &ruleOf[at->second]->rule;
}

auto FunctionPropagation::finalShardings(ValueRange values) -> std::vector<TensorSharding> {
  std::vector<TensorSharding> out;
  for (Value v : values)
    out.push_back(closedFinal(v));
  return out;
}

/// Value ids: every tensor value a step, tie or annotation touches.
/// Results of the propagated functions' ops have ids from the
/// constructor (their op's index, then the result number). A block's
/// arguments get consecutive ids when the first of them is asked for, so
/// an argument's id is its block's base plus its number (a function with
/// one weight argument per layer has tens of thousands of them).
auto FunctionPropagation::idOf(Value v) -> unsigned {
  if (auto r = dyn_cast<OpResult>(v)) {
    if (auto it = opIndex.find(r.getOwner()); it != opIndex.end())
      return firstResult[it->second] + r.getResultNumber();
    return newId(v); // not expected: every result of these functions is collected
  }
  auto arg = cast<BlockArgument>(v);
  auto [it, inserted] = blockArgBase.try_emplace(arg.getOwner(), valueOf.size());
  if (inserted)
    for (BlockArgument a : arg.getOwner()->getArguments())
      newId(a);
  return it->second + arg.getArgNumber();
}

auto FunctionPropagation::newId(Value v) -> unsigned {
  valueOf.push_back(v);
  ids.push_back(ShardingTable::kUnknown);
  return valueOf.size() - 1;
}

/// `v`'s current sharding, or null while unknown.
auto FunctionPropagation::known(Value v) -> const TensorSharding * {
  ShardingTable::Id id = ids[idOf(v)];
  return id == ShardingTable::kUnknown ? nullptr : &table.get(id);
}

/// The id of `v` if its definition has been collected, else kUnresolved.
auto FunctionPropagation::resolvedId(Value v) -> unsigned {
  if (auto r = dyn_cast<OpResult>(v)) {
    auto it = opIndex.find(r.getOwner());
    return it == opIndex.end() ? kUnresolved : firstResult[it->second] + r.getResultNumber();
  }
  return idOf(v);
}

} // namespace shardc::propagation
