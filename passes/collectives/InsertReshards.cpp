//===- InsertReshards.cpp - garray-insert-reshards: make ops consistent ---===//
//
// Walks each function in program order with every value's *actual* layout,
// pending axes included. For each op with a rule:
//   1. factor axes: the result's propagated sharding fixes the factors it
//      indexes; factors only operands index (reductions) take the operands'
//      merged axes, minus axes the results already use;
//   2. pending flow (PendingFlow): decides which pending operands may stay
//      pending; every other operand must be reduced;
//   3. an operand whose layout differs from what 1–2 require gets a
//      garray.reshard, with a `reason` naming the op and operand;
//   4. the result is pending over the kept pending axes plus the axes of
//      every sharded reduction factor.
// Function results must be reduced and take their declared sharding.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/FactorRuleCache.h"
#include "passes/KeyMemo.h"
#include "passes/PendingUses.h"
#include "passes/Passes.h"
#include "passes/ShardingWriter.h"
#include "sharding/FactorMerge.h"

#include "mlir/IR/Builders.h"

#include <algorithm>

namespace shardc {
#define GEN_PASS_DEF_GARRAYINSERTRESHARDS
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;
using shardc::FactorRule;
using shardc::PendingFlow;
using shardc::TensorSharding;

namespace {

bool isTensor(Value v) { return isa<RankedTensorType>(v.getType()); }

class FunctionConsistency {
public:
  FunctionConsistency(func::FuncOp func, MeshOp mesh, const shardc::Mesh &core)
      : func(func), core(core),
        meshRef(FlatSymbolRefAttr::get(func.getContext(), mesh.getSymName())), mesh(mesh),
        writer(func.getContext()) {}

  LogicalResult run() {
    LogicalResult ok = success();
    func.walk([&](Operation *op) {
      if (failed(ok))
        return;
      if (const shardc::CachedRule *rule = rules.lookup(op))
        ok = visitRuleOp(op, *rule);
      else if (auto c = dyn_cast<ShardingConstraintOp>(op))
        visitConstraint(c);
      else if (auto ret = dyn_cast<func::ReturnOp>(op))
        visitReturn(ret);
      else if (auto call = dyn_cast<func::CallOp>(op); call && definedCallee(call))
        visitCall(call, definedCallee(call));
      else if (auto map = dyn_cast<ShardMapOp>(op))
        visitShardMap(map);
      else if (auto r = dyn_cast<ReshardOp>(op))
        visitWrittenReshard(r);
      else if (!isGlobalCollective(op))
        visitRuleless(op);
    });
    writeSharers();
    return ok;
  }

  /// Whether run() changed the function (a reshard, an operand, a sharding
  /// attribute). When no function changed, the pass says so and the pass
  /// manager does not verify the unchanged module again.
  bool changedIR() const { return changed; }

private:
  TensorSharding actual(Value v) {
    ShardingAttr s = getSharding(v);
    unsigned rank = cast<RankedTensorType>(v.getType()).getRank();
    if (!s)
      return TensorSharding::replicated(rank);
    TensorSharding t = *toCore(s, mesh, rank);
    for (shardc::DimSharding &d : t.dims)
      d.open = false;
    return t;
  }

  ShardingAttr attr(const TensorSharding &s) {
    return fromCore(func.getContext(), meshRef, core, s);
  }

