//===- TileAndFuse.cpp - gpu-tile-and-fuse ---------------------------------===//
//
// The GPU target's tile phase (GpuPasses.td has the recipe and an example).
// One recipe exists so far, which spreads an op's outputs over threads;
// the ops it does not take are left as they are, for the recipes that come
// later (docs/gpu.md, "Kernel recipes").
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
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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

/// Which recipe takes an op, if any. Both need an op on tensors over at
/// least one element whose operands are all read through projected
/// permutations, zeros allowed (so a tile of the result reads a box of
/// each operand; `reverse`'s `3 - j` does not until readThroughExtracts
/// has made it read that operand element by element). The output recipe takes those with a parallel loop (the
/// outputs to spread over threads), the single-thread recipe those without
/// (rank-0 results: full reductions, scalar ops).
enum class Recipe { None, Output, SingleThread };

Recipe recipeFor(linalg::LinalgOp op) {
  // The maps first: loop ranges are only defined where every loop is
  // some operand's dim.
  if (!op.hasPureTensorSemantics() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) {
                      return m.isProjectedPermutation(/*allowZeroInResults=*/true);
                    }) ||
      !op.getShapesToLoopsMap() || llvm::is_contained(op.getStaticLoopRanges(), 0))
    return Recipe::None;
  return op.getNumParallelLoops() > 0 ? Recipe::Output : Recipe::SingleThread;
}

/// An op on tensors that reads an input through a map that is not a
/// projected permutation (`reverse`'s `4 - j`) becomes one that reads it
/// with `tensor.extract` at the map's position, computed in the body from
/// `linalg.index`: its remaining maps are projected permutations, so the
/// output recipe tiles it like any elementwise op (tiling offsets the
/// indices), and the input is read whole from each tile. Where that input
/// was the only one to span some loop (a reduction of a reversed operand),
/// it also stays an input through its dims' map (`4 - j` read as `j`, the
/// same extent), whose elements the body ignores: it keeps the loop's
/// range. False when the op is not of that kind.
bool readThroughExtracts(RewriterBase &rw, linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() == 0)
    return false;
  auto isBox = [](AffineMap m) { return m.isProjectedPermutation(/*allowZeroInResults=*/true); };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  const unsigned numInputs = op.getNumDpsInputs();
  SmallVector<unsigned> extracted;
  for (unsigned i = 0; i < numInputs; ++i)
    if (!isBox(maps[i]))
      extracted.push_back(i);
  if (extracted.empty() || !llvm::all_of(ArrayRef<AffineMap>(maps).drop_front(numInputs), isBox))
    return false;
  for (unsigned i : extracted)
    if (!isa<RankedTensorType>(op.getDpsInputOperand(i)->get().getType()))
      return false;

  SmallVector<Value> inputs;
  SmallVector<AffineMap> newMaps;
  for (unsigned i = 0; i < numInputs; ++i)
    if (!llvm::is_contained(extracted, i)) {
      inputs.push_back(op.getDpsInputOperand(i)->get());
      newMaps.push_back(maps[i]);
    }
  // Shape-only inputs, while some loop is no remaining operand's dim.
  SmallVector<AffineMap> outMaps(maps.begin() + numInputs, maps.end());
  auto covered = [&] {
    SmallVector<AffineMap> all(newMaps);
    all.append(outMaps);
    return static_cast<bool>(inversePermutation(concatAffineMaps(all, op.getContext())));
  };
  unsigned numShapeOnly = 0;
  for (unsigned i : extracted) {
    if (covered())
      break;
    SmallVector<AffineExpr> dims;
    for (AffineExpr e : maps[i].getResults()) {
      std::optional<unsigned> only;
      for (unsigned d = 0; d < op.getNumLoops(); ++d)
        if (e.isFunctionOfDim(d)) {
          if (only)
            return false;
          only = d;
        }
      if (!only)
        return false;
      dims.push_back(getAffineDimExpr(*only, op.getContext()));
    }
    AffineMap dimsMap = AffineMap::get(op.getNumLoops(), 0, dims, op.getContext());
    if (!dimsMap.isProjectedPermutation())
      return false;
    inputs.push_back(op.getDpsInputOperand(i)->get());
    newMaps.push_back(dimsMap);
    ++numShapeOnly;
  }
  if (!covered())
    return false;
  newMaps.append(outMaps);
  rw.setInsertionPoint(op);
  auto generic = linalg::GenericOp::create(rw, op.getLoc(), op.getResultTypes(), inputs,
                                           op.getDpsInits(), newMaps, op.getIteratorTypesArray());
  generic->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  // The body: kept arguments map to the new block's (inputs, the
  // shape-only inputs' unused ones, outputs), extracted ones to the
  // element read at the map's position.
  Block *old = op.getBody();
  Block *body = rw.createBlock(&generic.getRegion());
  IRMapping mapping;
  for (unsigned i = 0; i < numInputs; ++i)
    if (!llvm::is_contained(extracted, i))
      mapping.map(old->getArgument(i), body->addArgument(old->getArgument(i).getType(),
                                                         old->getArgument(i).getLoc()));
  for (unsigned k = 0; k < numShapeOnly; ++k) {
    BlockArgument arg = old->getArgument(extracted[k]);
    body->addArgument(arg.getType(), arg.getLoc());
  }
  for (unsigned i = numInputs; i < old->getNumArguments(); ++i)
    mapping.map(old->getArgument(i),
                body->addArgument(old->getArgument(i).getType(), old->getArgument(i).getLoc()));
  OpBuilder b = OpBuilder::atBlockBegin(body);
  SmallVector<Value> indices;
  for (unsigned d = 0; d < op.getNumLoops(); ++d)
    indices.push_back(linalg::IndexOp::create(b, op.getLoc(), d));
  for (unsigned i : extracted) {
    SmallVector<Value> at;
    for (AffineExpr e : maps[i].getResults())
      at.push_back(affine::AffineApplyOp::create(
          b, op.getLoc(), AffineMap::get(op.getNumLoops(), 0, e), indices));
    mapping.map(old->getArgument(i),
                tensor::ExtractOp::create(b, op.getLoc(), op.getDpsInputOperand(i)->get(), at));
  }
  for (Operation &inner : *old)
    b.clone(inner, mapping);
  rw.replaceOp(op, generic->getResults());
  return true;
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

