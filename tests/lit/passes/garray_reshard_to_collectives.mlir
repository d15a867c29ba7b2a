// RUN: shardc-opt %s -split-input-file --garray-reshard-to-collectives -verify-diagnostics | FileCheck %s
//
// garray-reshard-to-collectives: each garray.reshard becomes the planner's
// cheapest steps (all_slice, all_to_all, collective_permute, all_gather,
// all_reduce, reduce_scatter); every step carries the sharding after it, its
// ring-model cost in bytes per device, and the reshard's `reason`. A reshard
// between equal layouts disappears. No all_gather where an all_to_all, a
// slice or a permute does.

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

// Moving an axis to another dim: one all_to_all, (n-1)/n of the 64-byte
// local block, where gather-then-slice would move 64.
// CHECK-LABEL: func.func @move_dim
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x4xf32>
// CHECK-NOT: all_gather
// CHECK: %[[A:.*]] = garray.all_to_all %[[X]], split_dim = 1, concat_dim = 0 on @mesh ["data"] {bytes_per_device = 32 : i64, garray.sharding = #garray.sharding<@mesh, P(None, "data")>, reason = "move"} : tensor<8x4xf32>
// CHECK-NEXT: return %[[A]]
func.func @move_dim(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8x4xf32> {
  %0 = garray.reshard %x : tensor<8x4xf32> to #garray.sharding<@mesh, P(None, "data")> {reason = "move"}
  return %0 : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Pending over "model", an axis moved between dims and a new one added:
// all_to_all over "data" (the partials move with their blocks), then the
// reduce and the slice over "model" fused into one reduce_scatter. 64 bytes
// where all_reduce + all_gather + slices moved 128.
// CHECK-LABEL: func.func @reduce_gather_slice
// CHECK-NOT: all_gather
// CHECK: %[[A:.*]] = garray.all_to_all %{{.*}}, split_dim = 1, concat_dim = 0 on @mesh ["data"] {bytes_per_device = 32 : i64, {{.*}}P(None, "data"), unreduced = sum("model")>}
// CHECK-NEXT: %[[R:.*]] = garray.reduce_scatter <sum> %[[A]], dim = 0 on @mesh ["model"] {bytes_per_device = 32 : i64, {{.*}}P("model", "data")>}
// CHECK-NEXT: return %[[R]]
func.func @reduce_gather_slice(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None), unreduced = sum("model")>}) -> tensor<8x4xf32> {
  %0 = garray.reshard %x : tensor<8x4xf32> to #garray.sharding<@mesh, P("model", "data")>
  return %0 : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// A pending sum scattered over the same axis: one reduce_scatter, (n-1)/n of
// the 128-byte buffer; all_reduce + all_slice would move twice that.
// CHECK-LABEL: func.func @reduce_scatter
// CHECK-NOT: all_reduce
// CHECK: garray.reduce_scatter <max> %{{.*}}, dim = 1 on @mesh ["model"] {bytes_per_device = 64 : i64, garray.sharding = #garray.sharding<@mesh, P(None, "model")>}
// CHECK-NOT: all_slice
func.func @reduce_scatter(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None), unreduced = max("model")>}) -> tensor<8x4xf32> {
  %0 = garray.reshard %x : tensor<8x4xf32> to #garray.sharding<@mesh, P(None, "model")>
  return %0 : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// A dim's axes reordered: same blocks, different owners. One permute of the
// 8-byte block; devices 0 and 3 keep theirs, 1 and 2 swap.
// CHECK-LABEL: func.func @reorder
// CHECK-NOT: all_gather
// CHECK: garray.collective_permute %{{.*}} on @mesh ["data", "model"] pairs = [0, 0, 2, 1, 1, 2, 3, 3] {bytes_per_device = 8 : i64, garray.sharding = #garray.sharding<@mesh, P(("model", "data"))>}
func.func @reorder(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(("data", "model"))>}) -> tensor<8xf32> {
  %0 = garray.reshard %x : tensor<8xf32> to #garray.sharding<@mesh, P(("model", "data"))>
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// A reshard whose only user is another reshard is planned as one: reduced
// for one user that then slices it, the pending sum becomes a
// reduce_scatter; both reasons are kept.
// CHECK-LABEL: func.func @chained
// CHECK-NOT: garray.reshard
// CHECK-NOT: all_reduce
// CHECK: garray.reduce_scatter <sum> %{{.*}}, dim = 0 on @mesh ["data"] {{.*}}reason = "second; folded with: first"}
// CHECK-NEXT: return
func.func @chained(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None), unreduced = sum("data")>}) -> tensor<8x4xf32> {
  %0 = garray.reshard %x : tensor<8x4xf32> to #garray.sharding<@mesh, P(None, None)> {reason = "first"}
  %1 = garray.reshard %0 : tensor<8x4xf32> to #garray.sharding<@mesh, P("data", None)> {reason = "second"}
  return %1 : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// A reduced value with another user is not folded: it is reduced once.
// CHECK-LABEL: func.func @chained_shared
// CHECK: garray.all_reduce
// CHECK: garray.all_slice
func.func @chained_shared(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None), unreduced = sum("data")>}) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %0 = garray.reshard %x : tensor<8x4xf32> to #garray.sharding<@mesh, P(None, None)>
  %1 = garray.reshard %0 : tensor<8x4xf32> to #garray.sharding<@mesh, P("data", None)>
  return %0, %1 : tensor<8x4xf32>, tensor<8x4xf32>
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

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Pending scalars reduced for one op share one all_reduce of their
// concatenation (2 (n-1)/n * 8 bytes, n = 2), sliced back for the op.
// CHECK-LABEL: func.func @packed_scalars
// CHECK-SAME: (%[[A:[^:]+]]: tensor<f32> {{.*}}, %[[B:[^:]+]]: tensor<f32>
// CHECK: %[[RA:.*]] = garray.reshape %[[A]] {{.*}}unreduced = sum("data")>} : (tensor<f32>) -> tensor<1xf32>
// CHECK: %[[RB:.*]] = garray.reshape %[[B]] {{.*}} : (tensor<f32>) -> tensor<1xf32>
// CHECK: %[[C:.*]] = garray.concatenate %[[RA]], %[[RB]], dim = 0 {{.*}} -> tensor<2xf32>
// CHECK: %[[R:.*]] = garray.all_reduce <sum> %[[C]] on @mesh ["data"] {bytes_per_device = 8 : i64, {{.*}}reason = "packed 2 pending scalars: a; b"} : tensor<2xf32>
// CHECK-NOT: garray.all_reduce
// CHECK: %[[S0:.*]] = garray.slice %[[R]], start = [0], limit = [1], strides = [1]
// CHECK: %[[E0:.*]] = garray.reshape %[[S0]] {{.*}} -> tensor<f32>
// CHECK: %[[S1:.*]] = garray.slice %[[R]], start = [1], limit = [2], strides = [1]
// CHECK: %[[E1:.*]] = garray.reshape %[[S1]] {{.*}} -> tensor<f32>
// CHECK: garray.max %[[E0]], %[[E1]]
func.func @packed_scalars(%a: tensor<f32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>},
                          %b: tensor<f32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>}) -> tensor<f32> {
  %0 = garray.reshard %a : tensor<f32> to #garray.sharding<@mesh, P()> {reason = "a"}
  %1 = garray.reshard %b : tensor<f32> to #garray.sharding<@mesh, P()> {reason = "b"}
  %2 = garray.max %0, %1 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
  return %2 : tensor<f32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Not packed: different axes, or a scalar that an earlier op already reads.
// CHECK-LABEL: func.func @not_packed
// CHECK-NOT: garray.concatenate
// CHECK: garray.all_reduce <sum> %{{.*}} on @mesh ["data"]
// CHECK: garray.all_reduce <sum> %{{.*}} on @mesh ["model"]
// CHECK: garray.all_reduce <sum> %{{.*}} on @mesh ["data"]
// CHECK-NOT: garray.concatenate
func.func @not_packed(%a: tensor<f32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>},
                      %b: tensor<f32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("model")>},
                      %c: tensor<f32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>}) -> (tensor<f32>, tensor<f32>) {
  %0 = garray.reshard %a : tensor<f32> to #garray.sharding<@mesh, P()>
  %1 = garray.reshard %b : tensor<f32> to #garray.sharding<@mesh, P()>
  %2 = garray.max %0, %1 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
  %3 = garray.reshard %c : tensor<f32> to #garray.sharding<@mesh, P()>
  %4 = garray.exp %0 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
  %5 = garray.max %4, %3 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
  return %2, %5 : tensor<f32>, tensor<f32>
}
