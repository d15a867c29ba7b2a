//===- GpuPasses.h - passes of the GPU (PTX) target ------------*- C++ -*-===//
//
// Declarations generated from GpuPasses.td, and registerGpuTargetPasses(),
// which tools (shardc-opt) call so each pass can be run by name.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_GPU_GPUPASSES_H
#define SHARDC_COMPILER_TARGETS_GPU_GPUPASSES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::linalg {
class LinalgOp;
} // namespace mlir::linalg

namespace shardc {

#define GEN_PASS_DECL
#include "compiler/targets/gpu/GpuPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/targets/gpu/GpuPasses.h.inc"

/// A one-dimensional grid over `count` items at `b`'s point: a block forall
/// of ceil(count / threads) blocks, made by `recipe`, around a thread
/// forall of `threads` threads, and, unless the blocks hold exactly
/// `count` threads, an scf.if on item < count. Returns the thread's item,
/// block * threads + thread, with `b` where its work goes (CopyKernels.cpp).
mlir::Value buildLinearGrid(mlir::OpBuilder &b, mlir::Location loc, int64_t count,
                            int64_t threads, llvm::StringRef recipe);

/// Moves `op` into a new one-block, one-thread grid at its place, made by
/// `recipe`: the single-thread shape gpu-copy-kernels and gpu-host-loops
/// give host work on buffers.
void runOnOneGpuThread(mlir::Operation *op, llvm::StringRef recipe);

/// The recipe a block forall was made by ("gemm", "block_tree", ...), which
/// gpu-map-foralls names its kernel after: <function>_<recipe>.
inline constexpr llvm::StringLiteral kGpuRecipeAttr = "shardc.gpu_recipe";

/// Marks `blockForall` as made by `recipe`.
void setGpuRecipe(mlir::Operation *blockForall, llvm::StringRef recipe);

/// Whether `type` is a memref in GPU workgroup (shared) memory.
bool isWorkgroupMemRef(mlir::Type type);

/// The warp code under `root`: the no_inline scf.execute_region ops
/// gpu-map-foralls puts each warp forall's body in, which the kernel
/// passes gpu-lower-warp-trees and gpu-lower-mma rewrite (MapForalls.cpp).
llvm::SmallVector<mlir::Operation *> warpCodeRegions(mlir::Operation *root);

/// Inlines a warp code region where it stands, once rewritten.
void inlineWarpCode(mlir::RewriterBase &rw, mlir::Operation *region);

/// The mark gpu-tile-and-fuse puts on a contraction tile for
/// gpu-stage-contractions: array<i64: BM, BN, BK, TM, TN>.
inline constexpr llvm::StringLiteral kGpuStagedAttr = "shardc.gpu_staged";

/// The mark gpu-tile-and-fuse puts on a contraction tile that
/// gpu-stage-contractions computes on the tensor cores: array<i64: BM, BN,
/// BK>.
inline constexpr llvm::StringLiteral kGpuMmaAttr = "shardc.gpu_mma";

/// Whether `op` is a contraction the tensor cores compute as it is: f16 or
/// bf16 operands (both alike), an f32 output, and a body that adds the
/// product of the operands, extended to f32, onto the output (mma.sync
/// m16n8k16 with f32 accumulators). With `tf32`, also f32 operands whose
/// product is added as it is (mma.sync m16n8k8 on TF32, which keeps 10 of
/// the operands' 23 mantissa bits: --matmul-precision=tf32 only).
bool gpuTensorCoreContraction(mlir::linalg::LinalgOp op, bool tf32);

/// The mark gpu-tile-and-fuse puts on a reduction tile for
/// gpu-block-reductions: array<i64: R, T>, R outputs of the tile's
/// innermost parallel loop a block, T threads each.
inline constexpr llvm::StringLiteral kGpuBlockTreeAttr = "shardc.gpu_block_tree";

/// The mark gpu-tile-and-fuse puts on a transpose tile for
/// gpu-stage-transposes: array<i64: output's innermost loop, input's>.
inline constexpr llvm::StringLiteral kGpuTransposeAttr = "shardc.gpu_transpose";

/// Whether `op`'s body folds into its one output through a single
/// operation with a neutral element (what a block tree combines with).
bool gpuBlockTreeCombines(mlir::linalg::LinalgOp op);

} // namespace shardc

#endif // SHARDC_COMPILER_TARGETS_GPU_GPUPASSES_H
