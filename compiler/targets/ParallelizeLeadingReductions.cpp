//===- ParallelizeLeadingReductions.cpp - cpu-parallelize-leading-reductions ===//
//
// See CpuPasses.td. A linalg op whose outermost loop is a reduction (a
// column sum: out[j] += in[i, j], i outermost so that rows are read in
// order) becomes loops "for i { parallel j }": convert-linalg-to-parallel-
// loops keeps the op's loop order, and the parallel loop inside a
// sequential one is too small to hand to the kernel threads each time.
// Tiling the largest parallel loop into a few chunks, outermost, gives
// "parallel chunk { for i { for j in chunk } }": the chunks run on the
// kernel threads, each reads its columns of every row in order, and each
// output element is still summed over i in the same order, so the result
// does not depend on the number of threads.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace shardc {
#define GEN_PASS_DEF_CPUPARALLELIZELEADINGREDUCTIONS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Chunks of a tiled parallel loop: a multiple of 1, 2, 4 and 8 kernel
/// threads, each at least kMinChunk iterations (a vector's worth of f32
/// with AVX-512 times a few, so the inner loop still vectorizes).
constexpr int64_t kChunks = 8, kMinChunk = 32;

/// The parallel loop to split for `op`, and its chunk size; nullopt when
/// the outermost loop is not a reduction, the op is not on static buffers,
/// or no parallel loop is long enough.
std::optional<std::pair<unsigned, int64_t>> splitLoop(linalg::LinalgOp op, int64_t minWork) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() < 2 ||
      op.getIteratorTypesArray().front() != utils::IteratorType::reduction)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  int64_t work = 1;
  for (int64_t r : ranges)
    work *= r;
  if (work < minWork)
    return std::nullopt;
  // A chunk of the split loop must write only its own part of every
  // output: the loop must index each of them.
  auto indexesOutputs = [&](unsigned loop) {
    return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
      return op.getMatchingIndexingMap(&init).isFunctionOfDim(loop);
    });
  };
  std::optional<unsigned> best;
  for (auto [i, type] : llvm::enumerate(op.getIteratorTypesArray()))
    if (type == utils::IteratorType::parallel && indexesOutputs(i) &&
        (!best || ranges[i] > ranges[*best]))
      best = i;
  if (!best || ranges[*best] < 2 * kMinChunk)
    return std::nullopt;
  int64_t chunk = std::max<int64_t>(kMinChunk, llvm::divideCeil(ranges[*best], kChunks));
  return std::make_pair(*best, chunk);
}

struct CpuParallelizeLeadingReductions
    : shardc::impl::CpuParallelizeLeadingReductionsBase<CpuParallelizeLeadingReductions> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, std::pair<unsigned, int64_t>>> found;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp>(op.getOperation()) ||
          op->getParentOfType<scf::ParallelOp>() || op->getParentOfType<scf::ForallOp>())
        return;
      if (std::optional<std::pair<unsigned, int64_t>> split = splitLoop(op, minWork))
        found.push_back({op, *split});
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, split] : found) {
      auto [loop, chunk] = split;
      SmallVector<int64_t> sizes(op.getNumLoops(), 0);
      sizes[loop] = chunk;
      scf::SCFTilingOptions options;
      options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
      options.setTileSizes(getAsIndexOpFoldResult(&getContext(), sizes));
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> tiled =
          scf::tileUsingSCF(rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(tiled)) // stays one sequential loop nest: still correct
        continue;
      rewriter.eraseOp(op);
      auto forall = cast<scf::ForallOp>(tiled->loops.front().getOperation());
      if (failed(scf::forallToParallelLoop(rewriter, forall))) {
        forall.emitError("cpu-parallelize-leading-reductions: could not make the chunk loop "
                         "an scf.parallel");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
