//===- FuseElementwiseOps.cpp - cpu-fuse-elementwise-ops ------------------===//
//
// linalg-fuse-elementwise-ops with a bound on the size of what it fuses
// (see CpuPasses.td): the same patterns, but a producer is folded into its
// consumer only while their bodies together hold at most kMaxFusedBodyOps
// ops. Each fusion clones both bodies, so an unbounded chain of n ops costs
// O(n^2) cloned ops (8,000 ops: about a minute); bounded, O(n) — a chain
// becomes kernels of up to kMaxFusedBodyOps ops each, with one intermediate
// tensor between two of them. On the CPU, also a producer of several uses
// (FuseProducerOfSeveralUses), and a producer whose inputs its consumer
// reads anyway is recomputed there (RecomputeFromSharedInputs).
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace shardc {
#define GEN_PASS_DEF_CPUFUSEELEMENTWISEOPS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Ops in the body of a linalg op (its first block), terminator included.
size_t bodySize(Operation *op) {
  if (op->getNumRegions() == 0 || op->getRegion(0).empty())
    return 0;
  return op->getRegion(0).front().getOperations().size();
}

/// Whether `op` is elementwise: every loop parallel, every result written
/// through a permutation (each element once).
bool isElementwise(linalg::GenericOp op) {
  return op.getNumLoops() == op.getNumParallelLoops() &&
         llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
           return op.getMatchingIndexingMap(&init).isPermutation();
         });
}

/// Fuses into the elementwise `consumer` the first elementwise producer of
/// one of its inputs that also has other uses (upstream's pattern takes a
/// producer of one use), that both read or write through identity maps (so
/// their loops are the same), whose bodies together hold at most `limit`
/// ops, and that `accept`s. With `keepProducer` only the consumer's results
/// are replaced, and the producer stays for its other uses (the fused op's
/// copies of its results are unused, and canonicalization drops them);
/// otherwise the fused op replaces both.
LogicalResult fuseProducerOfOtherUses(PatternRewriter &rewriter, linalg::GenericOp consumer,
                                      size_t limit, bool keepProducer,
                                      function_ref<bool(linalg::GenericOp)> accept) {
  if (!isElementwise(consumer))
    return failure();
  for (OpOperand *operand : consumer.getDpsInputOperands()) {
    auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
    if (!producer || producer->hasOneUse() || !isElementwise(producer) ||
        !consumer.getMatchingIndexingMap(operand).isIdentity() ||
        !producer.getIndexingMapMatchingResult(cast<OpResult>(operand->get())).isIdentity() ||
        bodySize(producer) + bodySize(consumer) > limit ||
        !linalg::areElementwiseOpsFusable(operand) || !accept(producer))
      continue;
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, operand);
    if (failed(fused))
      return failure();
    for (auto [from, to] : fused->replacements)
      if (!keepProducer || from.getDefiningOp() == consumer.getOperation())
        rewriter.replaceAllUsesWith(from, to);
    rewriter.eraseOp(consumer);
    if (!keepProducer)
      rewriter.eraseOp(producer);
    return success();
  }
  return failure();
}

/// Fuses an elementwise producer whose result has other uses into one of
/// its elementwise consumers, as one op with both results: the producer's
/// result is written where it is computed instead of being written, then
/// read back by the consumer. Upstream's pattern fuses only a producer of
/// one use (with several, it recomputes the producer in the consumer and
/// keeps the producer too, which saves nothing). An activation and its
/// input (`relu(x + b)`, with `x + b` kept for the backward pass's mask) is
/// the common case: one pass over the activation's size instead of two.
///
/// The fused op stands where the consumer stood, so every other use of the
/// producer must come after the consumer in its block; both read or write
/// the fused value through identity maps, so their loops are the same and
/// nothing is computed twice.
struct FuseProducerOfSeveralUses : OpRewritePattern<linalg::GenericOp> {
  FuseProducerOfSeveralUses(MLIRContext *context, size_t limit)
      : OpRewritePattern(context), limit(limit) {}

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    return fuseProducerOfOtherUses(rewriter, consumer, limit, /*keepProducer=*/false,
                                   [&](linalg::GenericOp producer) {
                                     return othersUseAfter(producer, consumer);
                                   });
  }

  /// `consumer` reads `producer` through one operand only (another would
  /// still read the producer's result), and every other user of the
  /// producer's results is an op after `consumer` in its block, or inside
  /// one.
  static bool othersUseAfter(linalg::GenericOp producer, linalg::GenericOp consumer) {
    if (llvm::count_if(consumer->getOperands(), [&](Value v) {
          return v.getDefiningOp() == producer.getOperation();
        }) != 1)
      return false;
    Block *block = consumer->getBlock();
    for (Operation *user : producer->getUsers()) {
      if (user == consumer.getOperation())
        continue;
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock || !consumer->isBeforeInBlock(inBlock))
        return false;
    }
    return true;
  }

  size_t limit;
};

