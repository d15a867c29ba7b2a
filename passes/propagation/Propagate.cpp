//===- Propagate.cpp - garray-propagate: shardings to a fixed point -------===//
//
// The IR glue around passes/core/FactorMerge.h; the user-facing policy is
// docs/propagation.md. Keeps:
//   - rounds by priority: round k uses as sources only the annotated dims
//     whose priority is <= k (dims without one come after every numbered
//     round); a dim whose round has not come is closed and empty, so it
//     neither gives nor takes; earlier rounds' results are kept, so stronger
//     annotations win conflicts with weaker ones;
//   - within a round, sub-rounds over op classes (kSubRounds, a data table):
//     pass-through ops first, then every op;
//   - a worklist of ops in waves: every op of a wave steps against the
//     state at the wave's start and proposes growths; each value takes the
//     merge of its proposals (so no op order decides a conflict); the ops
//     of the values that grew (users and definition, so information flows
//     both ways) form the next wave;
//   - sharding groups (`garray.sharding_group = N` on arguments or ops) tie
//     their members by an identity rule in every sub-round;
//   - explain traces each axis of the final shardings back to the
//     annotations that wrote it (passes/core/AxisOrigins.h), after the
//     fixed point: the propagation itself keeps no history;
//   - within a round dims only grow (steps extend open dims, merges keep
//     what holds), so the loop terminates; only a round's start may take
//     an axis back from an open dim, for the annotation that wrote it;
//   - function results and sharding_constraint results are sinks with fixed
//     shardings; their operands are pulled toward them;
//   - calls: the annotated functions and every function connected to them
//     by func.call are propagated together; a callee's argument i is tied
//     to operand i of every call, its result i to result i of every call
//     (one sharding per function signature, docs/propagation.md);
//   - after the fixed point, any op without a rule that touches a sharded
//     value is an error: shardc never silently computes a local copy.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/FactorRuleCache.h"
#include "passes/KeyMemo.h"
#include "passes/Passes.h"
#include "passes/ShardingWriter.h"
#include "passes/core/AxisOrigins.h"
#include "passes/core/FactorMerge.h"
#include "passes/core/ShardingTable.h"
#include "passes/core/Steering.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Allocator.h"
#include "llvm/ADT/SetVector.h"

#include <limits>
#include <map>
#include <memory>
#include <set>

