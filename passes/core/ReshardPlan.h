//===- ReshardPlan.h - from one sharding to another, as collectives -*- C++ -*-===//
//
// A reshard is a diff between two shardings of the same global value. The
// planner turns it into an ordered list of collectives, each of which keeps
// the global value unchanged and moves the local layout one step closer:
//
//   all_reduce  over the pending axes the target no longer has;
//   all_gather  dim d over the trailing axes of d the target does not keep;
//   all_slice   dim d over the trailing axes the target adds (local, no
//               communication: each device keeps its part).
//
// Invariants: the steps run in that order (reduce before anything reads the
// value, gathers before slices so an axis is free before it is reused); after
// the last step the layout equals the target's; every step names its device
// groups through mesh axes only. Each step carries its byte cost per device
// under a ring model: all_reduce 2(n-1)/n·B, all_gather (n-1)/n·B_out,
// all_slice 0, where B is the local buffer in bytes and n the group size.
//
// The target may not be pending over an axis the source is not pending over
// (a pending value cannot be made from a reduced one without a scale); that is
// reported as an error.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_CORE_RESHARDPLAN_H
#define SHARDC_PASSES_CORE_RESHARDPLAN_H

#include "passes/core/Sharding.h"

#include <string>
#include <vector>

namespace shardc {

struct CollectiveStep {
  enum class Kind { AllReduce, AllGather, AllSlice };
  Kind kind;
  int dim = -1; // for AllGather / AllSlice
  std::vector<int> axes;
  Reduction reduction = Reduction::Sum; // for AllReduce
  /// Sharding of the value after this step.
  TensorSharding after;
  int64_t bytesPerDevice = 0;
};

const char *collectiveName(CollectiveStep::Kind k);

struct ReshardPlan {
  std::vector<CollectiveStep> steps;
  std::string error; // non-empty when no plan exists
};

ReshardPlan planReshard(const TensorSharding &from, const TensorSharding &to, const Mesh &mesh,
                        const std::vector<int64_t> &shape, int64_t elementBytes);

} // namespace shardc

#endif // SHARDC_PASSES_CORE_RESHARDPLAN_H
