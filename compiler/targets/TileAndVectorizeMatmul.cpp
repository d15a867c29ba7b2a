//===- TileAndVectorizeMatmul.cpp - cpu-tile-and-vectorize-matmul ---------===//
//
// The CPU GEMM recipe on buffers (CpuPasses.td has the steps and an
// example). Works on memrefs, after bufferization, because that is where
// hoisting the accumulator out of the K loop is a plain transfer_read/write
// pair on one buffer.
//
// Invariants:
//  - only f32/f64 matmuls on static, unit-inner-stride buffers are touched
//    (and bf16/f16 operands into an f32 accumulator, widened as they are
//    packed, so they run the f32 kernel),
//    and each computes exactly what it did, summing over k in order: every
//    tile, edges included, becomes the vector kernel over packed operands
//    (edge panels are zero-padded, edge tiles go through a scratch tile); a
//    tile that fails to vectorize is an error, not a silent fallback;
//  - hoisting the accumulator is sound because the output buffer of a
//    matmul never aliases its inputs: the CPU entry's outputs are `restrict`,
//    and one-shot bufferization writes a matmul in place only into its init
//    operand's buffer (the zero-filled accumulator), never into an input's.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"
#include "compiler/targets/GemmEpilogue.h"
#include "compiler/targets/GemmPacking.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace shardc {
#define GEN_PASS_DEF_CPUTILEANDVECTORIZEMATMUL
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Block and register tile sizes for one element type.
struct GemmTiles {
  int64_t mc, nc, kc; // cache blocks
  int64_t mr, nr;     // register tile
  int64_t lanes;      // elements per vector register (nr is a multiple)
};

bool isVectorizableElement(Type type) { return type.isF32() || type.isF64(); }

/// An operand element the recipe reads into an accumulator of `acc`: the
/// same type, or a 16-bit float widened to f32 by the packing copies.
bool isPackableInto(Type operand, Type acc) {
  return operand == acc || (acc.isF32() && isa<BFloat16Type, Float16Type>(operand));
}

Type accumulatorElement(linalg::LinalgOp op) {
  return cast<MemRefType>(op.getDpsInits()[0].getType()).getElementType();
}

bool onBuffers(linalg::LinalgOp op) { return op.hasPureBufferSemantics(); }

/// A rank-reduced [d1, d2] view of slice `index` of the rank-3 `buffer`.
Value batchSlice(OpBuilder &b, Location loc, Value buffer, Value index) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<OpFoldResult> offsets = {index, b.getIndexAttr(0), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(type.getDimSize(1)),
                                     b.getIndexAttr(type.getDimSize(2))};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  auto sliceType = memref::SubViewOp::inferRankReducedResultType(
      {type.getDimSize(1), type.getDimSize(2)}, type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, sliceType, buffer, offsets, sizes, strides);
}

/// linalg.batch_matmul on static buffers -> scf.parallel over the batch of
/// linalg.matmul on rank-reduced views (with the same transposed operands),
/// so one recipe serves both.
void unrollBatch(RewriterBase &rewriter, linalg::BatchMatmulOp op, shardc::gemm::Layout layout) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1], c = op.getDpsInits()[0];
  int64_t batch = cast<MemRefType>(c.getType()).getDimSize(0);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value count = arith::ConstantIndexOp::create(rewriter, loc, batch);
  // Batch elements are independent GEMMs (each allocates its own panels):
  // a parallel loop.
  auto loop = scf::ParallelOp::create(rewriter, loc, ValueRange{zero}, ValueRange{count},
                                      ValueRange{one});
  auto aType = cast<MemRefType>(a.getType());
  int64_t products = batch * cast<MemRefType>(c.getType()).getDimSize(1) *
                     cast<MemRefType>(c.getType()).getDimSize(2) *
                     aType.getDimSize(layout.aTransposed ? 1 : 2);
  loop->setAttr(shardc::gemm::kLoopAttr, rewriter.getI64IntegerAttr(products));
  rewriter.setInsertionPointToStart(loop.getBody());
  Value i = loop.getInductionVars()[0];
  Value sliceA = batchSlice(rewriter, loc, a, i), sliceB = batchSlice(rewriter, loc, b, i);
  shardc::gemm::createMatmul(rewriter, loc, sliceA, sliceB, batchSlice(rewriter, loc, c, i),
                             layout);
  rewriter.eraseOp(op);
}

