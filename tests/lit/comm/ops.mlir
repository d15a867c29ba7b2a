// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
//
// Parse/print round trip of the comm ops: groups are stored flat with a group
// size and print nested, `groups = [[0, 1], [2, 3]]`.

// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>, %[[I:.*]]: tensor<3xi32>)
func.func @all_reduce(%x: tensor<2xf32>, %i: tensor<3xi32>) -> (tensor<2xf32>, tensor<3xi32>) {
  // CHECK: %[[S:.*]] = comm.all_reduce <sum> %[[X]] groups = {{\[}}[0, 1, 2, 3]] : tensor<2xf32> -> tensor<2xf32>
  %0 = comm.all_reduce <sum> %x groups = [[0, 1, 2, 3]] : tensor<2xf32> -> tensor<2xf32>
  // CHECK: comm.all_reduce <max> %[[S]] groups = {{\[}}[0, 2], [1, 3]] : tensor<2xf32> -> tensor<2xf32>
  %1 = comm.all_reduce <max> %0 groups = [[0, 2], [1, 3]] : tensor<2xf32> -> tensor<2xf32>
  // CHECK: comm.all_reduce <prod> %[[I]] groups = {{\[}}[3], [1], [0], [2]] {reason = "kept"} : tensor<3xi32> -> tensor<3xi32>
  %2 = comm.all_reduce <prod> %i groups = [[3], [1], [0], [2]] {reason = "kept"} : tensor<3xi32> -> tensor<3xi32>
  return %1, %2 : tensor<2xf32>, tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @all_gather
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @all_gather(%x: tensor<2x3xf32>) -> (tensor<4x3xf32>, tensor<2x9xf32>) {
  // CHECK: comm.all_gather %[[X]], dim = 0 groups = {{\[}}[0, 2], [1, 3]] : tensor<2x3xf32> -> tensor<4x3xf32>
  %0 = comm.all_gather %x, dim = 0 groups = [[0, 2], [1, 3]] : tensor<2x3xf32> -> tensor<4x3xf32>
  // CHECK: comm.all_gather %[[X]], dim = 1 groups = {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<2x3xf32> -> tensor<2x9xf32>
  %1 = comm.all_gather %x, dim = 1 groups = [[0, 1, 2], [3, 4, 5]] : tensor<2x3xf32> -> tensor<2x9xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<2x9xf32>
}

// -----

// CHECK-LABEL: func.func @all_slice
// CHECK-SAME: (%[[X:.*]]: tensor<8x6xf32>)
func.func @all_slice(%x: tensor<8x6xf32>) -> (tensor<2x6xf32>, tensor<8x3xf32>) {
  // CHECK: comm.all_slice %[[X]], dim = 0 groups = {{\[}}[0, 3, 1, 4, 2, 5, 6, 7]] : tensor<8x6xf32> -> tensor<1x6xf32>
  %0 = comm.all_slice %x, dim = 0 groups = [[0, 3, 1, 4, 2, 5, 6, 7]] : tensor<8x6xf32> -> tensor<1x6xf32>
  // CHECK: comm.all_slice %[[X]], dim = 1 groups = {{\[}}[0, 1], [2, 3]] : tensor<8x6xf32> -> tensor<8x3xf32>
  %1 = comm.all_slice %x, dim = 1 groups = [[0, 1], [2, 3]] : tensor<8x6xf32> -> tensor<8x3xf32>
  %2 = comm.all_gather %0, dim = 0 groups = [[0, 1], [2, 3], [4, 5], [6, 7]] : tensor<1x6xf32> -> tensor<2x6xf32>
  return %2, %1 : tensor<2x6xf32>, tensor<8x3xf32>
}

// -----

// The stored form: flat device ids and a group size.
// CHECK-LABEL: func.func @generic_form
func.func @generic_form(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: comm.all_reduce <min> %{{.*}} groups = {{\[}}[0, 1], [2, 3]] : tensor<2xf32> -> tensor<2xf32>
  %0 = "comm.all_reduce"(%x) {kind = #garray.reduction<min>, groups = array<i64: 0, 1, 2, 3>, group_size = 2 : i64}
      : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
