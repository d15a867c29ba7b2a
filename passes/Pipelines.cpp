//===- Pipelines.cpp - the phases, narrated --------------------------------===//
#include "passes/Pipelines.h"

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace shardc {

void buildGlobalPhase(OpPassManager &pm, const GlobalPhaseOptions &options) {
  // Composites first (a mean is a sum and a division by its global count),
  // so adjoints reuse the forward pass's sums instead of recomputing them,
  // and each is reduced across devices once.
  pm.addNestedPass<func::FuncOp>(createGArrayDecompose());
  // One value reduced the same way twice (a log-softmax's max and an
  // argmax's) is reduced once, before autodiff, so its adjoint is too.
  pm.addNestedPass<func::FuncOp>(createGArrayShareReductions());
  // Training steps are differentiated on the global program: the gradient
  // is the derivative of what the user wrote, never of a local objective.
  pm.addPass(createGArrayAutodiff());
  // Optimizer updates become plain garray ops, so every later phase sees
  // one ordinary global program.
  pm.addNestedPass<func::FuncOp>(createGArrayExpandOptimizers());
  // A weight shared by the steps of an unrolled loop gets its gradient as a
  // sum of one small product per step: one product of the stacked operands
  // instead.
  pm.addNestedPass<func::FuncOp>(createGArrayStackSummedDots());
  // The loop's steps also multiply each step's input by one weight: those
  // small products, none depending on another, are one product of the
  // stacked inputs.
  pm.addNestedPass<func::FuncOp>(createGArrayStackSharedOperandDots());
  // The mesh sizes of this build: one model compiles for any device count.
  if (!options.meshSizes.empty()) {
    GArraySetMeshOptions o;
    o.sizes = options.meshSizes;
    pm.addPass(createGArraySetMesh(o));
  }
  pm.addPass(createGArrayVerifyGlobal());
}

void buildPropagationPhase(OpPassManager &pm, const PropagationPhaseOptions &options) {
  // Devices along a mesh axis that nothing is placed on would repeat each
  // other's work: the split inputs are split over it too.
  if (options.splitIdleAxes)
    pm.addPass(createGArraySplitIdleAxes());
  // Stencils written with slice and pad are read as shifts before anything
  // is placed, so a split dim becomes a halo exchange, not a gather.
  pm.addNestedPass<func::FuncOp>(createGArrayRecognizeShifts());
  // Every value's sharding, to a fixed point; with `explain`, where it came
  // from.
  GArrayPropagateOptions propagate;
  propagate.explain = options.explain;
  pm.addPass(createGArrayPropagate(propagate));
  // Training state replicated over an axis is updated in parts along it:
  // the gradient reduce-scattered, the new weight gathered.
  if (options.shardOptimizerState) {
    GArrayShardOptimizerStateOptions shard;
    shard.minElements = options.shardStateMinElements;
    pm.addPass(createGArrayShardOptimizerState(shard));
  }
  pm.addPass(createGArrayVerifyPropagated());
}

void buildPartitionPhase(OpPassManager &pm) {
  // Reshards where an op's rule disagrees with its operands (pending
  // partials included), then the planner's collectives for each.
  pm.addPass(createGArrayInsertReshards());
  pm.addPass(createGArrayReshardToCollectives());
  pm.addPass(createGArrayVerifyPartitioned());
}

void buildLocalPhase(OpPassManager &pm, const LocalPhaseOptions &options) {
  // Local types, comm collectives over device groups, masks for uneven
  // shards; nothing global may survive it.
  pm.addPass(createGArrayGlobalToLocal());
  pm.addPass(createGArrayVerifyLocal());
  // Independent all-reduces over the same groups travel together: one
  // latency instead of one per gradient.
  CommCombineAllReducesOptions combine;
  combine.maxBytes = options.combineBytes;
  pm.addPass(createCommCombineAllReduces(combine));
  // The runtime's NCCL backend has no 16-bit integers to reduce.
  pm.addPass(createCommWidenNarrowReductions());
}

void buildLoweringPhase(OpPassManager &pm) {
  // Compute to linalg (fused and bufferized by the target), collectives to
  // calls into shardrt's C ABI.
  pm.addPass(createGArrayLowerToLinalg());
  pm.addPass(createCommLowerToRuntime());
}

namespace {
struct GlobalPhasePipelineOptions : PassPipelineOptions<GlobalPhasePipelineOptions> {
  Option<std::string> mesh{*this, "mesh",
                           llvm::cl::desc("mesh sizes, e.g. data=2,model=4 (default: the model's)")};
};
struct PropagationPhasePipelineOptions : PassPipelineOptions<PropagationPhasePipelineOptions> {
  Option<bool> explain{*this, "explain", llvm::cl::desc("one remark per value: its origin"),
                       llvm::cl::init(false)};
  Option<bool> splitIdleAxes{*this, "split-idle-axes",
                             llvm::cl::desc("split inputs over mesh axes no placement names"),
                             llvm::cl::init(true)};
  Option<bool> shardOptimizerState{
      *this, "shard-optimizer-state",
      llvm::cl::desc("split the update of training state replicated over mesh axes"),
      llvm::cl::init(false)};
};
} // namespace

void registerPhasePipelines() {
  PassPipelineRegistration<GlobalPhasePipelineOptions>(
      "shardc-global-phase", "The global phase: composites, autodiff, optimizers, mesh sizes",
      [](OpPassManager &pm, const GlobalPhasePipelineOptions &o) {
        buildGlobalPhase(pm, GlobalPhaseOptions{o.mesh});
      });
  PassPipelineRegistration<PropagationPhasePipelineOptions>(
      "shardc-propagation-phase", "The propagation phase: shifts, every value's sharding",
      [](OpPassManager &pm, const PropagationPhasePipelineOptions &o) {
        PropagationPhaseOptions options;
        options.explain = o.explain;
        options.splitIdleAxes = o.splitIdleAxes;
        options.shardOptimizerState = o.shardOptimizerState;
        buildPropagationPhase(pm, options);
      });
  PassPipelineRegistration<>("shardc-partition-phase",
                             "The partitioning phase: reshards, then collectives",
                             buildPartitionPhase);
  PassPipelineRegistration<>(
      "shardc-local-phase", "The local phase: each device's program",
      [](OpPassManager &pm) { buildLocalPhase(pm, LocalPhaseOptions()); });
  PassPipelineRegistration<>("shardc-lowering-phase",
                             "Local compute to linalg, collectives to runtime calls",
                             buildLoweringPhase);
}

} // namespace shardc
