//===- GemmPacking.h - the packing step of the CPU GEMM recipe -*- C++ -*-===//
//
// Packing is what makes the register kernel's loads cheap whatever the
// operands' layouts (the GotoBLAS scheme). A cache block
// C[mb, nb] += A[mb, kb] · B[kb, nb] becomes
//
//   Bp[p, k, r] = B[k, p·NR + r]     once per (N, K) block, before the M
//                                    loop: NR-wide micro-panels of B, read
//                                    row by row (k outer), as B lies
//   Ap[q, k, r] = A[q·MR + r, k]     once per block: MR-tall micro-panels
//                                    of A, k-major
//   for p < nb / NR:                 B's micro-panel (kb × NR) stays in L1
//     for q < mb / MR:               while A's (the packed block, in L2)
//       C[q·MR.., p·NR..] += Ap[q]ᵀ · Bp[p]     stream past it
//   (or, when all of Bp is small enough to stay in L2, rows outermost:
//   for q, for p, so that C is written row of tiles by row of tiles)
//   edges (nb mod NR columns, mb mod MR rows): their panels are zero-padded
//   and their tiles computed in a scratch MR x NR tile, then copied out
//   (when M fits one block, the columns p are the parallel loop instead,
//   each computing its tile of the partial last row in a scratch tile of
//   its own; the threads then pack the panels of B they compute: a
//   transposed B's by each column, Bp[p] right before its tiles, a
//   k-major B's by groups of columns, one group per chunk of the rank's
//   loops (shardrt_loop_chunks), row by row, before the group's tiles;
//   the threads share packing the block's A, once, when there are two
//   columns or more)
//
// so each k step of the register tile loads NR contiguous values of B and
// MR contiguous values of A, instead of a row of B (a new page when B is
// wide) and MR rows of A (one L1 set when their stride is 4 KiB). A
// transposed operand is read as it lies by its packing copy (Aᵀ[kb, mb] and
// Bᵀ[nb, kb] are read row by row), so no transpose of a whole operand is
// ever materialized. Panels hold the accumulator's type: bf16/f16
// operands of an f32 accumulation are widened by the same copies, so the
// register kernel is the f32 one.
//
// A transposed A of one M block (a weight gradient xᵀ·g, M at most mc)
// is not packed either (`directA`): its rows (k) already hold the MR
// values of a panel side by side, M apart instead of MR, so a tile reads
// them where they lie, and no thread reads panels another packed.
//
// When B is at most four micro-panels wide and A lies row-major
// (`directA`), A's full panels are not packed: each tile reads A's MR rows
// where they lie (Aᵀ as a strided view, its elements loaded one by one as
// broadcasts, as from a panel). Each value of A then serves at most four
// tiles, the first from memory and the others from cache, so its packing
// copy (a read, a write and a read again) cost more than it saved: a
// convolution's input gradient (8192x16x288, one panel) spent 40 % of its
// time packing A. Only the MR-partial last panel is still packed (zero-padded).
//
// The micro matmuls are MR × NR with A transposed (k-major, which is the
// outer-product order the register tile wants) and unit-stride operands;
// the recipe's register tiling and vectorization apply to them. B's panels
// are allocated once around the whole loop nest; A's panels and the edge
// tile once per block, so that the M loop's blocks are independent and can
// run on different threads (and parallel columns' scratch tiles, one per
// column, once per block).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_GEMMPACKING_H
#define SHARDC_COMPILER_TARGETS_GEMMPACKING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace shardc::gemm {

/// How a 2-D matmul reads its operands: A as [M, K] or [K, M], B as [K, N] or
/// [N, K]; C is always [M, N].
struct Layout {
  bool aTransposed = false;
  bool bTransposed = false;
};

/// The layout of `op` (default or transposed maps), or nullopt for any other
/// indexing (broadcasts, a transposed C).
std::optional<Layout> layoutOf(mlir::linalg::MatmulOp op);

