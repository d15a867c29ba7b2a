// RUN: shardc-opt %s -split-input-file --garray-share-reductions | FileCheck %s
//
// garray-share-reductions: a later reduction of the same operand with the
// same kind and dims reuses the first, reshaped when keepdims differs.

// A log-softmax's max (keepdims) and a plain max of the same logits.
// CHECK-LABEL: func.func @max_twice
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>)
// CHECK: %[[M:.*]] = garray.reduce <max> %[[X]], dims = [1] keepdims
// CHECK-NEXT: %[[N:.*]] = garray.reshape %[[M]] : (tensor<8x1xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[K:.*]] = garray.reduce <max> %[[X]], dims = [0]
// CHECK-NOT: garray.reduce
// CHECK: return %[[M]], %[[N]], %[[M]], %[[K]]
func.func @max_twice(%x: tensor<8x4xf32>) -> (tensor<8x1xf32>, tensor<8xf32>, tensor<8x1xf32>, tensor<4xf32>) {
  %m = garray.reduce <max> %x, dims = [1] keepdims : (tensor<8x4xf32>) -> tensor<8x1xf32>
  %n = garray.reduce <max> %x, dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
  %again = garray.reduce <max> %x, dims = [1] keepdims : (tensor<8x4xf32>) -> tensor<8x1xf32>
  %other_dim = garray.reduce <max> %x, dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  return %m, %n, %again, %other_dim : tensor<8x1xf32>, tensor<8xf32>, tensor<8x1xf32>, tensor<4xf32>
}

// -----

// Dims in another order are the same reduction; another kind, another
// operand, or a reduction the user annotated are not shared.
// CHECK-LABEL: func.func @not_shared
// CHECK: %[[S:.*]] = garray.reduce <sum> %{{.*}}, dims = [0, 1]
// CHECK-NOT: garray.reduce <sum> %arg0, dims = [1, 0]
// CHECK: garray.reduce <max> %arg0, dims = [0, 1]
// CHECK: garray.reduce <sum> %arg1, dims = [0, 1]
// CHECK: garray.reduce <sum> %arg0, dims = [0, 1] {garray.sharding
// CHECK: return %[[S]], %[[S]]
garray.mesh @mesh ["data" = 2]
func.func @not_shared(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %s = garray.reduce <sum> %x, dims = [0, 1] : (tensor<8x4xf32>) -> tensor<f32>
  %t = garray.reduce <sum> %x, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<f32>
  %m = garray.reduce <max> %x, dims = [0, 1] : (tensor<8x4xf32>) -> tensor<f32>
  %o = garray.reduce <sum> %y, dims = [0, 1] : (tensor<8x4xf32>) -> tensor<f32>
  %a = garray.reduce <sum> %x, dims = [0, 1] {garray.sharding = #garray.sharding<@mesh, P()>} : (tensor<8x4xf32>) -> tensor<f32>
  return %s, %t, %m, %o, %a : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