  /// A reshard of `v` to `want`, created once per (value, layout) right after
  /// `v`'s definition so that every use can share it.
  Value reshardOf(Value v, const TensorSharding &want, StringRef reason) {
    return reshardOf(v, attr(want), reason);
  }
  Value reshardOf(Value v, ShardingAttr target, StringRef reason) {
    auto key = std::make_pair(v, Attribute(target));
    if (auto it = cache.find(key); it != cache.end()) {
      alsoFor(it->second.getDefiningOp(), reason);
      return it->second;
    }
    OpBuilder b(func.getContext());
    if (Operation *def = v.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
    // At the value's own location: an argument's is where it is declared.
    Location loc = v.getDefiningOp() ? v.getDefiningOp()->getLoc() : v.getLoc();
    auto reshard = ReshardOp::create(b, loc, v, target);
    made.insert(reshard);
    changed = true;
    reshard->setAttr("reason", b.getStringAttr(reason));
    setSharding(reshard.getResult(), target);
    cache[key] = reshard.getResult();
    return reshard.getResult();
  }

  /// A reshard that a later use shares says so in its reason: the first
  /// kNamedSharers more uses by name (two ops may need it for different
  /// reasons), then how many more. Written once per reshard at the end: a
  /// weight shared by every layer is looked up once per layer.
  static constexpr unsigned kNamedSharers = 2;
  struct Sharers {
    SmallVector<std::string, kNamedSharers> named;
    unsigned more = 0;
  };
  void alsoFor(Operation *reshard, StringRef reason) {
    Sharers &s = sharers[reshard];
    if (s.named.size() < kNamedSharers)
      s.named.push_back(reason.str());
    else
      ++s.more;
  }
  /// An operandReason split into its cause and its place ("operand #i of
  /// OP at L: has .., needs .."); the place is empty for other reasons.
  static std::pair<StringRef, StringRef> splitReason(StringRef reason) {
    size_t at = reason.find(" (operand #");
    if (at == StringRef::npos || !reason.ends_with(")"))
      return {reason, ""};
    return {reason.take_front(at), reason.drop_front(at + 2).drop_back()};
  }
  void writeSharers() {
    for (auto &[reshard, s] : sharers) {
      std::string text = reshard->getAttrOfType<StringAttr>("reason").getValue().str();
      // Copies: `text` grows below.
      auto [whyRef, where] = splitReason(text);
      std::string why = whyRef.str();
      std::string ownMismatch = where.substr(std::min(where.find(": "), where.size())).str();
      for (const std::string &r : s.named) {
        // Another slot that needs the same layout for the same cause (both
        // operands of x * x) is named by its place only.
        auto [otherWhy, otherWhere] = splitReason(r);
        if (otherWhere.empty() || otherWhy != why) {
          text += "; also for " + r;
          continue;
        }
        size_t colon = std::min(otherWhere.find(": "), otherWhere.size());
        text += "; also for " + otherWhere.take_front(colon).str() + ", the same cause";
        if (otherWhere.drop_front(colon) != ownMismatch)
          text += " (" + otherWhere.drop_front(std::min(colon + 2, otherWhere.size())).str() + ")";
      }
      if (s.more)
        text += "; and " + std::to_string(s.more) + " more use(s)";
      reshard->setAttr("reason", StringAttr::get(reshard->getContext(), text));
    }
  }

  /// The reason a reshard of operand `i` of `op` carries: why, and which
  /// operand of which op, where (two ops of one kind may share an operand
  /// and need it in different layouts), has what and needs what.
  static std::string operandReason(Operation *op, unsigned i, StringRef why, StringRef mismatch) {
    return (why + " (operand #" + Twine(i) + " of " + op->getName().getStringRef() + " at " +
            locationText(op->getLoc()) + ": " + mismatch + ")")
        .str();
  }

  /// Makes operand `i` of `op` have layout `want`.
  void require(Operation *op, unsigned i, const TensorSharding &want, StringRef why) {
    Value v = op->getOperand(i);
    if (actual(v).sameLayout(want))
      return;
    std::string mismatch = "has " + actual(v).str(core) + ", needs " + want.str(core);
    op->setOperand(i, reshardOf(v, want, operandReason(op, i, why, mismatch)));
    changed = true;
  }

  /// A pending value is reduced once, right away, when some user needs it
  /// reduced or several users would each carry it pending at full size
  /// (passes/PendingUses.h); every user (linear ones too) then reads the
  /// reduced value: one collective per value, never one per use.
  void reduceEagerlyIfNeeded(Value v, const TensorSharding &s) {
    if (!s.isPending())
      return;
    shardc::PendingDecision decision = shardc::decidePending(v, rules);
    if (decision.kind == shardc::PendingUse::KeptPending)
      return;
    TensorSharding reduced = s;
    reduced.pending.clear();
    std::string reason;
    llvm::raw_string_ostream os(reason);
    os << "pending " << shardc::reductionName(s.pendingKind) << " over ";
    llvm::interleaveComma(s.pending, os, [&](int a) { os << "\"" << core.axes[a] << "\""; });
    auto numUses = std::distance(v.getUses().begin(), v.getUses().end());
    os << " reduced once for its " << numUses << (numUses == 1 ? " use" : " uses");
    if (OpOperand *needs = decision.use) {
      os << ", since operand #" << needs->getOperandNumber() << " of "
         << needs->getOwner()->getName() << " at " << locationText(needs->getOwner()->getLoc())
         << (isa<func::ReturnOp>(needs->getOwner()) ? " (a function result)" : "");
      if (auto why = needs->getOwner()->getAttrOfType<StringAttr>("reason");
          why && isa<ShardingConstraintOp>(needs->getOwner()))
        os << " (" << why.getValue() << ")";
      os << " needs the whole value";
      if (decision.grownBy)
        os << ", after " << decision.grownBy->getName() << " at "
           << locationText(decision.grownBy->getLoc()) << " grows it";
    } else {
      os << ", since " << decision.carriers
         << " of them would each carry it pending at its full size and need their own "
            "reduction later";
    }
    SmallVector<OpOperand *> uses;
    for (OpOperand &u : v.getUses())
      uses.push_back(&u);
    Value r = reshardOf(v, reduced, reason);
    for (OpOperand *u : uses)
      u->set(r);
    changed = true;
  }

  /// What steps 1-4 decide for one rule op. A pure function of the op's
  /// rule and of its operands' and results' current sharding attributes
  /// (uniqued, so comparable by pointer): computed once per distinct
  /// combination and replayed on every op that has it (plan()).
  struct Plan {
    SmallVector<ShardingAttr> reshardTo; // per operand; null: already right
    SmallVector<std::string> reasons;    // per operand that is resharded: why
    SmallVector<std::string> mismatches; // and "has X, needs Y" (operandReason)
    SmallVector<ShardingAttr> results;   // per result: its sharding
    SmallVector<TensorSharding> resultShardings;
    bool mixedPending = false;           // an internal error, reported by the op
  };

  LogicalResult visitRuleOp(Operation *op, const shardc::CachedRule &cached) {
    if (!llvm::all_of(op->getOperands(), isTensor) || !llvm::all_of(op->getResults(), isTensor))
      return success();
    const Plan &p = plan(op, cached);
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      if (p.reshardTo[i]) {
        op->setOperand(i, reshardOf(op->getOperand(i), p.reshardTo[i],
                                    operandReason(op, i, p.reasons[i], p.mismatches[i])));
        changed = true;
      }
    if (p.mixedPending)
      return op->emitError("internal: mixed pending reductions");
    for (size_t r = 0; r < op->getNumResults(); ++r) {
      // A result that already has the plan's sharding (most ops of a
      // consistent program) is not written again.
      if (p.results[r] != resultsNow[r])
        setResultSharding(op->getResult(r), p.results[r]);
      reduceEagerlyIfNeeded(op->getResult(r), p.resultShardings[r]);
    }
    return success();
  }

  const Plan &plan(Operation *op, const shardc::CachedRule &cached) {
    planKey.clear();
    planKey.push_back(cached.index);
    for (Value v : op->getOperands())
      planKey.push_back(reinterpret_cast<uintptr_t>(getSharding(v).getAsOpaquePointer()));
    resultsNow.clear();
    for (Value v : op->getResults()) {
      resultsNow.push_back(getSharding(v));
      planKey.push_back(reinterpret_cast<uintptr_t>(resultsNow.back().getAsOpaquePointer()));
    }
    // Which operands are one value (x * x): the plan reduces such a value
    // once for every slot instead of keeping one slot pending.
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      planKey.push_back(llvm::find(op->getOperands(), op->getOperand(i)) -
                        op->getOperands().begin());
    return plans.get(planKey, [&] { return computePlan(op, cached.rule); });
  }

  Plan computePlan(Operation *op, const FactorRule &rule) {
    Plan plan;
    size_t numOperands = op->getNumOperands();
    std::vector<TensorSharding> operands;
    for (Value v : op->getOperands())
      operands.push_back(actual(v));

    // 1. Factor axes: results first, then operand-only factors.
    std::vector<TensorSharding> results;
    for (Value r : op->getResults())
      results.push_back(actual(r));
    shardc::FactorAxes axes = shardc::executionAxes(rule, operands, results, core);
    // 2. Pending flow (sharding/FactorMerge.h, shared with explain).
    const PendingFlow &flow = rule.pending;
    // A pending value that also fills another operand slot is reduced for
    // that slot anyway: use the reduced value in every slot (one collective)
    // rather than keep this one pending and reduce the result again.
    std::vector<bool> repeated(numOperands);
    for (size_t i = 0; i < numOperands; ++i)
      repeated[i] = llvm::count(op->getOperands(), op->getOperand(i)) > 1;
    shardc::PendingThrough through =
        shardc::pendingThrough(rule, operands, axes, repeated, core);
    const std::vector<bool> &keep = through.keep;
    // Why pending operand i is reduced before the op (pendingThrough
    // decides; this words it).
    auto whyReduced = [&](size_t i) -> std::string {
      using R = shardc::PendingThrough::Reduced;
      const shardc::PendingThrough::Why &w = through.why[i];
      switch (w.reason) {
      case R::NoFlow:
        return "a pending partial must be reduced before this op, which does not pass partial "
               "sums through";
      case R::OtherKind:
        return std::string("a pending ") + shardc::reductionName(operands[i].pendingKind) +
               " partial cannot pass through an op linear only in " +
               shardc::reductionName(flow.kind) + " partials";
      case R::AxesTaken:
        return "a pending partial is reduced first: its axes also split the op's own dims";
      case R::NotAllSame: {
        std::string which = "every operand is";
        if (!flow.operands.empty()) {
          which = flow.operands.size() == 1 ? "operand" : "operands";
          for (size_t k = 0; k < flow.operands.size(); ++k)
            which += (k ? (k + 1 == flow.operands.size() ? " and #" : ", #") : " #") +
                     std::to_string(flow.operands[k]);
          which += flow.operands.size() == 1 ? " is" : " are";
        }
        return "a pending partial passes through this op only when " + which +
               " pending over the same axes (and no other operand is), and operand #" +
               std::to_string(w.other) + (flow.inFlow(w.other) ? " is not" : " is");
      }
      case R::NotThisSlot:
        return "a pending partial passes through this op only as operand #" +
               std::to_string(flow.operands.empty() ? 0 : flow.operands.front());
      case R::Repeated:
        return "the value fills another operand slot too, where it must be whole";
      case R::OtherKept:
        return "only one operand may stay pending through this op, and operand #" +
               std::to_string(w.other) + " does";
      case R::Kept:
        break;
      }
      return "a pending partial must be reduced here";
    };

    // Why operand `i` loses an axis it holds: where the op runs it instead.
    auto whyMoved = [&](size_t i) -> std::string {
      std::vector<shardc::MovedAxis> moved = shardc::movedAxes(rule, axes, operands, i, core);
      if (moved.empty())
        return "";
      const shardc::MovedAxis &m = moved.front();
      size_t d = m.dim;
      const std::string &where = m.where;
      std::string axis = "\"" + core.axes[m.axis] + "\"";
      std::string here = "this operand's dim " + std::to_string(d);
      if (!where.empty())
        return "the op uses " + axis + " for " + where + ", not for " + here;
      std::string text = "the op is not split by " + axis + ", which " + here + " holds";
      // A dot whose operands split the contracted dim by different axes
      // keeps neither: say who the rival is.
      if (d < rule.operands[i].size() && rule.operands[i][d].size() == 1)
        if (auto rival = shardc::rivalSplit(rule, operands, i, rule.operands[i][d].front()))
          text += "; operand #" + std::to_string(rival->operand) +
                  " splits the same factor (its dim " + std::to_string(rival->dim) + ") by " +
                  shardc::axisList(core, rival->axes);
      return text;
    };

    // 3. Operands.
    for (size_t i = 0; i < numOperands; ++i) {
      TensorSharding want = shardc::projectFromFactors(rule, i, axes, core);
      if (keep[i]) {
        want.pending = operands[i].pending;
        want.pendingKind = operands[i].pendingKind;
      }
      plan.reshardTo.push_back({});
      plan.reasons.emplace_back();
      plan.mismatches.emplace_back();
      if (operands[i].sameLayout(want))
        continue;
      if (keep[i] || !operands[i].isPending()) {
        std::string moved = whyMoved(i);
        plan.reasons.back() = "layout for the op's factor rule" + (moved.empty() ? "" : ": " + moved);
      } else {
        plan.reasons.back() = whyReduced(i);
      }
      plan.mismatches.back() = "has " + operands[i].str(core) + ", needs " + want.str(core);
      plan.reshardTo.back() = attr(want);
    }

    // 4. Results.
    if (through.mixed) {
      plan.mixedPending = true;
      return plan;
    }
    for (size_t r = 0; r < op->getNumResults(); ++r) {
      TensorSharding res = shardc::projectFromFactors(rule, numOperands + r, axes, core);
      res.pending = through.pending;
      res.pendingKind = through.kind;
      plan.results.push_back(attr(res));
      plan.resultShardings.push_back(std::move(res));
    }
    return plan;
  }

  void visitConstraint(ShardingConstraintOp c) {
    TensorSharding want = *toCore(c.getSharding(), mesh, c.getType().getRank());
    for (shardc::DimSharding &d : want.dims)
      d.open = false;
    changed = true;
    // Its operand already in the target layout (the common case: the
    // constraint steered its neighbours): nothing to move, so no reshard
    // whose reason would read "has X, needs X".
    if (actual(c.getOperand()).sameLayout(want)) {
      c.replaceAllUsesWith(c.getOperand());
      c.erase();
      return;
    }
    OpBuilder b(c);
    auto reshard = ReshardOp::create(b, c.getLoc(), c.getOperand(), attr(want));
    // A constraint the compiler wrote (expand-optimizers' gradient pin)
    // says so; its reshard keeps that, not the user-facing op name alone.
    std::string reason = kConstraintReasonPrefix.str() + locationText(c.getLoc());
    if (auto why = c->getAttrOfType<StringAttr>("reason"))
      reason += " (" + why.str() + ")";
    // A partial sum reduced once for all its uses (this one too) is what
    // the program's value was: "has" names it, not the reduced copy.
    Value had = c.getOperand();
    if (auto r = had.getDefiningOp<ReshardOp>(); r && made.contains(r))
      had = r.getOperand();
    reason += ": has " + actual(had).str(core) + ", needs " + want.str(core);
    reshard->setAttr("reason", b.getStringAttr(reason));
    setSharding(reshard.getResult(), attr(want));
    c.replaceAllUsesWith(reshard.getResult());
    c.erase();
  }

  /// A reshard written in the program (insert-reshards' own carry a reason
  /// already): its collectives say who asked for them.
  void visitWrittenReshard(ReshardOp r) {
    if (r->hasAttr("reason"))
      return;
    TensorSharding want = *toCore(r.getSharding(), mesh, r.getType().getRank());
    r->setAttr("reason", StringAttr::get(r.getContext(),
                                         kWrittenReshardReasonPrefix.str() +
                                             locationText(r.getLoc()) +
                                             ": has " + actual(r.getOperand()).str(core) +
                                             ", needs " + want.str(core)));
    changed = true;
  }

  void visitReturn(func::ReturnOp ret) {
    // Written once after the loop: one result at a time rewrites every
    // result's dictionary each time (ShardingWriter.h).
    SmallVector<Attribute> resultShardings;
    bool resultsChange = false;
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      resultShardings.push_back(func.getResultAttr(i, kShardingAttrName));
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      if (!isTensor(v))
        continue;
      TensorSharding want = actual(v);
      if (ShardingAttr declared = getResultSharding(func, i))
        want = *toCore(declared, mesh, cast<RankedTensorType>(v.getType()).getRank());
      want.pending.clear();
      for (shardc::DimSharding &d : want.dims)
        d.open = false;
      ShardingAttr result = attr(want);
      if (getResultSharding(func, i) != result) {
        resultShardings[i] = result;
        resultsChange = true;
        changed = true;
      }
      require(ret, i, want, "function result");
    }
    if (resultsChange)
      writer.setResults(func, resultShardings);
  }

