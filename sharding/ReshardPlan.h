//===- ReshardPlan.h - from one sharding to another, as collectives -*- C++ -*-===//
//
// A reshard is a diff between two shardings of the same global value. The
// planner turns it into an ordered list of collectives, each of which keeps
// the global value unchanged and moves the local layout one step closer. The
// moves it may use, with their byte cost per device under a ring model (B is
// the local buffer in bytes before the step, B_out after it, n the size of the
// step's device group, i.e. the product of its mesh axes):
//
//   all_reduce          pending axes R -> reduced          2(n-1)/n · B
//   reduce_scatter      pending axes S -> reduced, and S   (n-1)/n · B
//                       appended (minor) to one dim: an
//                       all_reduce + all_slice fused
//   all_to_all          trailing axes E of dim a move to   (n-1)/n · B
//                       the end of dim b (gather-free)
//   all_gather          drop the trailing axes of a dim    (n-1)/n · B_out
//   all_slice           append unused axes to a dim        0 (local)
//   collective_permute  any layout with the same number    B
//                       of blocks per dim (e.g. a dim's
//                       axes reordered ("x","y")->("y","x"),
//                       or a dim moved from "x" to "y"):
//                       explicit source->target pairs
//
// Worked example, [8,4] f32 on ["x"=2]: P("x", None) -> P(None, "x") is one
// all_to_all (dim 0 -> dim 1) of (1/2)·64 = 32 bytes, where gather-then-slice
// would move (1/2)·128 = 64.
//
// Search. The plan is a cheapest path (Dijkstra, bytes first, then number of
// steps) over layouts, from the source to the target, using the moves above
// restricted to those that lead towards the target: a slice, reduce-scatter
// or all_to_all only ever appends axes so that the dim's list becomes a
// prefix of the target's; a permute only goes straight to the target (and
// only for values without pending axes, whose blocks are whole). Gathers
// and all_reduce are unrestricted. The gather-then-slice plan is one such
// path, so the chosen plan never moves more bytes than it; that is the
// fallback when the search gives up (more than kMaxSearchStates layouts).
//
// Invariants of every plan: each step's `after` is a valid closed layout;
// after the last step the layout equals the target's; a step names its
// device groups through mesh axes only (a permute also lists its pairs: each
// device is the target of exactly one pair, and source of exactly one);
// pending axes are only ever removed, never added.
//
// Cost in the device count n: the search visits layouts, not devices (its
// size depends on the mesh rank and the tensor rank only); a permute's pairs
// are written once, for the plan kept, by one counting sort over the
// devices' block ids, O(n); Mesh::groups is O(n x mesh rank). A
// 65,536-device mesh plans and verifies a 65,536-pair permute in about
// 20 ms (bench/compile/memory.sh).
//
// Uneven dims (the ceil layout pads): reduce_scatter and all_to_all are only
// used where the local dims they cut or join divide exactly, so every step's
// local types are the padded local types of its layouts; elsewhere the plan
// gathers and slices.
//
// The target may not be pending over an axis the source is not pending over
// (a pending value cannot be made from a reduced one without a scale), nor be
// a pending value of a different kind; both are reported as errors.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SHARDING_RESHARDPLAN_H
#define SHARDC_SHARDING_RESHARDPLAN_H

#include "sharding/Sharding.h"

#include <string>
#include <utility>
#include <vector>

namespace shardc {

struct CollectiveStep {
  enum class Kind { AllReduce, AllGather, AllSlice, ReduceScatter, AllToAll, CollectivePermute };
  Kind kind;
  /// AllGather / AllSlice / ReduceScatter: the dim that loses or gains axes.
  /// AllToAll: the dim that loses `axes` (locally concatenated).
  int dim = -1;
  /// AllToAll only: the dim that gains `axes` (locally split).
  int toDim = -1;
  /// The mesh axes of the step's device groups. For a permute: every axis the
  /// source or target layout uses (for reports; the pairs say who sends).
  std::vector<int> axes;
  Reduction reduction = Reduction::Sum; // for AllReduce / ReduceScatter
  /// CollectivePermute only: (source device, target device), one per device.
  std::vector<std::pair<int64_t, int64_t>> pairs;
  /// Sharding of the value after this step.
  TensorSharding after;
  int64_t bytesPerDevice = 0;
};

const char *collectiveName(CollectiveStep::Kind k);

/// The ring model's bytes per device (the file comment's table) of one
/// collective of `kind` over a group of `n` devices whose local buffer has
/// `in` bytes before it and `out` bytes after it.
int64_t ringBytes(CollectiveStep::Kind kind, int64_t n, int64_t in, int64_t out);

struct ReshardPlan {
  std::vector<CollectiveStep> steps;
  std::string error; // non-empty when no plan exists
  int64_t totalBytes() const;
};

/// The cheapest plan (see the file comment). With `listPairs` false, a
/// collective_permute step leaves `pairs` empty: callers that only weigh a
/// plan (totalBytes) skip the O(devices) pairing.
ReshardPlan planReshard(const TensorSharding &from, const TensorSharding &to, const Mesh &mesh,
                        const std::vector<int64_t> &shape, int64_t elementBytes,
                        bool listPairs = true);

/// The plan with only all_reduce, all_gather and all_slice: reduce, gather
/// every dim back to its common prefix with the target, slice. The baseline
/// planReshard() is never worse than.
ReshardPlan planGatherThenSlice(const TensorSharding &from, const TensorSharding &to,
                                const Mesh &mesh, const std::vector<int64_t> &shape,
                                int64_t elementBytes);

/// Pairs (source, target) so that every device of `mesh` receives the block
/// it holds under `to` from a device holding it under `from`; devices that
/// already hold their block send to themselves. Both layouts must split every
/// dim into the same number of blocks. Empty when no such pairing exists.
std::vector<std::pair<int64_t, int64_t>> permutePairs(const TensorSharding &from,
                                                      const TensorSharding &to,
                                                      const Mesh &mesh);

/// Upper bound on the layouts the search visits before it falls back.
constexpr int kMaxSearchStates = 20000;

} // namespace shardc

#endif // SHARDC_SHARDING_RESHARDPLAN_H
