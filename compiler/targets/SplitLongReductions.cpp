//===- SplitLongReductions.cpp - cpu-split-long-reductions ------------------===//
//
// See CpuPasses.td. A float sum of many elements into one scalar, or of a
// row's elements into one element per row, becomes r partial sums side by
// side (a parallel dim of r, carved out of the innermost reduction dim that
// r divides) and one small sum of the r partials into the original
// accumulator. The operands that read the split
// dim are expanded ([N] -> [N / r, r]) so that every loop dim stays a plain
// dim of some operand, as linalg needs to infer the loop bounds.
//
// Invariants: the result is the same sum of the same terms, in an order
// fixed at compile time (so independent of ranks and threads), starting
// from the original accumulator; only ops on static tensors change.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

namespace shardc {
#define GEN_PASS_DEF_CPUSPLITLONGREDUCTIONS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Reduces into one float result by `acc + value` (the accumulator's only
/// use), with no linalg.index in the body; every loop a reduction, or the
/// result indexed by the parallel loops in order.
bool isFloatSum(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumResults() != 1 || op.hasIndexSemantics())
    return false;
  auto type = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return false;
  AffineMap out = op.getIndexingMapsArray().back();
  if (!out.isProjectedPermutation() || out.getNumResults() != op.getNumParallelLoops())
    return false;
  Block &body = op.getRegion().front();
  BlockArgument acc = body.getArguments().back();
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  return add && acc.hasOneUse() && (add.getLhs() == acc || add.getRhs() == acc);
}

/// Loop dim `dim` occurs in `map` only as a plain result, if at all.
bool readsDimPlainly(AffineMap map, unsigned dim) {
  return llvm::all_of(map.getResults(), [&](AffineExpr e) {
    auto d = dyn_cast<AffineDimExpr>(e);
    return (d && d.getPosition() == dim) || !e.isFunctionOfDim(dim);
  });
}

/// Partial sums per row: one AVX-512 vector of f32 (two AVX2 ones), the
/// same on every host so that results do not depend on the CPU.
constexpr int64_t kRowPartials = 16;

struct Split {
  unsigned dim;  // the loop split into (dim: N / ratio, dim + 1: ratio)
  int64_t ratio; // the number of partial sums
};

/// A scalar sum: the innermost loop with a divisor of its size in [8,
/// target], where target is √(elements) rounded up to a power of two:
/// about as many partial sums as terms in each. A sum per row (parallel
/// loops left): the innermost loop, when it is a reduction that every
/// operand reads as its innermost dim (or not at all) and kRowPartials or
/// 8 divide it at least four times.
std::optional<Split> chooseSplit(linalg::GenericOp op, int64_t minElements) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t elements = 1;
  for (int64_t r : ranges) {
    if (ShapedType::isDynamic(r))
      return std::nullopt;
    elements *= r;
  }
  if (op.getNumParallelLoops() > 0) {
    unsigned inner = ranges.size() - 1;
    if (op.getIteratorTypesArray()[inner] != utils::IteratorType::reduction)
      return std::nullopt;
    for (OpOperand *operand : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(operand);
      if (!map.isFunctionOfDim(inner))
        continue;
      auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
      if (!last || last.getPosition() != inner || !readsDimPlainly(map, inner))
        return std::nullopt;
    }
    for (int64_t ratio : {kRowPartials, int64_t(8)})
      if (ranges[inner] % ratio == 0 && ranges[inner] >= 4 * ratio)
        return Split{inner, ratio};
    return std::nullopt;
  }
  if (elements < minElements)
    return std::nullopt;
  int64_t target = static_cast<int64_t>(
      llvm::PowerOf2Ceil(static_cast<uint64_t>(std::ceil(std::sqrt(double(elements))))));
  for (unsigned dim = ranges.size(); dim-- > 0;) {
    if (!llvm::all_of(op.getIndexingMapsArray(),
                      [&](AffineMap map) { return readsDimPlainly(map, dim); }))
      continue;
    for (int64_t ratio = std::min(target, ranges[dim]); ratio >= 8; --ratio)
      if (ranges[dim] % ratio == 0)
        return Split{dim, ratio};
  }
  return std::nullopt;
}

