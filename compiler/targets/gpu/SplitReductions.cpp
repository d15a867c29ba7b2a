//===- SplitReductions.cpp - gpu-split-reductions --------------------------===//
//
// Long reductions with few outputs, split into partial reductions that
// fill the GPU (GpuPasses.td has the rule and an example). The output
// recipe then gives every partial a thread; the combining reduction is a
// smaller op of the same kind, split again while it is still long.
//
// Invariants: the split only regroups a reduction (upstream
// linalg::splitReduction, with the partials' index innermost so that
// neighbouring threads read neighbouring elements); every sum still has one
// order, fixed by the shapes alone, so replicas stay bit-identical. Which
// order differs from the CPU target's, within the float tolerances.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <deque>

namespace shardc {
#define GEN_PASS_DEF_GPUSPLITREDUCTIONS
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// A reduction is split when it is at least this long and has fewer
/// outputs than kFewOutputs; its partials then number up to kPartials
/// (enough threads to fill a GPU several times), each reducing at least
/// kPerPartial elements (the partials' own reduction must stay cheap).
constexpr int64_t kMinLength = 256;
constexpr int64_t kFewOutputs = 8192;
constexpr int64_t kPartials = 65536;
constexpr int64_t kPerPartial = 32;

/// The number of partials for `op`, or 0 when it is not to be split: a
/// single static reduction dim, static parallel dims, one output, and a
/// power of two dividing the reduction's length (no tail to mask).
/// Whether `op` (static shapes) is long and has few outputs: the product of
/// its reduction loops' extents at least kMinLength, of the others below
/// kFewOutputs; `length` and `outputs` are those products.
bool longWithFewOutputs(linalg::LinalgOp op, int64_t &length, int64_t &outputs) {
  SmallVector<unsigned> dims;
  op.getReductionDims(dims);
  length = outputs = 1;
  for (auto [d, range] : llvm::enumerate(op.getStaticLoopRanges()))
    (llvm::is_contained(dims, d) ? length : outputs) *= range;
  return length >= kMinLength && outputs < kFewOutputs;
}

int64_t partialsFor(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 1 || op.hasDynamicShape())
    return 0;
  int64_t length, outputs;
  if (!longWithFewOutputs(op, length, outputs))
    return 0;
  int64_t partials = 1;
  while (length % (partials * 2) == 0 && partials * 2 <= length / kPerPartial &&
         outputs * partials * 2 <= kPartials)
    partials *= 2;
  return partials >= 8 ? partials : 0;
}

/// `op` with its reduction dims collapsed into one, when that one would be
/// split and they are adjacent loops that every operand reads as one
/// contiguous run (a full reduction over a dense array); else `op`
/// unchanged.
linalg::LinalgOp collapseReductionDims(RewriterBase &rw, linalg::LinalgOp op) {
  SmallVector<unsigned> dims;
  op.getReductionDims(dims);
  if (dims.size() < 2 || !op.hasPureTensorSemantics() || op.hasDynamicShape())
    return op;
  for (size_t i = 1; i < dims.size(); ++i)
    if (dims[i] != dims[i - 1] + 1)
      return op;
  int64_t length, outputs;
  if (!longWithFewOutputs(op, length, outputs))
    return op;
  // Collapsing needs every dim read as itself: no constant indices
  // (keepdims' zeros), which upstream's collapse does not take.
  if (!llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isProjectedPermutation(); }))
    return op;
  ReassociationIndices run(dims.begin(), dims.end());
  if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {run}))
    return op;
  rw.setInsertionPoint(op);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, {run}, rw);
  if (failed(collapsed))
    return op;
  rw.replaceOp(op, collapsed->results);
  return collapsed->collapsedOp;
}

struct GpuSplitReductions : shardc::impl::GpuSplitReductionsBase<GpuSplitReductions> {
  void runOnOperation() override {
    std::deque<linalg::LinalgOp> work;
    getOperation()->walk([&](linalg::LinalgOp op) {
      // Ops in loops (scatter_add's) and in tiles are not this pass's.
      if (op->getParentOfType<scf::ForallOp>() || op->getParentOfType<LoopLikeOpInterface>())
        return;
      if (op.getNumReductionLoops() > 0)
        work.push_back(op);
    });
    IRRewriter rw(&getContext());
    while (!work.empty()) {
      linalg::LinalgOp op = collapseReductionDims(rw, work.front());
      work.pop_front();
      const int64_t partials = partialsFor(op);
      if (partials == 0)
        continue;
      rw.setInsertionPoint(op);
      FailureOr<linalg::SplitReductionResult> split =
          linalg::splitReduction(rw, op, [&](linalg::LinalgOp) {
            linalg::SplitReductionOptions options;
            options.ratio = partials;
            options.index = 0;
            options.innerParallel = true;
            return options;
          });
      // Ops whose combiner has no neutral element, or is not one
      // operation, stay whole: the output recipe still takes them.
      if (failed(split))
        continue;
      work.push_back(split->resultCombiningLinalgOp);
    }
  }
};

} // namespace