/// The output recipe (GpuPasses.td): the parallel loops are tiled like an
/// elementwise op's, the reduction loops not at all, so each thread runs
/// them whole, in order, for each of its outputs.
LogicalResult tileByOutput(RewriterBase &rewriter, linalg::LinalgOp op) {
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<unsigned> parallel;
  op.getParallelDims(parallel);
  int64_t numParallel = static_cast<int64_t>(parallel.size());
  unsigned innerDim = parallel.back();
  int64_t inner = ranges[innerDim];
  int64_t innerTile =
      ShapedType::isDynamic(inner) ? kBlockElements : std::min(inner, kBlockElements);
  // A short innermost dim: group rows, so a block still has ~1024 outputs.
  std::optional<unsigned> rowDim;
  int64_t rowTile = 1;
  if (numParallel >= 2) {
    rowDim = parallel[numParallel - 2];
    int64_t perRow =
        std::max<int64_t>(kThreadRun, static_cast<int64_t>(llvm::alignTo(innerTile, kThreadRun)));
    rowTile = std::max<int64_t>(1, kBlockElements / perRow);
    if (!ShapedType::isDynamic(ranges[*rowDim]))
      rowTile = std::min(rowTile, ranges[*rowDim]);
  }
  SmallVector<int64_t> blockSizes(ranges.size(), 0);
  for (unsigned d : parallel)
    blockSizes[d] = 1;
  blockSizes[innerDim] = innerTile;
  if (rowDim)
    blockSizes[*rowDim] = rowTile;
  FailureOr<scf::SCFTilingResult> blocks =
      tileToForall(rewriter, op, blockSizes, blockMapping(ctx, numParallel));
  if (failed(blocks) || blocks->tiledOps.size() != 1)
    return failure();
  shardc::setGpuRecipe(blocks->loops.front().getOperation(), "output");

  // Threads: one per row of the block and per run of kThreadRun outputs of
  // a full tile's row, a static count (edge tiles give their threads
  // shorter runs, or none). The block's other dims have size 1 and stay
  // untiled, as do the reduction dims.
  SmallVector<int64_t> threadCounts(ranges.size(), 0);
  SmallVector<Attribute> threadMapping;
  if (rowDim) {
    threadCounts[*rowDim] = rowTile;
    threadMapping.push_back(gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::DimY));
  }
  threadCounts[innerDim] = llvm::divideCeil(innerTile, kThreadRun);
  threadMapping.push_back(gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::DimX));
  FailureOr<scf::SCFTilingResult> threads = tileToForall(
      rewriter, blocks->tiledOps.front(), threadCounts, threadMapping, /*byCount=*/true);
  return success(succeeded(threads));
}

