//===- UnevenShards.h - padding of uneven shards in the local program --*- C++ -*-===//
//
// Under the ceil layout a dimension of size n split over k shards gives every
// device a local block of s = ceil(n/k) elements: shard i holds the global
// elements [i*s, i*s + valid_i) with valid_i = clamp(n - i*s, 0, s), and the
// rest of its block is *padding*. Trailing shards are short or empty:
//
//   n = 5, k = 4:  s = 2, valid = 2, 2, 1, 0
//   n = 5, k = 8:  s = 1, valid = 1, 1, 1, 1, 1, 0, 0, 0
//
// Padding holds whatever the ops computed from it (an input's padding is
// zero, but log(0) = -inf and 0/0 = NaN follow), so it must never reach a
// result. Elementwise ops, broadcasts and transposes keep padding where it
// is, and function results are gathered without it (shardrt_gather reads
// valid elements only). Three places can move padding into valid data, and
// this file is what global-to-local does about each:
//
//   1. A reduction over a sharded dim (the Reduction factors of an op's
//      factor rule: reduce, dot_general's contracting dim, scatter_add's
//      positions, and through decomposition mean, argmax/argmin and
//      log-sum-exp) would combine padding. Each such operand is masked
//      first: select(iota(dim) < valid, x, identity), with `valid` this
//      device's entry of a per-device table (comm.device_value) and the
//      identity of the rule's reduction kind (0 for sum, -inf for max, +inf
//      for min, 1 for prod; the dtype's extremes for integers, false/true for
//      i1). One mechanism for every op, read from the factor rule: the pass
//      still never switches on op kinds. argmax/argmin need nothing more:
//      their max is masked with -inf and their min over candidate indices
//      with INT_MAX, so padded positions always lose.
//   2. all_gather concatenates padded blocks: with the ceil layout the valid
//      elements come first, so a full gather keeps elements [0, n).
//      all_slice pads the whole dim to k*s before keeping block i.
//   3. An op that merges or splits a dim (a reshape [5,4]->[20]) would mix
//      padding into the middle of another dim's blocks: rejected with an
//      error naming the op, dim, axes and a fix (planPaddingMasks).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_LOCAL_UNEVENSHARDS_H
#define SHARDC_PASSES_LOCAL_UNEVENSHARDS_H

#include "dialects/garray/GArray.h"
#include "sharding/Sharding.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace shardc {

/// One operand dim whose padding an op must not read.
struct PaddingMask {
  unsigned operand = 0;
  int64_t dim = 0;
  /// Valid elements of this dim on each device (indexed by device id).
  llvm::SmallVector<int64_t> valid;
  Reduction kind = Reduction::Sum;
};

/// Valid elements of a dim of global size `n` split over `axes`, per device.
llvm::SmallVector<int64_t> validPerDevice(const Mesh &mesh, const std::vector<int> &axes,
                                          int64_t n);

/// Whether a value of a given (type, sharding) splits every dim evenly over
/// its mesh axes, remembered per pair for one mesh: a large program repeats
/// a few pairs on every op, and global-to-local asks once per value. Pass
/// one to planPaddingMasks per (function, mesh); attributes and types are
/// uniqued, so the key is exact. Neighbouring values usually repeat the
/// last pair, which is answered without a lookup.
struct EvenSplitMemo {
  llvm::DenseMap<std::pair<mlir::Type, mlir::Attribute>, bool> answers;
  std::pair<mlir::Type, mlir::Attribute> last;
  bool lastAnswer = false;
};

/// Whether every argument of `func` and every result of its ops splits each
/// of its dims evenly (or not at all). Then no op of it needs a padding mask
/// (every operand is some argument or result), and this asks once per value
/// where planPaddingMasks asks once per use.
bool allSplitEvenly(mlir::func::FuncOp func, mlir::garray::MeshOp mesh, const Mesh &core,
                    EvenSplitMemo &memo);

/// Reads `op`'s factor rule while the program is still global (shardings on
/// the values, global shapes) and lists the operand dims that a sharded
/// Reduction factor reads with padding. Fails, with an error on `op`, when an
/// unevenly split dim is merged with or split into other dims by the op.
/// `memo`, when given, must only ever be used with this `mesh`.
llvm::FailureOr<llvm::SmallVector<PaddingMask>>
planPaddingMasks(mlir::Operation *op, mlir::garray::MeshOp mesh, const Mesh &core,
                 EvenSplitMemo *memo = nullptr);

/// An i1 tensor of `shape` in the local program: true where this device's
/// local index along `dim` is in [lo[device], hi[device]), tables indexed by
/// device id and read with comm.device_value. An empty table is no bound,
/// and so is one that holds on every device (lo <= 0, hi >= the local size);
/// null when no bound remains. Padding masks use [0, valid); a shift keeps
/// the elements whose source index is inside the array (LocalizeShift.h).
mlir::Value localIndexInRange(mlir::OpBuilder &b, mlir::Location loc,
                              llvm::ArrayRef<int64_t> shape, int64_t dim,
                              llvm::ArrayRef<int64_t> lo, llvm::ArrayRef<int64_t> hi);


/// select(iota(dim) < valid[device], x, identity) on the local value `x`.
mlir::Value maskPadding(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                        const PaddingMask &mask);

} // namespace shardc

#endif // SHARDC_PASSES_LOCAL_UNEVENSHARDS_H