  func::FuncOp definedCallee(func::CallOp call) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
    return callee && !callee.isExternal() ? callee : func::FuncOp();
  }

  /// The callee's signature layout of one tensor (replicated when unset),
  /// closed and reduced.
  TensorSharding signatureLayout(ShardingAttr s, Type type) {
    unsigned rank = cast<RankedTensorType>(type).getRank();
    TensorSharding t = s ? *toCore(s, mesh, rank) : TensorSharding::replicated(rank);
    t.pending.clear();
    for (shardc::DimSharding &d : t.dims)
      d.open = false;
    return t;
  }

  // One sharding per function signature: operands take the callee's
  // argument layouts (a reshard where this call site differs), results are
  // what the callee returns.
  void visitCall(func::CallOp call, func::FuncOp callee) {
    for (unsigned i = 0; i < call.getNumOperands(); ++i)
      if (isTensor(call.getOperand(i)))
        require(call, i,
                signatureLayout(callee.getArgAttrOfType<ShardingAttr>(i, kShardingAttrName),
                                call.getOperand(i).getType()),
                ("argument #" + std::to_string(i) + " of @" + callee.getSymName().str() +
                 " (one sharding per function signature)"));
    for (OpResult r : call->getResults())
      if (isTensor(r))
        setResultSharding(r, attr(signatureLayout(getResultSharding(callee, r.getResultNumber()),
                                                  r.getType())));
  }

