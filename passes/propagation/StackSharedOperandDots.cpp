//===- StackSharedOperandDots.cpp - garray-stack-shared-operand-dots ------===//
//
// Small products that share one operand become one product of the others
// stacked (see Passes.td). A group is the products of one block with the
// same shared value on the same side, the same other-operand type and the
// same dims, in program order; the stacked product takes the place of the
// group's first member, so every other member's operand must be computable
// there: defined before it, or made by cheap shape ops (slice, reshape,
// transpose, broadcast, convert) of values that are, which move up to it.
// A member whose operand depends on an earlier member's result (the
// recurrence of a scan) is not computable there and stays as it is.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"
#include "passes/propagation/Stacking.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYSTACKSHAREDOPERANDDOTS
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;
using shardc::stacking::userPlaced;

namespace {

/// Products of more multiply-adds than this are left alone: they are GEMMs
/// large enough to run at the kernel's rate on their own, and stacking
/// would only copy their operands and results.
constexpr int64_t kMaxProduct = int64_t{1} << 22;

/// Stacked results of more elements than this are left alone: every
/// member's result is then live from the first member on.
constexpr int64_t kMaxStackedElements = int64_t{1} << 24;

/// How deep a chain of shape ops an operand may be made by, to move up.
constexpr int kMaxMoveDepth = 4;

/// Candidates in a row that may fail to join one group before the search
/// for it stops, so that a long unrolled recurrence (each step's product
/// reading the one before, none of them joining) costs time linear in its
/// length: with a bound on the candidates tried instead, a recurrence of n
/// steps tried n times that bound (2.4 s of a 1024-step RNN's compile).
constexpr size_t kMaxMisses = 32;

int64_t elements(Type type) { return cast<RankedTensorType>(type).getNumElements(); }

/// The multiply-adds of `dot` (no batch dims): result elements times depth.
int64_t multiplyAdds(DotGeneralOp dot) {
  auto lhs = cast<RankedTensorType>(dot.getLhs().getType());
  int64_t depth = 1;
  for (int64_t d : dot.getLhsContracting())
    depth *= lhs.getDimSize(d);
  return elements(dot.getType()) * depth;
}

/// Whether `dot` may join a group.
bool eligible(DotGeneralOp dot) {
  return !userPlaced(dot) && dot.getLhsBatch().empty() &&
         cast<RankedTensorType>(dot.getLhs().getType()).hasStaticShape() &&
         cast<RankedTensorType>(dot.getRhs().getType()).hasStaticShape() &&
         multiplyAdds(dot) <= kMaxProduct;
}

/// What the members of a group share.
struct GroupKey {
  Value shared;
  Type other, result;
  SmallVector<int64_t> lhsContracting, rhsContracting;
  bool operator==(const GroupKey &o) const {
    return shared == o.shared && other == o.other && result == o.result &&
           lhsContracting == o.lhsContracting && rhsContracting == o.rhsContracting;
  }
};

GroupKey keyOf(DotGeneralOp dot, bool sharedLhs) {
  return {sharedLhs ? dot.getLhs() : dot.getRhs(),
          sharedLhs ? dot.getRhs().getType() : dot.getLhs().getType(),
          dot.getType(),
          llvm::to_vector(dot.getLhsContracting()),
          llvm::to_vector(dot.getRhsContracting())};
}

/// Whether `v` can be computed right before `at`: it dominates `at`, or is
/// made by a shape op (its operands computable there in turn, at most
/// `depth` deep) that can move up. The ops to move go to `moves`, each
/// after the ones it reads.
bool computableBefore(Value v, Operation *at, DominanceInfo &dom, int depth,
                      llvm::SetVector<Operation *> &moves) {
  if (dom.properlyDominates(v, at))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || moves.contains(def))
    return def != nullptr;
  if (depth == 0 || def->getBlock() != at->getBlock() || userPlaced(def) ||
      !isa<SliceOp, ReshapeOp, TransposeOp, BroadcastInDimOp, ConvertOp>(def))
    return false;
  for (Value operand : def->getOperands())
    if (!computableBefore(operand, at, dom, depth - 1, moves))
      return false;
  moves.insert(def);
  return true;
}