/// The layout of `op` when the recipe applies: a 2-D matmul on static
/// buffers of f32/f64 (operands may be bf16/f16 into f32) whose operands
/// have unit inner stride (A any strides with `anyStrideA`), with the
/// default maps or a transposed A and/or B (packing reads those as they lie).
std::optional<shardc::gemm::Layout> recipeLayout(linalg::MatmulOp op, bool anyStrideA = false) {
  if (!onBuffers(op))
    return std::nullopt;
  std::optional<shardc::gemm::Layout> layout = shardc::gemm::layoutOf(op);
  if (!layout)
    return std::nullopt;
  Type acc = accumulatorElement(op);
  if (!isVectorizableElement(acc))
    return std::nullopt;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || type.getRank() != 2 || !type.hasStaticShape() ||
        !isPackableInto(type.getElementType(), acc))
      return std::nullopt;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        (strides.back() != 1 && !(anyStrideA && operand == op.getDpsInputs()[0])))
      return std::nullopt;
  }
  return layout;
}

/// `loop` (no iter_args) as an scf.parallel with the same bounds and body.
void toParallel(RewriterBase &rewriter, scf::ForOp loop) {
  rewriter.setInsertionPoint(loop);
  auto parallel = scf::ParallelOp::create(
      rewriter, loop.getLoc(), ValueRange{loop.getLowerBound()}, ValueRange{loop.getUpperBound()},
      ValueRange{loop.getStep()});
  parallel->setAttr(shardc::gemm::kLoopAttr, rewriter.getUnitAttr());
  Block *from = loop.getBody(), *to = parallel.getBody();
  rewriter.replaceAllUsesWith(loop.getInductionVar(), parallel.getInductionVars()[0]);
  for (Operation &op : llvm::make_early_inc_range(from->without_terminator()))
    op.moveBefore(to->getTerminator());
  rewriter.eraseOp(loop);
}

/// Tiles `op` by `sizes` (one per loop: M, N, K) in loop order
/// `interchange`; erases `op` (on buffers there is nothing to replace).
FailureOr<scf::SCFTilingResult> tile(RewriterBase &rewriter, linalg::MatmulOp op,
                                     ArrayRef<int64_t> sizes, ArrayRef<int64_t> interchange) {
  scf::SCFTilingOptions options;
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  options.setInterchange(interchange);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (succeeded(tiled))
    rewriter.eraseOp(op);
  return tiled;
}

/// Whether `fill` is a linalg.fill of +0.0 into exactly `c`.
bool isZeroFillOf(linalg::FillOp fill, Value c) {
  Attribute value;
  if (fill.getDpsInits()[0] != c || !matchPattern(fill.getDpsInputs()[0], m_Constant(&value)))
    return false;
  auto f = dyn_cast<FloatAttr>(value);
  return f && f.getValue().isPosZero();
}

/// A zero fill of a C that `op` owns outright: C is a memref.alloc of this
/// function used directly (no view of it can alias it) and nothing uses it
/// between the fill and `op` in their block, so nothing else can read or
/// write it there. Bufferization and CSE often leave such a fill far above
/// its matmul (with other kernels in between).
linalg::FillOp distantZeroFillOf(linalg::MatmulOp op) {
  Value c = op.getDpsInits()[0];
  if (!c.getDefiningOp<memref::AllocOp>())
    return {};
  Block *block = op->getBlock();
  linalg::FillOp found;
  for (Operation *user : c.getUsers()) {
    if (isa<ViewLikeOpInterface>(user))
      return {};
    auto fill = dyn_cast<linalg::FillOp>(user);
    if (fill && fill->getBlock() == block && fill->isBeforeInBlock(op) && isZeroFillOf(fill, c) &&
        (!found || found->isBeforeInBlock(fill)))
      found = fill;
  }
  if (!found)
    return {};
  for (Operation *user : c.getUsers()) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (user != found && user != op.getOperation() &&
        (!inBlock || (found->isBeforeInBlock(inBlock) && inBlock->isBeforeInBlock(op))))
      return {};
  }
  return found;
}

/// The `linalg.fill` of zero that starts `op`'s C: right before it with
/// nothing between that touches memory, or further up (distantZeroFillOf).
/// The recipe then zeroes each tile of C where it first uses it instead
/// (GemmPacking.h, firstK). Null when there is none, or when K is not a
/// static positive size (no K block would zero C).
linalg::FillOp zeroFillOf(linalg::MatmulOp op, shardc::gemm::Layout layout) {
  Value c = op.getDpsInits()[0];
  auto aType = cast<MemRefType>(op.getDpsInputs()[0].getType());
  int64_t k = aType.getDimSize(layout.aTransposed ? 0 : 1);
  if (ShapedType::isDynamic(k) || k <= 0)
    return {};
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev))
      if (fill.getDpsInits()[0] == c)
        return isZeroFillOf(fill, c) ? fill : linalg::FillOp();
    if (!isMemoryEffectFree(prev))
      break;
  }
  return distantZeroFillOf(op);
}

