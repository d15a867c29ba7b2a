// RUN: shardc-opt %s -split-input-file --garray-global-to-local --garray-verify-local -verify-diagnostics | FileCheck %s
//
// garray-global-to-local for the planner's collectives: local types from the
// shardings before and after, device groups from the mesh (Mesh::groups),
// a permute's pairs carried as they are. verify-local accepts the comm ops.

garray.mesh @mesh ["x" = 2, "y" = 2]
// CHECK-LABEL: func.func @planner_collectives
// CHECK-SAME: (%[[P:[^:]+]]: tensor<8x4xf32>, %[[X:[^:]+]]: tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<4x2xf32>, tensor<2x4xf32>)
// CHECK: comm.reduce_scatter <sum> %[[P]], dim = 0 groups = {{\[}}[0, 2], [1, 3]] {reason = "r"} : tensor<8x4xf32> -> tensor<4x4xf32>
// CHECK: comm.all_to_all %[[X]], split_dim = 1, concat_dim = 0 groups = {{\[}}[0, 1], [2, 3]] : tensor<2x4xf32> -> tensor<4x2xf32>
// CHECK: comm.collective_permute %[[X]] pairs = {{\[}}[0, 0], [2, 1], [1, 2], [3, 3]] : tensor<2x4xf32> -> tensor<2x4xf32>
// CHECK-NOT: garray.
func.func @planner_collectives(
    %p: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None), unreduced = sum("x")>},
    %x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(("x", "y"), None)>})
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %0 = garray.reduce_scatter <sum> %p, dim = 0 on @mesh ["x"] {garray.sharding = #garray.sharding<@mesh, P("x", None)>, reason = "r"} : tensor<8x4xf32>
  %1 = garray.all_to_all %x, split_dim = 1, concat_dim = 0 on @mesh ["y"] {garray.sharding = #garray.sharding<@mesh, P("x", "y")>} : tensor<8x4xf32>
  %2 = garray.collective_permute %x on @mesh ["x", "y"] pairs = [0, 0, 2, 1, 1, 2, 3, 3] {garray.sharding = #garray.sharding<@mesh, P(("y", "x"), None)>} : tensor<8x4xf32>
  return %0, %1, %2 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}
