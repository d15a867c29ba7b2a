// RUN: shardc-opt %s -split-input-file --garray-global-to-local -verify-diagnostics | FileCheck %s
//
// garray-global-to-local: every tensor takes its per-device shape, global
// collectives become comm ops over explicit device groups, and meshes and
// sharding attributes disappear. Devices are numbered row-major over the mesh
// axes: on ["data" = 2, "model" = 3], device = 3 * data + model.

garray.mesh @mesh ["data" = 2, "model" = 3]

// CHECK-NOT: garray.mesh
// CHECK-LABEL: func.func @local_shapes
// CHECK-SAME: (%[[X:[^:]+]]: tensor<6x2xf32>, %[[W:[^:]+]]: tensor<6xf32>) -> (tensor<6x2xf32>, tensor<f32>)
// CHECK-NOT: garray.sharding
// CHECK: %[[E:.*]] = garray.exp %[[X]] : tensor<6x2xf32>
// CHECK: %[[S:.*]] = garray.reduce <sum> %[[W]], dims = [0] : (tensor<6xf32>) -> tensor<f32>
// CHECK: return %[[E]], %[[S]] : tensor<6x2xf32>, tensor<f32>
func.func @local_shapes(%x: tensor<12x6xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
                        %w: tensor<6xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>})
    -> (tensor<12x6xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
        tensor<f32> {garray.sharding = #garray.sharding<@mesh, P()>}) {
  %e = garray.exp %x {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : tensor<12x6xf32>
  %s = garray.reduce <sum> %w, dims = [0] {garray.sharding = #garray.sharding<@mesh, P()>} : (tensor<6xf32>) -> tensor<f32>
  return %e, %s : tensor<12x6xf32>, tensor<f32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 1]

// Over an axis of size 1 each group has one member: the collectives leave
// each device its operand and no comm op is made, whatever their kind.
// CHECK-LABEL: func.func @groups_of_one
// CHECK-SAME: (%[[P:[^:]+]]: tensor<6xf32>, %[[X:[^:]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[N:.*]] = garray.neg %[[P]] : tensor<6xf32>
// CHECK-NEXT: %[[R:.*]] = comm.all_reduce <sum> %[[N]] groups = {{\[}}[0, 1]] : tensor<6xf32> -> tensor<6xf32>
// CHECK-NEXT: return %[[R]], %[[X]] : tensor<6xf32>, tensor<3x4xf32>
func.func @groups_of_one(%p: tensor<6xf32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data", "model")>},
                         %x: tensor<6x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>})
    -> (tensor<6xf32>, tensor<6x4xf32>) {
  %0 = garray.all_reduce <sum> %p on @mesh ["model"] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>} : tensor<6xf32>
  %1 = garray.neg %0 {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>} : tensor<6xf32>
  %2 = garray.all_reduce <sum> %1 on @mesh ["data"] {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<6xf32>
  %3 = garray.all_gather %x, dim = 1 on @mesh ["model"] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<6x4xf32>
  %4 = garray.all_slice %3, dim = 1 on @mesh ["model"] {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : tensor<6x4xf32>
  return %2, %4 : tensor<6xf32>, tensor<6x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 3]

// Groups over each axis of a 2-D mesh: over "data" the devices that share a
// "model" coordinate, over "model" those that share a "data" one; over both,
// every device, ordered major axis first as written.
// CHECK-LABEL: func.func @groups_2d
// CHECK-SAME: (%[[X:[^:]+]]: tensor<6x2xf32>, %[[P:[^:]+]]: tensor<6xf32>) -> (tensor<12x6xf32>, tensor<2x6xf32>, tensor<6xf32>)
// CHECK: %[[G0:.*]] = comm.all_gather %[[X]], dim = 0 groups = {{\[}}[0, 3], [1, 4], [2, 5]] {reason = "r"} : tensor<6x2xf32> -> tensor<12x2xf32>
// CHECK: %[[G1:.*]] = comm.all_gather %[[G0]], dim = 1 groups = {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<12x2xf32> -> tensor<12x6xf32>
// CHECK: %[[SL:.*]] = comm.all_slice %[[G1]], dim = 0 groups = {{\[}}[0, 3, 1, 4, 2, 5]] : tensor<12x6xf32> -> tensor<2x6xf32>
// CHECK: %[[R:.*]] = comm.all_reduce <sum> %[[P]] groups = {{\[}}[0, 1, 2, 3, 4, 5]] : tensor<6xf32> -> tensor<6xf32>
// CHECK: %[[S:.*]] = comm.all_slice %[[R]], dim = 0 groups = {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<6xf32> -> tensor<2xf32>
// CHECK: %[[N:.*]] = garray.neg %[[S]] : tensor<2xf32>
// CHECK: %[[M:.*]] = comm.all_reduce <max> %[[N]] groups = {{\[}}[0, 3], [1, 4], [2, 5]] : tensor<2xf32> -> tensor<2xf32>
// CHECK: %[[A:.*]] = comm.all_gather %[[M]], dim = 0 groups = {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<2xf32> -> tensor<6xf32>
// CHECK: return %[[G1]], %[[SL]], %[[A]] : tensor<12x6xf32>, tensor<2x6xf32>, tensor<6xf32>
// CHECK-NOT: garray.all_
func.func @groups_2d(%x: tensor<12x6xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
                     %p: tensor<6xf32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data", "model")>})
    -> (tensor<12x6xf32>, tensor<12x6xf32>, tensor<6xf32>) {
  %0 = garray.all_gather %x, dim = 0 on @mesh ["data"] {garray.sharding = #garray.sharding<@mesh, P(None, "model")>, reason = "r"} : tensor<12x6xf32>
  %1 = garray.all_gather %0, dim = 1 on @mesh ["model"] {garray.sharding = #garray.sharding<@mesh, P(None, None)>} : tensor<12x6xf32>
  %2 = garray.all_slice %1, dim = 0 on @mesh ["model", "data"] {garray.sharding = #garray.sharding<@mesh, P(("model", "data"), None)>} : tensor<12x6xf32>
  %3 = garray.all_reduce <sum> %p on @mesh ["data", "model"] {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<6xf32>
  %4 = garray.all_slice %3, dim = 0 on @mesh ["model"] {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<6xf32>
  %5 = garray.neg %4 {garray.sharding = #garray.sharding<@mesh, P("model"), unreduced = max("data")>} : tensor<6xf32>
  %6 = garray.all_reduce <max> %5 on @mesh ["data"] {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<6xf32>
  %7 = garray.all_gather %6, dim = 0 on @mesh ["model"] {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<6xf32>
  return %1, %2, %7 : tensor<12x6xf32>, tensor<12x6xf32>, tensor<6xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Sharded constants move no data: a splat becomes the local splat; any other
// value is materialised whole and each device keeps its block (all_slice).
// CHECK-LABEL: func.func @sharded_constants
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x4xf32>)
// CHECK-DAG: %[[SPLAT:.*]] = garray.constant dense<1.500000e+00> : tensor<4x2xf32>
// CHECK-DAG: %[[WHOLE:.*]] = garray.constant dense<{{.*}}> : tensor<8x4xf32>
// CHECK: %[[BLOCK:.*]] = comm.all_slice %[[WHOLE]], dim = 0 groups = {{\[}}[0, 2], [1, 3]] : tensor<8x4xf32> -> tensor<4x4xf32>
// CHECK: %[[SUM:.*]] = garray.add %[[X]], %[[SPLAT]] : tensor<4x2xf32>
// CHECK: return %[[SUM]], %[[BLOCK]]
func.func @sharded_constants(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>})
    -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %c = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} dense<1.5> : tensor<8x4xf32>
  %d = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
      dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0],
             [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 9.0]]> : tensor<8x4xf32>
  %s = garray.add %x, %c {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : tensor<8x4xf32>
  return %s, %d : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A function without shardings keeps its types; meshes go anyway.
// CHECK-NOT: garray.mesh
// CHECK-LABEL: func.func @unsharded
// CHECK-SAME: (%[[A:[^:]+]]: tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[N:.*]] = garray.neg %[[A]] : tensor<8xf32>
garray.mesh @mesh ["data" = 2]
func.func @unsharded(%a: tensor<8xf32>) -> tensor<8xf32> {
  %n = garray.neg %a : tensor<8xf32>
  return %n : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 3]

// Uneven shards take the ceil layout: 8 over 3 is a local block of 3 (shards
// 3, 3, 2); garray_global_to_local_uneven.mlir has the masks.
// CHECK-LABEL: func.func @uneven
// CHECK-SAME: (%{{.*}}: tensor<3xf32>) -> tensor<3xf32>
func.func @uneven(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{mesh axis "data" has no size; give one with --mesh data=N}}
garray.mesh @mesh ["data" = ?]

func.func @unsized(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
