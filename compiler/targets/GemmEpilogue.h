//===- GemmEpilogue.h - an elementwise consumer computed in the GEMM's tiles -*- C++ -*-===//
//
// A GEMM's result C that only one elementwise linalg.generic reads (a
// forward layer's bias and relu, a backward layer's relu mask) would be
// written to memory by the GEMM and read back by the generic: two passes
// over an activation that is often larger than the caches. Instead, the
// register tile computes the generic on its accumulator in the last K
// block and stores the generic's results; C is stored only in the K blocks
// before (where later blocks add to it):
//
//   C = A · B;  Y, Z = g(C, bias)             (g elementwise, C read by g only)
//   →
//   for each full MR x NR tile at (i, j):
//     %acc = the K loop over this K block
//     if last K block:  %y, %z = g(%acc, bias[j..j+NR] broadcast over rows)
//                       store %y -> Y[i.., j..], %z -> Z[i.., j..]
//     else:             store %acc -> C[i.., j..]
//   g on the edges of C (rows past the last full row of tiles, then
//   columns past the last full column), which the scratch tiles wrote to C
//
// The generic's body is applied to vectors of the tile's shape: every op in
// it is elementwise (arith, math), its other inputs are read with their
// indexing maps as (broadcasting) vector transfers, its outputs are buffers
// nothing else reads there, written through identity maps. Each element is
// computed by the same operations as before, from the same C value.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_GEMMEPILOGUE_H
#define SHARDC_COMPILER_TARGETS_GEMMEPILOGUE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace shardc::gemm {

/// Marks the K block loop of a GEMM (a unit attribute on its scf.for), so
/// that a tile deep inside can tell whether it is in the last K block.
constexpr llvm::StringLiteral kKBlockLoopAttr = "shardc.gemm_k_blocks";

/// The elementwise generic that can be computed in `op`'s tiles, or null:
/// C is an allocation read only by it (besides `op`, a zero fill before
/// `op`, and its deallocation), with an identity map; the generic's other
/// inputs are read through projected permutations, its outputs are other
/// fresh allocations or the entry's outputs (which overlap nothing,
/// CpuTarget.h) written through identity maps, its body is
/// elementwise, and only allocations and ops without memory effects lie
/// between `op` and it.
mlir::linalg::GenericOp findEpilogue(mlir::linalg::MatmulOp op);

/// Moves the allocations `epilogue` uses that lie between `op` and it to
/// before `op`, where the tiles will write them.
void hoistEpilogueAllocs(mlir::RewriterBase &rewriter, mlir::linalg::MatmulOp op,
                         mlir::linalg::GenericOp epilogue);

/// The linalg.generic that reads `c` (after the recipe's rewrites), or null
/// when there is not exactly one.
mlir::linalg::GenericOp epilogueReading(mlir::Value c);

/// Whether the store `write` of a full tile can take the epilogue: inside
/// a marked K block loop, or `singleKBlock`.
bool canFuseIntoTile(mlir::vector::TransferWriteOp write, bool singleKBlock);

/// Replaces `write`, the store of a full tile of C, as in the header.
void fuseIntoTile(mlir::RewriterBase &rewriter, mlir::vector::TransferWriteOp write,
                  mlir::linalg::GenericOp epilogue, mlir::Value c);

/// Replaces `epilogue` by its restriction to C's edges: the rows from the
/// last multiple of `mr`, then the other rows' columns from the last
/// multiple of `nr`.
void restrictToEdges(mlir::RewriterBase &rewriter, mlir::linalg::GenericOp epilogue,
                     mlir::Value c, int64_t mr, int64_t nr);

} // namespace shardc::gemm

#endif // SHARDC_COMPILER_TARGETS_GEMMEPILOGUE_H
