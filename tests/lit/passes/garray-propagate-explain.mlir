// RUN: shardc-opt %s --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// garray-propagate with `explain`: one remark per value, at its location,
// with its final sharding and where it came from (the annotation and its
// location, and the ops it flowed through).

garray.mesh @mesh ["data" = 2]

func.func @explain(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>, garray.name = "X"},
                   %w: tensor<2xf32>) -> tensor<8xf32> {
  %p = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
  %e = garray.exp %p : tensor<8xf32>
  return %e : tensor<8xf32>
}