/// The M block size for `m` rows: at most `t.mc`, a multiple of MR, and,
/// when M spans several blocks, such that their count is a multiple of
/// `multiple` (CpuPasses.td, m-block-multiple): the kernel threads take the
/// M blocks in equal contiguous shares (shardrt_parallel_for).
int64_t balancedBlockRows(int64_t m, const GemmTiles &t, int64_t multiple) {
  if (ShapedType::isDynamic(m) || m <= t.mc || multiple <= 1)
    return t.mc;
  int64_t blocks = llvm::alignTo(llvm::divideCeil(m, t.mc), multiple);
  return std::min(t.mc, static_cast<int64_t>(llvm::alignTo(llvm::divideCeil(m, blocks), t.mr)));
}

/// Whether one (N, K) block of B, packed, is at most kSmallPackedB bytes,
/// so that it stays in L2 (every CPU the recipe targets has 512 KiB or
/// more) while a block's tiles are computed rows outermost (GemmPacking.h).
constexpr int64_t kSmallPackedB = 256 << 10;
bool packedBFitsL2(linalg::MatmulOp op, const GemmTiles &t, shardc::gemm::Layout layout) {
  auto b = cast<MemRefType>(op.getDpsInputs()[1].getType());
  int64_t k = b.getDimSize(layout.bTransposed ? 1 : 0);
  int64_t n = b.getDimSize(layout.bTransposed ? 0 : 1);
  if (ShapedType::isDynamic(k) || ShapedType::isDynamic(n))
    return false;
  int64_t bytes = std::min(k, t.kc) * llvm::alignTo(std::min(n, t.nc), t.nr) *
                  accumulatorElement(op).getIntOrFloatBitWidth() / 8;
  return bytes <= kSmallPackedB;
}

/// The K block size when M fits one block: each value of B's packed block
/// then serves only M products, so the block is written and read back once
/// per K block; at most kOneBlockPackedB bytes keep it in cache (L2 or
/// L3) however wide B is. A weight gradient of a narrow layer, [32, 1024]
/// = gᵀh with K = 4096, measured 0.84-0.87x of OpenBLAS as AVX2 code at K
/// blocks of 128, 0.88-0.96x at 256 (1 MiB) and 0.89-0.93x at 512
/// (bench/kernels, logits dW, Zen 4).
constexpr int64_t kOneBlockPackedB = 1 << 20;
int64_t oneBlockDepth(linalg::MatmulOp op, const GemmTiles &t) {
  int64_t n = cast<MemRefType>(op.getDpsInits()[0].getType()).getDimSize(1);
  if (ShapedType::isDynamic(n))
    return t.kc;
  int64_t rowBytes = llvm::alignTo(std::min(n, t.nc), t.nr) *
                     accumulatorElement(op).getIntOrFloatBitWidth() / 8;
  return std::clamp(kOneBlockPackedB / rowBytes, std::min<int64_t>(64, t.kc), t.kc);
}

/// Whether the recipe reads A's full micro-panels where A lies instead of
/// packing them (GemmPacking.h, directA). A transposed A of one M block
/// (a weight gradient xᵀ·g) lies as a panel does, its rows M apart instead
/// of MR, so nothing packs an Aᵀ that both threads then read (with B
/// packed per thread, a 64x128x4096 weight gradient went from 0.58-0.73x
/// of OpenBLAS to 1.13-1.23x on two threads: bench/README.md, the rnn
/// forms). Otherwise: A row-major in the accumulator's
/// type, B's columns one to four whole panels (each value of A then serves
/// at most four tiles, so its copy would be read, written and read again
/// for a few uses), M spanning several blocks (with one, the columns
/// are the parallel loop and need packed panels), and A's MR rows of a
/// tile in different L1 sets. That last test keeps A's rows from evicting
/// each other: the register tile reads one cache line of each of its MR
/// rows at a time, and rows 4 KiB apart (a 1024-wide f32 A) all fall in
/// one set of the 64 that a 32 or 48 KiB L1 of 64-byte lines has (every
/// x86 core the recipe targets), where 8 or 12 ways hold them.
constexpr int64_t kMaxInPlacePanels = 4;
constexpr int64_t kL1Sets = 64, kLineBytes = 64, kMaxRowsPerSet = 2;
bool readsAInPlace(linalg::MatmulOp op, const GemmTiles &t, shardc::gemm::Layout layout,
                   bool oneMBlock) {
  auto a = cast<MemRefType>(op.getDpsInputs()[0].getType());
  int64_t n = cast<MemRefType>(op.getDpsInits()[0].getType()).getDimSize(1);
  if (a.getElementType() != accumulatorElement(op) || ShapedType::isDynamic(n) || n % t.nr != 0)
    return false;
  if (layout.aTransposed)
    return oneMBlock;
  if (oneMBlock || n / t.nr > kMaxInPlacePanels || n > t.nc)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(a.getStridesAndOffset(strides, offset)) || ShapedType::isDynamic(strides[0]))
    return false;
  int64_t rowBytes = strides[0] * a.getElementTypeBitWidth() / 8;
  SmallVector<int64_t> rowsInSet(kL1Sets, 0);
  for (int64_t r = 0; r < t.mr; ++r)
    if (++rowsInSet[(r * rowBytes / kLineBytes) % kL1Sets] > kMaxRowsPerSet)
      return false;
  return true;
}

