// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
//
// Parse/print round trip of the planner's comm collectives: reduce_scatter,
// all_to_all (groups like all_gather) and collective_permute (explicit
// source -> target pairs, printed nested).

// CHECK-LABEL: func.func @reduce_scatter
// CHECK-SAME: (%[[X:.*]]: tensor<8x2xf32>)
func.func @reduce_scatter(%x: tensor<8x2xf32>) -> (tensor<2x2xf32>, tensor<8x1xf32>) {
  // CHECK: comm.reduce_scatter <sum> %[[X]], dim = 0 groups = {{\[}}[0, 1, 2, 3]] : tensor<8x2xf32> -> tensor<2x2xf32>
  %0 = comm.reduce_scatter <sum> %x, dim = 0 groups = [[0, 1, 2, 3]] : tensor<8x2xf32> -> tensor<2x2xf32>
  // CHECK: comm.reduce_scatter <max> %[[X]], dim = 1 groups = {{\[}}[0, 2], [1, 3]] {reason = "kept"} : tensor<8x2xf32> -> tensor<8x1xf32>
  %1 = comm.reduce_scatter <max> %x, dim = 1 groups = [[0, 2], [1, 3]] {reason = "kept"} : tensor<8x2xf32> -> tensor<8x1xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<8x1xf32>
}

// -----

// CHECK-LABEL: func.func @all_to_all
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>)
func.func @all_to_all(%x: tensor<4x4xf32>) -> (tensor<8x2xf32>, tensor<1x16xf32>) {
  // CHECK: comm.all_to_all %[[X]], split_dim = 1, concat_dim = 0 groups = {{\[}}[0, 1], [2, 3]] : tensor<4x4xf32> -> tensor<8x2xf32>
  %0 = comm.all_to_all %x, split_dim = 1, concat_dim = 0 groups = [[0, 1], [2, 3]] : tensor<4x4xf32> -> tensor<8x2xf32>
  // CHECK: comm.all_to_all %[[X]], split_dim = 0, concat_dim = 1 groups = {{\[}}[0, 1, 2, 3]] : tensor<4x4xf32> -> tensor<1x16xf32>
  %1 = comm.all_to_all %x, split_dim = 0, concat_dim = 1 groups = [[0, 1, 2, 3]] : tensor<4x4xf32> -> tensor<1x16xf32>
  return %0, %1 : tensor<8x2xf32>, tensor<1x16xf32>
}

// -----

// CHECK-LABEL: func.func @collective_permute
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
func.func @collective_permute(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  // CHECK: comm.collective_permute %[[X]] pairs = {{\[}}[0, 1], [1, 0]] : tensor<4xi32> -> tensor<4xi32>
  %0 = comm.collective_permute %x pairs = [[0, 1], [1, 0]] : tensor<4xi32> -> tensor<4xi32>
  // A self pair is a local copy; device 3 is nobody's target.
  // CHECK: comm.collective_permute %[[X]] pairs = {{\[}}[0, 0], [3, 2], [2, 1]] : tensor<4xi32> -> tensor<4xi32>
  %1 = comm.collective_permute %x pairs = [[0, 0], [3, 2], [2, 1]] : tensor<4xi32> -> tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// The stored form: flat pairs.
// CHECK-LABEL: func.func @generic_form
func.func @generic_form(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: comm.collective_permute %{{.*}} pairs = {{\[}}[1, 0], [0, 1]] : tensor<2xf32> -> tensor<2xf32>
  %0 = "comm.collective_permute"(%x) {pairs = array<i64: 1, 0, 0, 1>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