/// The first free (not contracted) dim of an operand of rank `rank`.
int64_t firstFree(int64_t rank, ArrayRef<int64_t> contracting) {
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(contracting, d))
      return d;
  return rank;
}

/// `dims` with every dim at or after `at` moved one on.
SmallVector<int64_t> shifted(ArrayRef<int64_t> dims, int64_t at) {
  return llvm::map_to_vector(dims, [&](int64_t d) { return d >= at ? d + 1 : d; });
}

/// Replaces `group` (two or more, in program order) by one product of
/// their other operands, stacked along a new dim just before those
/// operands' first free dim, and a slice of it for each member.
void stackGroup(ArrayRef<DotGeneralOp> group, bool sharedLhs,
                const llvm::SetVector<Operation *> &moves) {
  DotGeneralOp first = group.front();
  for (Operation *op : moves)
    op->moveBefore(first);
  OpBuilder b(first);
  Location loc = first.getLoc();
  auto otherType = cast<RankedTensorType>(sharedLhs ? first.getRhs().getType()
                                                    : first.getLhs().getType());
  ArrayRef<int64_t> otherContracting =
      sharedLhs ? first.getRhsContracting() : first.getLhsContracting();
  int64_t at = firstFree(otherType.getRank(), otherContracting);
  auto n = static_cast<int64_t>(group.size());
  SmallVector<Value> parts;
  for (DotGeneralOp dot : group)
    parts.push_back(sharedLhs ? dot.getRhs() : dot.getLhs());
  Value stacked = shardc::stacking::stackAlong(b, loc, parts, at);
  // The new dim is the stacked operand's first free dim, so in the result
  // it leads that operand's free dims: first for a stacked lhs, after the
  // lhs's free dims for a stacked rhs.
  auto result = cast<RankedTensorType>(first.getType());
  auto lhsRank = cast<RankedTensorType>(first.getLhs().getType()).getRank();
  int64_t resultDim =
      sharedLhs ? lhsRank - static_cast<int64_t>(first.getLhsContracting().size()) : 0;
  SmallVector<int64_t> stackedShape(result.getShape());
  stackedShape.insert(stackedShape.begin() + resultDim, n);
  SmallVector<int64_t> lhsContracting(first.getLhsContracting()),
      rhsContracting(first.getRhsContracting());
  (sharedLhs ? rhsContracting : lhsContracting) = shifted(otherContracting, at);
  Value lhs = sharedLhs ? first.getLhs() : stacked, rhs = sharedLhs ? stacked : first.getRhs();
  Value product = DotGeneralOp::create(
      b, loc, RankedTensorType::get(stackedShape, result.getElementType()), lhs, rhs,
      b.getDenseI64ArrayAttr({}), b.getDenseI64ArrayAttr({}),
      b.getDenseI64ArrayAttr(lhsContracting), b.getDenseI64ArrayAttr(rhsContracting));
  SmallVector<int64_t> limit(stackedShape), strides(stackedShape.size(), 1);
  SmallVector<int64_t> oneShape(stackedShape);
  oneShape[resultDim] = 1;
  auto oneType = RankedTensorType::get(oneShape, result.getElementType());
  for (auto [i, member] : llvm::enumerate(group)) {
    DotGeneralOp dot = member;
    SmallVector<int64_t> start(stackedShape.size(), 0);
    start[resultDim] = static_cast<int64_t>(i);
    limit[resultDim] = static_cast<int64_t>(i) + 1;
    Value slice = SliceOp::create(b, dot.getLoc(), oneType, product, start, limit, strides);
    dot.getResult().replaceAllUsesWith(ReshapeOp::create(b, dot.getLoc(), result, slice));
  }
  // Erased last: the builder inserts before the first member.
  for (DotGeneralOp dot : group)
    dot->erase();
}

