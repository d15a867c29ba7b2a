// RUN: shardc-opt %s -split-input-file --garray-propagate -verify-diagnostics | FileCheck %s
//
// Sharding rules of the shape ops (FactorRules.cpp) as seen by
// garray-propagate: a dim that a shape op keeps (or splits/merges along common
// factors) carries its sharding through, in both directions; a dim it slices,
// pads, concatenates or reverses needs replication, so the sharding stops there.

garray.mesh @mesh ["data" = 4]

// reshape [8,4] -> [32] is ([i,j])->([i j]): the sharded major dim becomes the
// major part of the merged dim.
// CHECK-LABEL: func.func @reshape_merge
// CHECK-SAME: -> (tensor<32xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
// CHECK: garray.reshape {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data")>}
func.func @reshape_merge(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> tensor<32xf32> {
  %0 = garray.reshape %x : (tensor<8x4xf32>) -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// reshape [32] -> [8,4] is ([i j])->([i,j]): the split dim keeps "data" on its
// major part.
// CHECK-LABEL: func.func @reshape_split
// CHECK: garray.reshape {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
func.func @reshape_split(%x: tensor<32xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> tensor<8x4xf32> {
  %0 = garray.reshape %x : (tensor<32xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// Backward: a sharded result of a merge shards the operand's major dim.
// CHECK-LABEL: func.func @reshape_backward
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
func.func @reshape_backward(%x: tensor<8x4xf32>)
    -> (tensor<32xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) {
  %0 = garray.reshape %x : (tensor<8x4xf32>) -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// The minor dim of a merge is not a block of the merged dim: the result is
// replicated (the operand will be gathered by insert-reshards).
// CHECK-LABEL: func.func @reshape_minor
// CHECK: garray.reshape {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None)>}
func.func @reshape_minor(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>})
    -> tensor<32xf32> {
  %0 = garray.reshape %x : (tensor<8x4xf32>) -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// [4,6] -> [6,4] share only their major 2; that factor keeps "data".
// CHECK-LABEL: func.func @reshape_common_major
// CHECK: garray.reshape {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
func.func @reshape_common_major(%x: tensor<4x6xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> tensor<6x4xf32> {
  %0 = garray.reshape %x : (tensor<4x6xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// ... but a dim with no common factor is NeedReplication: [3,2] -> [2,3].
// CHECK-LABEL: func.func @reshape_no_common_factor
// CHECK: garray.reshape {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, None)>}
func.func @reshape_no_common_factor(%x: tensor<3x2xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>})
    -> tensor<2x3xf32> {
  %0 = garray.reshape %x : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// transpose permutes factors.
// CHECK-LABEL: func.func @transpose
// CHECK: garray.transpose {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, None, "data")>}
func.func @transpose(%x: tensor<8x4x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>})
    -> tensor<4x4x8xf32> {
  %0 = garray.transpose %x, permutation = [1, 2, 0] : (tensor<8x4x4xf32>) -> tensor<4x4x8xf32>
  return %0 : tensor<4x4x8xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// slice: the whole dim 0 keeps "data"; the sliced dim 1 is replicated.
// CHECK-LABEL: func.func @slice
// CHECK: garray.slice {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.slice {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, None)>}
func.func @slice(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                 %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>})
    -> (tensor<8x3xf32>, tensor<8x3xf32>) {
  %0 = garray.slice %x, start = [0, 1], limit = [8, 7], strides = [1, 2] : (tensor<8x8xf32>) -> tensor<8x3xf32>
  %1 = garray.slice %y, start = [0, 1], limit = [8, 7], strides = [1, 2] : (tensor<8x8xf32>) -> tensor<8x3xf32>
  return %0, %1 : tensor<8x3xf32>, tensor<8x3xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// A slice with start 0, stride 1 but a short limit is still a slice.
// CHECK-LABEL: func.func @slice_prefix
// CHECK: garray.slice {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None)>}
func.func @slice_prefix(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> tensor<4xf32> {
  %0 = garray.slice %x, start = [0], limit = [4], strides = [1] : (tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// pad: an unpadded dim keeps "data"; a padded one is replicated; the padding
// value is a scalar.
// CHECK-LABEL: func.func @pad
// CHECK-SAME: %{{[^:]+}}: tensor<f32> {garray.sharding = #garray.sharding<@mesh, P()>}
// CHECK: garray.pad {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.pad {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, None)>}
func.func @pad(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
               %v: tensor<f32>) -> (tensor<8x7xf32>, tensor<12x4xf32>) {
  %0 = garray.pad %x, %v, low = [0, 1], high = [0, 2] : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x7xf32>
  %1 = garray.pad %x, %v, low = [1, 0], high = [3, 0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<12x4xf32>
  return %0, %1 : tensor<8x7xf32>, tensor<12x4xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// concatenate: the other dims are shared by every operand (b follows a); the
// concatenated dim is replicated.
// CHECK-LABEL: func.func @concatenate
// CHECK-SAME: %{{[^:]+}}: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.concatenate {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.concatenate {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, None)>}
func.func @concatenate(%a: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                       %b: tensor<8x8xf32>) -> (tensor<8x12xf32>, tensor<16x4xf32>) {
  %0 = garray.concatenate %a, %b, dim = 1 : (tensor<8x4xf32>, tensor<8x8xf32>) -> tensor<8x12xf32>
  %1 = garray.concatenate %a, %a, dim = 0 : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
  return %0, %1 : tensor<8x12xf32>, tensor<16x4xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// reverse: reversed dims are replicated, the others keep their sharding.
// CHECK-LABEL: func.func @reverse
// CHECK: garray.reverse {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.reverse {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, None)>}
func.func @reverse(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %0 = garray.reverse %x, dims = [1] : tensor<8x4xf32>
  %1 = garray.reverse %x, dims = [0] : tensor<8x4xf32>
  return %0, %1 : tensor<8x4xf32>, tensor<8x4xf32>
}
