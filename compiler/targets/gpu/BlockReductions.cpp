//===- BlockReductions.cpp - gpu-block-reductions ---------------------------===//
//
// The block-tree reduction recipe's block program (GpuPasses.td has it with
// an example): a marked reduction tile (R outputs, their reduced dim
// whole) on buffers becomes T threads per output each reducing a strided
// run of the reduced dim into a shared partial, a pairwise tree over the
// partials (its last five steps, over 32 partials, as warp code that
// gpu-lower-warp-trees makes warp shuffles), and one thread per output
// combining the result into it.
//
// Invariants: every element is read once, by one thread, and the order in
// which partials combine is fixed by the shapes (never by timing), so
// replicas stay bit-identical; the order differs from the CPU target's.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/BlockProgram.h"
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace shardc {
#define GEN_PASS_DEF_GPUBLOCKREDUCTIONS
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;
using shardc::gpu::indexConstant;

namespace {

/// The reduction's combiner: the one op that folds a value into the
/// output's running value, and that value.
struct Combiner {
  Operation *op;
  Value other;
};

std::optional<Combiner> combinerOf(linalg::LinalgOp op) {
  SmallVector<Operation *> combiners;
  BlockArgument out = op.getRegionOutputArgs()[0];
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) || combiners.size() != 1 ||
      !out.hasOneUse() || combiners[0]->getNumOperands() != 2 ||
      !arith::getNeutralElement(combiners[0]))
    return std::nullopt;
  Operation *c = combiners[0];
  Value other = c->getOperand(0) == out ? c->getOperand(1) : c->getOperand(0);
  if (other == out)
    return std::nullopt;
  return Combiner{c, other};
}

/// `combiner` on (`acc`, `value`) at the builder's point: scalars, or
/// vectors of one type element by element (its one op is an elementwise
/// arith op, whose result has its operands' type).
Value combine(OpBuilder &b, const Combiner &combiner, Value out, Value acc, Value value) {
  IRMapping map;
  map.map(out, acc);
  map.map(combiner.other, value);
  Value result = b.clone(*combiner.op, map)->getResult(0);
  result.setType(acc.getType());
  return result;
}

/// Lanes of a warp: the tree's last steps, over this many partials, are
/// warp code.
constexpr int64_t kWarpSize = 32;

/// The indices of `operand` at loop values `ivs` (a map's constant zeros
/// at 0).
SmallVector<Value> indicesAt(OpBuilder &b, Location loc, linalg::LinalgOp op, OpOperand *operand,
                             ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (AffineExpr e : op.getMatchingIndexingMap(operand).getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    indices.push_back(dim ? ivs[dim.getPosition()] : indexConstant(b, loc, 0));
  }
  return indices;
}

