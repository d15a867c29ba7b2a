//===- TileAndFuse.cpp - gpu-tile-and-fuse ---------------------------------===//
//
// The GPU target's tile phase (GpuPasses.td has the recipe and an example).
// Only the elementwise recipe exists so far; every other op is left as it
// is, for the recipes that come later (docs/gpu.md, "Kernel recipes").
//
// Invariants: tiling only splits iteration spaces (upstream tileUsingSCF,
// forall loops with clamped edge tiles), so each element is computed by the
// same scalar code as before, exactly once, whatever order the tiles run
// in; the mapping attributes carry no semantics until the GPU kernel phase.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace shardc {
#define GEN_PASS_DEF_GPUTILEANDFUSE
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Elements a block covers, and a thread's run of the innermost dim (16
/// bytes of f32: one vector load and store per thread).
constexpr int64_t kBlockElements = 1024;
constexpr int64_t kThreadRun = 4;

/// An op the elementwise recipe tiles: on tensors, all loops parallel,
/// every operand read through a projected permutation (so a tile of the
/// result reads a box of each operand; `reverse`'s `3 - j` does not, and
/// waits for a recipe of its own), and at least one element.
bool isElementwise(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumLoops() == 0 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return false;
  if (!llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isProjectedPermutation(); }))
    return false;
  return !llvm::is_contained(op.getStaticLoopRanges(), 0);
}

/// Block mapping for `rank` tiled loops, outermost first: z, y, x up to rank
/// 3 (x innermost), linear dims above (linear_dim_0 innermost).
SmallVector<Attribute> blockMapping(MLIRContext *ctx, int64_t rank) {
  SmallVector<Attribute> mapping;
  for (int64_t i = rank - 1; i >= 0; --i) {
    auto id = rank <= 3 ? static_cast<gpu::MappingId>(i)
                        : static_cast<gpu::MappingId>(
                              static_cast<int64_t>(gpu::MappingId::LinearDim0) + i);
    mapping.push_back(gpu::GPUBlockMappingAttr::get(ctx, id));
  }
  return mapping;
}

/// Tiles `op` into a forall: by tile `sizes`, or, with `byCount`, into
/// `sizes` tiles per loop (a forall with static trip counts, the shape a
/// thread block needs; 0 = not tiled).
FailureOr<scf::SCFTilingResult> tileToForall(RewriterBase &rewriter, Operation *op,
                                             ArrayRef<int64_t> sizes, ArrayRef<Attribute> mapping,
                                             bool byCount = false) {
  scf::SCFTilingOptions options;
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  if (byCount)
    options.setNumThreads(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  else
    options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  options.setMapping(mapping);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), options);
  if (succeeded(tiled))
    rewriter.replaceOp(op, tiled->replacements);
  return tiled;
}

/// The elementwise recipe (GpuPasses.td).
LogicalResult tileElementwise(RewriterBase &rewriter, linalg::LinalgOp op) {
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t rank = static_cast<int64_t>(ranges.size());
  int64_t inner = ranges.back();
  int64_t innerTile =
      ShapedType::isDynamic(inner) ? kBlockElements : std::min(inner, kBlockElements);
  // A short innermost dim: group rows, so a block still has ~1024 elements.
  int64_t rowTile = 1;
  if (rank >= 2) {
    int64_t perRow =
        std::max<int64_t>(kThreadRun, static_cast<int64_t>(llvm::alignTo(innerTile, kThreadRun)));
    rowTile = std::max<int64_t>(1, kBlockElements / perRow);
    if (!ShapedType::isDynamic(ranges[rank - 2]))
      rowTile = std::min(rowTile, ranges[rank - 2]);
  }
  SmallVector<int64_t> blockSizes(rank, 1);
  blockSizes.back() = innerTile;
  if (rank >= 2)
    blockSizes[rank - 2] = rowTile;
  FailureOr<scf::SCFTilingResult> blocks =
      tileToForall(rewriter, op, blockSizes, blockMapping(ctx, rank));
  if (failed(blocks) || blocks->tiledOps.size() != 1)
    return failure();

  // Threads: one per row of the block and per run of kThreadRun elements
  // of a full tile's row, a static count (edge tiles give their threads
  // shorter runs, or none). The block's other dims have size 1 and stay
  // untiled.
  SmallVector<int64_t> threadCounts(rank, 0);
  SmallVector<Attribute> threadMapping;
  if (rank >= 2) {
    threadCounts[rank - 2] = rowTile;
    threadMapping.push_back(gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::DimY));
  }
  threadCounts.back() = llvm::divideCeil(innerTile, kThreadRun);
  threadMapping.push_back(gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::DimX));
  FailureOr<scf::SCFTilingResult> threads = tileToForall(
      rewriter, blocks->tiledOps.front(), threadCounts, threadMapping, /*byCount=*/true);
  return success(succeeded(threads));
}

struct GpuTileAndFuse : shardc::impl::GpuTileAndFuseBase<GpuTileAndFuse> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> roots;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isElementwise(op) && !op->getParentOfType<scf::ForallOp>())
        roots.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : roots)
      if (failed(tileElementwise(rewriter, op))) {
        op.emitError() << "gpu-tile-and-fuse: the elementwise recipe could not tile this op";
        return signalPassFailure();
      }
  }
};

} // namespace
