// RUN: shardc-opt %s --garray-propagate | FileCheck %s
//
// Propagation ends on a contested value. %o = dot(%r, %r) asks %r for "y"
// through one operand slot and "data" through the other, so %r stays
// contested. A contested value keeps every proposer's latest word: were its
// merge to keep only the proposals of proposers that did not step, then
// whenever the reduce (its defining op, whose word holds against users') did
// not step, its "data" would be forgotten and %r shrink to nothing; the
// reduce would step again and %r grow back, forever.
// CHECK-LABEL: func.func @main
// CHECK: garray.reduce {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.dot_general {{.*}} {garray.sharding = #garray.sharding<@mesh, P("y", "data")>}
garray.mesh @mesh ["y" = 2, "data" = 2, "z" = 2]
func.func @main(%a: tensor<8x16xf32>) -> (tensor<8x1xf32>) {
  %r = garray.reduce <max> %a, dims = [1] keepdims : (tensor<8x16xf32>) -> tensor<8x1xf32>
  %o = garray.dot_general %r, %r, batch = [] x [], contracting = [1] x [1] : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x8xf32>
  %c = garray.sharding_constraint %o : tensor<8x8xf32> to #garray.sharding<@mesh, P("y", "data")>
  %m = garray.mul %o, %c : tensor<8x8xf32>
  %z = garray.sharding_constraint %m : tensor<8x8xf32> to #garray.sharding<@mesh, P(None, None)>
  %u = garray.dot_general %o, %a, batch = [] x [], contracting = [1] x [0] : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %w = garray.dot_general %z, %r, batch = [] x [], contracting = [1] x [0] : (tensor<8x8xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
  return %w : tensor<8x1xf32>
}
