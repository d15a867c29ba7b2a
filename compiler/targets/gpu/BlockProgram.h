//===- BlockProgram.h - building a block's program on buffers --*- C++ -*-===//
//
// The pieces the buffer-level recipes (gpu-stage-contractions,
// gpu-block-reductions, gpu-stage-transposes) write a thread block's
// program from: thread foralls, which gpu-map-foralls separates by
// barriers, and buffers the block's threads share; and how each finds the
// tiles gpu-tile-and-fuse marked for it. In the sequential CPU fork the same program runs
// with each thread forall whole before the next, which is what the
// barriers guarantee on the GPU, and the shared buffers are plain ones.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_GPU_BLOCKPROGRAM_H
#define SHARDC_COMPILER_TARGETS_GPU_BLOCKPROGRAM_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

namespace shardc::gpu {

/// The ops under `root` that gpu-tile-and-fuse marked with `attr` for a
/// recipe, in walk order.
llvm::SmallVector<mlir::linalg::LinalgOp> markedTiles(mlir::Operation *root,
                                                      llvm::StringRef attr);

/// What every recipe needs of a marked tile: bufferized, inside a block
/// forall (anything else is an internal error of gpu-tile-and-fuse).
bool isBlockTile(mlir::linalg::LinalgOp op);

/// An index constant.
mlir::Value indexConstant(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// A thread forall of `counts` threads at the builder's point (one count:
/// thread x; two: thread y, then x); `body` fills it with the thread ids in
/// the same order.
void threadForall(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<int64_t> counts,
                  llvm::function_ref<void(mlir::OpBuilder &, mlir::ValueRange)> body);

/// A warp forall of `count` warps at the builder's point (#gpu.warp<x>):
/// `body` is warp code, which every lane of warp `warp` runs alike (the
/// tensor-core recipe's vector contractions); gpu-map-foralls gives it the
/// block's threads, 32 a warp, so `count` x 32 must be the threads of the
/// block's thread foralls.
void warpForall(mlir::OpBuilder &b, mlir::Location loc, int64_t count,
                llvm::function_ref<void(mlir::OpBuilder &, mlir::Value warp)> body);

/// A buffer of `shape` x `elem` shared by the threads of the block that
/// runs `at`, aligned to 16 bytes: in workgroup memory before `at` (a
/// kernel attribution once gpu-map-foralls has run), or, with `workgroup`
/// false (the sequential fork, where blocks run one after another), a
/// plain buffer made once at the start of `at`'s function.
mlir::Value blockBuffer(mlir::OpBuilder &b, mlir::Operation *at, llvm::ArrayRef<int64_t> shape,
                        mlir::Type elem, bool workgroup);

/// Values each thread keeps across the block's thread foralls (a
/// contraction's accumulators): `count` elements per thread. In a kernel,
/// one [1, count] buffer made in the block's code before `at`, which every
/// thread runs, so each has its own (thread-private memory, which LLVM
/// keeps in registers when every index is a constant); in the sequential
/// fork, one [threads, count] buffer at the function's entry, a row per
/// thread. privateSlot gives a thread's row.
mlir::Value privateBuffer(mlir::OpBuilder &b, mlir::Operation *at, int64_t threads, int64_t count,
                          mlir::Type elem, bool kernel);
mlir::Value privateSlot(mlir::OpBuilder &b, mlir::Location loc, mlir::Value thread, bool kernel);

/// `memref[indices]` if `cond`, else `other`; the load only when `cond`.
mlir::Value loadIf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond, mlir::Value memref,
                   mlir::ValueRange indices, mlir::Value other);

} // namespace shardc::gpu

#endif // SHARDC_COMPILER_TARGETS_GPU_BLOCKPROGRAM_H
