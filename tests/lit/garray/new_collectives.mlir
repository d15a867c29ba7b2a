// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
//
// Round trip of the planner's global collectives: reduce_scatter, all_to_all
// and collective_permute.

garray.mesh @mesh ["x" = 2, "y" = 2]
// CHECK-LABEL: func.func @global_collectives
// CHECK-SAME: (%[[P:.*]]: tensor<8x4xf32> {{.*}}, %[[X:.*]]: tensor<8x4xf32> {{.*}})
func.func @global_collectives(
    %p: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None), unreduced = sum("x")>},
    %x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(("x", "y"), None)>})
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  // CHECK: garray.reduce_scatter <sum> %[[P]], dim = 0 on @mesh ["x"] : tensor<8x4xf32>
  %0 = garray.reduce_scatter <sum> %p, dim = 0 on @mesh ["x"] : tensor<8x4xf32>
  // CHECK: garray.all_to_all %[[X]], split_dim = 1, concat_dim = 0 on @mesh ["y"] : tensor<8x4xf32>
  %1 = garray.all_to_all %x, split_dim = 1, concat_dim = 0 on @mesh ["y"] : tensor<8x4xf32>
  // CHECK: garray.collective_permute %[[X]] on @mesh ["x", "y"] pairs = [0, 0, 2, 1, 1, 2, 3, 3] : tensor<8x4xf32>
  %2 = garray.collective_permute %x on @mesh ["x", "y"] pairs = [0, 0, 2, 1, 1, 2, 3, 3] : tensor<8x4xf32>
  return %0, %1, %2 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}