/// Forms and rewrites the groups among `candidates` (one key, program
/// order): the first leads a group of those whose operand is computable
/// before it; the others form groups of their own in turn. Appends the
/// dots left as they were to `left`.
void stackCandidates(ArrayRef<DotGeneralOp> candidates, bool sharedLhs, DominanceInfo &dom,
                     SmallVectorImpl<DotGeneralOp> &left) {
  SmallVector<DotGeneralOp> pending(candidates);
  while (!pending.empty()) {
    DotGeneralOp first = pending.front();
    SmallVector<DotGeneralOp> group{first}, rest;
    llvm::SetVector<Operation *> moves;
    int64_t stackedElements = elements(first.getType());
    size_t misses = 0;
    for (DotGeneralOp dot : llvm::drop_begin(pending)) {
      bool joins = misses < kMaxMisses &&
                   stackedElements + elements(dot.getType()) <= kMaxStackedElements;
      if (joins) {
        llvm::SetVector<Operation *> tried = moves;
        joins = computableBefore(sharedLhs ? dot.getRhs() : dot.getLhs(), first, dom,
                                 kMaxMoveDepth, tried);
        if (joins)
          moves = std::move(tried);
      }
      if (joins) {
        group.push_back(dot);
        stackedElements += elements(dot.getType());
        misses = 0;
      } else {
        rest.push_back(dot);
        ++misses;
      }
    }
    if (group.size() >= 2)
      stackGroup(group, sharedLhs, moves);
    else
      left.push_back(first);
    pending = std::move(rest);
  }
}

/// Forms and rewrites the groups among `dots` (one block, program order)
/// that share their operand on the lhs (`sharedLhs`) or the rhs. Returns
/// the dots left as they were, in program order.
SmallVector<DotGeneralOp> stackShared(ArrayRef<DotGeneralOp> dots, bool sharedLhs,
                                      DominanceInfo &dom) {
  // Candidates by shared value, then by key, in order of first appearance
  // (the same IR every run).
  using Candidates = SmallVector<std::pair<GroupKey, SmallVector<DotGeneralOp>>>;
  llvm::MapVector<Value, Candidates> byShared;
  for (DotGeneralOp dot : dots) {
    GroupKey key = keyOf(dot, sharedLhs);
    Candidates &byKey = byShared[key.shared];
    auto it = llvm::find_if(byKey, [&](const auto &g) { return g.first == key; });
    if (it == byKey.end())
      it = byKey.insert(byKey.end(), {key, {}});
    it->second.push_back(dot);
  }
  SmallVector<DotGeneralOp> left;
  for (auto &entry : byShared)
    for (auto &[key, candidates] : entry.second)
      stackCandidates(candidates, sharedLhs, dom, left);
  llvm::sort(left, [](DotGeneralOp a, DotGeneralOp b) { return a->isBeforeInBlock(b); });
  return left;
}

struct GArrayStackSharedOperandDots
    : shardc::impl::GArrayStackSharedOperandDotsBase<GArrayStackSharedOperandDots> {
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) { blocks.push_back(block); });
    // One for the run: the pass moves ops only within their block, where
    // dominance follows the live op order, and adds no blocks.
    DominanceInfo dom(getOperation());
    for (Block *block : blocks) {
      SmallVector<DotGeneralOp> dots;
      for (Operation &op : *block)
        if (auto dot = dyn_cast<DotGeneralOp>(op); dot && eligible(dot))
          dots.push_back(dot);
      if (dots.size() < 2)
        continue;
      // A weight is most often the rhs (x·W): those groups first.
      SmallVector<DotGeneralOp> left = stackShared(dots, /*sharedLhs=*/false, dom);
      stackShared(left, /*sharedLhs=*/true, dom);
    }
  }
};

} // namespace