/// `value` with its dim `pos` (of size n) expanded into [n / ratio, ratio].
Value expandDim(RewriterBase &rewriter, Location loc, Value value, unsigned pos, int64_t ratio) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[pos] /= ratio;
  shape.insert(shape.begin() + pos + 1, ratio);
  SmallVector<ReassociationIndices> groups;
  for (unsigned i = 0, next = 0; i < type.getRank(); ++i) {
    ReassociationIndices group = {static_cast<int64_t>(next++)};
    if (i == pos)
      group.push_back(next++);
    groups.push_back(group);
  }
  return tensor::ExpandShapeOp::create(rewriter, loc,
                                       RankedTensorType::get(shape, type.getElementType()), value,
                                       groups);
}

void splitReduction(RewriterBase &rewriter, linalg::GenericOp op, Split split) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  unsigned loops = op.getNumLoops(), k = split.dim;
  AffineExpr outer = getAffineDimExpr(k, ctx), inner = getAffineDimExpr(k + 1, ctx);

  // Inputs: loops after k move up by one; a read of loop k becomes a read
  // of (k, k + 1) in the operand expanded there.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    Value value = operand->get();
    SmallVector<AffineExpr> results;
    for (auto [pos, e] : llvm::enumerate(map.getResults())) {
      auto d = dyn_cast<AffineDimExpr>(e);
      if (d && d.getPosition() == k) {
        value = expandDim(rewriter, loc, value, results.size(), split.ratio);
        results.append({outer, inner});
      } else {
        results.push_back(e.shiftDims(loops, 1, k + 1));
      }
    }
    inputs.push_back(value);
    maps.push_back(AffineMap::get(loops + 1, 0, results, ctx));
  }
  // The partial sums: the result's dims, then the split's partial index.
  SmallVector<AffineExpr> outResults;
  for (AffineExpr e : op.getIndexingMapsArray().back().getResults())
    outResults.push_back(e.shiftDims(loops, 1, k + 1));
  outResults.push_back(inner);
  maps.push_back(AffineMap::get(loops + 1, 0, outResults, ctx));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.insert(iterators.begin() + k + 1, utils::IteratorType::parallel);

  // The partial sums start at -0.0, the identity of addf.
  auto resultType = cast<RankedTensorType>(op.getResult(0).getType());
  auto elem = cast<FloatType>(resultType.getElementType());
  Value zero = arith::ConstantOp::create(
      rewriter, loc, elem, rewriter.getFloatAttr(elem, APFloat::getZero(elem.getFloatSemantics(),
                                                                         /*Negative=*/true)));
  SmallVector<int64_t> partialShape(resultType.getShape());
  partialShape.push_back(split.ratio);
  Value empty = tensor::EmptyOp::create(rewriter, loc, partialShape, elem);
  Value partialInit = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  auto partial = linalg::GenericOp::create(
      rewriter, loc, TypeRange{partialInit.getType()}, inputs, ValueRange{partialInit}, maps,
      iterators);
  rewriter.inlineRegionBefore(op.getRegion(), partial.getRegion(), partial.getRegion().end());

  // The original accumulator plus the partial sums, in index order.
  unsigned rank = resultType.getRank();
  AffineMap all = AffineMap::getMultiDimIdentityMap(rank + 1, ctx);
  AffineMap kept = AffineMap::get(rank + 1, 0, all.getResults().drop_back(), ctx);
  SmallVector<utils::IteratorType> mergeIterators(rank, utils::IteratorType::parallel);
  mergeIterators.push_back(utils::IteratorType::reduction);
  auto merge = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, partial.getResults(), op.getDpsInits(),
      ArrayRef<AffineMap>{all, kept}, mergeIterators,
      [](OpBuilder &b, Location l, ValueRange args) {
        Value sum = arith::AddFOp::create(b, l, args[1], args[0]);
        linalg::YieldOp::create(b, l, sum);
      });
  rewriter.replaceOp(op, merge.getResults());
}

struct CpuSplitLongReductions
    : shardc::impl::CpuSplitLongReductionsBase<CpuSplitLongReductions> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, Split>> splits;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!op.hasPureTensorSemantics() || !isFloatSum(op))
        return;
      if (std::optional<Split> split = chooseSplit(op, minElements))
        splits.push_back({op, *split});
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, split] : splits)
      splitReduction(rewriter, op, split);
  }
};

} // namespace