/// The share of a tile grid's products that count: `size` over `size`
/// rounded up to whole tiles of `tile`.
double useful(int64_t size, int64_t tile) {
  return static_cast<double>(size) / static_cast<double>(llvm::alignTo(size, tile));
}

/// The register tile for `op`: `t`'s, or one narrower by a power of two
/// with more rows and at most as many accumulator registers (8x2 vectors
/// -> 16x1 with AVX-512, 6x2 -> 12x1 with AVX2), when that computes at
/// least 5 % fewer padded products at the edges. A convolution's GEMM
/// with 16 output channels filled half of a 32-column AVX-512 tile. Rows
/// stop at 16: each is one broadcast load per K step. The default wins
/// near-ties: it loads fewer vectors of B per FMA.
GemmTiles fitRegisterTile(linalg::MatmulOp op, GemmTiles t) {
  auto c = cast<MemRefType>(op.getDpsInits()[0].getType());
  int64_t m = c.getDimSize(0), n = c.getDimSize(1);
  if (ShapedType::isDynamic(m) || ShapedType::isDynamic(n) || m <= 0 || n <= 0)
    return t;
  int64_t vectors = t.nr / t.lanes, registers = t.mr * vectors;
  auto share = [&](const GemmTiles &g) { return useful(m, g.mr) * useful(n, g.nr); };
  GemmTiles best = t;
  for (int64_t v = vectors / 2; v >= 1 && registers / v <= 16; v /= 2) {
    GemmTiles narrow = t;
    narrow.mr = registers / v;
    narrow.nr = v * t.lanes;
    // The M block stays a multiple of the tile's rows.
    narrow.mc = std::max(narrow.mr, t.mc / narrow.mr * narrow.mr);
    if (share(narrow) > 1.05 * share(best))
      best = narrow;
  }
  return best;
}

/// Steps 1-4 of the recipe for one matmul. `singleKBlock` is set when K
/// fits one K block; otherwise the K block loop is marked
/// (GemmEpilogue.h, kKBlockLoopAttr) when there is one.
LogicalResult tileMatmul(RewriterBase &rewriter, linalg::MatmulOp op, GemmTiles t,
                         shardc::gemm::Layout layout, int64_t mBlockMultiple,
                         bool readAInPlace, bool &singleKBlock) {
  // With one M block there is nothing for threads to share there: they
  // share the block's columns of tiles instead (a weight gradient of a
  // narrow layer, [32, 1024] = g^T h).
  int64_t m = cast<MemRefType>(op.getDpsInits()[0].getType()).getDimSize(0);
  bool oneMBlock = !ShapedType::isDynamic(m) && m <= t.mc;
  if (oneMBlock)
    t.kc = oneBlockDepth(op, t);
  // B's panels need not be wider than B.
  int64_t n = cast<MemRefType>(op.getDpsInits()[0].getType()).getDimSize(1);
  if (!ShapedType::isDynamic(n))
    t.nc = std::min(t.nc, static_cast<int64_t>(llvm::alignTo(n, t.nr)));
  t.mc = balancedBlockRows(m, t, mBlockMultiple);
  int64_t k = cast<MemRefType>(op.getDpsInputs()[0].getType()).getDimSize(layout.aTransposed ? 0 : 1);
  singleKBlock = !ShapedType::isDynamic(k) && k <= t.kc;
  bool inPlaceA = readAInPlace && readsAInPlace(op, t, layout, oneMBlock);
  // Tiling replaces `op`: everything read off it comes first.
  bool rowsOuter = packedBFitsL2(op, t, layout);
  linalg::FillOp zeroFill = zeroFillOf(op, layout);
  Value bPanels = shardc::gemm::allocatePanels(rewriter, op, t.nc, t.kc, t.nr);
  // Cache blocks, loops N, K, M.
  FailureOr<scf::SCFTilingResult> blocks = tile(rewriter, op, {t.mc, t.nc, t.kc}, {1, 2, 0});
  if (failed(blocks))
    return failure();
  auto block = cast<linalg::MatmulOp>(blocks->tiledOps.back());
  // The block's operand views are computed in the innermost loop; move the
  // ones that do not depend on M out of it, so B is packed once per (N, K).
  for (LoopLikeOpInterface loop : llvm::reverse(blocks->loops))
    moveLoopInvariantCode(loop);
  Operation *mLoop = blocks->loops.size() == 3 ? blocks->loops[2].getOperation() : nullptr;
  if (blocks->loops.size() == 3)
    blocks->loops[1]->setAttr(shardc::gemm::kKBlockLoopAttr, rewriter.getUnitAttr());
  // A C that starts at zero is zeroed tile by tile in the first K block
  // (the K block loop is the second: loops N, K, M), not by a pass of its
  // own over all of C: with a small K that pass and the first read of C
  // back were a large share of the GEMM.
  Value firstK;
  if (zeroFill && blocks->loops.size() == 3) {
    auto kLoop = cast<scf::ForOp>(blocks->loops[1].getOperation());
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(kLoop.getBody());
    firstK = arith::CmpIOp::create(rewriter, kLoop.getLoc(), arith::CmpIPredicate::eq,
                                   kLoop.getInductionVar(), kLoop.getLowerBound());
    rewriter.eraseOp(zeroFill);
  }
  FailureOr<SmallVector<linalg::MatmulOp>> micros = shardc::gemm::packBlock(
      rewriter, block, mLoop, layout, bPanels, t.mc, t.kc, t.mr, t.nr, oneMBlock, rowsOuter,
      firstK, inPlaceA);
  if (failed(micros))
    return failure();
  // The M blocks write disjoint rows of C with their own A panels: a
  // parallel loop (threads run whole blocks; see cpu-outline-parallel-loops).
  if (auto loop = dyn_cast_or_null<scf::ForOp>(mLoop); loop && !oneMBlock)
    toParallel(rewriter, loop);
  // Register tiles: each micro matmul is exactly MR x NR; only K is tiled,
  // and that loop carries the accumulator.
  for (linalg::MatmulOp micro : *micros)
    if (failed(tile(rewriter, micro, {0, 0, 1}, {0, 1, 2})))
      return failure();
  // The recipe's parallel loops carry the GEMM's products, which decide
  // whether they go to the kernel threads (GemmPacking.h, kLoopAttr).
  if (!ShapedType::isDynamic(m) && !ShapedType::isDynamic(n) && !ShapedType::isDynamic(k))
    blocks->loops.front()->walk([&](scf::ParallelOp loop) {
      if (loop->hasAttr(shardc::gemm::kLoopAttr))
        loop->setAttr(shardc::gemm::kLoopAttr, rewriter.getI64IntegerAttr(m * n * k));
    });
  return success();
}