  // A shard_map's body takes the blocks of its in_shardings and returns
  // those of its out_shardings, as a callee's signature says.
  void visitShardMap(ShardMapOp map) {
    for (auto [i, v] : llvm::enumerate(map.getArgs()))
      require(map, i, signatureLayout(map.getInSharding(i), v.getType()),
              "argument #" + std::to_string(i) + " of the shard_map's body @" +
                  map.getBody().str());
    for (OpResult r : map.getResults())
      setResultSharding(r, attr(signatureLayout(map.getOutSharding(r.getResultNumber()),
                                                r.getType())));
  }

  // Ops without a rule compute on whole values: give them replicated,
  // reduced operands (propagation already rejected sharded ones).
  void visitRuleless(Operation *op) {
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      if (isTensor(op->getOperand(i)))
        require(op, i,
                TensorSharding::replicated(
                    cast<RankedTensorType>(op->getOperand(i).getType()).getRank()),
                "an op without a sharding rule computes on whole values");
    for (Value r : op->getResults())
      if (isTensor(r))
        setResultSharding(r, attr(TensorSharding::replicated(
                                 cast<RankedTensorType>(r.getType()).getRank())));
  }

  /// Sets the sharding of op result `r` (as garray::setSharding does),
  /// noting a change when the op's attribute dictionary is not the same
  /// (uniqued) one afterwards.
  void setResultSharding(Value r, ShardingAttr s) {
    Operation *def = r.getDefiningOp();
    DictionaryAttr before = def->getRawDictionaryAttrs();
    writer.set(r, s);
    if (def->getRawDictionaryAttrs() != before)
      changed = true;
  }

