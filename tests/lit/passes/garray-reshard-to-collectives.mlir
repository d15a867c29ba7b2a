// RUN: shardc-opt %s -split-input-file --garray-reshard-to-collectives -verify-diagnostics | FileCheck %s
//
// garray-reshard-to-collectives: each garray.reshard becomes the planner's
// steps, in the order all_reduce, all_gather, all_slice; every step carries the
// sharding after it, its ring-model cost in bytes per device, and the
// reshard's `reason`. A reshard between equal layouts disappears.

garray.mesh @mesh ["data" = 2, "model" = 2]

// Pending over both axes -> reduced: one all_reduce over both.
// Cost: 2 (n-1)/n * 8 bytes with n = 4.
// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2xf32>
// CHECK-NOT: garray.reshard
// CHECK: %[[R:.*]] = garray.all_reduce <sum> %[[X]] on @mesh ["data", "model"] {bytes_per_device = 12 : i64, garray.sharding = #garray.sharding<@mesh, P(None)>, reason = "loss"} : tensor<2xf32>
// CHECK-NEXT: return %[[R]]
func.func @all_reduce(%x: tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data", "model")>}) -> tensor<2xf32> {
  %0 = garray.reshard %x : tensor<2xf32> to #garray.sharding<@mesh, P(None)> {reason = "loss"}
  return %0 : tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Reducing only some pending axes keeps the rest pending, with its kind.
// CHECK-LABEL: func.func @partial_all_reduce
// CHECK: garray.all_reduce <max> %{{.*}} on @mesh ["data"] {bytes_per_device = 8 : i64, garray.sharding = #garray.sharding<@mesh, P(None), unreduced = max("model")>}
func.func @partial_all_reduce(%x: tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = max("data", "model")>}) -> tensor<2xf32> {
  %0 = garray.reshard %x : tensor<2xf32> to #garray.sharding<@mesh, P(None), unreduced = max("model")>
  return %0 : tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Dropping the minor axis of a dim gathers over it; the major one stays.
// CHECK-LABEL: func.func @all_gather
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x4xf32>
// CHECK: %[[G:.*]] = garray.all_gather %[[X]], dim = 0 on @mesh ["model"] {bytes_per_device = 32 : i64, garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
// CHECK-NEXT: return %[[G]]
func.func @all_gather(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(("data", "model"), None)>}) -> tensor<8x4xf32> {
  %0 = garray.reshard %x : tensor<8x4xf32> to #garray.sharding<@mesh, P("data", None)>
  return %0 : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Splitting a replicated value needs no communication: all_slice, 0 bytes.
// An operand without a sharding is replicated.
// CHECK-LABEL: func.func @all_slice
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x4xf32>)
// CHECK: %[[S:.*]] = garray.all_slice %[[X]], dim = 1 on @mesh ["model"] {bytes_per_device = 0 : i64, garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<8x4xf32>
// CHECK-NEXT: return %[[S]]
func.func @all_slice(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = garray.reshard %x : tensor<8x4xf32> to #garray.sharding<@mesh, P(None, "model")>
  return %0 : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Moving an axis to another dim: gather the old dim, then slice the new one.
// CHECK-LABEL: func.func @move_dim
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x4xf32>
// CHECK: %[[G:.*]] = garray.all_gather %[[X]], dim = 0 on @mesh ["data"] {bytes_per_device = 64 : i64, garray.sharding = #garray.sharding<@mesh, P(None, None)>, reason = "move"} : tensor<8x4xf32>
// CHECK-NEXT: %[[S:.*]] = garray.all_slice %[[G]], dim = 1 on @mesh ["data"] {bytes_per_device = 0 : i64, garray.sharding = #garray.sharding<@mesh, P(None, "data")>, reason = "move"} : tensor<8x4xf32>
// CHECK-NEXT: return %[[S]]
func.func @move_dim(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8x4xf32> {
  %0 = garray.reshard %x : tensor<8x4xf32> to #garray.sharding<@mesh, P(None, "data")> {reason = "move"}
  return %0 : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// All three kinds, in planner order: reduce, then gather, then slices.
// CHECK-LABEL: func.func @reduce_gather_slice
// CHECK: %[[R:.*]] = garray.all_reduce <sum> %{{.*}} on @mesh ["model"] {{.*}}P("data", None)>}
// CHECK-NEXT: %[[G:.*]] = garray.all_gather %[[R]], dim = 0 on @mesh ["data"] {{.*}}P(None, None)>}
// CHECK-NEXT: %[[S0:.*]] = garray.all_slice %[[G]], dim = 0 on @mesh ["model"] {{.*}}P("model", None)>}
// CHECK-NEXT: %[[S1:.*]] = garray.all_slice %[[S0]], dim = 1 on @mesh ["data"] {{.*}}P("model", "data")>}
// CHECK-NEXT: return %[[S1]]
func.func @reduce_gather_slice(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None), unreduced = sum("model")>}) -> tensor<8x4xf32> {
  %0 = garray.reshard %x : tensor<8x4xf32> to #garray.sharding<@mesh, P("model", "data")>
  return %0 : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Equal layouts (P("data") pads to P("data", None)): the reshard vanishes.
// CHECK-LABEL: func.func @same_layout
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x4xf32>
// CHECK-NEXT: return %[[X]]
func.func @same_layout(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8x4xf32> {
  %0 = garray.reshard %x : tensor<8x4xf32> to #garray.sharding<@mesh, P("data")>
  return %0 : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A pending value cannot be made from a reduced one.
func.func @cannot_unreduce(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8x4xf32> {
  // expected-error @+1 {{cannot reshard: cannot make a value unreduced over mesh axis "data" from one that is reduced over it}}
  %0 = garray.reshard %x : tensor<8x4xf32> to #garray.sharding<@mesh, P(), unreduced = sum("data")>
  return %0 : tensor<8x4xf32>
}

// -----

// expected-error @+1 {{mesh axis "data" has no size; give one with --mesh data=N}}
garray.mesh @mesh ["data" = ?]

func.func @unsized_mesh(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8x4xf32> {
  %0 = garray.reshard %x : tensor<8x4xf32> to #garray.sharding<@mesh, P()>
  return %0 : tensor<8x4xf32>
}
