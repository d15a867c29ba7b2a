//===- Pipelines.h - the phases as named pass pipelines ----------*- C++ -*-===//
//
// Each phase of the compiler is one pass list, built here and nowhere else:
// compiler/pipeline/Pipeline.cpp runs them one after another (reading the
// report between them), and shardc-opt offers each under its name, so a lit
// test runs a phase as the compiler does:
//
//   shardc-opt m.mlir --shardc-global-phase='mesh=data=4' \
//       --shardc-propagation-phase --shardc-partition-phase
//
//   shardc-global-phase       decompose, autodiff, expand-optimizers,
//                             set-mesh (with `mesh`), verify-global
//   shardc-propagation-phase  split-idle-axes, recognize-shifts, propagate,
//                             shard-optimizer-state, verify-propagated
//   shardc-partition-phase    insert-reshards, reshard-to-collectives,
//                             verify-partitioned
//   shardc-local-phase        global-to-local, verify-local
//   shardc-lowering-phase     lower-to-linalg, comm-lower-to-runtime
//
// Every phase ends with its verify gate (passes/verify/), which states the
// invariant the next phase relies on.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PIPELINES_H
#define SHARDC_PASSES_PIPELINES_H

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace shardc {

struct GlobalPhaseOptions {
  /// "data=2,model=4": overrides the mesh sizes the model declares ("" keeps them).
  std::string meshSizes;
};

struct PropagationPhaseOptions {
  /// Emit one remark per value: its sharding and where it came from.
  bool explain = false;
  /// garray-split-idle-axes: inputs are split over the mesh axes no
  /// placement names, so their devices share the work.
  bool splitIdleAxes = true;
  /// garray-shard-optimizer-state: the update of training state that is
  /// replicated over mesh axes is split over them (ZeRO's first stage), for
  /// state of at least `shardStateMinElements` elements.
  bool shardOptimizerState = false;
  int64_t shardStateMinElements = 16384;
};

void buildGlobalPhase(mlir::OpPassManager &pm, const GlobalPhaseOptions &options);
void buildPropagationPhase(mlir::OpPassManager &pm, const PropagationPhaseOptions &options);
struct LocalPhaseOptions {
  /// comm-combine-all-reduces: the largest combined all-reduce, bytes per
  /// device (0: do not combine).
  int64_t combineBytes = int64_t(4) << 20;
};

void buildPartitionPhase(mlir::OpPassManager &pm);
void buildLocalPhase(mlir::OpPassManager &pm, const LocalPhaseOptions &options);
void buildLoweringPhase(mlir::OpPassManager &pm);

/// Registers the five phases as named pipelines (for shardc-opt).
void registerPhasePipelines();

} // namespace shardc

#endif // SHARDC_PASSES_PIPELINES_H
