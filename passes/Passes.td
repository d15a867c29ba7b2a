//===- Passes.td - every shardc pass, in pipeline order ----*- tablegen -*-===//
//
// The phases (passes/Pipelines.h registers each as a named pipeline, and
// compiler/pipeline/Pipeline.cpp runs them):
//   global       decompose, autodiff, expand-optimizers, set-mesh, verify-global
//   propagated   recognize-shifts, propagate, verify-propagated
//   partitioned  insert-reshards, reshard-to-collectives, verify-partitioned
//   local        global-to-local, verify-local
//   lowering     lower-to-linalg, comm-lower-to-runtime
// Each pass has its own .cpp named after it; each phase ends with a verify
// gate that states the phase's invariant.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_TD
#define SHARDC_PASSES_TD

include "mlir/Pass/PassBase.td"

def GArrayAutodiff : Pass<"garray-autodiff", "::mlir::ModuleOp"> {
  let summary = "Expand value_and_grad by reverse mode on the global program";
  let description = [{
    Runs first, before any sharding is derived: the gradient is the
    derivative of the *global* function, so it is never a local objective,
    and partitioning later treats the adjoint ops like any others (the
    gradient of a replicated weight over a sharded batch becomes a pending
    sum, reduced once). Each `garray.value_and_grad` is replaced by a copy of
    its callee's body and, in reverse order, the adjoint of every op on a
    path from a `wrt` argument to the loss (VjpOpInterface, VjpRules.cpp);
    cotangents of a value used several times are added.

    ```mlir
    %l, %g = garray.value_and_grad @loss(%x) wrt [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
    // with @loss(%x) = reduce <sum> (%x * %x)
    →
    %sq = garray.mul %x, %x : tensor<4xf32>
    %l = garray.reduce <sum> %sq, dims = [0] : (tensor<4xf32>) -> tensor<f32>
    %one = garray.constant dense<1.0> : tensor<f32>
    %gs = garray.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %g = garray.add (garray.mul %gs, %x), (garray.mul %gs, %x)
    ```
    A differentiated op without an adjoint is an error naming it and its
    location. Private callees left without uses are erased. Then every
    `garray.stop_gradient` (whose adjoint is no cotangent at all) is replaced
    by its operand: it means something to differentiation only.
  }];
}

def GArrayExpandOptimizers : Pass<"garray-expand-optimizers", "::mlir::func::FuncOp"> {
  let summary = "Expand optimizer updates and gradient clipping into garray ops";
  let description = [{
    `sgd_update`, `momentum_update`, `adam_update` and `clip_by_global_norm`
    become elementwise garray ops and, for the clipping norm, global sum
    reductions, before propagation (so a moment may be sharded like any
    value, and a norm over sharded gradients is a pending sum reduced once).
    An update reads its gradient through a `sharding_constraint` to the
    parameter's declared placement, so a pending gradient is reduced once
    for all of the update's uses.

    ```mlir
    %w1 = garray.sgd_update %w, %g {lr = 0.1 : f64} : tensor<2xf32>
    →
    %lr = garray.constant dense<1.000000e-01> : tensor<2xf32>
    %s = garray.mul %g, %lr : tensor<2xf32>
    %w1 = garray.sub %w, %s : tensor<2xf32>
    ```
  }];
}

