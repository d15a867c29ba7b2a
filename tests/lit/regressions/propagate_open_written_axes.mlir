// RUN: shardc-opt %s --garray-propagate | FileCheck %s
//
// Axes written on an open dim ("a"?) are kept when another dim of the same
// value, active in a stronger round, has taken that axis from a neighbour
// first: P(? p1, "a"?) ends as P(None, "a"), not P("a", None). What the user
// wrote on a dim is kept (an open dim may only grow past it), as for closed
// dims: the dim that took the axis in the stronger round gives it back.

garray.mesh @mesh ["a" = 2, "b" = 2]

// CHECK-LABEL: func.func @constraint
// CHECK: garray.sharding_constraint %arg0 : tensor<8x8xf32> to #garray.sharding<@mesh, P(None, "a")>
func.func @constraint(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a" p0, None)>}) -> tensor<8x8xf32> {
  %c = garray.sharding_constraint %x : tensor<8x8xf32> to #garray.sharding<@mesh, P(? p1, "a"?)>
  return %c : tensor<8x8xf32>
}

// CHECK-LABEL: func.func @argument
// CHECK-SAME: %arg1: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "a")>}
func.func @argument(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a" p0, None)>},
                    %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(? p1, "a"?)>}) -> tensor<8x8xf32> {
  %s = garray.add %x, %y : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}

// CHECK-LABEL: func.func @op_result
// CHECK: garray.exp %arg0 {garray.sharding = #garray.sharding<@mesh, P(None, "a")>}
func.func @op_result(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a" p0, None)>}) -> tensor<8x8xf32> {
  %e = garray.exp %x {garray.sharding = #garray.sharding<@mesh, P(? p0, "a"? p1)>} : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}
