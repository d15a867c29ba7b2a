// RUN: shardc-opt %s --garray-insert-reshards --split-input-file | FileCheck %s

// A pending sum whose only user grows it (a broadcast) on the way to a use
// that needs it whole is reduced before it grows: reduced at the use, the
// all-reduce would move the grown value (here 8 times the bytes).

garray.mesh @mesh ["data" = 2]

// CHECK-LABEL: func.func @grown_then_needed
// CHECK: %[[G:.*]] = garray.dot_general
// CHECK-NEXT: %[[R:.*]] = garray.reshard %[[G]] : tensor<4x4xf32> to #garray.sharding<@mesh, P(None, None)>
// CHECK-SAME: reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of func.return at {{.*}} needs the whole value, after garray.broadcast_in_dim at {{.*}} grows it"
// CHECK: garray.broadcast_in_dim %[[R]]
// CHECK-NOT: garray.reshard
// CHECK: return
func.func @grown_then_needed(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                             %d: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<4x8x4xf32> {garray.sharding = #garray.sharding<@mesh, P()>}) {
  %g = garray.dot_general %x, %d, batch = [] x [], contracting = [0] x [0] {garray.sharding = #garray.sharding<@mesh, P(None, None)>} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %b = garray.broadcast_in_dim %g, dims = [0, 2] {garray.sharding = #garray.sharding<@mesh, P(None, None, None)>} : (tensor<4x4xf32>) -> tensor<4x8x4xf32>
  return %b : tensor<4x8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Grown, then summed back down below twice its size before it is needed:
// it stays pending and is reduced at the smaller size, after the sum.
// CHECK-LABEL: func.func @grown_then_shrunk
// CHECK: garray.dot_general
// CHECK-NOT: garray.reshard
// CHECK: garray.broadcast_in_dim
// CHECK-NOT: garray.reshard
// CHECK: %[[S:.*]] = garray.reduce <sum>
// CHECK-NEXT: garray.reshard %[[S]]
// CHECK: return
func.func @grown_then_shrunk(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                             %d: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<4xf32> {garray.sharding = #garray.sharding<@mesh, P()>}) {
  %g = garray.dot_general %x, %d, batch = [] x [], contracting = [0] x [0] {garray.sharding = #garray.sharding<@mesh, P(None, None)>} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %b = garray.broadcast_in_dim %g, dims = [0, 2] {garray.sharding = #garray.sharding<@mesh, P(None, None, None)>} : (tensor<4x4xf32>) -> tensor<4x8x4xf32>
  %s = garray.reduce <sum> %b, dims = [1, 2] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<4x8x4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