/// Block tiles of `op` by `sizes` (0 = not tiled), the forall made by
/// `recipe`, and its one tiled op marked `mark` = `value` for the recipe's
/// buffer-level pass (gpu-stage-contractions, gpu-stage-transposes,
/// gpu-block-reductions), which writes the block's threads.
LogicalResult tileMarkedBlocks(RewriterBase &rewriter, linalg::LinalgOp op,
                               ArrayRef<int64_t> sizes, int64_t mappedLoops, StringRef recipe,
                               StringRef mark, ArrayRef<int64_t> value) {
  FailureOr<scf::SCFTilingResult> blocks =
      tileToForall(rewriter, op, sizes, blockMapping(rewriter.getContext(), mappedLoops));
  if (failed(blocks) || blocks->tiledOps.size() != 1)
    return failure();
  shardc::setGpuRecipe(blocks->loops.front().getOperation(), recipe);
  blocks->tiledOps.front()->setAttr(mark, rewriter.getDenseI64ArrayAttr(value));
  return success();
}

/// The staged contraction recipe (gpu-stage-contractions): the tile of a
/// block and of a thread, when `op` takes it. A contraction with one M, N
/// and K loop, any batch loops, every operand read through a projected
/// permutation, a body that does not read indices, byte-or-wider elements,
/// static loops, and M, N and K long enough for staging to pay (shorter
/// ones keep the output recipe). 128 x 128 blocks of 8 x 8 per thread where
/// both M and N fill eight of them, else 64 x 64 of 4 x 4; f16 or bf16
/// operands summed in f32 go to the tensor cores instead, 128 x 64 blocks
/// (64 x 64 below 128 rows, and for TF32) with K chunks of 32 (C's tile
/// passes through shared memory, which bounds the tile); with `tf32`, f32
/// operands summed in f32 too.
struct StagedTile {
  int64_t bm, bn, bk, tm, tn;
  unsigned m, n;
  bool tensorCores;
};

