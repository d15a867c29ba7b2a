//===- UnevenShards.cpp - masks for the padding of uneven shards ----------===//
//
// See UnevenShards.h for the layout and the three places padding could leak.
// Everything here is read from factor rules and shardings; no op kinds.
//
//===----------------------------------------------------------------------===//
#include "passes/local/UnevenShards.h"

#include "dialects/comm/Comm.h"
#include "sharding/FactorRule.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::garray;

namespace shardc {

SmallVector<int64_t> validPerDevice(const Mesh &mesh, const std::vector<int> &axes, int64_t n) {
  int64_t k = mesh.product(axes);
  SmallVector<int64_t> valid;
  for (int64_t d = 0, e = mesh.deviceCount(); d < e; ++d)
    valid.push_back(validInShard(n, k, mesh.indexInGroup(d, axes)));
  return valid;
}

namespace {

std::string axesString(const std::vector<int> &axes, const Mesh &mesh) {
  std::string s;
  for (size_t i = 0; i < axes.size(); ++i)
    s += (i ? ", \"" : "\"") + mesh.axes[axes[i]] + "\"";
  return s;
}

std::string shardSizes(int64_t n, int64_t k) {
  std::string s;
  for (int64_t i = 0; i < k; ++i)
    s += (i ? "," : "") + std::to_string(validInShard(n, k, i));
  return s;
}

/// Whether `v`, if placed, splits each of its dims evenly (or not at all),
/// without building a TensorSharding. False also for a sharding toCore
/// would reject, so that the full path below handles (and words) it exactly
/// as before.
bool valueSplitsEvenly(Value v, MeshOp mesh, const Mesh &core, EvenSplitMemo *memo) {
  ArrayAttr axes = mesh.getAxes();
  auto evenFor = [&](RankedTensorType type, ShardingAttr s) {
    if (static_cast<int64_t>(s.getDims().size()) > type.getRank())
      return false;
    for (auto [d, dim] : llvm::enumerate(s.getDims())) {
      int64_t k = 1;
      for (StringAttr name : dim.getAxes()) {
        // Uniqued names: a pointer match is the axis; no match is left to
        // the full path.
        auto it = llvm::find(axes, name);
        if (it == axes.end())
          return false;
        k *= core.sizes[it - axes.begin()];
      }
      if (k > 1 && type.getDimSize(d) % k != 0)
        return false;
    }
    return llvm::all_of(s.getUnreduced(),
                        [&](StringAttr name) { return llvm::is_contained(axes, name); });
  };
  auto type = dyn_cast<RankedTensorType>(v.getType());
  ShardingAttr s = type ? getSharding(v) : ShardingAttr();
  if (!s)
    return true;
  if (!memo)
    return evenFor(type, s);
  std::pair<Type, Attribute> key(type, s);
  if (memo->last == key)
    return memo->lastAnswer;
  auto [it, inserted] = memo->answers.try_emplace(key, false);
  if (inserted)
    it->second = evenFor(type, s);
  memo->last = key;
  memo->lastAnswer = it->second;
  return it->second;
}

/// Whether every placed operand and result of `op` splits evenly. Then
/// planPaddingMasks has nothing to report, and this answers it without
/// building the op's factor rule, which on a 100k-op program cost more than
/// the rest of global-to-local.
bool splitsEvenly(Operation *op, MeshOp mesh, const Mesh &core, EvenSplitMemo *memo) {
  auto even = [&](Value v) { return valueSplitsEvenly(v, mesh, core, memo); };
  return llvm::all_of(op->getOperands(), even) && llvm::all_of(op->getResults(), even);
}

} // namespace

bool allSplitEvenly(func::FuncOp func, MeshOp mesh, const Mesh &core, EvenSplitMemo &memo) {
  for (BlockArgument arg : func.getArguments())
    if (!valueSplitsEvenly(arg, mesh, core, &memo))
      return false;
  // Arguments of nested blocks are whole (propagation seeds them so).
  WalkResult walked = func.walk([&](Operation *op) {
    for (Value r : op->getResults())
      if (!valueSplitsEvenly(r, mesh, core, &memo))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walked.wasInterrupted();
}

FailureOr<SmallVector<PaddingMask>> planPaddingMasks(Operation *op, MeshOp mesh,
                                                     const Mesh &core, EvenSplitMemo *memo) {
  SmallVector<PaddingMask> masks;
  // The even-split check first: it is memoized, while the interface lookup
  // costs a search of the op's interface map on every op.
  if (splitsEvenly(op, mesh, core, memo))
    return masks;
  auto ruled = dyn_cast<ShardingRuleOpInterface>(op);
  if (!ruled)
    return masks;
  FactorRule rule = ruled.getFactorRule();
  SmallVector<Value> tensors(op->getOperands());
  tensors.append(op->getResults().begin(), op->getResults().end());
  if (tensors.size() != rule.numTensors())
    return masks; // a rule that does not describe every value: nothing to read
  auto describe = [&](size_t t) {
    return t < rule.operands.size() ? "operand #" + std::to_string(t)
                                    : "result #" + std::to_string(t - rule.operands.size());
  };
  for (size_t t = 0; t < tensors.size(); ++t) {
    auto type = dyn_cast<RankedTensorType>(tensors[t].getType());
    ShardingAttr s = getSharding(tensors[t]);
    if (!type || !s)
      continue;
    FailureOr<TensorSharding> cs = toCore(s, mesh, type.getRank());
    if (failed(cs))
      return failure();
    for (int64_t d = 0; d < type.getRank(); ++d) {
      const std::vector<int> &axes = cs->dims[d].axes;
      int64_t n = type.getDimSize(d), k = core.product(axes);
      if (k <= 1 || n % k == 0)
        continue;
      const FactorRule::DimFactors &factors = rule.tensor(t)[d];
      // A dim that holds several factors here, or whose factor sits with
      // others in another value's dim, changes block boundaries: the padded
      // local blocks would not line up with the global ones.
      bool reshaped = factors.size() != 1;
      for (size_t u = 0; u < rule.numTensors() && !reshaped; ++u)
        for (const FactorRule::DimFactors &other : rule.tensor(u))
          if (other != factors && llvm::any_of(other, [&](int f) {
                return llvm::is_contained(factors, f);
              }))
            reshaped = true;
      if (reshaped)
        return op->emitError()
               << op->getName() << ": dim " << d << " of " << describe(t) << " has size " << n
               << ", split unevenly over mesh axes (" << axesString(axes, core) << ") of size "
               << k << " (shards " << shardSizes(n, k)
               << " under the ceil layout), and this op merges or splits it with other dims "
                  "(rule "
               << rule.str()
               << "), so the padded blocks would not line up; make the size divisible by " << k
               << ", or replicate the dim before this op (garray.sharding_constraint with None "
                  "for it)";
      if (t >= rule.operands.size() ||
          !llvm::any_of(factors, [&](int f) { return rule.kinds[f] == FactorKind::Reduction; }))
        continue;
      masks.push_back({static_cast<unsigned>(t), d, validPerDevice(core, axes, n),
                       rule.reduction});
    }
  }
  return masks;
}

Value localIndexInRange(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, int64_t dim,
                        ArrayRef<int64_t> lo, ArrayRef<int64_t> hi) {
  auto indexType = RankedTensorType::get(shape, b.getI64Type());
  auto predType = RankedTensorType::get(shape, b.getI1Type());
  bool needLo = llvm::any_of(lo, [](int64_t v) { return v > 0; });
  bool needHi = llvm::any_of(hi, [&](int64_t v) { return v < shape[dim]; });
  if (!needLo && !needHi)
    return {};
  Value iota = IotaOp::create(b, loc, indexType, b.getI64IntegerAttr(dim));
  auto compare = [&](ComparisonDirection dir, ArrayRef<int64_t> table) -> Value {
    Value bound = comm::DeviceValueOp::create(b, loc, RankedTensorType::get({}, b.getI64Type()),
                                              b.getDenseI64ArrayAttr(table));
    Value spread = BroadcastInDimOp::create(b, loc, indexType, bound, b.getDenseI64ArrayAttr({}));
    return CompareOp::create(b, loc, predType, ComparisonDirectionAttr::get(b.getContext(), dir),
                             iota, spread);
  };
  Value above = needLo ? compare(ComparisonDirection::ge, lo) : Value();
  Value below = needHi ? compare(ComparisonDirection::lt, hi) : Value();
  if (above && below)
    return AndOp::create(b, loc, above, below);
  return above ? above : below;
}

Value maskPadding(OpBuilder &b, Location loc, Value x, const PaddingMask &mask) {
  auto type = cast<RankedTensorType>(x.getType());
  Value inside = localIndexInRange(b, loc, type.getShape(), mask.dim, {}, mask.valid);
  if (!inside)
    return x;
  Value identity = ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(type, reductionIdentity(b, type.getElementType(), fromCore(mask.kind))));
  return SelectOp::create(b, loc, type, inside, x, identity);
}

} // namespace shardc