/// Folds the constant sizes peeling exposed into subview types, so full
/// tiles have static shapes.
LogicalResult canonicalize(Operation *root) {
  MLIRContext *ctx = root->getContext();
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  return applyPatternsGreedily(root, std::move(patterns));
}

/// The accumulator of a vectorized register tile inside its K loop: a
/// transfer_read of C at loop-invariant indices that is the accumulator of a
/// vector.contract whose result is written back to the same place, and no
/// other access to C's buffer in the loop.
struct Accumulator {
  vector::TransferReadOp read;
  vector::TransferWriteOp write;
};

std::optional<Accumulator> findAccumulator(scf::ForOp loop) {
  for (auto read : loop.getBody()->getOps<vector::TransferReadOp>()) {
    if (!read->hasOneUse() || !isa<MemRefType>(read.getBase().getType()) ||
        llvm::any_of(read->getOperands(),
                     [&](Value v) { return !loop.isDefinedOutsideOfLoop(v); }))
      continue;
    auto contract = dyn_cast<vector::ContractionOp>(*read->getUsers().begin());
    if (!contract || contract.getAcc() != read.getResult() || !contract->hasOneUse())
      continue;
    auto write = dyn_cast<vector::TransferWriteOp>(*contract->getUsers().begin());
    if (!write || write->getParentOp() != loop.getOperation() ||
        write.getBase() != read.getBase() || write.getIndices() != read.getIndices() ||
        write.getVectorType() != read.getVectorType() ||
        write.getPermutationMap() != read.getPermutationMap() || write.getMask() || read.getMask())
      continue;
    bool otherAccess = llvm::any_of(read.getBase().getUsers(), [&](Operation *user) {
      return user != read && user != write && loop->isAncestor(user);
    });
    if (!otherAccess)
      return Accumulator{read, write};
  }
  return std::nullopt;
}

