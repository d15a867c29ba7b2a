//===- LowerMma.cpp - gpu-lower-mma ----------------------------------------===//
//
// The tensor-core recipe's warp code to mma.sync (GpuPasses.td): upstream's
// VectorToGPU does the rewriting; this pass prepares its input (the 16-bit
// operands' extensions folded into the contraction, bf16 tiles typed as
// f16), makes the bf16 ones nvvm.mma.sync on bf16 and the f32 ones TF32
// ones, and refuses what it leaves.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Conversion/VectorToGPU/VectorToGPU.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/NVGPU/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace shardc {
#define GEN_PASS_DEF_GPULOWERMMA
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Upstream's rewriting deduces PTX types for f16 only, but ldmatrix moves
/// 16-bit elements as bits, and mma.sync m16n8k16 lays out bf16 fragments
/// as f16 ones. So the shared bf16 tiles the warp code reads become f16
/// tiles of the same bits: stores into them (scalar or vector) bitcast,
/// the warp code's reads read f16 and extend that. Returns whether there
/// was any (the mma.sync the rewriting then makes are bf16 ones, see
/// rewriteBf16Mma).
FailureOr<bool> retypeBf16Tiles(RewriterBase &rw, Operation *region) {
  llvm::SetVector<Value> tiles;
  region->walk([&](vector::TransferReadOp read) {
    if (read.getVectorType().getElementType().isBF16())
      tiles.insert(read.getBase());
  });
  Type f16 = rw.getF16Type();
  for (Value tile : tiles) {
    auto type = cast<MemRefType>(tile.getType());
    if (!isa<BlockArgument>(tile) || !shardc::isWorkgroupMemRef(type))
      return region->emitError() << "gpu-lower-mma: the warp code reads a bf16 tile that is not "
                                   "a workgroup attribution (an internal error)";
    tile.setType(MemRefType::get(type.getShape(), f16, type.getLayout(), type.getMemorySpace()));
    for (OpOperand &use : llvm::make_early_inc_range(tile.getUses())) {
      Operation *user = use.getOwner();
      Location loc = user->getLoc();
      rw.setInsertionPoint(user);
      if (auto store = dyn_cast<memref::StoreOp>(user); store && store.getMemRef() == tile) {
        Value bits = arith::BitcastOp::create(rw, loc, f16, store.getValueToStore());
        rw.modifyOpInPlace(store, [&] { store.getValueMutable().assign(bits); });
        continue;
      }
      if (auto store = dyn_cast<vector::StoreOp>(user); store && store.getBase() == tile) {
        Value bits = arith::BitcastOp::create(
            rw, loc, store.getVectorType().clone(f16), store.getValueToStore());
        rw.modifyOpInPlace(store, [&] { store.getValueToStoreMutable().assign(bits); });
        continue;
      }
      auto read = dyn_cast<vector::TransferReadOp>(user);
      if (!read || !region->isProperAncestor(read) ||
          !llvm::all_of(read->getUsers(), llvm::IsaPred<arith::ExtFOp>))
        return user->emitError() << "gpu-lower-mma: a bf16 tile of the tensor-core recipe "
                                    "has a use the bf16 path does not retype (an internal error)";
      Value zero = arith::ConstantOp::create(rw, loc, f16, rw.getZeroAttr(f16));
      Value bits = vector::TransferReadOp::create(
          rw, loc, read.getVectorType().clone(f16), tile, read.getIndices(), zero,
          read.getPermutationMap(), llvm::to_vector(read.getInBoundsValues()));
      for (Operation *ext : llvm::to_vector(read->getUsers())) {
        rw.setInsertionPoint(ext);
        rw.replaceOpWithNewOp<arith::ExtFOp>(ext, ext->getResult(0).getType(), bits);
      }
      rw.eraseOp(read);
    }
  }
  return !tiles.empty();
}

/// One 32-bit register of a fragment row: vector<2 x 16-bit> as i32.
Value registerOf(RewriterBase &rw, Location loc, Value row) {
  Value word =
      vector::BitCastOp::create(rw, loc, VectorType::get({1}, rw.getI32Type()), row);
  return vector::ExtractOp::create(rw, loc, word, ArrayRef<int64_t>{0});
}