std::optional<StagedTile> stagedTileFor(linalg::LinalgOp op, bool tf32) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 || op.hasIndexSemantics() ||
      op.getNumReductionLoops() != 1 || op.hasDynamicShape() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isProjectedPermutation(); }))
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    Type elem = getElementTypeOrSelf(operand.get().getType());
    if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() < 8)
      return std::nullopt;
  }
  FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 || dims->k.size() != 1)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t m = ranges[dims->m[0]], n = ranges[dims->n[0]], k = ranges[dims->k[0]];
  if (m < 32 || n < 32 || k < 16)
    return std::nullopt;
  if (shardc::gpuTensorCoreContraction(op, tf32)) {
    // 16-bit operands and 128 rows or more: 128 x 64 blocks (a warp's
    // 32 x 32 patch reads 128 shared elements per mma.sync, a third fewer
    // than 64 x 64's 16 x 32 patch); f32 ones (TF32) stay
    // 64 x 64, whose staged tiles fit the 48 KiB of shared memory.
    bool wide = !getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType()).isF32() &&
                m >= 128;
    return StagedTile{wide ? 128 : 64, 64, 32, 0, 0, dims->m[0], dims->n[0], true};
  }
  if (m >= 1024 && n >= 1024)
    return StagedTile{128, 128, 16, 8, 8, dims->m[0], dims->n[0], false};
  return StagedTile{64, 64, 32, 4, 4, dims->m[0], dims->n[0], false};
}

/// Block tiles of `tile` (batch loops one at a time, K untiled), each
/// tile's op marked for gpu-stage-contractions, which writes its threads
/// (or warps, on the tensor cores).
LogicalResult tileStaged(RewriterBase &rewriter, linalg::LinalgOp op, const StagedTile &tile) {
  SmallVector<unsigned> parallel;
  op.getParallelDims(parallel);
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  for (unsigned d : parallel)
    sizes[d] = 1;
  sizes[tile.m] = tile.bm;
  sizes[tile.n] = tile.bn;
  if (tile.tensorCores)
    return tileMarkedBlocks(rewriter, op, sizes, static_cast<int64_t>(parallel.size()),
                            "gemm_mma", shardc::kGpuMmaAttr, {tile.bm, tile.bn, tile.bk});
  return tileMarkedBlocks(rewriter, op, sizes, static_cast<int64_t>(parallel.size()), "gemm",
                          shardc::kGpuStagedAttr, {tile.bm, tile.bn, tile.bk, tile.tm, tile.tn});
}

Operation *wrapInForall(RewriterBase &rw, Operation *op, Attribute mapping);

/// The transpose recipe (gpu-stage-transposes), when it takes `op`: a copy
/// (one input, yielded as it is) over parallel loops into an identity
/// output, whose input's innermost dim is another loop than the output's,
/// with both loops at least 8 long, static, of elements of a byte or more.
/// Blocks of 32 x 32 over those two loops (one along the others). Returns
/// the two loops: the output's innermost, then the input's.
std::optional<std::pair<unsigned, unsigned>> transposeLoopsOf(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() || op.getNumLoops() < 2 ||
      op.hasDynamicShape() || op.hasIndexSemantics())
    return std::nullopt;
  Block *body = op.getBlock();
  if (body->getOperations().size() != 1 ||
      body->getTerminator()->getOperand(0) != body->getArgument(0))
    return std::nullopt;
  AffineMap in = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  Type elem = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  if (!out.isIdentity() || !in.isPermutation() || !elem.isIntOrFloat() ||
      elem.getIntOrFloatBitWidth() < 8)
    return std::nullopt;
  unsigned outLoop = op.getNumLoops() - 1, inLoop = in.getDimPosition(in.getNumResults() - 1);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (inLoop == outLoop || ranges[inLoop] < 8 || ranges[outLoop] < 8)
    return std::nullopt;
  return std::make_pair(outLoop, inLoop);
}

LogicalResult tileTranspose(RewriterBase &rewriter, linalg::LinalgOp op,
                            std::pair<unsigned, unsigned> loops) {
  SmallVector<int64_t> sizes(op.getNumLoops(), 1);
  sizes[loops.first] = 32;
  sizes[loops.second] = 32;
  return tileMarkedBlocks(rewriter, op, sizes, static_cast<int64_t>(op.getNumLoops()),
                          "transpose", shardc::kGpuTransposeAttr, {loops.first, loops.second});
}

/// The block-tree recipe (gpu-block-reductions): R outputs a block, T
/// threads each. Rows of 512 or more take a block of 256 threads each;
/// shorter rows (64 or more) eight to a block, 32 threads each (a warp
/// per row), when the reduction has parallel loops.
struct BlockTree {
  int64_t rows, threads;
};