def GArrayStackSummedDots : Pass<"garray-stack-summed-dots", "::mlir::func::FuncOp"> {
  let summary = "Sum products over their leading dims as one product of stacks";
  let description = [{
    A weight shared by every step of an unrolled loop (JAX's `lax.scan`, a
    recurrent cell) gets its gradient as a sum of one product per step, each
    contracting the step's batch rows: `dW = x0ᵀ·g0 + x1ᵀ·g1 + ...`. Each
    product is a small GEMM (K = the batch) that reads and writes all of dW.
    The same sum is one product of the stacked operands, contracting the new
    stack dim with the old ones (K = steps · batch):

    ```mlir
    %p0 = garray.dot_general %x0, %g0, batch = [] x [], contracting = [0] x [0]
            : (tensor<32x64xf32>, tensor<32x128xf32>) -> tensor<64x128xf32>
    %p1 = garray.dot_general %x1, %g1, ... (the same types)
    %s = garray.add %p0, %p1 : tensor<64x128xf32>
    →
    %a = garray.concatenate (%x0, %x1 reshaped to 1x32x64), dim = 0 : ... -> tensor<2x32x64xf32>
    %b = garray.concatenate (%g0, %g1 reshaped to 1x32x128), dim = 0 : ... -> tensor<2x32x128xf32>
    %s = garray.dot_general %a, %b, batch = [] x [], contracting = [0, 1] x [0, 1]
            : (tensor<2x32x64xf32>, tensor<2x32x128xf32>) -> tensor<64x128xf32>
    ```
    A tree of `garray.add`s whose inner adds have no other use is one sum;
    its terms that are such products (alone, or each through the same
    `garray.transpose`) with the same operand types and contracting dims
    become one term, in the place of the first. Only products without batch
    dims that contract each operand's leading dims qualify: the stacked
    contracting dims are then leading and contiguous, so the product is one
    GEMM of the stacks as they lie, and a dim split over a mesh axis stays a
    pending sum reduced once. Ops carrying a sharding the user wrote are left
    alone. The sum is reassociated (the float result may differ in the last
    bits), as a blocked GEMM reassociates its own K. Products that contract
    more than 256 elements are left alone: they already amortize their
    result's reads and writes, and stacking would only copy their operands.
  }];
}