/// Keeps each register tile's accumulator in registers across its K loop:
/// the read moves before the loop, the write after it, and the value is
/// carried as an iter_arg. Upstream hoistRedundantVectorTransfers does the
/// same but gives up whenever C's buffer has any subview user anywhere (the
/// remainder tiles always create some); here the pattern is pinned to the
/// contraction this pass created, and C cannot alias A or B (file header).
void hoistAccumulators(RewriterBase &rewriter, Operation *root,
                       SmallVectorImpl<scf::ForOp> &kLoops) {
  // One walk, inner loops before the loops around them, each loop retried
  // until it has no accumulator left. Hoisting out of a loop moves ops into
  // its parent only, so the loops already visited stay as they were and
  // the parent, visited later, sees the moved ops. (Walking again from the
  // root after each hoist was quadratic: a scan unrolled into a thousand
  // small GEMMs spent most of this pass re-walking.)
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops) {
    while (std::optional<Accumulator> acc = findAccumulator(loop)) {
      loop.moveOutOfLoop(acc->read);
      rewriter.moveOpAfter(acc->write, loop);
      NewYieldValuesFn yieldFn = [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return SmallVector<Value>{acc->write.getVector()};
      };
      // The new loop takes the old one's body: the loops inside it, and
      // those still to visit, stay valid.
      FailureOr<LoopLikeOpInterface> newLoop =
          cast<LoopLikeOpInterface>(loop.getOperation())
              .replaceWithAdditionalYields(rewriter, acc->read.getResult(),
                                           /*replaceInitOperandUsesInLoop=*/true, yieldFn);
      if (failed(newLoop))
        return;
      rewriter.modifyOpInPlace(acc->write, [&] {
        acc->write.getValueToStoreMutable().assign(newLoop->getOperation()->getResults().back());
      });
      loop = cast<scf::ForOp>(newLoop->getOperation());
      // Only tiles of C itself (edge tiles go through a scratch tile). C is
      // often a memref.alloc too: every intermediate result is one.
      if (!shardc::gemm::isScratchTile(acc->read.getBase()))
        kLoops.push_back(loop);
    }
  }
}

/// Whether `fill` writes zeros to exactly the tile `read` reads.
bool zeroesTileOf(linalg::FillOp fill, vector::TransferReadOp read) {
  if (!matchPattern(fill.value(), m_AnyZeroFloat()))
    return false;
  auto tile = fill.output().getDefiningOp<memref::SubViewOp>();
  if (!tile || tile.getSource() != read.getBase() || !tile.hasUnitStride() ||
      tile.getStaticSizes() != read.getVectorType().getShape() ||
      !read.getPermutationMap().isMinorIdentity())
    return false;
  SmallVector<OpFoldResult> offsets = tile.getMixedOffsets();
  if (offsets.size() != read.getIndices().size())
    return false;
  for (auto [offset, index] : llvm::zip(offsets, read.getIndices()))
    if (!isEqualConstantIntOrValue(offset, index))
      return false;
  return true;
}

/// How a full tile's C is zeroed before its K loop in the first K block
/// (GemmPacking.h, firstK): `scf.if %first { linalg.fill 0 -> tile }`, or
/// the bare fill once a single K block has folded %first to true.
struct TileZeroing {
  Operation *op;   // the scf.if or the fill
  Value condition; // null for the bare fill
};

/// The zeroing of the tile the hoisted accumulator `read` reads, when only
/// pure ops lie between the two.
std::optional<TileZeroing> zeroingBefore(vector::TransferReadOp read) {
  for (Operation *op = read->getPrevNode(); op; op = op->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(op))
      return zeroesTileOf(fill, read) ? std::optional(TileZeroing{op, Value()}) : std::nullopt;
    if (auto guard = dyn_cast<scf::IfOp>(op)) {
      Block *then = guard.thenBlock();
      auto fill = dyn_cast<linalg::FillOp>(then->front());
      if (guard.getNumResults() != 0 || guard.elseBlock() ||
          then->getOperations().size() != 2 || !fill || !zeroesTileOf(fill, read))
        return std::nullopt;
      return TileZeroing{op, guard.getCondition()};
    }
    if (!isMemoryEffectFree(op))
      return std::nullopt;
  }
  return std::nullopt;
}

/// In the first K block of a C that starts at zero, a full tile's
/// accumulator starts as a zero vector instead of being zeroed in memory
/// and read back (`scf.if %first -> zeros else -> read`, or just the zeros
/// with one K block). The zeroing stores were narrower than the loads that
/// followed, so each load waited for the stores to reach the cache; with
/// K = 32 that made the zeroing a sixth of the GEMM's time.
void startAccumulatorAtZero(RewriterBase &rewriter, scf::ForOp kLoop) {
  auto read = kLoop.getInitArgs().back().getDefiningOp<vector::TransferReadOp>();
  if (!read || !read->hasOneUse())
    return;
  std::optional<TileZeroing> zeroing = zeroingBefore(read);
  if (!zeroing)
    return;
  Location loc = read.getLoc();
  VectorType type = read.getVectorType();
  rewriter.setInsertionPoint(read);
  Value zeros = arith::ConstantOp::create(rewriter, loc, type, rewriter.getZeroAttr(type));
  if (!zeroing->condition) {
    rewriter.replaceOp(read, zeros);
    rewriter.eraseOp(zeroing->op);
    return;
  }
  auto start = scf::IfOp::create(rewriter, loc, TypeRange{type}, zeroing->condition,
                                 /*withElseRegion=*/true);
  rewriter.setInsertionPointToStart(start.thenBlock());
  scf::YieldOp::create(rewriter, loc, zeros);
  rewriter.setInsertionPointToStart(start.elseBlock());
  auto yield = scf::YieldOp::create(rewriter, loc, read.getResult());
  rewriter.replaceAllUsesExcept(read.getResult(), start.getResult(0), yield);
  rewriter.moveOpBefore(read, yield);
  rewriter.eraseOp(zeroing->op);
}

