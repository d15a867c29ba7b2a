//===- StageTransposes.cpp - gpu-stage-transposes ---------------------------===//
//
// The transpose recipe's block program (GpuPasses.td has it with an
// example): a marked 32 x 32 transpose tile on buffers is read along the
// input's innermost dim into a padded workgroup array and written along
// the output's innermost dim from it, so both global sides are coalesced.
//
// Invariant: every element of the tile is copied once, unchanged; nothing
// past an edge tile's end is read or written.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/BlockProgram.h"
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace shardc {
#define GEN_PASS_DEF_GPUSTAGETRANSPOSES
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;
using shardc::gpu::indexConstant;

namespace {

/// A tile is 32 x 32; a block 8 x 32 threads, each moving 4 elements.
constexpr int64_t kTile = 32;
constexpr int64_t kRows = 8;

/// The indices of `operand` at loop values `ivs`.
SmallVector<Value> indicesAt(linalg::LinalgOp op, OpOperand *operand, ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  AffineMap map = op.getMatchingIndexingMap(operand);
  for (unsigned r = 0; r < map.getNumResults(); ++r)
    indices.push_back(ivs[map.getDimPosition(r)]);
  return indices;
}

LogicalResult stage(RewriterBase &rw, linalg::LinalgOp op, bool workgroup) {
  auto loops = op->getAttrOfType<DenseI64ArrayAttr>(shardc::kGpuTransposeAttr);
  if (!loops || loops.size() != 2 || op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1)
    return failure();
  const unsigned outLoop = loops[0], inLoop = loops[1];
  Location loc = op.getLoc();
  OpOperand *input = op.getDpsInputOperand(0), *output = op.getDpsInitOperand(0);
  Type elem = getElementTypeOrSelf(output->get().getType());
  rw.setInsertionPoint(op);
  SmallVector<Range> ranges = op.createLoopRanges(rw, loc);
  Value outExtent = getValueOrCreateConstantIndexOp(rw, loc, ranges[outLoop].size);
  Value inExtent = getValueOrCreateConstantIndexOp(rw, loc, ranges[inLoop].size);
  // [out-loop][in-loop], a row padded by one element so that a column
  // (the write phase's reads) falls on 32 different banks.
  Value tile = shardc::gpu::blockBuffer(rw, op, {kTile, kTile + 1}, elem, workgroup);
  rw.setInsertionPoint(op);
  // Thread (ty, tx), step k, moves the element at (a = ty + 8k, b = tx) of
  // the tile, where b runs along the side being accessed in global memory.
  auto move = [&](bool read) {
    shardc::gpu::threadForall(rw, loc, {kRows, kTile}, [&](OpBuilder &b, ValueRange ids) {
      for (int64_t k = 0; k < kTile / kRows; ++k) {
        Value a = arith::AddIOp::create(b, loc, ids[0], indexConstant(b, loc, k * kRows));
        Value fast = ids[1];
        // Reading, the input's innermost loop is fast; writing, the output's.
        Value outIdx = read ? a : fast, inIdx = read ? fast : a;
        Value inside = arith::AndIOp::create(
            b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, outIdx, outExtent),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, inIdx, inExtent));
        scf::IfOp::create(b, loc, inside, [&](OpBuilder &t, Location l) {
          SmallVector<Value> ivs(op.getNumLoops(), indexConstant(t, l, 0));
          ivs[outLoop] = outIdx;
          ivs[inLoop] = inIdx;
          if (read) {
            Value v = memref::LoadOp::create(t, l, input->get(), indicesAt(op, input, ivs));
            memref::StoreOp::create(t, l, v, tile, ValueRange{outIdx, inIdx});
          } else {
            Value v = memref::LoadOp::create(t, l, tile, ValueRange{outIdx, inIdx});
            memref::StoreOp::create(t, l, v, output->get(), indicesAt(op, output, ivs));
          }
          scf::YieldOp::create(t, l);
        });
      }
    });
  };
  move(/*read=*/true);
  move(/*read=*/false);
  rw.eraseOp(op);
  return success();
}

struct GpuStageTransposes : shardc::impl::GpuStageTransposesBase<GpuStageTransposes> {
  using Base::Base;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : shardc::gpu::markedTiles(getOperation(), shardc::kGpuTransposeAttr))
      if (!shardc::gpu::isBlockTile(op) || failed(stage(rewriter, op, workgroupMemory))) {
        op.emitError() << "gpu-stage-transposes: a marked op must be a bufferized transpose "
                          "tile in a block forall (an internal error of the transpose recipe)";
        return signalPassFailure();
      }
  }
};

} // namespace