def GArrayStackSharedOperandDots
    : Pass<"garray-stack-shared-operand-dots", "::mlir::func::FuncOp"> {
  let summary = "Small products that share an operand as one product of stacks";
  let description = [{
    An unrolled loop (JAX's `lax.scan`, a recurrent cell) multiplies each
    step's input by the same weight: `x0·Wx`, `x1·Wx`, ... Each is a small
    GEMM (a [32, 64] by [64, 128] one per step) that runs far below the
    kernel's rate, and each is one more dispatch to the kernel threads.
    They are one product of the inputs stacked along a new dim, and a
    slice of it for each:

    ```mlir
    %x0 = garray.reshape %s0 : (tensor<1x32x64xf32>) -> tensor<32x64xf32>
    %p0 = garray.dot_general %x0, %w, batch = [] x [], contracting = [1] x [0]
            : (tensor<32x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
    ... (%p0 feeds the recurrence)
    %x1 = garray.reshape %s1 : (tensor<1x32x64xf32>) -> tensor<32x64xf32>
    %p1 = garray.dot_general %x1, %w, ... (the same types)
    →
    %x0 = ..., %x1 = ... (moved up)
    %xs = garray.concatenate (%x0, %x1 reshaped to 1x32x64), dim = 0 : ... -> tensor<2x32x64xf32>
    %ps = garray.dot_general %xs, %w, batch = [] x [], contracting = [2] x [0]
            : (tensor<2x32x64xf32>, tensor<64x128xf32>) -> tensor<2x32x128xf32>
    %p0 = garray.reshape (garray.slice %ps [0:1]), %p1 = ... [1:2]
    ```
    A group is the products of one block without batch dims that share one
    operand value on the same side, with the same other-operand type and
    dims, none carrying a sharding the user wrote; groups sharing the rhs
    are formed first. The stacked product takes the place of the group's
    first member, so a member joins only if its other operand is computable
    there: defined before it, or made by at most four slice, reshape,
    transpose, broadcast or convert ops of such values, which move up to
    it. A member whose operand depends on an earlier member's result (the
    recurrence itself) stays as it is. The new dim goes right before the
    stacked operand's first free dim, so the stack is one GEMM operand as
    it lies (M = steps · batch for a stacked lhs, N = stacks · width for a
    stacked rhs) and a dim split over a mesh axis keeps its split. Each
    element is computed by the same contraction as before. Products of
    more than 2^22 multiply-adds are left alone (they already run at the
    kernel's rate; stacking would only copy), and so are stacks whose
    result would exceed 2^24 elements (every member's result is live from
    the first member on).
  }];
}

def GArraySetMesh : Pass<"garray-set-mesh", "::mlir::ModuleOp"> {
  let summary = "Give mesh axes their sizes (the driver's --mesh)";
  let description = [{
    Sizes written in the model are defaults; this pass overrides them so one
    model compiles for any device count.

    ```mlir
    // -garray-set-mesh="sizes=data=8"
    garray.mesh @mesh ["data" = 4]      →   garray.mesh @mesh ["data" = 8]
    ```
    An axis named in `sizes` that no mesh has is an error, as is a size < 1.
  }];
  let options = [
    Option<"sizes", "sizes", "std::string", "\"\"",
           "comma-separated axis=size pairs, e.g. data=2,model=4">,
  ];
}

def GArrayDecompose : Pass<"garray-decompose", "::mlir::func::FuncOp"> {
  let summary = "Expand composite ops into core ops with explicit global counts";
  let description = [{
    `garray.mean` becomes a sum and a division by the *global* element count,
    written as a constant, so no later phase can divide by a local count:

    ```mlir
    %m = garray.mean %x, dims = [0] : (tensor<8xf32>) -> tensor<f32>
    →
    %s = garray.reduce <sum> %x, dims = [0] : (tensor<8xf32>) -> tensor<f32>
    %n = garray.constant dense<8.0> : tensor<f32>
    %m = garray.div %s, %n : tensor<f32>
    ```
    Also, each written in global terms so that sharding cannot change it:
    - a weighted mean (`weights %w`) becomes `sum(x * w) / sum(w)`;
    - `argmax`/`argmin` become a max/min reduction (keepdims), a compare with
      it, a select of global indices (`garray.iota`, NaN positions included)
      against INT_MAX, and a min reduction: sharded, one max (min) and one
      min all-reduce combine (value, global index) pairs;
    - `scatter_add` with a base that is not a zero constant becomes
      `base + scatter_add(zeros, ...)`, so the base is added once however the
      index positions are sharded;
    - a `shard_map`'s boundary becomes constraints: each operand is pinned to
      its in_sharding and each result read through a constraint to its
      out_sharding, so the blocks its body receives and returns are never
      laid out another way.
    A sharding written on a composite moves to the op that defines its value.
  }];
}

def GArrayShareReductions : Pass<"garray-share-reductions", "::mlir::func::FuncOp"> {
  let summary = "Reduce a value once when several ops reduce it the same way";
  let description = [{
    A program often reduces one value the same way twice: a loss's
    log-softmax takes the max of the logits, and an accuracy metric's
    argmax (garray-decompose) takes it again; the two differ at most in
    `keepdims`. Over a sharded dim each would be a collective of its own.
    This pass keeps the first reduction of each (operand, kind, dims) in a
    block and replaces the later ones by it, through a `garray.reshape` that
    adds or drops the unit dims when `keepdims` differs:

    ```mlir
    %m = garray.reduce <max> %x, dims = [1] keepdims : (tensor<8x4xf32>) -> tensor<8x1xf32>
    %n = garray.reduce <max> %x, dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
    →
    %m = garray.reduce <max> %x, dims = [1] keepdims : (tensor<8x4xf32>) -> tensor<8x1xf32>
    %n = garray.reshape %m : (tensor<8x1xf32>) -> tensor<8xf32>
    ```
    The values are identical (the same reduction of the same operand), so
    nothing changes but the work: after partitioning, one collective.
    A later reduction that carries attributes of its own (a sharding the
    user wrote on it) is left alone.
  }];
}

def GArraySplitIdleAxes : Pass<"garray-split-idle-axes", "::mlir::ModuleOp"> {
  let summary = "Split the inputs over mesh axes no placement names";
  let description = [{
    A mesh axis that no sharding in the module names is idle: every value is
    replicated over it and its devices repeat each other's work. Each input
    of a public function that is already split over some dim is read
    through a constraint that appends the idle axes (minor) to its first
    split dim, when that dim divides evenly; propagation carries the finer
    split on, and the inputs' own placements do not change:

    ```mlir
    garray.mesh @mesh ["data" = 2, "model" = 2]
    func.func @main(%x: tensor<64x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    →
    %x2 = garray.sharding_constraint %x : tensor<64x8xf32>
            to #garray.sharding<@mesh, P(("data", "model"), None)>   // a local slice
    ```
    Left alone: inputs that feed back (a result with the same `garray.name`:
    training state), inputs split over no dim or with an open dim, and
    programs that place by hand (a `shard_map`, garray collectives,
    reshards, `comm` ops). A split dim keeps its priority.
  }];
}

def GArrayShardOptimizerState : Pass<"garray-shard-optimizer-state", "::mlir::ModuleOp"> {
  let summary = "Split the optimizer update of replicated training state";
  let description = [{
    After propagation. Training state replicated over a mesh axis (a
    weight's Adam moments on a "data" axis) is updated identically on every
    device along it. An update island, the elementwise ops of one shape
    around state arguments used only elementwise, with their elementwise
    producers used only inside it, is split over the axes it is replicated
    over instead, appended to the first dim they divide; the state
    arguments and the results fed back to them keep that split from step to
    step. Reshard insertion then reduce-scatters the pending gradient into
    the island and gathers the new weight out of it: the all-reduce's bytes,
    1/k of the update's work and of the state's memory (ZeRO's first
    stage).

    ```mlir
    garray.mesh @mesh ["data" = 4]
    func.func @main(%w: tensor<512x64xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(None, None)>},
                    %m: tensor<512x64xf32> {garray.name = "m", garray.sharding = #garray.sharding<@mesh, P(None, None)>}, ...)
    %m2 = garray.add %a, %b {garray.sharding = #garray.sharding<@mesh, P(None, None)>}
    →
    %m: ... {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
    %m2 = garray.add %a, %b {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
    ```
    Left alone: state of fewer than `min-elements` elements, islands whose
    values disagree on their sharding or that no replicated axis divides,
    islands where a value computed outside enters other than as a partial
    sum only the island reads (a gradient a global norm also needs is
    all-reduced anyway, and the weight's gather would come on top), and
    programs that place by hand.
  }];
  let options = [
    Option<"minElements", "min-elements", "int64_t", /*default=*/"16384",
           "the smallest state (elements) whose update is split: below it the "
           "collectives' latency costs more than the update">
  ];
}

def GArrayRecognizeShifts : Pass<"garray-recognize-shifts", "::mlir::func::FuncOp"> {
  let summary = "Read stencils written with slice and pad as shifts (halo exchanges)";
  let description = [{
    A slice that cuts one dim followed by a pad (or a concatenation with a
    splat constant) that restores its size is a shift of the original value
    when the fill lands exactly where `x[i - offset]` leaves `x`. Rewritten
    to `garray.shift`, a sharded dim stays sharded and the local program
    exchanges only the `|offset|` boundary elements with the neighbouring
    shards (`comm.collective_permute`) instead of gathering the whole dim:

    ```mlir
    %l = garray.slice %x, start = [0], limit = [15], strides = [1]
           : (tensor<16xf32>) -> tensor<15xf32>
    %r = garray.pad %l, %zero, low = [1], high = [0]
           : (tensor<15xf32>, tensor<f32>) -> tensor<16xf32>
    →
    %r = garray.shift %x, %zero, dim = 0, offset = 1
           : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
    ```
    Runs after garray-decompose and before propagation. Slices that do not
    rebuild a shift (a middle part, two cut dims, strides) are left alone.
  }];
}

def GArrayPropagate : Pass<"garray-propagate", "::mlir::ModuleOp"> {
  let summary = "Derive every value's sharding from a few annotations";
  let description = [{
    A worklist over factor rules (sharding/FactorMerge.h), forward and
    backward, to a fixed point: each step projects an op's operand and result
    shardings onto its factors, merges them and extends the *open* dims of
    each. The worklist runs in waves: the ops of a wave step against the state
    at its start and each value merges what they propose, so the result does
    not depend on op order (the nearer annotation wins; at equal distance the
    defining op holds against users, and users keep their common prefix).
    Annotated function arguments and results and `sharding_constraint`
    results are closed unless written with `?`. Afterwards every op result and
    argument carries a closed `garray.sharding`.

    ```mlir
    func.func @f(%X: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                 %w: tensor<2xf32>) -> tensor<8xf32> {
      %p = garray.dot_general %X, %w, ... : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
    →
      %p = garray.dot_general ... {garray.sharding = #garray.sharding<@mesh, P("data")>}
    ```
    An op without a sharding rule that touches a sharded value is an error
    naming the op, its location and the value.

    Steering (docs/propagation.md): per-dim priorities `P("data" p0, ?)` run
    in rounds, strongest first; within a round pass-through ops go before
    dots and reductions; `garray.sharding_group = N` on arguments or ops ties
    values to one sharding. With `explain`, every value gets a remark with
    its final sharding and the annotation and ops it came through:

    ```
    remark: %1 (garray.exp): P("data") <- argument %arg0 'X' annotated
            P("data", None) at m.mlir:3:9 via garray.dot_general (m.mlir:5:8)
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", "false",
           "emit a remark per value: its sharding and where it came from">,
  ];
}

def GArrayInsertReshards : Pass<"garray-insert-reshards", "::mlir::ModuleOp"> {
  let summary = "Make every op agree with its factor rule";
  let description = [{
    Walks each function in order, computing every value's actual layout,
    including *pending* (unreduced) axes: a sharded reduction factor makes
    its result pending; linear ops keep pending operands pending (see
    PendingFlow); every other consumer, every function result and every
    constraint gets a `garray.reshard` to the layout it needs.

    ```mlir
    %g = garray.dot_general %Xt, %r ... // contracting dim sharded on "data"
         {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>}
    %n = garray.sub %w, %g              // needs %g reduced
    →
    %g2 = garray.reshard %g : tensor<2xf32> to #garray.sharding<@mesh, P(None)>
    %n = garray.sub %w, %g2
    ```
  }];
}

def GArrayReshardToCollectives : Pass<"garray-reshard-to-collectives", "::mlir::ModuleOp"> {
  let summary = "Turn reshards into global collectives chosen by the planner";
  let description = [{
    Each `garray.reshard` becomes the collectives planReshard() chooses
    (sharding/ReshardPlan.h): all_reduce, all_gather, all_slice. A
    reshard between equal layouts disappears.

    ```mlir
    %g2 = garray.reshard %g : tensor<2xf32> to #garray.sharding<@mesh, P(None)>
    →
    %g2 = garray.all_reduce <sum> %g on @mesh ["data"] : tensor<2xf32>
    ```
    The planner also picks reduce_scatter, all_to_all and collective_permute
    where they move fewer bytes, e.g. P("x", None) -> P(None, "x"):

    ```mlir
    %t = garray.all_to_all %x, split_dim = 1, concat_dim = 0 on @mesh ["x"] : tensor<8x4xf32>
    ```
    A reshard whose only user is another reshard is planned as one diff when
    that is no more bytes (all_reduce + all_slice -> reduce_scatter), and
    rank-0 all_reduces that one op needs (same kind, axes, type) are packed
    into one all_reduce of their concatenation, placed before that op.
  }];
}

def GArrayGlobalToLocal : Pass<"garray-global-to-local", "::mlir::ModuleOp"> {
  let summary = "Rewrite the global program into each device's local program";
  let description = [{
    Types change here, once: every tensor takes its local (per-device) shape
    from its sharding under the ceil layout; global collectives become `comm`
    ops over explicit device groups; meshes and sharding attributes go away.

    ```mlir
    %X: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
    %g = garray.all_reduce <sum> %p on @mesh ["data"] : tensor<2xf32>
    →   (mesh ["data" = 4])
    %X: tensor<2x2xf32>
    %g = comm.all_reduce <sum> %p groups = [[0, 1, 2, 3]] : tensor<2xf32> -> tensor<2xf32>
    ```
    Values that depend on the device keep their global meaning: a
    `garray.iota` along a sharded dim adds its shard's global start, read
    from a per-device table:

    ```mlir
    %i = garray.iota dim = 0 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xi64>
    →   (mesh ["data" = 4])
    %l = garray.iota dim = 0 : tensor<2xi64>
    %o = comm.device_value [0, 2, 4, 6] : tensor<i64>
    %b = garray.broadcast_in_dim %o, dims = [] : (tensor<i64>) -> tensor<2xi64>
    %i = garray.add %l, %b : tensor<2xi64>
    ```
    Uneven shards (a dim of n over k devices: blocks of ceil(n/k), trailing
    ones short or empty) never let padding reach a result: an operand that a
    sharded reduction factor reads is masked with the reduction's identity,
    a full all_gather keeps the valid prefix, an all_slice pads first
    (passes/local/UnevenShards.h). 5 rows over 4 devices, before a sum:

    ```mlir
    %v = comm.device_value [2, 2, 1, 0] : tensor<i64>
    %m = garray.select (iota(0) < %v), %x, 0.0     // then garray.reduce <sum> %m
    ```
    A `garray.shard_map`, whose operands now have its body's block types, is
    replaced by a copy of its body (already local, collectives included),
    and the bodies are erased.
  }];
  let dependentDialects = ["::mlir::comm::CommDialect"];
}

def GArrayVerifyGlobal : Pass<"garray-verify-global", "::mlir::ModuleOp"> {
  let summary = "Gate: a global program has no composites, gradients or optimizer ops";
  let description = [{
    Ends the global phase. Invariant: every op later phases see is a core
    garray op. No `mean`, `argmax` or `argmin` is left (garray-decompose
    wrote them with explicit global counts and indices), no
    `value_and_grad` (garray-autodiff inlined the derivative) and no
    optimizer update or `clip_by_global_norm` (garray-expand-optimizers
    wrote them as elementwise ops and sums). Fails naming the first op that
    breaks it:

    ```
    error: verify-global: 'garray.mean' is a composite that garray-decompose
           should have written in core ops before propagation
    ```
  }];
}

def GArrayVerifyPropagated : Pass<"garray-verify-propagated", "::mlir::ModuleOp"> {
  let summary = "Gate: every tensor of a placed function has a closed sharding on a declared mesh";
  let description = [{
    Ends the propagation phase. Invariant, for every function propagation
    placed (one whose arguments, results or ops carry a sharding): every
    ranked tensor argument and op result carries a `garray.sharding` that
    names a `garray.mesh` of the module, has no open dim and no priority.
    Values of functions nothing placed carry none. Fails naming the value:

    ```
    error: verify-propagated: result #0 of 'garray.exp' has no sharding
    ```
  }];
}

def GArrayVerifyPartitioned : Pass<"garray-verify-partitioned", "::mlir::ModuleOp"> {
  let summary = "Gate: no reshard is left and no pending value reaches a non-linear user";
  let description = [{
    Ends the partitioning phase. Invariants: every `garray.reshard` and
    `garray.sharding_constraint` became collectives; a pending (unreduced)
    value is only read by ops whose factor rule lets that operand stay
    pending (its `PendingFlow`), and never by a public function's return,
    whose results are whole. Fails naming the op and operand:

    ```
    error: verify-partitioned: operand #0 of 'garray.exp' is pending
           (unreduced = sum("data")) but the op is not linear in it
    ```
  }];
}

def GArrayVerifyLocal : Pass<"garray-verify-local", "::mlir::ModuleOp"> {
  let summary = "Gate: a local program has no meshes, shardings or global collectives";
  let description = [{
    Fails, naming the offending op, if anything global survived
    global-to-local.
  }];
}

def GArrayLowerToLinalg : Pass<"garray-lower-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower local garray compute ops to linalg, arith and math";
  let description = [{
    Elementwise ops become `linalg.generic`s (fused later), broadcasts and
    reductions `linalg.generic`s with the matching indexing maps, dot_general
    a `linalg.matmul` / `linalg.batch_matmul` in the layout [B, M, K] x
    [B, K, N] (operands transposed and reshaped into it where needed; i1
    keeps a contraction `linalg.generic`), iota a generic over `linalg.index`,
    gather a generic that extracts clamped rows, scatter_add a loop nest over
    the index positions (insert_slice of row sums, so duplicates accumulate).
    Composites (mean, argmax, argmin) must have been decomposed: they are an
    error here.

    ```mlir
    %s = garray.add %a, %b : tensor<2xf32>
    →
    %s = linalg.generic {indexing_maps = [#id, #id, #id], ...} ins(%a, %b) outs(%e) { arith.addf }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::scf::SCFDialect"];
}

def CommCombineAllReduces : Pass<"comm-combine-all-reduces", "::mlir::ModuleOp"> {
  let summary = "Pack independent all-reduces into one collective per group, kind and dtype";
  let description = [{
    On the local program. In each block, all-reduces with the same device
    groups, reduction kind and element type are collected into buckets in
    the order their operands become ready (the position of the op that
    defines each operand). A bucket is closed when the next member would
    take it past `max-bytes`, when one of its results is read before the
    next member is ready, or when more than `overlap-work` arithmetic
    operations (2·M·N·K per contraction, else elements) lie between its
    first member's readiness and the next one's: its first member should
    then start without waiting, overlapping that work (all-reduces are
    asynchronous, comm-lower-to-runtime). Each bucket becomes one collective
    right after its last member's operand is computed; its operands are
    flattened and concatenated, reduced once, and each result is sliced
    back out just before its first use, so that the collective is finished
    as late as possible and what every value receives is unchanged
    (elementwise reductions do not mix elements). The combined op's `parts`
    attribute keeps each member's location, reason and bytes for the
    report. An all-reduce of another all-reduce's result stays where it is.

    ```mlir
    %a = comm.all_reduce <sum> %ga groups = [[0, 1]] : tensor<4x2xf32> -> tensor<4x2xf32>
    %b = comm.all_reduce <sum> %gb groups = [[0, 1]] : tensor<3xf32> -> tensor<3xf32>
    →
    %fa = garray.reshape %ga : (tensor<4x2xf32>) -> tensor<8xf32>
    %cat = garray.concatenate %fa, %gb, dim = 0 : ... -> tensor<11xf32>
    %r = comm.all_reduce <sum> %cat groups = [[0, 1]] {parts = [...]} : tensor<11xf32> -> tensor<11xf32>
    %a = garray.reshape (garray.slice %r [0, 8)) ; %b = garray.slice %r [8, 11)
    ```
    `max-bytes = 0` turns combining off.
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"4194304",
           "Largest combined collective in bytes per device (0: do not combine)">,
    Option<"overlapWork", "overlap-work", "int64_t", /*default=*/"1048576",
           "Most arithmetic between a bucket's first and last member's readiness "
           "(0: no limit)">,
  ];
  let dependentDialects = ["::mlir::garray::GArrayDialect", "::mlir::comm::CommDialect"];
}

def CommWidenNarrowReductions : Pass<"comm-widen-narrow-reductions", "::mlir::ModuleOp"> {
  let summary = "Reduce 16-bit integers across devices as 32-bit ones";
  let description = [{
    NCCL has no 16-bit integer type, so every target reduces them the same
    way: sign-extended to i32, reduced, and cut back to their low 16 bits,
    which is the 16-bit sum, product, maximum or minimum with its
    wrap-around.

    ```mlir
    %r = comm.all_reduce <sum> %x groups = [[0, 1]] : tensor<4xi16> -> tensor<4xi16>
    →
    %w = garray.convert %x : (tensor<4xi16>) -> tensor<4xi32>
    %s = comm.all_reduce <sum> %w groups = [[0, 1]] : tensor<4xi32> -> tensor<4xi32>
    %r = garray.convert %s lossy : (tensor<4xi32>) -> tensor<4xi16>
    ```
  }];
  let dependentDialects = ["::mlir::garray::GArrayDialect", "::mlir::comm::CommDialect"];
}

def CommLowerToRuntime : Pass<"comm-lower-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Lower comm collectives to calls into the shardrt C ABI";
  let description = [{
    ```mlir
    %r = comm.all_reduce <sum> %x groups = [[0, 1]] : tensor<2xf32> -> tensor<2xf32>
    →
    %buf = memref.alloc() : memref<2xf32>
    bufferization.materialize_in_destination %x in restrict writable %buf
    call @shardrt_all_reduce(%ptr, %c2, %f32, %sum, %groups, %c1, %c2)
    %r = bufferization.to_tensor %buf restrict
    ```
    The device groups become private constant globals.

    An all_reduce or reduce_scatter is asynchronous (unless `async=false`):
    it moves up to just after the op that defines its operand, where it
    starts, and it is finished just before the first op that reads its
    result, so that the work in between (the rest of a backward pass while a
    gradient is reduced) overlaps the communication:

    ```mlir
    %g = ... (the gradient)
    %req = call @shardrt_all_reduce_start(%ptr, ...) : (...) -> i64
    ... (ops that do not read the result)
    %s = call @shardrt_all_reduce_done(%req) : (i64) -> i32
    %r = bufferization.to_tensor %buf restrict writable
    ... (the first op that reads %r)
    ```
    Members start collectives in one program order (every rank moves the
    same ops), and the buffer belongs to the runtime between start and
    done: nothing else refers to it there. A reduce_scatter's done takes
    its input and output buffers again (`shardrt_reduce_scatter_done(%req,
    %in, %out)`): peers read the input until then, and that use keeps it
    from being freed earlier.
  }];
  let options = [
    Option<"async", "async", "bool", /*default=*/"true",
           "start each all_reduce and reduce_scatter when its operand is ready, finish it "
           "at its first use">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"];
}

#endif // SHARDC_PASSES_TD
