//===- PropagationSeed.cpp - garray-propagate's sources and checks -------===//
//
// What the fixed point starts from and what it must end with: annotations
// (arguments, results, op results, constraints, hand-written reshards),
// values that are whole (ops without a rule, non-entry block arguments),
// sharding groups and call ties; and the checks after it (groups that could
// not be one, declared call results, sharded operands of ops without a
// rule). Errors name the value, the annotation as written and what would
// fix it.
//
//===----------------------------------------------------------------------===//
#include "passes/propagation/FunctionPropagation.h"

#include <functional>

namespace shardc::propagation {

using namespace mlir;
using namespace mlir::garray;


/// A member `v` (at `loc`) of sharding group `id` whose type differs from
/// the group's first member's.
LogicalResult groupTypeError(int64_t id, Value first, Value v, Location loc) {
  InFlightDiagnostic d = emitError(loc) << "sharding group " << id << " ties values of types "
                                        << first.getType() << " and " << v.getType()
                                        << "; its members must have one type";
  d.attachNote(first.getLoc()) << "first member of the group";
  return failure();
}

/// The first mesh a function's annotations name, and which annotation named
/// it (worded only when an error needs it).
struct FirstMesh {
  FlatSymbolRefAttr name;
  Location loc;
  std::function<std::string()> what;
};

/// An argument or result of `func` as errors name it: by its garray.name
/// when it has one.
static std::string describeSignatureValue(func::FuncOp func, bool isResult, unsigned i) {
  auto name = isResult ? func.getResultAttrOfType<StringAttr>(i, "garray.name")
                       : func.getArgAttrOfType<StringAttr>(i, "garray.name");
  std::string kind = isResult ? "result" : "argument";
  std::string which = name ? "'" + name.str() + "'" : "#" + std::to_string(i);
  return kind + " " + which + " of @" + func.getSymName().str();
}

/// What an op's annotation is, for errors: a constraint's target or a
/// sharding written on the op's result.
static std::string describeOpAnnotation(Operation *op) {
  if (isa<ShardingConstraintOp, ReshardOp>(op))
    return "the target of this '" + op->getName().getStringRef().str() + "'";
  return "the sharding written on this '" + op->getName().getStringRef().str() + "'";
}

/// Checks annotation `s` (null: none), described by `what` and written at
/// `loc` in `func`, against the mesh an earlier annotation named (`first`);
/// the first annotation sets it. One function's annotations must all name
/// one existing mesh.
static LogicalResult checkOneMesh(func::FuncOp func, ShardingAttr s, Location loc,
                                  const std::function<std::string()> &what, FirstMesh &first) {
  if (!s || s.getMesh() == first.name)
    return success();
  if (!lookupMesh(func, s.getMesh()))
    return emitError(loc) << what() << " names mesh " << s.getMesh()
                          << ", but no garray.mesh with that name is in scope";
  if (!first.name) {
    first = {s.getMesh(), loc, what};
    return success();
  }
  InFlightDiagnostic d = emitError(loc)
                         << what() << " names mesh " << s.getMesh() << ", but " << first.what()
                         << " names " << first.name << ": the values of one function live on one "
                         << "mesh; place both on one mesh, which may have the axes of both";
  d.attachNote(first.loc) << first.name << " is named here";
  return d;
}

/// The one mesh all annotations in `func` name; null if none; failure if two.
/// When the signature names one, the body is not searched here (a walk of
/// every op): FunctionPropagation checks the body's annotations against it
/// while seeding (checkBodyMeshes), with the same errors.
FailureOr<MeshOp> findMesh(func::FuncOp func) {
  FirstMesh first{FlatSymbolRefAttr(), func.getLoc(), nullptr};
  LogicalResult ok = success();
  auto visit = [&](ShardingAttr s, Location loc, std::function<std::string()> what) {
    if (succeeded(ok))
      ok = checkOneMesh(func, s, loc, what, first);
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    visit(func.getArgAttrOfType<ShardingAttr>(i, kShardingAttrName), func.getArgument(i).getLoc(),
          [func, i] { return describeSignatureValue(func, false, i); });
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    visit(getResultSharding(func, i), func.getLoc(),
          [func, i] { return describeSignatureValue(func, true, i); });
  if (!first.name && succeeded(ok))
    func.walk([&](Operation *op) {
      if (auto c = dyn_cast<ShardingConstraintOp>(op))
        visit(c.getSharding(), op->getLoc(), [op] { return describeOpAnnotation(op); });
      else if (auto r = dyn_cast<ReshardOp>(op))
        visit(r.getSharding(), op->getLoc(), [op] { return describeOpAnnotation(op); });
      // Most ops carry no discardable attribute before propagation: skip
      // getAttr's name search for them.
      else if (op->getRawDictionaryAttrs().empty())
        return;
      else if (auto s = op->getAttrOfType<ShardingAttr>(kShardingAttrName))
        visit(s, op->getLoc(), [op] { return describeOpAnnotation(op); });
    });
  if (failed(ok))
    return failure();
  if (!first.name)
    return MeshOp();
  MeshOp mesh = lookupMesh(func, first.name);
  if (!mesh)
    return func.emitError("sharding annotations name mesh ")
           << first.name << ", but no garray.mesh with that name is in scope";
  return mesh;
}

/// What the annotation was written on.
std::string describeWritten(const Annotation &a) {
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
    if (isa<ReshardOp>(a.op))
      return "garray.reshard";
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

auto FunctionPropagation::makeAnnotation(ShardingAttr s, Type type, Annotation::Kind kind,
                                         Operation *op, unsigned index, Location loc,
                                         function_ref<InFlightDiagnostic()> emitError)
    -> FailureOr<Annotation> {
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
    // Before its round a dim is closed and empty; a `?` without axes is
    // open from the start (shardc::isOpenEmpty).
    TensorSharding none = *t;
    for (shardc::DimSharding &d : none.dims)
      if (!shardc::isOpenEmpty(d))
        d = {};
    it->second = {table.intern(*t), table.intern(none)};
  }
  std::tie(a.full, a.initial) = it->second;
  if (llvm::any_of(s.getDims(), [](DimShardingAttr d) { return d.hasPriority(); }))
    for (DimShardingAttr d : s.getDims())
      a.priority.push_back(d.hasPriority() ? d.getPriority() : kLastRound);
  return a;
}

void FunctionPropagation::annotate(Value v, Annotation a) {
  ids[idOf(v)] = a.initial;
  annotations.insert({v, std::move(a)});
}

LogicalResult FunctionPropagation::collectGroups() {
  LogicalResult ok = success();
  // Where a group may be and its id are the dialect's attribute verifiers'
  // (verifyGroupId, verifyGroupPlace): here members are tensors with ids.
  auto add = [&](Value v, Attribute attr, Location loc) {
    auto id = dyn_cast_or_null<IntegerAttr>(attr);
    if (!id)
      return;
    auto &members = groups[id.getInt()];
    if (!members.empty() && members.front().getType() != v.getType()) {
      ok = groupTypeError(id.getInt(), members.front(), v, loc);
      return;
    }
    members.push_back(v);
  };
  // (Groups on function results are refused by the dialect's verifier.)
  for (func::FuncOp func : funcs)
    for (BlockArgument arg : func.getArguments())
      add(arg, func.getArgAttr(arg.getArgNumber(), kGroupAttrName), arg.getLoc());
  walkAll(kHasAttrs, [&](Operation *op) {
    if (Attribute a = op->getAttr(kGroupAttrName))
      for (Value r : op->getResults())
        add(r, a, op->getLoc());
  });
  for (auto &entry : groups)
    addTie(entry.second, nullptr);
  return ok;
}

void FunctionPropagation::annotateGroups() {
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

LogicalResult FunctionPropagation::checkCallResults() {
  LogicalResult ok = success();
  walkAll(kNoRule | kHasAttrs, [&](func::CallOp call) {
    func::FuncOp callee = calleeInSet(call);
    if (!callee || failed(ok))
      return;
    for (OpResult r : call->getResults()) {
      ShardingAttr writtenAttr = getSharding(r);
      if (!writtenAttr || !isTensor(r))
        continue;
      TensorSharding want = writtenLayout(r);
      FailureOr<TensorSharding> got =
          toCore(writtenAttr, mesh, cast<RankedTensorType>(r.getType()).getRank());
      if (failed(got) || !got->sameLayout(want))
        ok = call.emitError("the result of a call to @")
             << callee.getSymName() << " has the callee's result layout " << want.str(core)
             << " (one sharding per function signature), not the "
             << writtenSpec(writtenAttr)
             << " written on it; put a garray.sharding_constraint after the call";
    }
  });
  return ok;
}

LogicalResult FunctionPropagation::checkGroups() {
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
        return r && computedWhole(r.getOwner()) ? r.getOwner() : nullptr;
      };
      auto describe = [&](Value m) {
        // Which member, by name: an argument ("argument 'g2' of @f"), an
        // op's result by its garray.name (the location points at the op).
        std::string which;
        if (auto arg = dyn_cast<BlockArgument>(m)) {
          if (auto f = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
            which = describeSignatureValue(f, false, arg.getArgNumber()) + ", ";
        } else {
          auto r = cast<OpResult>(m);
          if (auto n = r.getOwner()->getAttrOfType<StringAttr>("garray.name"))
            which = "'" + n.str() + "', ";
          if (r.getOwner()->getNumResults() > 1)
            which += "result #" + std::to_string(r.getResultNumber()) + ", ";
        }
        if (auto a = annotations.find(m); a != annotations.end())
          return which + (a->second.kind == Annotation::Kind::CallResult
                              ? "the callee's declared result " + written(a->second)
                              : "annotated " + written(a->second));
        Operation *op = ruleless(m);
        if (!op)
          return which + "unannotated";
        std::string made = "made by '" + op->getName().getStringRef().str() + "'";
        if (auto call = dyn_cast<func::CallOp>(op))
          made += " of @" + call.getCallee().str();
        return which + made + ", which has no sharding rule: computed whole on every device";
      };
      // The advice names what keeps the group's annotation from holding
      // for every member (annotateGroups copies only an agreed, closed one).
      SmallVector<std::pair<Value, const Annotation *>> writtenOn;
      for (Value m : members)
        if (auto a = annotations.find(m); a != annotations.end() && !a->second.group &&
                                          a->second.kind != Annotation::Kind::CallResult)
          writtenOn.push_back({m, &a->second});
      SmallVector<const Annotation *> written;
      for (auto &[m, a] : writtenOn)
        written.push_back(a);
      auto differs = [&](const Annotation *a) {
        return a->full != written.front()->full || a->priority != written.front()->priority;
      };
      // Two annotated members that differ are the pair to name, whichever
      // members the layouts were first compared on.
      // A member written in another layout is named before one that
      // differs in priorities only.
      Value here = v, other = members.front();
      TensorSharding hereEnds = s, otherEnds = first;
      const std::pair<Value, const Annotation *> *pick = nullptr;
      for (auto &entry : writtenOn)
        if (entry.second->full != written.front()->full) {
          pick = &entry;
          break;
        }
      for (auto &entry : writtenOn)
        if (!pick && differs(entry.second))
          pick = &entry;
      if (pick) {
        here = pick->first, other = writtenOn.front().first;
        hereEnds = writtenLayout(here), otherEnds = writtenLayout(other);
      }
      bool firstPair = other == members.front();
      InFlightDiagnostic d = emitError(here.getLoc())
                             << "sharding group " << id << " cannot give its members one "
                             << "sharding: this member ends " << hereEnds.str(core) << " ("
                             << describe(here) << "), " << (firstPair ? "the first" : "another")
                             << " ends " << otherEnds.str(core) << " (" << describe(other)
                             << "); ";
      auto open = [&](const Annotation *a) {
        return llvm::any_of(table.get(a->full).dims,
                            [](const shardc::DimSharding &dim) { return dim.open; });
      };
      auto callResult = [&](Value m) {
        auto r = dyn_cast<OpResult>(m);
        auto call = r ? dyn_cast<func::CallOp>(r.getOwner()) : func::CallOp();
        auto a = annotations.find(m);
        return call && calleeInSet(call) &&
               (a == annotations.end() || a->second.kind == Annotation::Kind::CallResult);
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
      d.attachNote(other.getLoc()) << (firstPair ? "first member of the group"
                                                 : "the other member");
      return failure();
    }
  }
  return success();
}

void FunctionPropagation::addTie(ArrayRef<Value> members, Operation *via) {
  if (members.size() < 2)
    return;
  SmallVector<unsigned> ids;
  for (Value v : members)
    ids.push_back(idOf(v));
  ties.push_back({ids, via});
  for (unsigned v : ids)
    tiesOf[v].push_back(ties.size() - 1);
}

void FunctionPropagation::collectCallTies() {
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
    ArrayRef<func::ReturnOp> rets = returns[callee];
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

LogicalResult FunctionPropagation::seed() {
  if (failed(checkBodyMeshes()))
    return failure();
  for (func::FuncOp func : funcs)
    if (failed(seedSignature(func)))
      return failure();
  return seedBodies();
}

LogicalResult FunctionPropagation::checkBodyMeshes() {
  for (auto [f, range] : llvm::zip(funcs, opRange)) {
    func::FuncOp func = f;
    FirstMesh first{FlatSymbolRefAttr::get(mesh.getSymNameAttr()), func.getLoc(),
                    [func]() mutable { return "the signature of @" + func.getSymName().str(); }};
    for (size_t i = range.first; i < range.second; ++i) {
      if (!(opFlags[i] & (kHasAttrs | kConstraint | kNoRule)))
        continue;
      Operation *op = allOps[i];
      auto reshard = dyn_cast<ReshardOp>(op);
      ShardingAttr s = (opFlags[i] & kConstraint) ? cast<ShardingConstraintOp>(op).getSharding()
                       : reshard                  ? reshard.getSharding()
                                                  : op->getAttrOfType<ShardingAttr>(kShardingAttrName);
      if (failed(checkOneMesh(func, s, op->getLoc(), [op] { return describeOpAnnotation(op); },
                              first)))
        return failure();
    }
  }
  return success();
}

LogicalResult FunctionPropagation::seedSignature(func::FuncOp func) {
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
  ArrayRef<func::ReturnOp> rets = returns[func];
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (auto s = getResultSharding(func, i)) {
      // Results leave the function whole over every axis their dims do
      // not split (insert-reshards reduces pending ones at the return).
      if (s.isPending())
        return func.emitError() << describeSignatureValue(func, true, i) << " is annotated "
                                << writtenSpec(s)
                                << ", a partial sum; a function returns its results reduced: "
                                   "drop the unreduced part (insert-reshards reduces the "
                                   "value before the return)";
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

LogicalResult FunctionPropagation::seedBodies() {
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
    if (auto map = dyn_cast<ShardMapOp>(op); map && succeeded(ok)) {
      // Its results are the blocks its body returns: exactly its
      // out_shardings, as if written on them.
      for (OpResult r : map.getResults()) {
        FailureOr<Annotation> a = makeAnnotation(
            map.getOutSharding(r.getResultNumber()), r.getType(), Annotation::Kind::OpResult, op,
            r.getResultNumber(), op->getLoc(), [&] { return op->emitError(); });
        if (failed(a)) {
          ok = failure();
          return;
        }
        annotate(r, std::move(*a));
      }
      return;
    }
    if (isGlobalCollective(op) && succeeded(ok)) {
      // A collective written in the program: propagation does not model
      // what it does to a layout, so its result is what is written on it,
      // exactly (as a reshard's is its target).
      ShardingAttr s = op->getNumResults() == 1 ? getSharding(op->getResult(0)) : ShardingAttr();
      if (!s) {
        ok = op->emitError("a '")
             << op->getName()
             << "' written in the program needs its result's placement written on it "
                "(garray.sharding = #garray.sharding<...>): propagation does not derive what a "
                "collective does to a layout; or write garray.reshard to the layout you want and "
                "let shardc plan the collectives";
        return;
      }
      FailureOr<Annotation> a =
          makeAnnotation(s, op->getResult(0).getType(), Annotation::Kind::OpResult, op, 0,
                         op->getLoc(), [&] { return op->emitError(); });
      if (failed(a))
        ok = failure();
      else
        annotate(op->getResult(0), std::move(*a));
      return;
    }
    if (!computedWhole(op) || failed(ok))
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

LogicalResult FunctionPropagation::checkRulelessAnnotation(Operation *op) {
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

bool FunctionPropagation::computedWhole(Operation *op) {
  if (isa<ShardingRuleOpInterface, ShardingConstraintOp, ReshardOp, func::ReturnOp, ShardMapOp>(
          op) ||
      isGlobalCollective(op))
    return false;
  auto call = dyn_cast<func::CallOp>(op);
  return !(call && calleeInSet(call));
}

LogicalResult FunctionPropagation::checkRuleless() {
  LogicalResult ok = success();
  walkAll(kNoRule, [&](Operation *op) {
    if (!computedWhole(op) || failed(ok))
      return;
    for (auto [i, v] : llvm::enumerate(op->getOperands())) {
      const TensorSharding *s = known(v);
      if (!s || s->isFullyReplicated())
        continue;
      auto call = dyn_cast<func::CallOp>(op);
      auto callee = call ? SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                               call, call.getCalleeAttr())
                         : func::FuncOp();
      InFlightDiagnostic d = op->emitError("'")
                             << op->getName() << "' has no sharding rule, but operand #" << i
                             << " is sharded " << closed(*s).str(core);
      // A call is opaque when its callee is a declaration or is not
      // propagated (PropagationSets.h): say which.
      if (std::string why = sets && callee ? sets->whyApart(callee) : ""; !why.empty())
        d << " (" << why << ")";
      else if (callee && callee.isExternal())
        d << " (@" << callee.getSymName() << " is a declaration, computed whole)";
      d << "; express it with garray ops, or replicate the value first with "
           "garray.sharding_constraint ... P()";
      ok = failure();
      return;
    }
  });
  return ok;
}

} // namespace shardc::propagation
