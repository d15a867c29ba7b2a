// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
//
// Parse/print round trip of the reductions & indexing ops (reduce, mean with
// and without weights, argmax/argmin, gather, scatter_add, iota) and of
// compare/select, which argmax/argmin decompose into.

// CHECK-LABEL: func.func @reduce_kinds
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<8x4xi1>)
func.func @reduce_kinds(%x: tensor<8x4xf32>, %b: tensor<8x4xi1>)
    -> (tensor<4xf32>, tensor<8x1xf32>, tensor<f32>, tensor<1x1xf32>, tensor<8xi1>) {
  // CHECK: garray.reduce <sum> %[[X]], dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  %0 = garray.reduce <sum> %x, dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  // CHECK: garray.reduce <max> %[[X]], dims = [1] keepdims : (tensor<8x4xf32>) -> tensor<8x1xf32>
  %1 = garray.reduce <max> %x, dims = [1] keepdims : (tensor<8x4xf32>) -> tensor<8x1xf32>
  // CHECK: garray.reduce <min> %[[X]], dims = [0, 1] : (tensor<8x4xf32>) -> tensor<f32>
  %2 = garray.reduce <min> %x, dims = [0, 1] : (tensor<8x4xf32>) -> tensor<f32>
  // CHECK: garray.reduce <prod> %[[X]], dims = [1, 0] keepdims : (tensor<8x4xf32>) -> tensor<1x1xf32>
  %3 = garray.reduce <prod> %x, dims = [1, 0] keepdims : (tensor<8x4xf32>) -> tensor<1x1xf32>
  // CHECK: garray.reduce <max> %[[B]], dims = [1] : (tensor<8x4xi1>) -> tensor<8xi1>
  %4 = garray.reduce <max> %b, dims = [1] : (tensor<8x4xi1>) -> tensor<8xi1>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<8x1xf32>, tensor<f32>, tensor<1x1xf32>, tensor<8xi1>
}

// -----

// CHECK-LABEL: func.func @mean
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<8x4xf32>)
func.func @mean(%x: tensor<8x4xf32>, %w: tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8x1xf32>, tensor<f32>) {
  // CHECK: garray.mean %[[X]], dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  %0 = garray.mean %x, dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  // CHECK: garray.mean %[[X]], dims = [1] keepdims weights %[[W]] : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x1xf32>
  %1 = garray.mean %x, dims = [1] keepdims weights %w : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x1xf32>
  // CHECK: garray.mean %[[X]], dims = [0, 1] weights %[[W]] : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<f32>
  %2 = garray.mean %x, dims = [0, 1] weights %w : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<f32>
  return %0, %1, %2 : tensor<4xf32>, tensor<8x1xf32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @arg_reductions
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[I:.*]]: tensor<8xi32>)
func.func @arg_reductions(%x: tensor<8x4xf32>, %i: tensor<8xi32>) -> (tensor<8xi64>, tensor<4xi32>, tensor<i64>) {
  // CHECK: garray.argmax %[[X]], dim = 1 : (tensor<8x4xf32>) -> tensor<8xi64>
  %0 = garray.argmax %x, dim = 1 : (tensor<8x4xf32>) -> tensor<8xi64>
  // CHECK: garray.argmin %[[X]], dim = 0 : (tensor<8x4xf32>) -> tensor<4xi32>
  %1 = garray.argmin %x, dim = 0 : (tensor<8x4xf32>) -> tensor<4xi32>
  // CHECK: garray.argmax %[[I]], dim = 0 : (tensor<8xi32>) -> tensor<i64>
  %2 = garray.argmax %i, dim = 0 : (tensor<8xi32>) -> tensor<i64>
  return %0, %1, %2 : tensor<8xi64>, tensor<4xi32>, tensor<i64>
}

// -----

// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[T:.*]]: tensor<16x8xf32>, %[[I:.*]]: tensor<4xi64>, %[[J:.*]]: tensor<2x3xi32>, %[[V:.*]]: tensor<16xi32>, %[[S:.*]]: tensor<i8>)
func.func @gather(%t: tensor<16x8xf32>, %i: tensor<4xi64>, %j: tensor<2x3xi32>, %v: tensor<16xi32>, %s: tensor<i8>)
    -> (tensor<4x8xf32>, tensor<2x3x8xf32>, tensor<2x3xi32>, tensor<8xf32>) {
  // CHECK: garray.gather %[[T]][%[[I]]] : (tensor<16x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  %0 = garray.gather %t[%i] : (tensor<16x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  // CHECK: garray.gather %[[T]][%[[J]]] : (tensor<16x8xf32>, tensor<2x3xi32>) -> tensor<2x3x8xf32>
  %1 = garray.gather %t[%j] : (tensor<16x8xf32>, tensor<2x3xi32>) -> tensor<2x3x8xf32>
  // CHECK: garray.gather %[[V]][%[[J]]] : (tensor<16xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %2 = garray.gather %v[%j] : (tensor<16xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK: garray.gather %[[T]][%[[S]]] : (tensor<16x8xf32>, tensor<i8>) -> tensor<8xf32>
  %3 = garray.gather %t[%s] : (tensor<16x8xf32>, tensor<i8>) -> tensor<8xf32>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<2x3x8xf32>, tensor<2x3xi32>, tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME: (%[[B:.*]]: tensor<16x8xf32>, %[[I:.*]]: tensor<4xi64>, %[[U:.*]]: tensor<4x8xf32>)
func.func @scatter_add(%b: tensor<16x8xf32>, %i: tensor<4xi64>, %u: tensor<4x8xf32>) -> tensor<16x8xf32> {
  // CHECK: garray.scatter_add %[[B]], %[[I]], %[[U]] : (tensor<16x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<16x8xf32>
  %0 = garray.scatter_add %b, %i, %u : (tensor<16x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @scatter_reduce
// CHECK-SAME: (%[[B:.*]]: tensor<16x8xf32>, %[[I:.*]]: tensor<4xi64>, %[[U:.*]]: tensor<4x8xf32>)
func.func @scatter_reduce(%b: tensor<16x8xf32>, %i: tensor<4xi64>, %u: tensor<4x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  // CHECK: garray.scatter_reduce <max> %[[B]], %[[I]], %[[U]] : (tensor<16x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<16x8xf32>
  %0 = garray.scatter_reduce <max> %b, %i, %u : (tensor<16x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<16x8xf32>
  // CHECK: garray.scatter_reduce <min> %[[B]], %[[I]], %[[U]]
  %1 = garray.scatter_reduce <min> %b, %i, %u : (tensor<16x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<16x8xf32>
  return %0, %1 : tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @iota
func.func @iota() -> (tensor<8x4xi64>, tensor<8xf32>, tensor<4x4xi32>) {
  // CHECK: garray.iota dim = 1 : tensor<8x4xi64>
  %0 = garray.iota dim = 1 : tensor<8x4xi64>
  // CHECK: garray.iota dim = 0 : tensor<8xf32>
  %1 = garray.iota dim = 0 : tensor<8xf32>
  // CHECK: garray.iota dim = 0 {note = "kept"} : tensor<4x4xi32>
  %2 = garray.iota dim = 0 {note = "kept"} : tensor<4x4xi32>
  return %0, %1, %2 : tensor<8x4xi64>, tensor<8xf32>, tensor<4x4xi32>
}

// -----

// CHECK-LABEL: func.func @compare_select
// CHECK-SAME: (%[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
func.func @compare_select(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: %[[EQ:.*]] = garray.compare <eq> %[[A]], %[[B]] : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %0 = garray.compare <eq> %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  // CHECK: garray.compare <ne> %[[A]], %[[B]]
  %1 = garray.compare <ne> %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  // CHECK: garray.compare <lt> %[[A]], %[[B]]
  %2 = garray.compare <lt> %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  // CHECK: garray.compare <le> %[[A]], %[[B]]
  %3 = garray.compare <le> %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  // CHECK: garray.compare <gt> %[[A]], %[[B]]
  %4 = garray.compare <gt> %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  // CHECK: %[[GE:.*]] = garray.compare <ge> %[[A]], %[[B]]
  %5 = garray.compare <ge> %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  // CHECK: %[[S:.*]] = garray.select %[[EQ]], %[[A]], %[[B]] : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %6 = garray.select %0, %a, %b : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  // CHECK: garray.select %[[GE]], %[[S]], %[[B]] {note = "kept"} : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %7 = garray.select %5, %6, %b {note = "kept"} : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %7 : tensor<8xf32>
}
