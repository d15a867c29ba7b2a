// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
//
// Parse/print round trip of the shape ops (GArrayShapeOps.td): reshape,
// transpose, slice, pad, concatenate, reverse, shift. The printed form must parse
// back to the same IR.

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>)
func.func @reshape(%x: tensor<8x4xf32>) -> (tensor<32xf32>, tensor<4x8xf32>, tensor<1x32x1xf32>) {
  // CHECK: %[[F:.*]] = garray.reshape %[[X]] : (tensor<8x4xf32>) -> tensor<32xf32>
  %f = garray.reshape %x : (tensor<8x4xf32>) -> tensor<32xf32>
  // CHECK: garray.reshape %[[F]] : (tensor<32xf32>) -> tensor<4x8xf32>
  %g = garray.reshape %f : (tensor<32xf32>) -> tensor<4x8xf32>
  // CHECK: garray.reshape %[[X]] : (tensor<8x4xf32>) -> tensor<1x32x1xf32>
  %h = garray.reshape %x : (tensor<8x4xf32>) -> tensor<1x32x1xf32>
  return %f, %g, %h : tensor<32xf32>, tensor<4x8xf32>, tensor<1x32x1xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_scalar
func.func @reshape_scalar(%x: tensor<f32>) -> tensor<1x1xf32> {
  // CHECK: garray.reshape %{{.*}} : (tensor<f32>) -> tensor<1x1xf32>
  %0 = garray.reshape %x : (tensor<f32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xi32>)
func.func @transpose(%x: tensor<2x3x4xi32>) -> tensor<4x2x3xi32> {
  // CHECK: garray.transpose %[[X]], permutation = [2, 0, 1] : (tensor<2x3x4xi32>) -> tensor<4x2x3xi32>
  %0 = garray.transpose %x, permutation = [2, 0, 1] : (tensor<2x3x4xi32>) -> tensor<4x2x3xi32>
  return %0 : tensor<4x2x3xi32>
}

// -----

// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>)
func.func @slice(%x: tensor<8x4xf32>) -> tensor<3x2xf32> {
  // CHECK: garray.slice %[[X]], start = [1, 1], limit = [8, 3], strides = [3, 1] : (tensor<8x4xf32>) -> tensor<3x2xf32>
  %0 = garray.slice %x, start = [1, 1], limit = [8, 3], strides = [3, 1]
      : (tensor<8x4xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xi1>, %[[V:.*]]: tensor<i1>)
func.func @pad(%x: tensor<8x4xi1>, %v: tensor<i1>) -> tensor<11x4xi1> {
  // CHECK: garray.pad %[[X]], %[[V]], low = [1, 0], high = [2, 0] : (tensor<8x4xi1>, tensor<i1>) -> tensor<11x4xi1>
  %0 = garray.pad %x, %v, low = [1, 0], high = [2, 0] : (tensor<8x4xi1>, tensor<i1>) -> tensor<11x4xi1>
  return %0 : tensor<11x4xi1>
}

// -----

// CHECK-LABEL: func.func @concatenate
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf64>, %[[B:.*]]: tensor<8x4xf64>)
func.func @concatenate(%a: tensor<4x4xf64>, %b: tensor<8x4xf64>) -> (tensor<16x4xf64>, tensor<4x4xf64>) {
  // CHECK: garray.concatenate %[[A]], %[[B]], %[[A]], dim = 0 : (tensor<4x4xf64>, tensor<8x4xf64>, tensor<4x4xf64>) -> tensor<16x4xf64>
  %0 = garray.concatenate %a, %b, %a, dim = 0
      : (tensor<4x4xf64>, tensor<8x4xf64>, tensor<4x4xf64>) -> tensor<16x4xf64>
  // CHECK: garray.concatenate %[[A]], dim = 1 : (tensor<4x4xf64>) -> tensor<4x4xf64>
  %1 = garray.concatenate %a, dim = 1 : (tensor<4x4xf64>) -> tensor<4x4xf64>
  return %0, %1 : tensor<16x4xf64>, tensor<4x4xf64>
}

// -----

// CHECK-LABEL: func.func @reverse
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xbf16>)
func.func @reverse(%x: tensor<8x4xbf16>) -> tensor<8x4xbf16> {
  // CHECK: garray.reverse %[[X]], dims = [0, 1] : tensor<8x4xbf16>
  %0 = garray.reverse %x, dims = [0, 1] : tensor<8x4xbf16>
  return %0 : tensor<8x4xbf16>
}

// -----

// CHECK-LABEL: func.func @shift
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[F:.*]]: tensor<f32>)
func.func @shift(%x: tensor<8x4xf32>, %f: tensor<f32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  // CHECK: garray.shift %[[X]], %[[F]], dim = 0, offset = 3 : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  %0 = garray.shift %x, %f, dim = 0, offset = 3 : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  // CHECK: garray.shift %[[X]], %[[F]], dim = 1, offset = -1 : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  %1 = garray.shift %x, %f, dim = 1, offset = -1 : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  return %0, %1 : tensor<8x4xf32>, tensor<8x4xf32>
}