/// The block's program for the tile `op` marked [rows R, threads T]: R
/// outputs along the tile's innermost parallel loop (the others have
/// extent 1), each reduced by T threads.
LogicalResult buildTree(RewriterBase &rw, linalg::LinalgOp op, bool workgroup) {
  Location loc = op.getLoc();
  std::optional<Combiner> combiner = combinerOf(op);
  auto params = op->getAttrOfType<DenseI64ArrayAttr>(shardc::kGpuBlockTreeAttr);
  SmallVector<unsigned> reductions, parallel;
  op.getReductionDims(reductions);
  op.getParallelDims(parallel);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (!combiner || !params || params.size() != 2 || reductions.size() != 1 ||
      op.getNumDpsInits() != 1 || ShapedType::isDynamic(ranges[reductions[0]]) ||
      (params[0] > 1 && parallel.empty()))
    return failure();
  const int64_t rowsPerBlock = params[0], threads = params[1];
  const unsigned r = reductions[0];
  const int64_t length = ranges[r];
  OpOperand *init = op.getDpsInitOperand(0);
  Type elem = getElementTypeOrSelf(init->get().getType());
  BlockArgument out = op.getRegionOutputArgs()[0];
  Block *body = op.getBlock();

  rw.setInsertionPoint(op);
  // The tile's outputs along its innermost parallel loop (fewer than R in
  // an edge tile).
  Value rows = indexConstant(rw, loc, 1);
  if (!parallel.empty())
    rows = getValueOrCreateConstantIndexOp(rw, loc,
                                           op.createLoopRanges(rw, loc)[parallel.back()].size);
  Value partials =
      shardc::gpu::blockBuffer(rw, op, {rowsPerBlock, threads}, elem, workgroup);
  rw.setInsertionPoint(op);
  // Loop values with the row's loop at `row` and the reduction's at `j`.
  auto loopsAt = [&](OpBuilder &b, Value row, Value j) {
    SmallVector<Value> ivs(op.getNumLoops(), indexConstant(b, loc, 0));
    if (!parallel.empty())
      ivs[parallel.back()] = row;
    ivs[r] = j;
    return ivs;
  };
  auto rowInside = [&](OpBuilder &b, Value row) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, rows);
  };
  // Each thread: elements t, t + T, ... of its row in order, from the
  // neutral value (rows past an edge tile's end keep the neutral value).
  shardc::gpu::threadForall(rw, loc, {rowsPerBlock, threads}, [&](OpBuilder &b, ValueRange ids) {
    Value row = ids[0], t = ids[1];
    Value neutral = arith::ConstantOp::create(b, loc, *arith::getNeutralElement(combiner->op));
    Value end = arith::SelectOp::create(b, loc, rowInside(b, row), indexConstant(b, loc, length),
                                        indexConstant(b, loc, 0));
    auto run = scf::ForOp::create(
        b, loc, t, end, indexConstant(b, loc, threads), ValueRange{neutral},
        [&](OpBuilder &s, Location l, Value j, ValueRange acc) {
          IRMapping map;
          for (OpOperand *input : op.getDpsInputOperands())
            map.map(body->getArgument(input->getOperandNumber()),
                    memref::LoadOp::create(s, l, input->get(),
                                           indicesAt(s, l, op, input, loopsAt(s, row, j))));
          map.map(out, acc[0]);
          for (Operation &inner : body->without_terminator())
            s.clone(inner, map);
          scf::YieldOp::create(s, l, map.lookupOrDefault(body->getTerminator()->getOperand(0)));
        });
    memref::StoreOp::create(b, loc, run.getResult(0), partials, ValueRange{row, t});
  });
  // The tree: partial t takes in partial t + s, for s = T/2, ..., 1; the
  // steps down to 32 partials through the shared array, a barrier each.
  const int64_t warpSteps = threads >= kWarpSize ? kWarpSize : 1;
  for (int64_t s = threads / 2; s >= warpSteps; s /= 2)
    shardc::gpu::threadForall(rw, loc, {rowsPerBlock, threads}, [&](OpBuilder &b, ValueRange ids) {
      Value row = ids[0], t = ids[1];
      Value active =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, t, indexConstant(b, loc, s));
      scf::IfOp::create(b, loc, active, [&](OpBuilder &then, Location l) {
        Value mine = memref::LoadOp::create(then, l, partials, ValueRange{row, t});
        Value theirs = memref::LoadOp::create(
            then, l, partials,
            ValueRange{row, arith::AddIOp::create(then, l, t, indexConstant(then, l, s))});
        memref::StoreOp::create(then, l, combine(then, *combiner, out, mine, theirs), partials,
                                ValueRange{row, t});
        scf::YieldOp::create(then, l);
      });
    });
  // The last five steps, over a row's first 32 partials, as warp code: the
  // row's first warp halves the run (element t takes in t + s, as the
  // array steps do, for s = 16, ..., 1) and stores the total as partial 0;
  // gpu-lower-warp-trees makes the halving shuffles in a kernel.
  if (warpSteps == kWarpSize) {
    const int64_t warpsPerRow = threads / kWarpSize;
    shardc::gpu::warpForall(rw, loc, rowsPerBlock * warpsPerRow, [&](OpBuilder &b, Value warp) {
      AffineExpr w = b.getAffineDimExpr(0);
      auto apply = [&](AffineExpr e) -> Value {
        return affine::AffineApplyOp::create(b, loc, AffineMap::get(1, 0, e), ValueRange{warp});
      };
      Value row = apply(w.floorDiv(warpsPerRow));
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          apply(w % warpsPerRow), indexConstant(b, loc, 0));
      scf::IfOp::create(b, loc, first, [&](OpBuilder &then, Location l) {
        Value run = vector::TransferReadOp::create(
            then, l, VectorType::get({kWarpSize}, elem), partials,
            ValueRange{row, indexConstant(then, l, 0)},
            arith::ConstantOp::create(then, l, *arith::getNeutralElement(combiner->op)),
            ArrayRef<bool>{true});
        for (int64_t half = kWarpSize / 2; half >= 1; half /= 2) {
          auto part = [&](int64_t offset) -> Value {
            return vector::ExtractStridedSliceOp::create(then, l, run, ArrayRef<int64_t>{offset},
                                                         ArrayRef<int64_t>{half},
                                                         ArrayRef<int64_t>{1});
          };
          run = combine(then, *combiner, out, part(0), part(half));
        }
        Value total = vector::ExtractOp::create(then, l, run, ArrayRef<int64_t>{0});
        memref::StoreOp::create(then, l, total, partials,
                                ValueRange{row, indexConstant(then, l, 0)});
        scf::YieldOp::create(then, l);
      });
    });
  }
  // Thread 0 of each row inside the tile folds the total into its output.
  shardc::gpu::threadForall(rw, loc, {rowsPerBlock, threads}, [&](OpBuilder &b, ValueRange ids) {
    Value row = ids[0];
    Value first = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ids[1], indexConstant(b, loc, 0)),
        rowInside(b, row));
    scf::IfOp::create(b, loc, first, [&](OpBuilder &then, Location l) {
      SmallVector<Value> at =
          indicesAt(then, l, op, init, loopsAt(then, row, indexConstant(then, l, 0)));
      Value current = memref::LoadOp::create(then, l, init->get(), at);
      Value total =
          memref::LoadOp::create(then, l, partials, ValueRange{row, indexConstant(then, l, 0)});
      memref::StoreOp::create(then, l, combine(then, *combiner, out, current, total), init->get(),
                              at);
      scf::YieldOp::create(then, l);
    });
  });
  rw.eraseOp(op);
  return success();
}

struct GpuBlockReductions : shardc::impl::GpuBlockReductionsBase<GpuBlockReductions> {
  using Base::Base;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : shardc::gpu::markedTiles(getOperation(), shardc::kGpuBlockTreeAttr))
      if (!shardc::gpu::isBlockTile(op) || failed(buildTree(rewriter, op, workgroupMemory))) {
        op.emitError() << "gpu-block-reductions: a marked op must be a bufferized reduction "
                          "tile with one combiner, in a block forall (an internal error of the "
                          "block-tree recipe)";
        return signalPassFailure();
      }
  }
};

} // namespace

bool shardc::gpuBlockTreeCombines(mlir::linalg::LinalgOp op) {
  return combinerOf(op).has_value();
}
