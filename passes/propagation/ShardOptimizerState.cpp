//===- ShardOptimizerState.cpp - garray-shard-optimizer-state ------------===//
//
// A training step on a mesh with a data axis keeps every weight, and its
// optimizer state, replicated over that axis: each device all-reduces the
// gradient and then repeats the whole update (Adam's moments, the bias
// corrections, the step) on its copy. The update is elementwise, so it
// can be split instead: the gradient is reduce-scattered rather than
// all-reduced, each device updates its part, and only the new weights are
// gathered again. That is the same bytes as the all-reduce, 1/k of the
// update's work, and the optimizer's state (Adam's m and v) is held split,
// 1/k of its memory, from step to step. (ZeRO's first stage.)
//
// After propagation every value has its sharding. An *update island* is a
// connected set of elementwise ops of one shape around training state:
//
//   %m2 = add(mul(b1, %m), mul(1 - b1, %g))      // %m: state, fed back
//   %v2 = add(mul(b2, %v), mul(1 - b2, %g * %g)) // %v: state, fed back
//   %w2 = sub(%w, div(mul(lr, %m2), add(sqrt(%v2), eps)))
//   return %w2, %m2, %v2
//
// It grows from each state argument whose uses are all elementwise (m and
// v; not w, which the forward pass contracts), forward through elementwise
// users, and backward through elementwise producers used only inside it
// (the `%g * %g` term, scalar broadcasts). Every value of the island takes
// the island's sharding with the mesh axes it is replicated over appended
// to a dim they divide, and so do the state arguments and the results fed
// back to them. The rest is reshard insertion's ordinary work at the
// island's edges: the pending gradient meets a split use (a
// reduce-scatter), `%w` a split one (a local slice), and `%w2` its
// replicated result (an all-gather).
//
// Left alone: islands whose values disagree on their sharding, islands
// entered by a computed value that is not a partial sum only they read (a
// gradient that a clipping norm also needs is all-reduced anyway, so the
// weight's gather would be extra bytes), state of
// fewer than `min-elements` elements (16384 by default: below that its
// update costs less than the collectives' latency), state no axis is
// replicated over or whose dims none divides, and programs that place by
// hand.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/FactorRuleCache.h"
#include "passes/Passes.h"
#include "sharding/FactorRule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYSHARDOPTIMIZERSTATE
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {

/// Whether `op` is elementwise over `shape`: every result has that shape,
/// every operand that shape or rank 0 (a broadcast scalar), and its factor
/// rule indexes dim i of each such tensor by one parallel factor, the same
/// for all of them.
bool isElementwiseOver(Operation *op, ArrayRef<int64_t> shape, shardc::FactorRuleCache &rules) {
  if (op->getNumRegions() || op->getNumResults() == 0)
    return false;
  auto shaped = [&](Type t) {
    auto r = dyn_cast<RankedTensorType>(t);
    return r && r.getShape() == shape;
  };
  if (!llvm::all_of(op->getResultTypes(), shaped))
    return false;
  for (Type t : op->getOperandTypes()) {
    auto r = dyn_cast<RankedTensorType>(t);
    if (!r || (r.getRank() != 0 && r.getShape() != shape))
      return false;
  }
  const shardc::CachedRule *cached = rules.lookup(op);
  if (!cached)
    return false;
  const shardc::FactorRule &f = cached->rule;
  std::vector<int> dimFactor(shape.size(), -1);
  auto sameFactors = [&](const shardc::FactorRule::TensorFactors &t) {
    if (t.empty())
      return true; // a rank-0 operand
    if (t.size() != shape.size())
      return false;
    for (size_t d = 0; d < t.size(); ++d) {
      if (t[d].size() != 1 || f.kinds[t[d][0]] != shardc::FactorKind::Parallel)
        return false;
      if (dimFactor[d] < 0)
        dimFactor[d] = t[d][0];
      else if (dimFactor[d] != t[d][0])
        return false;
    }
    return true;
  };
  return llvm::all_of(f.results, sameFactors) && llvm::all_of(f.operands, sameFactors);
}

struct ShardOptimizerState
    : shardc::impl::GArrayShardOptimizerStateBase<ShardOptimizerState> {
  using GArrayShardOptimizerStateBase::GArrayShardOptimizerStateBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (placesByHand(module))
      return;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        shardFunction(func);
  }

  void shardFunction(func::FuncOp func) {
    // Result names, for the state that feeds back.
    resultsNamed.clear();
    for (unsigned r = 0; r < func.getNumResults(); ++r)
      if (auto name = func.getResultAttrOfType<StringAttr>(r, "garray.name"))
        resultsNamed[name.getValue()].push_back(r);
    Operation *ret = func.front().getTerminator();
    llvm::DenseSet<Operation *> claimed;
    for (BlockArgument arg : func.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || type.getRank() == 0 || type.getNumElements() < minElements ||
          !isUpdatedState(func, arg, type.getShape()) ||
          llvm::any_of(arg.getUsers(), [&](Operation *u) { return claimed.contains(u); }))
        continue;
      Island island = grow(func, arg, type.getShape(), ret);
      std::optional<ShardingAttr> split = splitOf(island, type);
      claimed.insert(island.ops.begin(), island.ops.end());
      if (!split)
        continue;
      apply(func, island, *split, ret);
    }
  }

  /// Whether argument `a` is training state (a result of the same name
  /// feeds it back) of `shape` that is read only elementwise.
  bool isUpdatedState(func::FuncOp func, BlockArgument a, ArrayRef<int64_t> shape) {
    auto t = dyn_cast<RankedTensorType>(a.getType());
    auto name = func.getArgAttrOfType<StringAttr>(a.getArgNumber(), "garray.name");
    return t && t.getShape() == shape && name && resultsNamed.count(name.getValue()) &&
           !a.use_empty() &&
           llvm::all_of(a.getUsers(), [&](Operation *u) { return isElementwiseOver(u, shape, rules); });
  }

  struct Island {
    llvm::SetVector<Operation *> ops;
    SmallVector<BlockArgument> state; // the state arguments it updates
  };

  /// The island around state argument `seed` of `func`, of shape `shape`.
  Island grow(func::FuncOp func, BlockArgument seed, ArrayRef<int64_t> shape, Operation *ret) {
    Island island;
    Block *block = seed.getOwner();
    SmallVector<Value> work{seed};
    llvm::DenseSet<Value> seen{seed};
    island.state.push_back(seed);
    auto visit = [&](Value v) {
      if (seen.insert(v).second)
        work.push_back(v);
    };
    // An op joins: its results are followed forward, and the other state
    // arguments it reads join too (Adam's v, met at the weight's update).
    auto join = [&](Operation *op) {
      if (!island.ops.insert(op))
        return false;
      for (Value r : op->getResults())
        visit(r);
      for (Value o : op->getOperands())
        if (auto a = dyn_cast<BlockArgument>(o);
            a && a.getOwner() == block && !llvm::is_contained(island.state, a) &&
            isUpdatedState(func, a, shape)) {
          island.state.push_back(a);
          visit(a);
        }
      return true;
    };
    auto inIsland = [&](Operation *u) { return u == ret || island.ops.contains(u); };
    bool changed = true;
    while (changed) {
      changed = false;
      // Forward: the elementwise users of every island value.
      while (!work.empty()) {
        Value v = work.pop_back_val();
        for (Operation *u : v.getUsers())
          if (u != ret && u->getBlock() == block && isElementwiseOver(u, shape, rules))
            join(u);
      }
      // Backward: elementwise producers used only inside the island (or
      // returned).
      for (size_t i = 0; i < island.ops.size(); ++i)
        for (Value o : island.ops[i]->getOperands()) {
          Operation *def = o.getDefiningOp();
          if (def && !island.ops.contains(def) && def->getBlock() == block &&
              isElementwiseOver(def, shape, rules) && llvm::all_of(def->getUsers(), inIsland))
            changed |= join(def);
        }
    }
    return island;
  }

  /// The island's split sharding: its common sharding with the mesh axes
  /// it is replicated over appended to the first dim they divide evenly;
  /// none when its values disagree or no axis or dim fits.
  std::optional<ShardingAttr> splitOf(const Island &island, RankedTensorType type) {
    ShardingAttr common;
    auto agree = [&](Value v) {
      ShardingAttr s = getSharding(v);
      if (!s || s.isPending())
        return false;
      s = s.withRank(type.getRank());
      if (!common)
        common = s;
      return s == common;
    };
    for (BlockArgument a : island.state)
      if (!agree(a))
        return std::nullopt;
    for (Operation *op : island.ops)
      for (Value r : op->getResults())
        if (!agree(r))
          return std::nullopt;
    MeshOp mesh = lookupMesh(island.state.front().getOwner()->getParentOp(), common.getMesh());
    if (!mesh || !mesh.isFullySized())
      return std::nullopt;
    llvm::DenseSet<StringAttr> used;
    for (DimShardingAttr d : common.getDims())
      used.insert(d.getAxes().begin(), d.getAxes().end());
    SmallVector<StringAttr> replicated;
    int64_t parts = 1;
    for (auto [axis, size] : llvm::zip(mesh.getAxes().getAsRange<StringAttr>(), mesh.getSizes()))
      if (size > 1 && !used.contains(axis)) {
        replicated.push_back(axis);
        parts *= size;
      }
    if (replicated.empty() || !pendingAtEdges(island, type.getShape(), replicated))
      return std::nullopt;
    for (unsigned d = 0; d < type.getRank(); ++d) {
      DimShardingAttr dim = common.getDim(d);
      int64_t dimParts = parts;
      for (StringAttr a : dim.getAxes())
        dimParts *= mesh.getSizes()[mesh.axisIndex(a.getValue())];
      if (type.getDimSize(d) % dimParts != 0)
        continue;
      SmallVector<StringAttr> axes(dim.getAxes());
      axes.append(replicated.begin(), replicated.end());
      SmallVector<DimShardingAttr> dims(common.getDims());
      dims[d] = DimShardingAttr::get(common.getContext(), axes, /*open=*/false);
      return ShardingAttr::get(common.getContext(), common.getMesh(), dims, {},
                               ReductionKind::sum);
    }
    return std::nullopt;
  }

  /// Whether splitting `island` over `axes` moves no more bytes: every value
  /// of its shape that enters it from an op (not an argument, which is
  /// sliced for free) is a partial sum over one of `axes` that only the
  /// island reads, so its all-reduce becomes a reduce-scatter and the
  /// gather of the new weight is the other half of that all-reduce. A
  /// gradient that something else needs whole (a global norm for
  /// clipping) is all-reduced anyway, and the gather would come on top.
  bool pendingAtEdges(const Island &island, ArrayRef<int64_t> shape, ArrayRef<StringAttr> axes) {
    for (Operation *op : island.ops)
      for (Value v : op->getOperands()) {
        auto t = dyn_cast<RankedTensorType>(v.getType());
        Operation *def = v.getDefiningOp();
        if (!t || t.getShape() != shape || !def || island.ops.contains(def))
          continue;
        if (!pendingOver(v, axes, /*depth=*/8) ||
            !llvm::all_of(v.getUsers(), [&](Operation *u) { return island.ops.contains(u); }))
          return false;
      }
    return true;
  }

  /// Whether `v` is left a partial sum over one of `axes`: its op splits a
  /// reduction factor over one of them, or passes on such an operand
  /// (PendingFlow, or a sharding constraint, whose reshard folds into the
  /// island's) within `depth` ops.
  bool pendingOver(Value v, ArrayRef<StringAttr> axes, int depth) {
    Operation *def = v.getDefiningOp();
    if (!def || depth == 0)
      return false;
    if (isa<ShardingConstraintOp>(def))
      return pendingOver(def->getOperand(0), axes, depth - 1);
    const shardc::CachedRule *cached = rules.lookup(def);
    if (!cached)
      return false;
    const shardc::FactorRule &f = cached->rule;
    for (unsigned i = 0; i < def->getNumOperands() && i < f.operands.size(); ++i) {
      ShardingAttr s = getSharding(def->getOperand(i));
      if (!s)
        continue;
      for (size_t d = 0; d < f.operands[i].size(); ++d)
        for (int factor : f.operands[i][d])
          if (f.kinds[factor] == shardc::FactorKind::Reduction &&
              llvm::any_of(s.getDim(d).getAxes(),
                           [&](StringAttr a) { return llvm::is_contained(axes, a); }))
            return true;
      if (f.pending.inFlow(static_cast<int>(i)) && pendingOver(def->getOperand(i), axes, depth - 1))
        return true;
    }
    return false;
  }

  void apply(func::FuncOp func, const Island &island, ShardingAttr split, Operation *ret) {
    for (Operation *op : island.ops)
      for (Value r : op->getResults())
        setSharding(r, split);
    for (BlockArgument a : island.state) {
      setSharding(a, split);
      // The results fed back to it stay split from step to step, when they
      // come out of the island (else the caller's placement stands).
      auto name = func.getArgAttrOfType<StringAttr>(a.getArgNumber(), "garray.name");
      for (unsigned r : resultsNamed.lookup(name.getValue()))
        if (Operation *def = ret->getOperand(r).getDefiningOp(); def && island.ops.contains(def))
          func.setResultAttr(r, kShardingAttrName, split);
    }
  }

  /// Per function: result names to their numbers (the state fed back).
  llvm::StringMap<SmallVector<unsigned>> resultsNamed;
  shardc::FactorRuleCache rules;
};

} // namespace