/// Recomputes an elementwise producer's result inside an elementwise
/// consumer when that reads fewer whole tensors than reading the results
/// back: an activation's backward pass reads the activation's input x
/// anyway, and also read tanh(x), 1 - tanh(x) and 0.5·(1 + tanh(x)), which
/// the forward kernel had written for it (a GELU of [1024, 1024] wrote four
/// such tensors, 16 MiB, and the backward read them back). Recomputed, the
/// forward kernel writes only what other kernels need, and the backward
/// reads x alone: the arithmetic is cheaper than the memory traffic it
/// replaces.
///
/// Counted in whole tensors (inputs read through a permutation, an element
/// per point of the loops): the inputs of the producer's body that the
/// consumer does not read already, as the same value through the same map,
/// must be fewer than the producer's results the consumer reads. A
/// consumer that reads x, or no whole tensor the producer reads, qualifies
/// for one result; a layer norm's backward that read four results of the
/// forward kernel (h - mean, the normalized value, its sigmoid and one
/// minus that) reads h instead. Broadcast inputs (a bias, a row's
/// statistics: a map that is not a permutation) are not counted: each is
/// a part of the loops' space, read over and over from cache.
/// The producer stays for its other uses, and loses its results that no
/// longer have any.
struct RecomputeFromSharedInputs : OpRewritePattern<linalg::GenericOp> {
  RecomputeFromSharedInputs(MLIRContext *context, size_t limit)
      : OpRewritePattern(context, /*benefit=*/2), limit(limit) {}

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    return fuseProducerOfOtherUses(rewriter, consumer, limit, /*keepProducer=*/true,
                                   [&](linalg::GenericOp producer) {
                                     return recomputingSavesReads(consumer, producer);
                                   });
  }

  /// Whether recomputing `producer` in `consumer` reads fewer whole
  /// tensors than reading its results does (see above), and the body does
  /// not read its inits.
  static bool recomputingSavesReads(linalg::GenericOp consumer, linalg::GenericOp producer) {
    for (OpOperand &init : producer.getDpsInitsMutable())
      if (producer.payloadUsesValueFromOperand(&init))
        return false;
    SmallVector<Value> added; // whole tensors the consumer would read anew
    for (OpOperand *in : producer.getDpsInputOperands()) {
      if (!producer.payloadUsesValueFromOperand(in))
        continue;
      AffineMap map = producer.getMatchingIndexingMap(in);
      if (!map.isPermutation())
        continue;
      bool shared = llvm::any_of(consumer.getDpsInputOperands(), [&](OpOperand *own) {
        return own->get() == in->get() && consumer.getMatchingIndexingMap(own) == map;
      });
      if (!shared && !llvm::is_contained(added, in->get()))
        added.push_back(in->get());
    }
    if (added.empty()) // nothing new to read, even where the results are
      return true;     // read through broadcasts only
    SmallVector<Value> resultsRead;
    for (OpOperand *own : consumer.getDpsInputOperands())
      if (own->get().getDefiningOp() == producer.getOperation() &&
          consumer.getMatchingIndexingMap(own).isPermutation() &&
          !llvm::is_contained(resultsRead, own->get()))
        resultsRead.push_back(own->get());
    return added.size() < resultsRead.size();
  }

  size_t limit;
};

struct CpuFuseElementwiseOps : shardc::impl::CpuFuseElementwiseOpsBase<CpuFuseElementwiseOps> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    size_t limit = maxFusedBodyOps;
    // As upstream: a producer with one user is folded into it (here also
    // when that user reads several of its results, as an add of a
    // backward pass's two partial gradients does), and only while the
    // fused body stays within the bound. Each operand is fused in turn;
    // CSE merges the copies of the producer's body afterwards.
    linalg::ControlFusionFn bounded = [limit](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer &&
             llvm::all_of(producer->getUsers(),
                          [&](Operation *user) { return user == fused->getOwner(); }) &&
             bodySize(producer) + bodySize(fused->getOwner()) <= limit;
    };
    // Reshapes are not folded into or out of a matmul: folding expands the
    // named matmul into a generic contraction over the reshaped dims (a
    // weight gradient's [b, s, d] operand gives a 4-loop generic), then the
    // transpose before it fuses in as a strided read, and the GEMM recipe
    // no longer applies: the kernel runs as scalar loops.
    auto isMatmul = [](Operation *op) {
      return isa_and_nonnull<linalg::MatmulOp, linalg::BatchMatmulOp>(op);
    };
    linalg::ControlFusionFn reshapes = [bounded, isMatmul](OpOperand *fused) {
      return !isMatmul(fused->getOwner()) && !isMatmul(fused->get().getDefiningOp()) &&
             bounded(fused);
    };
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, bounded);
    if (fuseSeveralUses)
      patterns.add<FuseProducerOfSeveralUses>(context, limit);
    if (recomputeFromInputs)
      patterns.add<RecomputeFromSharedInputs>(context, limit);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshapes);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, bounded);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     GreedyRewriteConfig().setUseTopDownTraversal(true))))
      return signalPassFailure();
  }
};

} // namespace