/// A register tile of the micro matmuls packBlock makes: A transposed
/// [1, MR], B [1, NR], C [MR, NR], static buffers; B and C unit-stride, A
/// a panel or A's rows in place (any strides: its MR values are loaded one
/// by one).
bool isFullTile(linalg::MatmulOp op, const GemmTiles &t) {
  std::optional<shardc::gemm::Layout> layout = recipeLayout(op, /*anyStrideA=*/true);
  if (!layout || !layout->aTransposed || layout->bTransposed)
    return false;
  auto shape = [&](unsigned i) { return cast<MemRefType>(op->getOperand(i).getType()).getShape(); };
  return shape(0) == ArrayRef<int64_t>{1, t.mr} && shape(1) == ArrayRef<int64_t>{1, t.nr} &&
         shape(2) == ArrayRef<int64_t>{t.mr, t.nr};
}

/// Computes the elementwise consumer of C in its full tiles' registers and
/// on its edges (GemmEpilogue.h). All or nothing: when a full tile's store
/// cannot take it, C is stored as it was and the consumer stays whole.
void fuseEpilogue(RewriterBase &rewriter, Value c, const GemmTiles &t, bool singleKBlock,
                  ArrayRef<scf::ForOp> kLoops) {
  linalg::GenericOp epilogue = shardc::gemm::epilogueReading(c);
  if (!epilogue)
    return;
  SmallVector<vector::TransferWriteOp> stores;
  for (scf::ForOp loop : kLoops)
    for (Operation *user : loop->getUsers())
      if (auto store = dyn_cast<vector::TransferWriteOp>(user); store && store.getBase() == c)
        stores.push_back(store);
  if (stores.empty() || !llvm::all_of(stores, [&](vector::TransferWriteOp store) {
        return shardc::gemm::canFuseIntoTile(store, singleKBlock);
      }))
    return;
  // Every vector store to C must be one of these: a full tile stored some
  // other way would miss the epilogue, which then only covers the edges.
  if (llvm::any_of(c.getUsers(), [&](Operation *user) {
        auto store = dyn_cast<vector::TransferWriteOp>(user);
        return store && !llvm::is_contained(stores, store);
      }))
    return;
  for (vector::TransferWriteOp store : stores)
    shardc::gemm::fuseIntoTile(rewriter, store, epilogue, c);
  shardc::gemm::restrictToEdges(rewriter, epilogue, c, t.mr, t.nr);
}