/// Each nvgpu.mma.sync of a retyped region (f16 by type, bf16 by its bits)
/// as nvvm.mma.sync m16n8k16 with bf16 multiplicands: A's 4 and B's 2
/// rows each one 32-bit register, C and the result 4 f32s in row order,
/// as upstream's f16 lowering passes them.
LogicalResult rewriteBf16Mma(RewriterBase &rw, Operation *region) {
  SmallVector<nvgpu::MmaSyncOp> mmas;
  region->walk([&](nvgpu::MmaSyncOp op) { mmas.push_back(op); });
  for (nvgpu::MmaSyncOp mma : mmas) {
    Location loc = mma.getLoc();
    VectorType a = mma.getMatrixA().getType(), b = mma.getMatrixB().getType(),
               c = mma.getMatrixC().getType();
    if (a.getShape() != ArrayRef<int64_t>{4, 2} || b.getShape() != ArrayRef<int64_t>{2, 2} ||
        c.getShape() != ArrayRef<int64_t>{2, 2} || !c.getElementType().isF32() ||
        mma.getMmaShapeAsArray() != std::array<int64_t, 3>{16, 8, 16})
      return mma.emitError() << "gpu-lower-mma: a bf16 mma.sync of another shape than "
                                "m16n8k16 with f32 accumulators (an internal error)";
    rw.setInsertionPoint(mma);
    SmallVector<Value> operandA, operandB, operandC;
    for (int64_t i = 0; i < 4; ++i)
      operandA.push_back(registerOf(
          rw, loc, vector::ExtractOp::create(rw, loc, mma.getMatrixA(), ArrayRef<int64_t>{i})));
    for (int64_t i = 0; i < 2; ++i)
      operandB.push_back(registerOf(
          rw, loc, vector::ExtractOp::create(rw, loc, mma.getMatrixB(), ArrayRef<int64_t>{i})));
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        operandC.push_back(
            vector::ExtractOp::create(rw, loc, mma.getMatrixC(), ArrayRef<int64_t>{i, j}));
    Type f32 = rw.getF32Type();
    auto result = LLVM::LLVMStructType::getLiteral(rw.getContext(), {f32, f32, f32, f32});
    Value d = NVVM::MmaOp::create(
        rw, loc, result, operandA, operandB, operandC, ArrayRef<int64_t>{16, 8, 16},
        std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
    SmallVector<Value> elements;
    for (int64_t i = 0; i < 4; ++i)
      elements.push_back(LLVM::ExtractValueOp::create(rw, loc, d, ArrayRef<int64_t>{i}));
    rw.replaceOpWithNewOp<vector::FromElementsOp>(mma, c, elements);
  }
  return success();
}

struct GpuLowerMma : shardc::impl::GpuLowerMmaBase<GpuLowerMma> {
  void runOnOperation() override {
    Operation *root = getOperation();
    // Rewrite inside each warp code region (gpu-map-foralls), then
    // inline it.
    IRRewriter rewriter(&getContext());
    for (Operation *region : shardc::warpCodeRegions(root)) {
      FailureOr<bool> bf16 = retypeBf16Tiles(rewriter, region);
      if (failed(bf16))
        return signalPassFailure();
      RewritePatternSet patterns(&getContext());
      vector::populateFoldArithExtensionPatterns(patterns);
      populatePrepareVectorToMMAPatterns(patterns, /*useNvGpu=*/true);
      if (failed(applyPatternsGreedily(region, std::move(patterns))) ||
          failed(convertVectorToNVVMCompatibleMMASync(rewriter, region)))
        return signalPassFailure();
      // The rewriting leaves the vector ops it replaced, dead: the greedy
      // driver erases them, while marking each f32 mma.sync as one on TF32
      // (gpu-stage-contractions rounded its operands when it staged them).
      RewritePatternSet tf32(&getContext());
      nvgpu::populateMmaSyncF32ToTF32Patterns(tf32, nvgpu::MmaSyncF32Lowering::TF32);
      if (failed(applyPatternsGreedily(region, std::move(tf32))) ||
          (*bf16 && failed(rewriteBf16Mma(rewriter, region))))
        return signalPassFailure();
      shardc::inlineWarpCode(rewriter, region);
    }
    WalkResult left = root->walk([](vector::ContractionOp op) {
      op.emitError() << "gpu-lower-mma: a contraction of the tensor-core recipe did not become "
                        "mma.sync (an internal error)";
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
