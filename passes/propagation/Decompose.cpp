//===- Decompose.cpp - garray-decompose: composites into core ops ---------===//
//
// Runs before propagation, on the global program, so every decomposition is
// written in global terms and later sharding cannot change its meaning.
// Keeps:
//   - the denominator of a mean is the *global* element count, written as a
//     constant; a weighted mean's denominator is a global sum of weights;
//   - argmax/argmin compare *global* indices (garray.iota), combined with a
//     max/min reduction and a min reduction; no index is ever summed or maxed;
//   - scatter_add adds its base exactly once: a non-zero base is split off
//     (base + scatter_add(zeros, ...)) so the index positions may be sharded;
//   - a sharding written on a composite moves to the op that now defines its
//     value;
//   - a shard_map's boundary is written as constraints: each operand pinned
//     to its in_sharding, each result to its out_sharding, so propagation
//     and reshard insertion treat it as they treat any pinned value.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYDECOMPOSE
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {

ReductionKindAttr kindAttr(OpBuilder &b, ReductionKind kind) {
  return ReductionKindAttr::get(b.getContext(), kind);
}

/// Replaces `op` by `value`, moving `op`'s sharding (if any) onto `value`.
void replaceKeepingSharding(Operation *op, Value value) {
  if (Attribute s = op->getAttr(kShardingAttrName))
    value.getDefiningOp()->setAttr(kShardingAttrName, s);
  op->getResult(0).replaceAllUsesWith(value);
  op->erase();
}

Value splat(OpBuilder &b, Location loc, RankedTensorType type, TypedAttr value) {
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, value));
}

/// Whether `map`'s operands and results are already pinned to its
/// shardings (the pass may run twice).
bool isPinned(ShardMapOp map) {
  for (auto [i, v] : llvm::enumerate(map.getArgs())) {
    auto c = v.getDefiningOp<ShardingConstraintOp>();
    if (!c || c.getSharding() != map.getInSharding(i))
      return false;
  }
  for (OpResult r : map.getResults()) {
    auto c = r.hasOneUse() ? dyn_cast<ShardingConstraintOp>(*r.getUsers().begin()) : nullptr;
    if (!c || c.getSharding() != map.getOutSharding(r.getResultNumber()))
      return false;
  }
  return true;
}

// shard_map(x) -> shard_map(constraint(x, in)), and each result read only
// through constraint(result, out).
void pinShardMap(ShardMapOp map) {
  OpBuilder b(map);
  // The reshard a pin causes says whose layout it is.
  auto why = [&](const char *what, unsigned i) {
    return b.getStringAttr(Twine(what) + " #" + Twine(i) + " of the shard_map of @" +
                           map.getBody());
  };
  for (auto [i, v] : llvm::enumerate(map.getArgs())) {
    auto pin = ShardingConstraintOp::create(b, map.getLoc(), v, map.getInSharding(i));
    pin->setAttr("reason", why("argument", i));
    map->setOperand(i, pin);
  }
  b.setInsertionPointAfter(map);
  for (OpResult r : map.getResults()) {
    auto pin = ShardingConstraintOp::create(b, map.getLoc(), r,
                                            map.getOutSharding(r.getResultNumber()));
    pin->setAttr("reason", why("result", r.getResultNumber()));
    r.replaceAllUsesExcept(pin, pin);
  }
}

// mean(x) = sum(x) / N with N the global count;
// mean(x, weights w) = sum(x * w) / sum(w).
void decomposeMean(MeanOp mean) {
  OpBuilder b(mean);
  Location loc = derivedFrom(mean);
  // The two reductions of a weighted (masked) mean become two all-reduces
  // at one place: each says which it is, in explain and in the report.
  auto role = [&](StringRef what) {
    return derivedLoc(mean.getLoc(), what + " of " + mean->getName().getStringRef());
  };
  auto type = cast<RankedTensorType>(mean.getType());
  auto sumOf = [&](Value v, Location at) -> Value {
    return ReduceOp::create(b, at, type, kindAttr(b, ReductionKind::sum), v, mean.getDimsAttr(),
                            mean.getKeepdimsAttr());
  };
  Value num, den;
  if (Value w = mean.getWeights()) {
    num = sumOf(MulOp::create(b, loc, mean.getOperand(), w), role("sum"));
    den = sumOf(w, role("sum of weights"));
  } else {
    num = sumOf(mean.getOperand(), role("sum"));
    auto elem = cast<FloatType>(type.getElementType());
    den = splat(b, role("global count"), type,
                b.getFloatAttr(elem, static_cast<double>(mean.getGlobalCount())));
  }
  replaceKeepingSharding(mean, DivOp::create(b, loc, num, den));
}