/// Whether the block-tree recipe takes `op`: one reduced loop, read
/// innermost by every input that reads it (neighbouring threads,
/// neighbouring elements), one output of a byte or more, static loops, and
/// a body that folds into the output through one operation with a neutral
/// element.
std::optional<BlockTree> blockTreeFor(linalg::LinalgOp op) {
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 || reductions.size() != 1 ||
      op.hasDynamicShape() || op.hasIndexSemantics())
    return std::nullopt;
  const int64_t length = op.getStaticLoopRanges()[reductions[0]];
  const bool rowsOfBlocks = length >= 512;
  if (!rowsOfBlocks && (length < 64 || op.getNumParallelLoops() == 0))
    return std::nullopt;
  Type elem = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() < 8)
    return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return std::nullopt;
    if (!map.isFunctionOfDim(reductions[0]))
      continue;
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!last || last.getPosition() != reductions[0])
      return std::nullopt;
  }
  if (!shardc::gpuBlockTreeCombines(op))
    return std::nullopt;
  return rowsOfBlocks ? BlockTree{1, 256} : BlockTree{8, 32};
}

/// Block tiles of `tree.rows` outputs along the innermost parallel loop
/// (one along the others; a full reduction in one block), each tile's op
/// marked for gpu-block-reductions.
LogicalResult tileBlockTree(RewriterBase &rewriter, linalg::LinalgOp op, const BlockTree &tree) {
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<unsigned> parallel;
  op.getParallelDims(parallel);
  if (parallel.empty()) {
    Operation *tile =
        wrapInForall(rewriter, op, gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX));
    shardc::setGpuRecipe(tile->getParentOp(), "block_tree");
    tile->setAttr(shardc::kGpuBlockTreeAttr,
                  rewriter.getDenseI64ArrayAttr({tree.rows, tree.threads}));
    return success();
  }
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  for (unsigned d : parallel)
    sizes[d] = 1;
  sizes[parallel.back()] = tree.rows;
  return tileMarkedBlocks(rewriter, op, sizes, static_cast<int64_t>(parallel.size()),
                          "block_tree", shardc::kGpuBlockTreeAttr, {tree.rows, tree.threads});
}

/// `op` inside one forall of `count` = 1 iteration mapped to `mapping`, its
/// results written whole into the forall's shared outputs.
Operation *wrapInForall(RewriterBase &rw, Operation *op, Attribute mapping) {
  Location loc = op->getLoc();
  auto dps = cast<DestinationStyleOpInterface>(op);
  SmallVector<Value> inits = dps.getDpsInits();
  OpFoldResult zero = rw.getIndexAttr(0), one = rw.getIndexAttr(1);
  rw.setInsertionPoint(op);
  auto forall = scf::ForallOp::create(rw, loc, ArrayRef<OpFoldResult>{zero},
                                      ArrayRef<OpFoldResult>{one}, ArrayRef<OpFoldResult>{one},
                                      inits, rw.getArrayAttr({mapping}));
  Block *body = forall.getBody();
  rw.setInsertionPoint(body->getTerminator());
  IRMapping map;
  for (auto [init, arg] : llvm::zip(inits, forall.getRegionIterArgs()))
    map.map(init, arg);
  Operation *inner = rw.clone(*op, map);
  rw.setInsertionPointToStart(forall.getTerminator().getBody());
  for (auto [result, out] : llvm::zip(inner->getResults(), forall.getRegionIterArgs())) {
    auto type = cast<RankedTensorType>(out.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), zero), strides(type.getRank(), one);
    SmallVector<OpFoldResult> sizes;
    for (int64_t d : type.getShape())
      sizes.push_back(rw.getIndexAttr(d));
    tensor::ParallelInsertSliceOp::create(rw, loc, result, out, offsets, sizes, strides);
  }
  rw.replaceOp(op, forall.getResults());
  return inner;
}

