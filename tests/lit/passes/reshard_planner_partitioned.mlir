// RUN: shardc-opt %s -split-input-file \
// RUN:   --shardc-global-phase="mesh=x=2,y=2" --shardc-propagation-phase="split-idle-axes=false" \
// RUN:   --shardc-partition-phase | FileCheck %s
// RUN: shardc-opt %s -split-input-file \
// RUN:   --shardc-global-phase="mesh=x=2,y=2" --shardc-propagation-phase="split-idle-axes=false" \
// RUN:   --shardc-partition-phase --shardc-local-phase \
// RUN:   | FileCheck %s --check-prefix=LOCAL
//
// The collectives the reshard planner picks for user-visible reshards, as
// `shardc --emit=partitioned` prints them (and, LOCAL, after global-to-local):
// no all_gather where an all_to_all, a slice or a permute does, and no
// collective where none is needed.

garray.mesh @mesh ["x" = 2, "y" = 2]
// An axis moves from dim 0 to dim 1: one all_to_all of half the [4, 8] f32
// block (64 bytes; gather-then-slice would move 128).
// CHECK-LABEL: func.func @axis_to_other_dim
// CHECK-NOT: garray.all_gather
// CHECK: garray.all_to_all %{{.*}}, split_dim = 1, concat_dim = 0 on @mesh ["x"] {bytes_per_device = 64 : i64
// CHECK-NOT: garray.all_gather
// CHECK: return
// LOCAL-LABEL: func.func @axis_to_other_dim
// LOCAL: comm.all_to_all %{{.*}}, split_dim = 1, concat_dim = 0 groups = {{\[}}[0, 2], [1, 3]] {{.*}}: tensor<4x8xf32> -> tensor<8x4xf32>
func.func @axis_to_other_dim(%X: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("x", None)>}) -> tensor<8x8xf32> {
  %e = garray.exp %X : tensor<8x8xf32>
  %t = garray.sharding_constraint %e : tensor<8x8xf32> to #garray.sharding<@mesh, P(None, "x")>
  %y = garray.tanh %t : tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["x" = 2, "y" = 2]
// A dim's two axes reordered: one permute of the local block, no gather.
// CHECK-LABEL: func.func @reorder_axes
// CHECK-NOT: garray.all_gather
// CHECK: garray.collective_permute %{{.*}} on @mesh ["x", "y"] pairs = [0, 0, 2, 1, 1, 2, 3, 3] {bytes_per_device = 64 : i64
// CHECK-NOT: garray.all_gather
// CHECK: return
// LOCAL-LABEL: func.func @reorder_axes
// LOCAL: comm.collective_permute %{{.*}} pairs = {{\[}}[0, 0], [2, 1], [1, 2], [3, 3]] {{.*}}: tensor<2x8xf32> -> tensor<2x8xf32>
func.func @reorder_axes(%X: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(("x", "y"), None)>}) -> tensor<8x8xf32> {
  %e = garray.exp %X : tensor<8x8xf32>
  %t = garray.sharding_constraint %e : tensor<8x8xf32> to #garray.sharding<@mesh, P(("y", "x"), None)>
  %y = garray.tanh %t : tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["x" = 2, "y" = 2]
// Adding an axis to a dim is a local slice: no communication.
// CHECK-LABEL: func.func @refine
// CHECK-NOT: garray.all_gather
// CHECK-NOT: garray.all_to_all
// CHECK: garray.all_slice %{{.*}}, dim = 1 on @mesh ["y"] {bytes_per_device = 0 : i64
// CHECK-NOT: garray.all_gather
// CHECK: return
func.func @refine(%X: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("x", None)>}) -> tensor<8x8xf32> {
  %e = garray.exp %X : tensor<8x8xf32>
  %t = garray.sharding_constraint %e : tensor<8x8xf32> to #garray.sharding<@mesh, P("x", "y")>
  %y = garray.tanh %t : tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["x" = 2, "y" = 2]
// A constraint the value already satisfies: no collective at all.
// CHECK-LABEL: func.func @no_reshard
// CHECK-NOT: garray.all_
// CHECK-NOT: garray.reduce_scatter
// CHECK-NOT: garray.collective_permute
// CHECK: return
func.func @no_reshard(%X: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("x", "y")>}) -> tensor<8x8xf32> {
  %e = garray.exp %X : tensor<8x8xf32>
  %t = garray.sharding_constraint %e : tensor<8x8xf32> to #garray.sharding<@mesh, P("x", "y")>
  %y = garray.tanh %t : tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["x" = 2, "y" = 2]
// A dot contracting over "x", reduced for a replicated constraint and then
// constrained to P("x", None): the two reshards are planned as one
// reduce_scatter, no all_reduce and no slice.
// CHECK-LABEL: func.func @dot_reduce_scatter
// CHECK: garray.dot_general {{.*}}unreduced = sum("x")
// CHECK-NOT: garray.all_reduce
// CHECK: garray.reduce_scatter <sum> %{{.*}}, dim = 0 on @mesh ["x"] {bytes_per_device = 128 : i64
// CHECK-NOT: garray.all_slice
// CHECK: return
// LOCAL-LABEL: func.func @dot_reduce_scatter
// LOCAL: comm.reduce_scatter <sum> %{{.*}}, dim = 0 groups = {{\[}}[0, 2], [1, 3]]
func.func @dot_reduce_scatter(%X: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "x")>},
                              %W: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("x", None)>}) -> tensor<8x8xf32> {
  %h0 = garray.dot_general %X, %W, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = garray.sharding_constraint %h0 : tensor<8x8xf32> to #garray.sharding<@mesh, P(None, None)>
  %h = garray.sharding_constraint %r : tensor<8x8xf32> to #garray.sharding<@mesh, P("x", None)>
  return %h : tensor<8x8xf32>
}