struct CpuTileAndVectorizeMatmul
    : shardc::impl::CpuTileAndVectorizeMatmulBase<CpuTileAndVectorizeMatmul> {
  using Base::Base;

  FailureOr<GemmTiles> tilesFor(Type elem) {
    SmallVector<int64_t> cache(cacheTiles.begin(), cacheTiles.end());
    if (cache.empty())
      cache = {144, 4096, 256};
    int64_t bits = elem.getIntOrFloatBitWidth();
    if (cache.size() != 3 || llvm::any_of(cache, [](int64_t s) { return s <= 0; }) ||
        tileRows <= 0 || tileVectors <= 0 || unrollK <= 0 || vectorBits < bits || vectorBits % bits != 0)
      return failure();
    return GemmTiles{cache[0], cache[1], cache[2], tileRows, tileVectors * (vectorBits / bits),
                     vectorBits / bits};
  }

  void runOnOperation() override {
    Operation *root = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);

    SmallVector<std::pair<linalg::BatchMatmulOp, shardc::gemm::Layout>> batched;
    root->walk([&](linalg::BatchMatmulOp op) {
      auto type = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
      std::optional<shardc::gemm::Layout> layout = shardc::gemm::layoutOf(op);
      if (onBuffers(op) && layout && type && type.hasStaticShape() &&
          isVectorizableElement(type.getElementType()))
        batched.push_back({op, *layout});
    });
    for (auto [op, layout] : batched)
      unrollBatch(rewriter, op, layout);

    SmallVector<std::pair<linalg::MatmulOp, shardc::gemm::Layout>> matmuls;
    root->walk([&](linalg::MatmulOp op) {
      if (std::optional<shardc::gemm::Layout> layout = recipeLayout(op))
        matmuls.push_back({op, *layout});
    });
    if (matmuls.empty())
      return;
    SmallVector<GemmTiles> used; // one per element type seen
    // GEMMs whose elementwise consumer the tiles compute (GemmEpilogue.h).
    struct Fused {
      Value c;
      GemmTiles tiles;
      bool singleKBlock;
    };
    SmallVector<Fused> fused;
    for (auto [op, layout] : matmuls) {
      Type elem = accumulatorElement(op);
      FailureOr<GemmTiles> t = tilesFor(elem);
      if (failed(t)) {
        op.emitError() << "cpu-tile-and-vectorize-matmul: invalid tile options (vector-bits="
                       << static_cast<int64_t>(vectorBits)
                       << ", tile-rows=" << static_cast<int64_t>(tileRows)
                       << ", tile-vectors=" << static_cast<int64_t>(tileVectors)
                       << ", unroll-k=" << static_cast<int64_t>(unrollK)
                       << "): expected positive sizes, vector-bits a multiple of the element "
                          "width, and cache-tiles of 3 positive sizes";
        return signalPassFailure();
      }
      if (fitTile)
        *t = fitRegisterTile(op, *t);
      Value c = op.getDpsInits()[0];
      linalg::GenericOp epilogue = fuseEpilogues ? shardc::gemm::findEpilogue(op) : nullptr;
      if (epilogue)
        shardc::gemm::hoistEpilogueAllocs(rewriter, op, epilogue);
      bool singleKBlock = false;
      Location loc = op.getLoc(); // tiling erases `op`
      if (failed(tileMatmul(rewriter, op, *t, layout, mBlockMultiple, readAInPlace, singleKBlock))) {
        emitError(loc) << "cpu-tile-and-vectorize-matmul: tiling failed";
        return signalPassFailure();
      }
      used.push_back(*t);
      if (epilogue)
        fused.push_back({c, *t, singleKBlock});
    }
    // Not converging within the iteration limit is not an error here (the
    // canonicalizer pass ignores it too); the IR stays valid.
    (void)canonicalize(root);

    // Step 5. The full tiles are the matmuls whose shapes are now exactly a
    // register tile's (canonicalization may have rebuilt the ops, so they
    // are found by shape, not kept as handles). Vectorizing any such matmul
    // is correct whatever its origin.
    SmallVector<linalg::MatmulOp> full;
    root->walk([&](linalg::MatmulOp op) {
      if (llvm::any_of(used, [&](const GemmTiles &t) { return isFullTile(op, t); }))
        full.push_back(op);
    });
    for (linalg::MatmulOp op : full) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::VectorizationResult> v =
          linalg::vectorize(rewriter, op, /*inputVectorSizes=*/{}, /*inputScalableVecDims=*/{},
                            /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
                            /*assumeDynamicDimsMatchVecSizes=*/false,
                            /*createNamedContraction=*/true);
      if (failed(v)) {
        op.emitError() << "cpu-tile-and-vectorize-matmul: a full register tile did not vectorize";
        return signalPassFailure();
      }
      rewriter.replaceOp(op, v->replacements);
    }

    // Transfers on the base buffers (not subviews) with CSE'd indices are
    // what the hoisting below recognises as one read/write pair (and base
    // buffers keep LLVM's address arithmetic simple).
    {
      RewritePatternSet patterns(ctx);
      memref::populateFoldMemRefAliasOpPatterns(patterns);
      (void)applyPatternsGreedily(root, std::move(patterns));
    }
    DominanceInfo dominance(root);
    eliminateCommonSubExpressions(rewriter, dominance, root);
    // The accumulator's indices must be computed outside the K loop.
    root->walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
    SmallVector<scf::ForOp> kLoops;
    hoistAccumulators(rewriter, root, kLoops);
    for (scf::ForOp loop : kLoops)
      startAccumulatorAtZero(rewriter, loop);
    for (const Fused &f : fused)
      fuseEpilogue(rewriter, f.c, f.tiles, f.singleKBlock, kLoops);
    // Unrolling is an optimization only: a loop it cannot unroll stays a
    // correct loop of single K steps.
    if (unrollK > 1)
      for (scf::ForOp loop : kLoops)
        (void)loopUnrollByFactor(loop, unrollK);

    // Step 6.
    RewritePatternSet lowering(ctx);
    vector::populateVectorContractLoweringPatterns(lowering,
                                                   vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(lowering);
    vector::populateVectorTransferPermutationMapLoweringPatterns(lowering);
    vector::populateVectorTransferLoweringPatterns(lowering, /*maxTransferRank=*/1);
    vector::populateVectorTransposeLoweringPatterns(lowering,
                                                    vector::VectorTransposeLowering::EltWise);
    vector::populateVectorBroadcastLoweringPatterns(lowering);
    // Each element of A's MR-vector becomes a scalar load that LLVM folds
    // into a broadcast from memory, instead of a vector load plus one
    // shuffle per element (those compete with the FMAs for ports).
    vector::populateScalarVectorTransferLoweringPatterns(lowering, /*benefit=*/1,
                                                         /*allowMultipleUses=*/true);
    (void)applyPatternsGreedily(root, std::move(lowering));
  }
};

} // namespace
