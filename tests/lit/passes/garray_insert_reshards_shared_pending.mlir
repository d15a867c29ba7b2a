// RUN: shardc-opt %s --garray-insert-reshards --split-input-file | FileCheck %s

// A pending sum read by two branches that never meet again in an op that
// carries a partial (Adam's two moments of one gradient) is reduced once,
// right after its definition: deferred, each branch would need its own
// reduction of the same size.

garray.mesh @mesh ["data" = 2]

// CHECK-LABEL: func.func @two_branches
// CHECK: %[[G:.*]] = garray.dot_general
// CHECK-NEXT: %[[R:.*]] = garray.reshard %[[G]] : tensor<4x4xf32> to #garray.sharding<@mesh, P(None, None)>
// CHECK-SAME: reason = "pending sum over \22data\22 reduced once for its 3 uses, since 2 of them would each carry it pending at its full size
// CHECK-NOT: garray.reshard
// CHECK: garray.mul %[[R]]
// CHECK-NOT: garray.reshard
// CHECK: garray.mul %[[R]], %[[R]]
// CHECK-NOT: garray.reshard
// CHECK: return
func.func @two_branches(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                        %d: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                        %c: tensor<4x4xf32> {garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<4x4xf32> {garray.sharding = #garray.sharding<@mesh, P()>},
        tensor<4x4xf32> {garray.sharding = #garray.sharding<@mesh, P()>}) {
  %g = garray.dot_general %x, %d, batch = [] x [], contracting = [0] x [0] {garray.sharding = #garray.sharding<@mesh, P(None, None)>} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %m = garray.mul %g, %c {garray.sharding = #garray.sharding<@mesh, P(None, None)>} : tensor<4x4xf32>
  %v = garray.mul %g, %g {garray.sharding = #garray.sharding<@mesh, P(None, None)>} : tensor<4x4xf32>
  return %m, %v : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Branches that meet again (g * c + g) need one reduction, after they meet.
// CHECK-LABEL: func.func @branches_rejoin
// CHECK-NOT: garray.reshard
// CHECK: garray.add {{.*}}unreduced = sum("data")>}
// CHECK-NEXT: garray.reshard
// CHECK: return
func.func @branches_rejoin(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                           %d: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                           %c: tensor<4x4xf32> {garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<4x4xf32> {garray.sharding = #garray.sharding<@mesh, P()>}) {
  %g = garray.dot_general %x, %d, batch = [] x [], contracting = [0] x [0] {garray.sharding = #garray.sharding<@mesh, P(None, None)>} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %m = garray.mul %g, %c {garray.sharding = #garray.sharding<@mesh, P(None, None)>} : tensor<4x4xf32>
  %s = garray.add %m, %g {garray.sharding = #garray.sharding<@mesh, P(None, None)>} : tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}