namespace shardc {
#define GEN_PASS_DEF_GARRAYPROPAGATE
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;
using shardc::CachedRule;
using shardc::FactorRule;
using shardc::ShardingTable;
using shardc::kLastRound;
using shardc::kSubRounds;
using shardc::OpClass;
using shardc::TensorSharding;

namespace {

/// Hashes ops by address without mixing the low bits. The parser allocates
/// a function's ops one after another, so ops close in the program land in
/// nearby buckets: on a 100k-op function, lookups of a value's recent
/// definition hit the cache instead of a random bucket (measured: about a
/// fifth of the pass's time went to such misses with the default hash).
/// The high bits are folded in so that addresses a power of two apart do not
/// all share a bucket.
struct NearbyOpsInfo : llvm::DenseMapInfo<Operation *> {
  static unsigned getHashValue(const Operation *op) {
    auto x = reinterpret_cast<uintptr_t>(op);
    return static_cast<unsigned>((x >> 4) ^ (x >> 26));
  }
};

bool isTensor(Value v) { return isa<RankedTensorType>(v.getType()); }

/// Ties values to one sharding (a parameter and its optimizer moments).
constexpr llvm::StringLiteral kGroupAttrName = "garray.sharding_group";

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
LogicalResult checkOneMesh(func::FuncOp func, ShardingAttr s, Operation *where,
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

/// What the user wrote on one value: the sharding and each dim's priority.
/// Small and without strings: a model annotates every parameter (tens of
/// thousands of arguments), and what was annotated is worded only when a
/// remark or an error names it (describe).
struct Annotation {
  /// What was annotated.
  enum class Kind : uint8_t { Argument, OpResult, Constraint, FunctionResult, CallResult };

  ShardingTable::Id full;    // the written sharding, interned
  ShardingTable::Id initial; // its state before its first round: every dim closed and empty
  /// Per dim, or empty when no dim has a written priority (every dim then
  /// takes part in the last round only).
  std::vector<int64_t> priority;
  Location loc;
  Kind kind;
  /// Argument: the function and the argument number; OpResult and
  /// Constraint: the op; FunctionResult: the function and the result
  /// number; CallResult: the callee and the result number.
  Operation *op;
  unsigned index;
  /// Set when the annotation was written on another member of this sharding
  /// group and holds here through it.
  std::optional<int64_t> group = std::nullopt;

  int64_t priorityOf(size_t d) const { return priority.empty() ? kLastRound : priority[d]; }
};

std::string describeWritten(const Annotation &a);

/// "argument 'x'", "result #0 of @f", "sharding_constraint", "argument 'w'
/// through sharding group 0", ...
std::string describe(const Annotation &a) {
  std::string s = describeWritten(a);
  if (a.group)
    s += " through sharding group " + std::to_string(*a.group);
  return s;
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

class FunctionPropagation {
public:
  /// `funcs`: the functions propagated together (callers and callees tied
  /// through their calls), in module order; `mesh` is anchored at the first.
  FunctionPropagation(SmallVector<func::FuncOp> funcs, MeshOp mesh, const shardc::Mesh &core,
                      bool explain)
      : funcs(std::move(funcs)), mesh(mesh), core(core), explain(explain) {
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

  LogicalResult run() {
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

private:
  static constexpr unsigned kNoValue = ~0u;    // a non-tensor operand of a return
  static constexpr unsigned kSink = ~0u - 1;   // a function result's fixed sharding
  static constexpr unsigned kNoNode = ~0u;
  static constexpr unsigned kUnresolved = ~0u - 2;

  /// An op a step can change: a rule op, a constraint (identity rule), or a
  /// return (identity with each annotated function result).
  struct Node {
    Operation *op;
    enum class Kind { Rule, Constraint, Return } kind;
    const CachedRule *rule;  // null for returns
    unsigned first, count;   // its value ids in nodeValues
    unsigned numOperands;    // the first numOperands of them are operands
  };

  /// Makes the dims of round `round` sources: annotated values get the newly
  /// active dims (axes already used by grown dims are dropped: the stronger
  /// round keeps them); sinks take their view for this round.
  void activate(int64_t previous, int64_t round) {
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
  ShardingTable::Id activeIn(const Annotation &a, int64_t round) {
    if (a.priority.empty())
      return round == kLastRound ? a.full : a.initial;
    return table.intern(shardc::activeInRound(table.get(a.full), a.priority, round));
  }

  /// An annotation of sharding `s` on a value of `type`: its core form is
  /// verified and interned once per distinct (s, type) (a model's
  /// parameters share a few); `what` and `emitError` word the error.
  FailureOr<Annotation> makeAnnotation(ShardingAttr s, Type type, Annotation::Kind kind,
                                       Operation *op, unsigned index, Location loc,
                                       function_ref<InFlightDiagnostic()> emitError) {
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
  void annotate(Value v, Annotation a) {
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
  void buildGraph() {
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
  void runWorklist(OpClass cls) {
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
  LogicalResult collectGroups() {
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
  void annotateGroups() {
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
  bool hasOwnRule(Value v) {
    auto r = dyn_cast<OpResult>(v);
    return !r || ruleFor(r.getOwner());
  }

  /// The layout finalize writes for `v`: a call's result takes its callee's
  /// result layout (one signature), any other value its own final state.
  TensorSharding writtenLayout(Value v) {
    if (auto r = dyn_cast<OpResult>(v))
      if (auto call = dyn_cast<func::CallOp>(r.getOwner()))
        if (func::FuncOp callee = calleeInSet(call))
          return resultLayout(callee, r.getResultNumber());
    return closedFinal(v);
  }

  /// Result i of a function, as finalize writes it: a declared result
  /// closed (its open dims filled), else what the first return gives.
  /// "Declared" as seeded, not read from the IR, which finalize rewrites.
  TensorSharding resultLayout(func::FuncOp func, unsigned i) {
    func::ReturnOp ret = returnsOf[func].front();
    Value out = ret.getOperand(i);
    return sinkAnnotations.count({ret, i}) ? declaredResult(ret, i, out) : closedFinal(out);
  }

  /// A sharding written on a call's result must be its callee's result
  /// layout (what this pass writes there): one sharding per signature.
  LogicalResult checkCallResults() {
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
  LogicalResult checkGroups() {
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
  void addTie(ArrayRef<Value> members, Operation *via) {
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
  func::FuncOp calleeInSet(func::CallOp call) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
    return callee && inSet.contains(callee.getOperation()) ? callee : func::FuncOp();
  }

  /// One sharding per function signature: argument i of a callee is tied to
  /// operand i of every call of it, result i (every return's operand i) to
  /// result i of every call. Information flows into the callee and back out.
  void collectCallTies() {
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

  void tieStep(size_t t) {
    ArrayRef<unsigned> members = ties[t].first;
    apply(rules.identity(cast<RankedTensorType>(valueOf[members.front()].getType()),
                         members.size()),
          members, ShardingTable::kUnknown);
  }

  /// Like f.walk(fn) over every function, on the ops collected once by the
  /// constructor whose opFlags have every bit of `need`; `fn` takes an
  /// Operation * or a specific op class. The flags (whether an op has a
  /// sharding rule, whether it carries attributes) are known from the
  /// collection, so a phase skips the ops it cannot concern without touching
  /// them: on a 100k-op function each pass over the ops' memory, or a search
  /// of each op's interface map, costs milliseconds.
  template <typename Fn> void walkAll(uint8_t need, Fn &&fn) {
    using Arg = mlir::detail::first_argument<Fn>;
    for (size_t i = 0; i < allOps.size(); ++i) {
      if ((opFlags[i] & need) != need)
        continue;
      Operation *op = allOps[i];
      if constexpr (std::is_same_v<Arg, Operation *>) {
        fn(op);
      } else if (auto typed = dyn_cast<Arg>(op)) {
        fn(typed);
      }
    }
  }

  LogicalResult seed() {
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
  LogicalResult checkBodyMeshes() {
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

  LogicalResult seedSignature(func::FuncOp func) {
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

  LogicalResult seedBodies() {
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
  LogicalResult checkRulelessAnnotation(Operation *op) {
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

  /// What one core step does to its tensors, as interned ids: every
  /// tensor's sharding after the step, and the indices propagateStep
  /// reported as changed.
  struct StepResult {
    SmallVector<ShardingTable::Id, 4> after;
    SmallVector<unsigned, 4> changed;
  };

  /// propagateStep is a pure function of the rule and its tensors'
  /// shardings (the mesh is fixed here), so it runs once per distinct
  /// [rule index, input ids...] key: a long chain of same-typed ops with the
  /// same shardings costs one core step and then one hash lookup per visit.
  const StepResult &memoizedStep(const CachedRule &rule, ArrayRef<uint32_t> key) {
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
  void apply(const CachedRule &rule, ArrayRef<unsigned> vals, ShardingTable::Id fixed) {
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
  bool isEmpty(ShardingTable::Id id) {
    if (id == emptyMemo.first)
      return emptyMemo.second;
    const TensorSharding &s = table.get(id);
    bool empty = s.pending.empty() && llvm::all_of(s.dims, [](const shardc::DimSharding &d) {
                   return d.axes.empty() && d.open;
                 });
    emptyMemo = {id, empty};
    return empty;
  }
  std::pair<ShardingTable::Id, bool> emptyMemo = {ShardingTable::kUnknown, false};

  void propose(unsigned v, ShardingTable::Id id) {
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
  void commit(unsigned v, SmallVectorImpl<unsigned> &changed) {
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
  ShardingTable::Id mergeProposals(ShardingTable::Id fromDef,
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

  /// Whether `merged` holds everything candidate `c` asks (per dim, c's
  /// axes are a prefix of merged's).
  bool satisfies(ShardingTable::Id merged, ShardingTable::Id c) {
    if (merged == c)
      return true;
    const TensorSharding &m = table.get(merged), &s = table.get(c);
    for (size_t d = 0; d < s.dims.size(); ++d)
      if (!shardc::isPrefix(s.dims[d].axes, m.dims[d].axes))
        return false;
    return true;
  }

  void step(const Node &n) {
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

  LogicalResult checkRuleless() {
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

  void finalize() {
    for (size_t i = 0; i < funcs.size(); ++i)
      finalize(funcs[i], opRange[i].first, opRange[i].second);
  }

  /// The sharding propagation settled on for `v` (replicated if none), with
  /// every dim closed: what is written back and what explain prints.
  TensorSharding closedFinal(Value v) {
    const TensorSharding *known = this->known(v);
    return closed(known ? *known
                        : TensorSharding::replicated(cast<RankedTensorType>(v.getType()).getRank()));
  }

  /// `s` with every dim closed: how shardings are written and printed.
  static TensorSharding closed(TensorSharding s) {
    for (shardc::DimSharding &d : s.dims)
      d.open = false;
    return s;
  }

  /// Writes the final shardings of funcs[i], whose ops are allOps[begin, end).
  void finalize(func::FuncOp func, size_t begin, size_t end) {
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
  TensorSharding declaredResult(func::ReturnOp ret, unsigned i, Value v) {
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

  /// Ops named at each end of a long `via` path.
  static constexpr size_t kViaEnds = 3;

  // explain's per-axis origins (passes/core/AxisOrigins.h), built once the
  // shardings are final: every op, constraint, call and group is a link
  // between the values that hold an axis where it maps them to each other;
  // every annotation is a source of the axes it wrote that are still held.
  using Hold = shardc::AxisOrigins::Hold;
  struct OriginSource {
    const Annotation *annotation;
    Value value; // what it annotates (a function result: the returned value)
    bool sink;   // a function result annotation, entered through its return
  };
  std::vector<OriginSource> originSources;
  llvm::DenseMap<Value, int> ownSource; // an annotated value's source index
  /// What a via names: an op, or (op null) a sharding group.
  std::vector<std::pair<Operation *, int64_t>> originVias;
  llvm::DenseMap<Operation *, int> viaIndex;
  std::optional<shardc::AxisOrigins> axisOrigins;
  /// Explain only: the members of each call tie (a callee's argument and
  /// every call's operand; the return operands and every call's result),
  /// each with the op it enters the tie through (its call, its return; null
  /// for the callee's argument), so that a path names what it crossed.
  std::vector<SmallVector<std::pair<Value, Operation *>>> callTies;
  /// Explain only: per value id, what it is pending over right after its
  /// op, as insert-reshards will run the ops (shardc::pendingThrough).
  std::vector<std::vector<int>> heldPending;
  /// Call results originOf is explaining through their callees (a callee
  /// that returns a call of its caller would recurse).
  llvm::DenseSet<Value> explainingCalls;

  int viaOf(Operation *op) {
    auto [it, inserted] = viaIndex.try_emplace(op, originVias.size());
    if (inserted)
      originVias.push_back({op, 0});
    return it->second;
  }

  /// Per dim, what a call tie's merge keeps of its members' final axes: the
  /// longest list if every member's is a prefix of it, else their common
  /// prefix (conflict policy 2, as the tie's step merges them).
  std::vector<std::vector<int>> tieMerge(ArrayRef<std::pair<Value, Operation *>> members) {
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

  /// The axes `v` holds on its dims, each keyed by its dim.
  void holdsByDim(Value v, std::vector<Hold> &out) {
    TensorSharding s = closedFinal(v);
    for (auto [d, dim] : llvm::enumerate(s.dims))
      for (int a : dim.axes)
        out.push_back({idOf(v), a, static_cast<int>(d)});
  }

  void traceAxes() {
    shardc::AxisOrigins o;
    heldPending.assign(valueOf.size(), {});
    std::vector<std::vector<int>> seenPending(valueOf.size());
    std::vector<shardc::Reduction> pendingKind(valueOf.size(), shardc::Reduction::Sum);
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
      std::vector<Hold> holds;
      for (auto [t, v] : llvm::enumerate(vals)) {
        const TensorSharding &s = rule.isResult(t) ? results[t - operands.size()] : operands[t];
        for (auto [f, axes] : llvm::enumerate(shardc::projectToFactors(rule, t, s, core)))
          if (axes)
            for (int a : *axes)
              holds.push_back({v, a, static_cast<int>(f)});
      }
      // Its results are partial sums over the axes of the reduction factors
      // it runs with: held under that factor, like the operands' split; and
      // over what a pending operand it keeps pending is over, held under a
      // key of its own (one past the factors).
      shardc::FactorAxes factors = shardc::executionAxes(rule, operands, results, core);
      for (size_t f = 0; f < rule.numFactors(); ++f)
        if (rule.kinds[f] == shardc::FactorKind::Reduction)
          for (int a : factors[f])
            for (size_t t = operands.size(); t < vals.size(); ++t)
              holds.push_back({vals[t], a, static_cast<int>(f)});
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
              holds.push_back({vals[i], a, kept});
              for (size_t t = operands.size(); t < vals.size(); ++t)
                holds.push_back({vals[t], a, kept});
            }
        for (size_t t = operands.size(); t < vals.size() && !through.mixed; ++t) {
          unsigned r = vals[t];
          heldPending[r] = through.pending;
          pendingKind[r] = through.kind;
          // Reduced right after its op when some use may not read it
          // pending (insert-reshards' reduceEagerlyIfNeeded).
          bool allKeep = llvm::all_of(valueOf[r].getUses(), [&](OpOperand &use) {
            const FactorRule *userRule = ruleFor(use.getOwner());
            return userRule && shardc::mayStayPending(userRule->pending, use.getOperandNumber());
          });
          if (allKeep)
            seenPending[r] = through.pending;
        }
      }
      o.addLink(viaOf(n.op), holds);
    }
    // A call tie joins all its members at once, as propagation steps it
    // (two call sites share an axis the callee's argument does not hold):
    // each member is linked, through its call, to a hub per dim that holds
    // whatever a member holds on that dim. Hubs are ids past the values.
    // The hub holds what the tie's merge keeps (policy 2 per dim): an axis
    // two call sites disagree on does not pass from one to the other.
    unsigned nextHub = valueOf.size();
    for (auto &members : callTies) {
      std::vector<std::vector<int>> merged = tieMerge(members);
      unsigned hubs = nextHub;
      nextHub += merged.size();
      for (auto &[m, via] : members) {
        std::vector<Hold> holds;
        holdsByDim(m, holds);
        for (size_t k = 0, n = holds.size(); k < n; ++k)
          if (llvm::is_contained(merged[holds[k].key], holds[k].axis))
            holds.push_back({hubs + holds[k].key, holds[k].axis, holds[k].key});
        o.addLink(via ? viaOf(via) : -1, holds); // the callee's argument: no op to name
      }
    }
    for (auto &[group, members] : groups) {
      std::vector<Hold> holds;
      for (Value m : members)
        holdsByDim(m, holds);
      originVias.push_back({nullptr, group});
      o.addLink(static_cast<int>(originVias.size() - 1), holds);
    }
    // Sources: what each annotation wrote that its value still holds there.
    auto addSources = [&](const Annotation &a, Value v, int via) {
      int source = static_cast<int>(originSources.size());
      originSources.push_back({&a, v, via >= 0});
      const TensorSharding &written = table.get(a.full);
      TensorSharding held = closedFinal(v);
      for (auto [d, dim] : llvm::enumerate(written.dims))
        for (int x : dim.axes)
          if (llvm::is_contained(held.dims[d].axes, x))
            o.addSource(idOf(v), x, a.priorityOf(d), source, via);
      return source;
    };
    for (auto &[v, a] : annotations) {
      ownSource[v] = addSources(a, v, -1);
      // Its dims take part from their own round (closed and empty before).
      for (auto [d, dim] : llvm::enumerate(closedFinal(v).dims))
        for (int x : dim.axes)
          o.activateIn(idOf(v), x, a.priorityOf(d));
    }
    for (func::FuncOp f : funcs)
      for (func::ReturnOp ret : returnsOf[f])
        for (auto [i, v] : llvm::enumerate(ret.getOperands()))
          if (auto a = sinkAnnotations.find({ret, static_cast<unsigned>(i)});
              a != sinkAnnotations.end())
            addSources(a->second, v, viaOf(ret));
    o.solve();
    axisOrigins = std::move(o);
  }

  /// An annotation as written: open dims with `?`, priorities with `pN`.
  std::string written(const Annotation &a) {
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
    return out + ")";
  }

  static std::string axisList(const shardc::Mesh &core, ArrayRef<int> axes) {
    std::string out;
    for (auto [i, a] : llvm::enumerate(axes))
      out += (i ? ", \"" : "\"") + core.axes[a] + "\"";
    return out;
  }

  /// The annotations `axes` of `v` came from, each once with the path of
  /// the first axis it explains, in order of first appearance; `v`'s own
  /// annotation first, and alone for the axes it wrote. `unexplained`
  /// collects axes no annotation reaches (not expected).
  struct Named {
    int source;
    shardc::AxisOrigins::Origin path; // of the first axis it explains
    std::vector<int> axes;
  };
  std::vector<Named> sourcesOf(Value v, ArrayRef<int> axes, std::vector<int> &unexplained) {
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
      if (origins.empty())
        unexplained.push_back(a);
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

  /// "argument 'x' (%arg0) annotated P("a"?, None) at LOC via OPS", each
  /// source after the first introduced by `also` and, when it explains only
  /// some of `axes`, the axes it does.
  void printSources(llvm::raw_ostream &os, Value v, ArrayRef<Named> named, ArrayRef<int> axes,
                    ArrayRef<int> unexplained, StringRef also,
                    llvm::function_ref<std::string(Value)> name) {
    std::set<std::string> said; // one declared result seen from its return and its calls
    bool first = true;
    for (const Named &n : named) {
      const OriginSource &src = originSources[n.source];
      if (!said.insert(describe(*src.annotation) + where(src.annotation->loc)).second)
        continue;
      if (!first) {
        os << also;
        if (n.axes.size() != axes.size())
          os << "for " << axisList(core, n.axes) << ", ";
      }
      first = false;
      const OriginSource &s = src;
      os << describe(*s.annotation);
      if (!s.sink && s.value != v)
        os << " (" << name(s.value) << ")";
      os << " annotated " << written(*s.annotation) << " at " << where(s.annotation->loc);
      if (n.path.length > 0)
        os << " via " << pathOf(n.path);
    }
    // The one way known to leave an axis no chain of holders: it came in an
    // earlier priority round through an open dim that a later round's
    // annotation took it back from (rounds only grow what others hold).
    if (!unexplained.empty())
      os << (named.empty() ? "" : "; also ") << "for " << axisList(core, unexplained)
         << ", no value between it and an annotation holds that axis now: it came in an "
            "earlier priority round through an open dim that gave it back when a later "
            "round's annotation claimed it";
  }

  /// Where a value's final sharding is from: per axis it holds, the
  /// annotations that wrote it and the ops it came through; a value
  /// annotated itself names its annotation first.
  std::string originOf(Value v, llvm::function_ref<std::string(Value)> name) {
    // A call's result is written as its callee's result (one sharding per
    // signature, writtenLayout): explained from inside the callee. (Its
    // users propagated from the call's own state; where that differs, the
    // tie conflicted and insert-reshards reshards them.)
    if (auto r = dyn_cast<OpResult>(v); r && !ownSource.count(v))
      if (auto call = dyn_cast<func::CallOp>(r.getOwner()))
        if (func::FuncOp callee = calleeInSet(call);
            callee && explainingCalls.insert(v).second) {
          Value ret = returnsOf[callee].front().getOperand(r.getResultNumber());
          std::string out = "as @" + callee.getSymName().str() + " returns it (" + name(ret) +
                            ", one sharding per signature): " + originOf(ret, name);
          explainingCalls.erase(v);
          return out;
        }
    std::vector<int> axes = closedFinal(v).usedAxes();
    if (axes.empty())
      return replicatedOrigin(v, name);
    std::vector<int> unexplained;
    std::vector<Named> named = sourcesOf(v, axes, unexplained);
    std::string out;
    llvm::raw_string_ostream os(out);
    printSources(os, v, named, axes, unexplained, "; also ", name);
    return out;
  }

  /// For a result of an op that sums (or maxes) over a factor its operands
  /// shard: that each device holds a partial result, over which axes, and
  /// the annotations those axes came from (its layout alone reads as
  /// "replicated" there).
  std::string partialOf(Value v, llvm::function_ref<std::string(Value)> name) {
    const std::vector<int> &axes = heldPending[idOf(v)];
    if (axes.empty())
      return "";
    std::vector<int> unexplained;
    std::vector<Named> named = sourcesOf(v, axes, unexplained);
    std::string out;
    llvm::raw_string_ostream os(out);
    // Its own reduced dims, or a partial sum an operand passed on (a
    // linear op: neg, a sum of partial sums, a reduce of one).
    std::vector<int> own = partialAxes(v.getDefiningOp());
    bool mine = llvm::all_of(axes, [&](int a) { return llvm::is_contained(own, a); });
    os << "; each device holds a partial result over " << axisList(core, axes)
       << (mine ? " (the axes its operands split the reduced dims by: "
                : " (a partial sum it passes on from its operands: ");
    printSources(os, v, named, axes, unexplained, ", and ", name);
    os << "), which insert-reshards reduces where a use needs it whole";
    return out;
  }

  /// The ops of a path, from the annotation toward the value. A path through
  /// a deep network names its first and last kViaEnds ops and counts the
  /// rest: printed whole, every value's remark would repeat its producers'
  /// paths, quadratic in the depth (a 2000-op MLP printed ~130 MB).
  std::string pathOf(const shardc::AxisOrigins::Origin &o) {
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
              os << op->getName() << " (" << where(op->getLoc()) << ")";
            else
              os << "sharding group " << group;
          },
          ", ");
    };
    if (o.path.size() == o.length) {
      print(o.path);
    } else {
      print(ArrayRef<int>(o.path).take_front(kViaEnds));
      os << ", ... " << o.length - 2 * kViaEnds << " more ops ..., ";
      print(ArrayRef<int>(o.path).take_back(kViaEnds));
    }
    return out;
  }

  /// Why a value holds no axis at all.
  std::string replicatedOrigin(Value v, llvm::function_ref<std::string(Value)> name) {
    std::string out;
    llvm::raw_string_ostream os(out);
    if (auto own = ownSource.find(v); own != ownSource.end()) {
      const Annotation &a = *originSources[own->second].annotation;
      os << describe(a) << " annotated " << written(a) << " at " << where(a.loc);
      return out;
    }
    if (cast<RankedTensorType>(v.getType()).getRank() == 0)
      return "a scalar: nothing to split, whole on every device";
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
          [&](auto &l) { os << l.second << " at the call at " << where(l.first->getLoc()); }, ", ");
      os << "): one sharding per signature keeps what they share, nothing; the calls are "
            "resharded";
      return out;
    }
    Operation *def = v.getDefiningOp();
    // Operands with different layouts that left nothing to propagate:
    // their annotations met at this op and cancelled (policy 2).
    SmallVector<std::pair<unsigned, std::string>> layouts;
    if (def)
      for (auto [i, operand] : llvm::enumerate(def->getOperands()))
        if (isTensor(operand) && !closedFinal(operand).isFullyReplicated())
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
    } else if (!layouts.empty() && !call) {
      os << "its operands (";
      listLayouts();
      os << (onlyReduced(def) ? ") are split only along dims it reduces"
                              : ") are split only along dims it computes whole, so they are "
                                "gathered")
         << ": its own dims are replicated";
    } else if (auto [op, held] = heldNextTo(v); op) {
      // A neighbour through a rule op holds axes that op did not carry
      // here: its rule maps none of their dims onto this value's, or a
      // dim they would split unevenly (a reshape's).
      os << "annotations reach " << name(held) << " (" << closedFinal(held).str(core)
         << "), but " << op->getName() << " (" << where(op->getLoc())
         << ") carries none of its axes onto this value: replicated";
    } else {
      os << "no annotation reaches it: replicated";
    }
    return out;
  }

  /// An op with a rule that defines or uses `v` and another of its tensors
  /// that holds axes, if any.
  std::pair<Operation *, Value> heldNextTo(Value v) {
    SmallVector<Operation *> ops;
    if (Operation *def = v.getDefiningOp())
      ops.push_back(def);
    for (Operation *user : v.getUsers())
      ops.push_back(user);
    for (Operation *op : ops) {
      if (!ruleFor(op))
        continue;
      for (Value t : llvm::concat<Value>(op->getOperands(), op->getResults()))
        if (t != v && isTensor(t) && !closedFinal(t).isFullyReplicated())
          return {op, t};
    }
    return {nullptr, Value()};
  }

  /// One remark per value, at its location: final sharding and its origin.
  void explainAll() {
    traceAxes();
    for (func::FuncOp func : funcs)
      explainAll(func);
  }

  void explainAll(func::FuncOp func) {
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
                                 << conflictOf(arg);
      }
    func.walk([&](Operation *op) {
      for (Region &region : op->getRegions()) // arguments of non-entry blocks
        for (Block &block : region)
          if (&block != &region.front() || op != func)
            for (BlockArgument arg : block.getArguments())
              if (isTensor(arg))
                emitRemark(arg.getLoc()) << name(arg) << " (block argument): " << finalStr(arg)
                                         << " <- " << originOf(arg, name) << conflictOf(arg);
      if (op == func)
        return;
      for (Value r : op->getResults())
        if (isTensor(r))
          emitRemark(op->getLoc()) << name(r) << " (" << op->getName() << "): " << finalStr(r)
                                   << " <- " << originOf(r, name) << conflictOf(r)
                                   << partialOf(r, name);
    });
  }

  /// The factor rule propagation stepped `op` with, or null.
  const FactorRule *ruleFor(Operation *op) {
    auto at = opIndex.find(op);
    return at == opIndex.end() || !ruleOf[at->second] ? nullptr : &ruleOf[at->second]->rule;
  }
  std::vector<TensorSharding> finalShardings(ValueRange values) {
    std::vector<TensorSharding> out;
    for (Value v : values)
      out.push_back(closedFinal(v));
    return out;
  }

  /// The axes a rule op leaves its results partial sums over: those of its
  /// reduction factors, as insert-reshards will run it (executionAxes).
  std::vector<int> partialAxes(Operation *op) {
    const FactorRule *rule = ruleFor(op);
    if (!rule)
      return {};
    shardc::FactorAxes factors = shardc::executionAxes(
        *rule, finalShardings(op->getOperands()), finalShardings(op->getResults()), core);
    std::vector<int> axes;
    for (size_t f = 0; f < rule->numFactors(); ++f)
      if (rule->kinds[f] == shardc::FactorKind::Reduction)
        llvm::append_range(axes, factors[f]);
    return axes;
  }

  /// Whether the operands of `op` ask different axes for a factor that
  /// indexes a result: the merge keeps their common prefix (policy 2) and
  /// the operands are resharded. Operands split along different reduction
  /// factors, or along what the result does not index, do not conflict.
  bool operandsConflict(Operation *op) {
    const FactorRule *ruled = ruleFor(op);
    if (!ruled)
      return false;
    const FactorRule &rule = *ruled;
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
          return true;
    }
    return false;
  }

  /// Whether every factor the operands of `op` split is one it reduces (a
  /// partial sum), rather than one it needs whole (gathered first).
  bool onlyReduced(Operation *op) {
    const FactorRule *rule = ruleFor(op);
    if (!rule)
      return false;
    for (auto [t, v] : llvm::enumerate(op->getOperands()))
      for (auto [f, axes] : llvm::enumerate(shardc::projectToFactors(*rule, t, closedFinal(v), core)))
        if (axes && !axes->empty() && rule->kinds[f] != shardc::FactorKind::Reduction)
          return false;
    return true;
  }

  /// For a value where ops proposed layouts that could not all be kept:
  /// who wanted what (the last such merge), so a conflict is not mistaken
  /// for "no annotation reaches it".
  std::string conflictOf(Value v) {
    auto it = conflicts.find(idOf(v));
    if (it == conflicts.end())
      return "";
    std::string out;
    llvm::raw_string_ostream os(out);
    os << "; conflicting proposals (the defining op's holds against its users'; users and "
          "ties keep what they share):";
    for (auto [i, entry] : llvm::enumerate(it->second)) {
      auto [proposer, id] = entry;
      Operation *op = proposer >= 0 ? nodes[proposer].op : ties[~proposer].second;
      os << (i ? "," : "") << " " << closed(table.get(id)).str(core) << " from ";
      if (op)
        os << op->getName() << " (" << where(op->getLoc()) << ")";
      else
        os << "a sharding group";
    }
    return out;
  }

  SmallVector<func::FuncOp> funcs;
  llvm::DenseSet<Operation *> inSet;
  /// Every op of `funcs` in walk order (post-order, each function's op last),
  /// collected once: each phase visits all ops, and on a 100k-op function a
  /// walk costs about as much as the per-op work itself. Until finalize the
  /// IR does not change; finalize only writes attributes.
  std::vector<Operation *> allOps;
  /// Per allOps entry: its rule when it is a rule op over tensors, else null.
  std::vector<const CachedRule *> ruleOf;
  enum OpFlag : uint8_t {
    kHasRule = 1,
    kNoRule = 2,
    kHasAttrs = 4,
    kConstraint = 8, // a sharding_constraint
    kReturn = 16,    // a func.return
  };
  std::vector<unsigned> numResults; // per allOps entry
  std::vector<uint8_t> opFlags; // per allOps entry: OpFlag bits
  SmallVector<std::pair<size_t, size_t>> opRange; // funcs[i]'s ops in allOps
  llvm::DenseMap<Operation *, SmallVector<func::ReturnOp>> returnsOf;
  MeshOp mesh;
  const shardc::Mesh &core;
  bool explain;
  /// Value ids: every tensor value a step, tie or annotation touches.
  /// Results of the propagated functions' ops have ids from the
  /// constructor (their op's index, then the result number). A block's
  /// arguments get consecutive ids when the first of them is asked for, so
  /// an argument's id is its block's base plus its number (a function with
  /// one weight argument per layer has tens of thousands of them).
  unsigned idOf(Value v) {
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
  unsigned newId(Value v) {
    valueOf.push_back(v);
    ids.push_back(ShardingTable::kUnknown);
    return valueOf.size() - 1;
  }
  /// `v`'s current sharding, or null while unknown.
  const TensorSharding *known(Value v) {
    ShardingTable::Id id = ids[idOf(v)];
    return id == ShardingTable::kUnknown ? nullptr : &table.get(id);
  }
  void setState(Value v, const TensorSharding &s) { ids[idOf(v)] = table.intern(s); }

  // The fixed point runs on ids, not on IR: interned shardings per value id,
  // the op graph as index arrays, memoized steps. Written back once, at the
  // end (finalize).
  shardc::FactorRuleCache rules;
  ShardingTable table;
  llvm::DenseMap<Operation *, unsigned, NearbyOpsInfo> opIndex; // into allOps
  std::vector<unsigned> firstResult; // per allOps entry: its result 0's id
  /// Per allOps entry, its operands' ids from operandIds[firstOperand[i]] to
  /// operandIds[firstOperand[i + 1]] (one more entry ends the last op):
  /// kNoValue for a non-tensor, kUnresolved for a value defined later in
  /// walk order (only across blocks), resolved when the graph is built.
  std::vector<unsigned> firstOperand, operandIds;
  /// The id of `v` if its definition has been collected, else kUnresolved.
  unsigned resolvedId(Value v) {
    if (auto r = dyn_cast<OpResult>(v)) {
      auto it = opIndex.find(r.getOwner());
      return it == opIndex.end() ? kUnresolved : firstResult[it->second] + r.getResultNumber();
    }
    return idOf(v);
  }
  llvm::DenseMap<Block *, unsigned> blockArgBase; // id of each block's argument 0
  std::vector<Value> valueOf;
  std::vector<ShardingTable::Id> ids; // per value id; kUnknown while unknown
  std::vector<Node> nodes;
  std::vector<unsigned> nodeValues;
  std::vector<unsigned> nodeOf; // per allOps entry: its node, or kNoNode
  std::vector<SmallVector<unsigned, 2>> users; // per value id: user nodes
  std::vector<unsigned> defNode;               // per value id, or kNoNode
  /// A wave's proposals (see runWorklist): value v may grow to `id`.
  static constexpr unsigned kNone = ~0u;
  struct Proposal {
    unsigned v;
    ShardingTable::Id id;
    int64_t proposer; // node index, or ~tie
    unsigned next;    // the value's previous proposal in this wave, or kNone
  };
  std::vector<Proposal> proposals;
  std::vector<unsigned> waveHead;    // per value: its latest proposal, or kNone
  std::vector<unsigned> touched;     // values with a proposal, first-seen order
  int64_t proposer = 0;              // the item stepping now
  /// Values whose last merge left some proposer unsatisfied, with every
  /// proposer's latest proposal (satisfied or not).
  std::vector<bool> contested;
  llvm::DenseMap<unsigned, SmallVector<std::pair<int64_t, ShardingTable::Id>, 2>> contestedOf;
  int numContested = 0;
  /// For explain: per value, every proposal of its last merge that left one
  /// unsatisfied.
  llvm::DenseMap<unsigned, SmallVector<std::pair<int64_t, ShardingTable::Id>, 2>> conflicts;

  shardc::KeyMemo<uint32_t, StepResult> steps; // [rule index, input ids...] -> step
  SmallVector<uint32_t, 8> key;                // scratch for apply

  std::map<std::pair<Operation *, unsigned>, ShardingTable::Id> sinks;
  llvm::MapVector<Value, Annotation> annotations;
  /// makeAnnotation's memo: (sharding, type) -> (full, initial).
  llvm::DenseMap<std::pair<Attribute, Type>, std::pair<ShardingTable::Id, ShardingTable::Id>>
      writtenIds;
  std::map<std::pair<Operation *, unsigned>, Annotation> sinkAnnotations;
  std::map<int64_t, SmallVector<Value>> groups;
  std::vector<std::pair<SmallVector<unsigned>, Operation *>> ties; // member ids, via
  llvm::DenseMap<unsigned, SmallVector<size_t>> tiesOf;
};

/// Buffers stderr while explain emits its remarks, flushed when the pass
/// ends. The drivers' diagnostic handler prints each remark's source line
/// and a caret line to the unbuffered stderr, the caret line one character
/// per write: with one remark per argument of a signature written on one
/// line, that was a system call per character of a line per argument
/// (`mlp` 1000 ops, 500 weights on one 45 kB line: 8 s; 10000 ops: about
/// 10 minutes). Handlers that do not print (tools that consume remarks)
/// see no difference.
struct BufferedStderr {
  BufferedStderr() { llvm::errs().SetBuffered(); }
  ~BufferedStderr() {
    llvm::errs().flush();
    llvm::errs().SetUnbuffered();
  }
};

struct Propagate : shardc::impl::GArrayPropagateBase<Propagate> {
  using GArrayPropagateBase::GArrayPropagateBase;
  void runOnOperation() override {
    std::optional<BufferedStderr> buffered;
    if (explain)
      buffered.emplace();
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> defined;
    llvm::DenseMap<Operation *, MeshOp> meshOf;
    MeshOp theMesh;
    bool oneMesh = true;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<MeshOp> mesh = findMesh(func);
      if (failed(mesh))
        return signalPassFailure();
      defined.push_back(func);
      if (!*mesh)
        continue;
      meshOf[func] = *mesh;
      if (theMesh && theMesh != *mesh)
        oneMesh = false;
      theMesh = theMesh ? theMesh : *mesh;
    }
    // Group members across functions, checked here for what no single
    // propagation sees: functions it does not visit, and functions
    // propagated one by one (a module with several meshes). One function's
    // members are checked where they are collected.
    std::map<int64_t, SmallVector<std::pair<Value, func::FuncOp>>> groupMembers;
    if (defined.size() > 1)
      for (func::FuncOp func : defined) {
        auto note = [&](Value v, Attribute a) {
          if (auto id = dyn_cast_or_null<IntegerAttr>(a); id && isa<RankedTensorType>(v.getType()))
            groupMembers[id.getInt()].push_back({v, func});
        };
        for (BlockArgument arg : func.getArguments())
          note(arg, func.getArgAttr(arg.getArgNumber(), kGroupAttrName));
        func.walk([&](Operation *op) {
          if (Attribute a = op->getAttr(kGroupAttrName))
            for (Value r : op->getResults())
              note(r, a);
        });
      }
    for (auto &[id, members] : groupMembers) {
      auto [first, firstFunc] = members.front();
      for (auto &[v, func] : members) {
        Location loc = isa<BlockArgument>(v) ? v.getLoc() : v.getDefiningOp()->getLoc();
        if (v.getType() != first.getType()) {
          (void)groupTypeError(id, first, v, loc);
          return signalPassFailure();
        }
        if (!oneMesh && func != firstFunc) {
          InFlightDiagnostic d = emitError(loc) << "sharding group " << id << " ties values of @"
                                                << firstFunc.getSymName() << " and @"
                                                << func.getSymName() << ", but this module places "
                                                   "values on more than one mesh, so each function "
                                                   "is propagated on its own; keep a group's "
                                                   "members in one function";
          d.attachNote(first.getLoc()) << "first member of the group";
          return signalPassFailure();
        }
      }
    }
    auto runOn = [&](SmallVector<func::FuncOp> funcs, MeshOp mesh) -> LogicalResult {
      FailureOr<shardc::Mesh> core = toCoreMesh(mesh);
      if (failed(core))
        return failure();
      return FunctionPropagation(std::move(funcs), mesh, *core, explain).run();
    };
    if (!theMesh) { // nothing placed: every value is replicated
      if (explain)
        for (func::FuncOp func : defined)
          explainUnplaced(func, "no function of this module is annotated");
      return markAllAnalysesPreserved();
    }
    if (!oneMesh) {
      // Functions on different meshes are propagated one by one; calls
      // between them stay opaque (ops without a rule).
      for (func::FuncOp func : defined)
        if (MeshOp mesh = meshOf.lookup(func))
          if (failed(runOn({func}, mesh)))
            return signalPassFailure();
      return;
    }
    // One mesh: the functions with annotations and every function connected
    // to them by calls (either direction) are propagated together, so
    // shardings flow into callees and back out (docs/propagation.md).
    llvm::DenseSet<Operation *> set;
    for (func::FuncOp func : defined)
      if (meshOf.count(func))
        set.insert(func);
    // A module with one defined function has no call to connect: its calls
    // can only reach itself or external declarations, so no walk over its
    // (possibly 100k) ops is needed to know the set.
    // Group ids are module-wide: a function holding a member of a group that
    // has a member in the set joins it, so the group is tied whatever else
    // the function holds (docs/propagation.md, "Sharding groups").
    std::map<int64_t, SmallVector<func::FuncOp>> groupFuncs;
    for (auto &[id, members] : groupMembers)
      for (auto &[v, func] : members)
        groupFuncs[id].push_back(func);
    for (bool grew = defined.size() > 1; grew;) {
      grew = false;
      for (auto &[id, members] : groupFuncs)
        if (llvm::any_of(members, [&](func::FuncOp f) { return set.contains(f); }))
          for (func::FuncOp f : members)
            grew |= set.insert(f).second;
      for (func::FuncOp func : defined)
        func.walk([&](func::CallOp call) {
          auto callee =
              SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
          if (!callee || callee.isExternal())
            return;
          bool callerIn = set.contains(func), calleeIn = set.contains(callee);
          if (callerIn != calleeIn) {
            set.insert(func);
            set.insert(callee);
            grew = true;
          }
        });
    }
    SmallVector<func::FuncOp> funcs;
    for (func::FuncOp func : defined)
      if (set.contains(func))
        funcs.push_back(func);
      else if (explain)
        explainUnplaced(func, "this function has no annotation and no call connects it to one");
    if (failed(runOn(funcs, theMesh)))
      return signalPassFailure();
  }

  /// explain for a function propagation does not visit: every value whole.
  static void explainUnplaced(func::FuncOp func, StringRef why) {
    AsmState state(func);
    auto remark = [&](Value v, Location loc, StringRef what) {
      if (!isa<RankedTensorType>(v.getType()))
        return;
      std::string name;
      llvm::raw_string_ostream os(name);
      v.printAsOperand(os, state);
      emitRemark(loc) << name << " (" << what << "): replicated <- " << why;
    };
    for (BlockArgument arg : func.getArguments())
      remark(arg, arg.getLoc(), ("argument of @" + func.getSymName()).str());
    func.walk([&](Operation *op) {
      if (op == func.getOperation())
        return;
      for (Value r : op->getResults())
        remark(r, op->getLoc(), op->getName().getStringRef());
    });
  }
};
} // namespace