/// The same for a batch_matmul; the batch dim must lead every operand.
std::optional<Layout> layoutOf(mlir::linalg::BatchMatmulOp op);

/// A 2-D linalg.matmul on buffers with `layout`'s maps.
mlir::linalg::MatmulOp createMatmul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                                    mlir::Value bMat, mlir::Value c, Layout layout);

/// The scratch buffers a cache block works in.
struct Scratch {
  mlir::Value panels;  // B: [ceil(nc / nr), kc + 1, nr], one per GEMM
                       // (a spare row each, so panels are not 4 KiB apart)
  mlir::Value aPanels; // A: [ceil(mc / mr), kc, mr], one per block
  mlir::Value cTile;   // C: [mr, nr], for the tiles at a block's edges
                       // (parallel columns get one each, in packBlock)
};

/// Marks the scratch tiles that edge tiles are computed in (a unit
/// attribute on their memref.alloc), so that the register tiling can tell
/// them from C itself, which may be a memref.alloc too (an intermediate
/// result) or a function argument.
constexpr llvm::StringLiteral kScratchTileAttr = "shardc.gemm_scratch_tile";

/// Marks the recipe's parallel loops (M blocks, columns of tiles, B's
/// packing by rows, a batch of GEMMs) with the GEMM's products (M * N * K,
/// times the batch; a unit attribute until the recipe knows them), which
/// cpu-outline-parallel-loops compares with its `gemm-min-work`: a small
/// GEMM cut in two moves its operands and its result between cores, which
/// costs more than the halved work saves.
constexpr llvm::StringLiteral kLoopAttr = "shardc.gemm_loop";

/// Whether `buffer` is such a scratch tile. An allocation that
/// canonicalization rebuilt without the mark counts as C: that only gives
/// its tiles C's register-tile optimizations.
bool isScratchTile(mlir::Value buffer);

/// B's panel buffer of one GEMM, allocated before `op` and freed after it.
mlir::Value allocatePanels(mlir::RewriterBase &rewriter, mlir::linalg::MatmulOp op, int64_t nc,
                           int64_t kc, int64_t nr);

/// Rewrites the cache-block matmul `block` (inside the N, K, M block loops;
/// `mLoop` is the M loop or null) as described above. Returns the micro
/// matmuls (A transposed, [kb, mr] · [kb, nr] → [mr, nr]) for register
/// tiling. `parallelColumns` makes the loop over full columns of tiles an
/// scf.parallel (for a GEMM whose M loop runs once), in which each column
/// computes its tile of the MR-partial last row too (and packs its own
/// micro-panel of a transposed B right before its tiles; a k-major B's, in
/// groups of columns, row by row before the group's tiles); without it the
/// caller makes the M loop parallel, and a k-major B's full panels are
/// packed by an scf.parallel over B's rows before the products.
/// `rowsOuter` puts the
/// loop over A's panels outside the loop over B's (see above); it applies
/// when the columns are not parallel. `firstK`, when given,
/// is true in the first K block of a GEMM whose C starts at zero (its fill
/// removed): each tile of C is then zeroed just before its first use (for a
/// full tile, cpu-tile-and-vectorize-matmul turns that fill and the read of
/// the tile after it into a zero accumulator), and an edge tile does not
/// read C in. `directA` reads A's full panels in place (see above); it
/// requires an A of the accumulator's type, B's columns a whole number of
/// panels (no column edges), and for a row-major A columns that are not
/// parallel.
mlir::FailureOr<llvm::SmallVector<mlir::linalg::MatmulOp>>
packBlock(mlir::RewriterBase &rewriter, mlir::linalg::MatmulOp block, mlir::Operation *mLoop,
          Layout layout, mlir::Value bPanels, int64_t mc, int64_t kc, int64_t mr, int64_t nr,
          bool parallelColumns, bool rowsOuter, mlir::Value firstK = {}, bool directA = false);

} // namespace shardc::gemm

#endif // SHARDC_COMPILER_TARGETS_GEMMPACKING_H