  func::FuncOp func;
  const shardc::Mesh &core;
  FlatSymbolRefAttr meshRef;
  MeshOp mesh;
  llvm::DenseMap<std::pair<Value, Attribute>, Value> cache;
  llvm::DenseMap<Operation *, Sharers> sharers; // reshard -> later uses sharing it
  llvm::SmallPtrSet<Operation *, 16> made;       // the reshards reshardOf created
  shardc::FactorRuleCache rules;
  shardc::ShardingWriter writer;
  /// [rule index, each operand's and result's sharding, which operands are
  /// one value] -> plan.
  shardc::KeyMemo<uintptr_t, Plan> plans;
  SmallVector<uintptr_t, 8> planKey;     // scratch
  SmallVector<ShardingAttr, 2> resultsNow; // plan()'s op's results' shardings, as it read them
  bool changed = false;
};

MeshOp meshOfFunction(func::FuncOp func) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto s = func.getArgAttrOfType<ShardingAttr>(i, kShardingAttrName))
      return lookupMesh(func, s.getMesh());
  MeshOp found;
  func.walk([&](Operation *op) {
    if (auto s = op->getAttrOfType<ShardingAttr>(kShardingAttrName))
      found = lookupMesh(func, s.getMesh());
  });
  return found;
}

struct InsertReshards : shardc::impl::GArrayInsertReshardsBase<InsertReshards> {
  void runOnOperation() override {
    bool changed = false;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      MeshOp mesh = meshOfFunction(func);
      if (!mesh)
        continue;
      FailureOr<shardc::Mesh> core = toCoreMesh(mesh);
      if (failed(core))
        return signalPassFailure();
      FunctionConsistency consistency(func, mesh, *core);
      if (failed(consistency.run()))
        return signalPassFailure();
      changed |= consistency.changedIR();
    }
    // Often nothing needs a reshard (every op already consistent, e.g. a
    // chain that propagation placed on one layout): then the module is as
    // verified after the previous pass.
    if (!changed)
      markAllAnalysesPreserved();
  }
};
} // namespace