// argmax(x, dim):
//   m    = reduce <max> x, dims = [dim] keepdims     (a max all-reduce if dim is sharded)
//   cand = select(x == broadcast(m), iota(dim), INT_MAX)
//   cand = select(x != x, iota(dim), cand)           (floats: NaN is the maximum)
//   r    = reduce <min> cand, dims = [dim]           (a min all-reduce if dim is sharded)
// iota is global, so the min picks the first global position on ties, also
// across shards. When max propagates a NaN, no x == m holds and the NaN
// positions are the candidates; otherwise there is no NaN to find.
template <typename ArgOp> void decomposeArgReduce(ArgOp op, ReductionKind kind) {
  OpBuilder b(op);
  Location loc = derivedFrom(op);
  Value x = op.getOperand();
  auto xType = cast<RankedTensorType>(x.getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  Type indexElem = resultType.getElementType();
  int64_t rank = xType.getRank(), dim = op.getDim();

  SmallVector<int64_t> keptShape(xType.getShape());
  keptShape[dim] = 1;
  auto keptType = RankedTensorType::get(keptShape, xType.getElementType());
  Value m = ReduceOp::create(b, loc, keptType, kindAttr(b, kind), x,
                             b.getDenseI64ArrayAttr({dim}), b.getUnitAttr());
  SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  Value mb = BroadcastInDimOp::create(b, loc, xType, m, b.getDenseI64ArrayAttr(all));
  auto maskType = RankedTensorType::get(xType.getShape(), b.getI1Type());
  auto direction = [&](ComparisonDirection d) {
    return ComparisonDirectionAttr::get(b.getContext(), d);
  };
  Value isExtreme = CompareOp::create(b, loc, maskType, direction(ComparisonDirection::eq), x, mb);
  auto indexType = RankedTensorType::get(xType.getShape(), indexElem);
  Value iota = IotaOp::create(b, loc, indexType, b.getI64IntegerAttr(dim));
  unsigned width = indexElem.getIntOrFloatBitWidth();
  Value none = splat(b, loc, indexType,
                     b.getIntegerAttr(indexElem, llvm::APInt::getSignedMaxValue(width)));
  Value cand = SelectOp::create(b, loc, indexType, isExtreme, iota, none);
  if (isa<FloatType>(xType.getElementType())) {
    Value isNaN = CompareOp::create(b, loc, maskType, direction(ComparisonDirection::ne), x, x);
    cand = SelectOp::create(b, loc, indexType, isNaN, iota, cand);
  }
  Value r = ReduceOp::create(b, loc, resultType, kindAttr(b, ReductionKind::min), cand,
                             b.getDenseI64ArrayAttr({dim}), UnitAttr());
  replaceKeepingSharding(op, r);
}

// scatter_add(base, i, u) = base + scatter_add(zeros, i, u) when base is not
// already zero, so that the scatter's rule may shard the index positions.
void decomposeScatterAdd(ScatterAddOp op) {
  if (op.hasZeroBase())
    return;
  OpBuilder b(op);
  Location loc = derivedFrom(op);
  auto type = cast<RankedTensorType>(op.getType());
  Value zeros = splat(b, loc, type, cast<TypedAttr>(b.getZeroAttr(type.getElementType())));
  Value rows = ScatterAddOp::create(b, loc, type, zeros, op.getIndices(), op.getUpdates());
  replaceKeepingSharding(op, AddOp::create(b, loc, op.getBase(), rows));
}

struct Decompose : shardc::impl::GArrayDecomposeBase<Decompose> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<MeanOp, ArgMaxOp, ArgMinOp, ScatterAddOp>(op) ||
          (isa<ShardMapOp>(op) && !isPinned(cast<ShardMapOp>(op))))
        ops.push_back(op);
    });
    // Nothing to rewrite: say so, and the pass manager skips re-verifying
    // the unchanged module (a full verifier run on large programs).
    if (ops.empty())
      return markAllAnalysesPreserved();
    for (Operation *op : ops) {
      if (auto mean = dyn_cast<MeanOp>(op))
        decomposeMean(mean);
      else if (auto arg = dyn_cast<ArgMaxOp>(op))
        decomposeArgReduce(arg, ReductionKind::max);
      else if (auto arg = dyn_cast<ArgMinOp>(op))
        decomposeArgReduce(arg, ReductionKind::min);
      else if (auto map = dyn_cast<ShardMapOp>(op))
        pinShardMap(map);
      else
        decomposeScatterAdd(cast<ScatterAddOp>(op));
    }
  }
};
} // namespace