/// The single-thread recipe (GpuPasses.td): an op with no parallel loop
/// (a full reduction, a rank-0 op) runs on one thread of one block, its
/// loops in order.
void runOnOneThread(RewriterBase &rw, linalg::LinalgOp op) {
  MLIRContext *ctx = rw.getContext();
  Operation *inBlock =
      wrapInForall(rw, op, gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX));
  shardc::setGpuRecipe(inBlock->getParentOp(), "single_thread");
  wrapInForall(rw, inBlock, gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::DimX));
}

/// Which recipe tiled an op, and whether it could.
struct TileResult {
  StringRef recipe;
  LogicalResult tiled;
};

/// An op with parallel loops, by the first recipe that takes it: a staged
/// contraction, a transpose, a block tree, else the output recipe.
TileResult tileRoot(RewriterBase &rw, linalg::LinalgOp op, bool tf32) {
  if (std::optional<StagedTile> tile = stagedTileFor(op, tf32))
    return {"staged contraction", tileStaged(rw, op, *tile)};
  if (auto loops = transposeLoopsOf(op))
    return {"transpose", tileTranspose(rw, op, *loops)};
  if (std::optional<BlockTree> tree = blockTreeFor(op))
    return {"block-tree", tileBlockTree(rw, op, *tree)};
  return {"output", tileByOutput(rw, op)};
}

/// An op with no parallel loop: a block tree when one takes it, else one
/// thread.
TileResult tileSingle(RewriterBase &rw, linalg::LinalgOp op) {
  if (std::optional<BlockTree> tree = blockTreeFor(op))
    return {"block-tree", tileBlockTree(rw, op, *tree)};
  runOnOneThread(rw, op);
  return {"single-thread", success()};
}

struct GpuTileAndFuse : shardc::impl::GpuTileAndFuseBase<GpuTileAndFuse> {
  using Base::Base;
  void runOnOperation() override {
    // tensor.pad would become a linalg.map and a copy only when bufferized,
    // outside any kernel: make it a fill (tiled below) and an insert_slice
    // now.
    {
      RewritePatternSet patterns(&getContext());
      linalg::populateDecomposePadPatterns(patterns);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
    {
      SmallVector<linalg::GenericOp> generics;
      getOperation()->walk([&](linalg::GenericOp op) {
        if (!op->getParentOfType<scf::ForallOp>() && !op->getParentOfType<LoopLikeOpInterface>())
          generics.push_back(op);
      });
      IRRewriter rw(&getContext());
      for (linalg::GenericOp op : generics)
        readThroughExtracts(rw, op);
    }
    SmallVector<linalg::LinalgOp> roots, single;
    getOperation()->walk([&](linalg::LinalgOp op) {
      // Ops in host loops (scatter_add's loop over positions, which reads
      // each index on the host) wait for recipes of their own.
      if (op->getParentOfType<scf::ForallOp>() || op->getParentOfType<LoopLikeOpInterface>())
        return;
      Recipe recipe = recipeFor(op);
      if (recipe == Recipe::Output)
        roots.push_back(op);
      else if (recipe == Recipe::SingleThread)
        single.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    // `loc` is read before tiling: a recipe may fail after it replaced the op.
    auto tiled = [&](Location loc, TileResult result) {
      if (succeeded(result.tiled))
        return true;
      emitError(loc) << "gpu-tile-and-fuse: the " << result.recipe
                     << " recipe could not tile this op";
      signalPassFailure();
      return false;
    };
    for (linalg::LinalgOp op : single) {
      Location loc = op.getLoc();
      if (!tiled(loc, tileSingle(rewriter, op)))
        return;
    }
    for (linalg::LinalgOp op : roots) {
      Location loc = op.getLoc();
      if (!tiled(loc, tileRoot(rewriter, op, tf32)))
        return;
    }
  }
};

} // namespace
