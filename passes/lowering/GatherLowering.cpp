//===- GatherLowering.cpp - gather / scatters → linalg, scf, tensor -------===//
//
// The ops index the rows of a [V, t...] tensor by integer indices [b...]:
//   gather          a linalg.generic over the result [b..., t...] that reads
//                   its index, clamps it, and extracts table[row, t...];
//   scatter_add,    a loop nest over the index positions carrying the
//   scatter_reduce  result: each step combines one row of updates into row
//                   `row` (an extract_slice, an elementwise add, max or min,
//                   an insert_slice), in index order, so duplicate indices
//                   accumulate.
// Keeps: every index is clamped to [0, V - 1] before use (documented in
// GArrayReductionOps.td, as XLA), so no access is ever out of bounds. V is
// whole on every device (both rules keep it replicated), so the local V is
// the global one and clamping locally is clamping globally.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/lowering/LoweringPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>
#include <type_traits>

using namespace mlir;
using namespace mlir::garray;

namespace {

/// `index` (any integer type; i1 read as 0/1, others as signed) clamped to
/// [0, rows - 1], as an `index` value. Computed in at least 64 bits so that
/// neither the index nor rows - 1 can wrap.
Value clampedRow(OpBuilder &b, Location loc, Value index, int64_t rows) {
  auto type = cast<IntegerType>(index.getType());
  unsigned width = std::max(type.getWidth(), 64u);
  auto wide = b.getIntegerType(width);
  if (type.getWidth() < width)
    index = type.getWidth() == 1 ? Value(arith::ExtUIOp::create(b, loc, wide, index))
                                 : Value(arith::ExtSIOp::create(b, loc, wide, index));
  Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(wide, 0));
  Value last = arith::ConstantOp::create(b, loc, b.getIntegerAttr(wide, rows - 1));
  Value clamped = arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, index, zero), last);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), clamped);
}

struct LowerGather : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op, PatternRewriter &rewriter) const override {
    auto table = cast<RankedTensorType>(op.getTable().getType());
    auto indices = cast<RankedTensorType>(op.getIndices().getType());
    auto out = cast<RankedTensorType>(op.getType());
    MLIRContext *ctx = rewriter.getContext();
    int64_t numIndexDims = indices.getRank(), numLoops = out.getRank();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < numIndexDims; ++d)
      indexExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, indexExprs, ctx),
                                   rewriter.getMultiDimIdentityMap(numLoops)};
    SmallVector<utils::IteratorType> iters(numLoops, utils::IteratorType::parallel);
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, out.getShape(), out.getElementType());
    Value tableValue = op.getTable();
    int64_t rows = table.getDimSize(0);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{out}, ValueRange{op.getIndices()}, ValueRange{init}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> coords = {clampedRow(b, l, args[0], rows)};
          for (int64_t d = numIndexDims; d < numLoops; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          linalg::YieldOp::create(b, l, tensor::ExtractOp::create(b, l, tableValue, coords).getResult());
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

template <typename ScatterOp> ReductionKind kindOf(ScatterOp op) {
  if constexpr (std::is_same_v<ScatterOp, ScatterAddOp>)
    return ReductionKind::sum;
  else
    return op.getKind();
}

template <typename ScatterOp> struct LowerRowScatter : OpRewritePattern<ScatterOp> {
  using OpRewritePattern<ScatterOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterOp op, PatternRewriter &rewriter) const override {
    const ReductionKind kind = kindOf(op);
    auto base = cast<RankedTensorType>(op.getBase().getType());
    auto indices = cast<RankedTensorType>(op.getIndices().getType());
    Location loc = op.getLoc();
    int64_t numIndexDims = indices.getRank();
    ArrayRef<int64_t> rowShape = base.getShape().drop_front();
    auto rowType = RankedTensorType::get(rowShape, base.getElementType());

    SmallVector<Value> lbs, ubs, steps;
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t s : indices.getShape()) {
      lbs.push_back(zero);
      ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, s));
      steps.push_back(one);
    }
    // Index positions in row-major order: duplicates add up in that order.
    auto body = [&](OpBuilder &b, Location l, ValueRange ivs,
                    ValueRange acc) -> scf::ValueVector {
      Value index = tensor::ExtractOp::create(b, l, op.getIndices(), ivs);
      Value row = clampedRow(b, l, index, base.getDimSize(0));
      // acc[row, ...] and updates[ivs..., ...], both as [t...] (rank-reduced).
      SmallVector<OpFoldResult> accOffsets = {row}, accSizes = {b.getIndexAttr(1)};
      SmallVector<OpFoldResult> updOffsets(ivs.begin(), ivs.end()),
          updSizes(numIndexDims, b.getIndexAttr(1));
      for (int64_t s : rowShape) {
        accOffsets.push_back(b.getIndexAttr(0));
        accSizes.push_back(b.getIndexAttr(s));
        updOffsets.push_back(b.getIndexAttr(0));
        updSizes.push_back(b.getIndexAttr(s));
      }
      SmallVector<OpFoldResult> accStrides(accSizes.size(), b.getIndexAttr(1)),
          updStrides(updSizes.size(), b.getIndexAttr(1));
      Value accRow = tensor::ExtractSliceOp::create(b, l, rowType, acc[0], accOffsets, accSizes,
                                                    accStrides);
      Value updRow = tensor::ExtractSliceOp::create(b, l, rowType, op.getUpdates(), updOffsets,
                                                    updSizes, updStrides);
      // The row is combined into in place (its slice is the generic's
      // init): a fresh init made bufferization allocate, copy and free a
      // row buffer for every index position.
      SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rowType.getRank()));
      SmallVector<utils::IteratorType> iters(rowType.getRank(), utils::IteratorType::parallel);
      Value combined = linalg::GenericOp::create(
                      b, l, TypeRange{rowType}, ValueRange{updRow}, ValueRange{accRow}, maps,
                      iters,
                      [&](OpBuilder &nb, Location nl, ValueRange a) {
                        linalg::YieldOp::create(
                            nb, nl, shardc::combineByKind(nb, nl, kind, a[1], a[0]));
                      })
                      .getResult(0);
      Value updated = tensor::InsertSliceOp::create(b, l, combined, acc[0], accOffsets, accSizes,
                                                    accStrides);
      return {updated};
    };
    scf::LoopNest nest =
        scf::buildLoopNest(rewriter, loc, lbs, ubs, steps, ValueRange{op.getBase()}, body);
    rewriter.replaceOp(op, nest.results);
    return success();
  }
};
} // namespace

void shardc::populateGatherLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGather, LowerRowScatter<ScatterAddOp>, LowerRowScatter<ScatterReduceOp>>(
      patterns.getContext());
}
