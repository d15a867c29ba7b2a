//===- StagedOperands.h - a contraction's operands into shared tiles -*- C++ -*-===//
//
// How gpu-stage-contractions' block program copies each K chunk of a
// contraction's operands into its shared tiles: which thread copies which
// elements, 16-byte runs where the operand's layout allows (checked once
// per tile at run time), zeros past an edge, and TF32 rounding for the
// tensor cores. A copy is two halves, fetch (global loads into values)
// and deposit (those values into the shared tile), so that a kernel can
// fetch a chunk ahead of the one it computes.
//
// The code it writes may run inside the tensor cores' warp code, which
// upstream's mma rewriting walks: its index math is affine.apply, and it
// uses no arith.addi, muli, subi, divsi or divui, which that rewriting
// would take for matrix ops.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_GPU_STAGEDOPERANDS_H
#define SHARDC_COMPILER_TARGETS_GPU_STAGEDOPERANDS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

namespace shardc::gpu {

/// Threads of a staged block: 16 x 16.
constexpr int64_t kThreadsPerDim = 16;
constexpr int64_t kThreads = kThreadsPerDim * kThreadsPerDim;
static_assert(kThreads == 256);

/// Bytes of one element of `elem`.
int64_t bytesOf(mlir::Type elem);

/// A zero of `elem`.
mlir::Value zeroOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elem);

/// The op's loops by role (one M, N and K loop; the rest batch), and its
/// operands: A the input that holds M, B the one that holds N. TM x TN
/// outputs a thread on the SIMT cores; `mma` on the tensor cores.
struct Contraction {
  mlir::linalg::LinalgOp op;
  unsigned m, n, k;
  mlir::OpOperand *a, *b, *c;
  int64_t bm, bn, bk, tm, tn;
  bool mma;

  /// The indices of `operand` at loop values `ivs` (batch loops at 0: a
  /// block tile holds one batch element).
  llvm::SmallVector<mlir::Value> at(mlir::OpOperand *operand, llvm::ArrayRef<mlir::Value> ivs) {
    llvm::SmallVector<mlir::Value> indices;
    mlir::AffineMap map = op.getMatchingIndexingMap(operand);
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      indices.push_back(ivs[map.getDimPosition(r)]);
    return indices;
  }
};


/// An operand as the staging sees it: the operand, its shared tile (rows
/// of K, or rows of its tile loop), its tile loop, the tile's length and
/// the loop's extent in this block tile (shorter at an edge), and
/// OperandStaging::vectorReadable's i1 (or null).
struct Staged {
  mlir::OpOperand *operand;
  mlir::Value shared;
  unsigned loop;
  int64_t tile;
  mlir::Value extent;
  bool kRows;
  mlir::Value readable;
};

/// The copies of one contraction's operands (see the file comment).
class OperandStaging {
public:
  explicit OperandStaging(Contraction &c) : c(c) {}

  /// Whether 16-byte runs of `operand` along its innermost dim may be
  /// read as one vector load: an i1 computed once, in the block's code,
  /// or null when the shape rules it out statically. The innermost dim
  /// must be one the staging walks fastest (K, or the operand's tile loop
  /// `loop`) with a stride of 1, the other strides whole 16-byte
  /// multiples, and the tile's first element 16-byte aligned (its aligned
  /// pointer plus offset), so that every run starting at a multiple of the
  /// vector width is aligned too.
  mlir::Value vectorReadable(mlir::OpBuilder &b, mlir::OpOperand *operand, unsigned loop);

  /// Elements of a 16-byte run of the shared tile's element type.
  static int64_t runWidth(const Staged &x);

  /// Whether a thread copies `x` by 16-byte runs (vectorReadable allows it,
  /// and the chunk's fast dim and per-thread share hold whole runs).
  bool byRuns(const Staged &x);

  /// Thread `t`'s share of the chunk [k0, k0 + kc) of `x`, read from the
  /// operand, walking its innermost dim first so neighbouring threads read
  /// neighbouring addresses: by runs (byRuns), runs t, t + 256, ..., each
  /// one 16-byte load when it lies inside the operand and `readable`
  /// holds, else element by element (zeros past an edge); otherwise
  /// elements t, t + 256, ... one by one. f32 operands of the tensor
  /// cores come back rounded to TF32. deposit writes the pieces.
  llvm::SmallVector<mlir::Value> fetch(mlir::OpBuilder &b, mlir::Value t, mlir::Value k0,
                                       mlir::Value kc, const Staged &x);

  /// Thread `t`'s pieces of a chunk of `x` (fetch) into its shared tile: a
  /// run as one aligned 16-byte store when the shared rows run the same
  /// way as the operand's (rows are padded to 16-byte multiples, runs
  /// start at multiples of their width), else element by element (the
  /// transposing case).
  void deposit(mlir::OpBuilder &b, mlir::Value t, llvm::ArrayRef<mlir::Value> pieces,
               const Staged &x);

  /// Thread `t`'s share of copying the chunk [k0, k0 + kc) of `x` into its
  /// shared tile: fetch, then deposit.
  void stage(mlir::OpBuilder &b, mlir::Value t, mlir::Value k0, mlir::Value kc, const Staged &x) {
    deposit(b, t, fetch(b, t, k0, kc, x), x);
  }

private:
  Contraction &c;

  /// Whether the operand's innermost dim is K (else its tile loop).
  bool kFastest(const Staged &x);

  /// Where element `e` (an affine function of the thread t, dim 0) of a
  /// chunk of `x` lies: its K and tile-loop indices in the chunk.
  std::pair<mlir::Value, mlir::Value> chunkPosition(mlir::OpBuilder &b, const Staged &x,
                                                    mlir::Value t, mlir::AffineExpr e);
};

} // namespace shardc::gpu

#endif // SHARDC_COMPILER_TARGETS_GPU_STAGEDOPERANDS_H
