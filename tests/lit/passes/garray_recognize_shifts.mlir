// RUN: shardc-opt %s -split-input-file --garray-recognize-shifts | FileCheck %s
//
// garray-recognize-shifts: a slice that cuts one dim plus a pad (or a
// concatenation with a splat) restoring its size is a shift exactly when the
// fill lands where x[i - offset] leaves x. Only those forms are rewritten.

// x[i-1] with 0 at the left edge: slice [0, 15) then pad low 1.
// CHECK-LABEL: func.func @right_shift_pad
// CHECK-SAME: (%[[X:.*]]: tensor<16x4xf32>)
// CHECK: %[[Z:.*]] = garray.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[S:.*]] = garray.shift %[[X]], %[[Z]], dim = 0, offset = 1 : (tensor<16x4xf32>, tensor<f32>) -> tensor<16x4xf32>
// CHECK-NOT: garray.slice
// CHECK-NOT: garray.pad
// CHECK: return %[[S]]
func.func @right_shift_pad(%x: tensor<16x4xf32>) -> tensor<16x4xf32> {
  %zero = garray.constant dense<0.0> : tensor<f32>
  %l = garray.slice %x, start = [0, 0], limit = [15, 4], strides = [1, 1] : (tensor<16x4xf32>) -> tensor<15x4xf32>
  %r = garray.pad %l, %zero, low = [1, 0], high = [0, 0] : (tensor<15x4xf32>, tensor<f32>) -> tensor<16x4xf32>
  return %r : tensor<16x4xf32>
}

// -----

// x[i+2] along dim 1 with 7 at the right edge: slice [2, 8) then pad high 2.
// CHECK-LABEL: func.func @left_shift_pad
// CHECK: garray.shift %{{.*}}, %{{.*}}, dim = 1, offset = -2 : (tensor<3x8xf32>, tensor<f32>) -> tensor<3x8xf32>
// CHECK-NOT: garray.pad
func.func @left_shift_pad(%x: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %seven = garray.constant dense<7.0> : tensor<f32>
  %l = garray.slice %x, start = [0, 2], limit = [3, 8], strides = [1, 1] : (tensor<3x8xf32>) -> tensor<3x6xf32>
  %r = garray.pad %l, %seven, low = [0, 0], high = [0, 2] : (tensor<3x6xf32>, tensor<f32>) -> tensor<3x8xf32>
  return %r : tensor<3x8xf32>
}

// -----

// Concatenation with a splat constant on either side.
// CHECK-LABEL: func.func @concat_forms
// CHECK-DAG: %[[F:.*]] = garray.constant dense<-1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[A:.*]] = garray.shift %{{.*}}, %[[F]], dim = 0, offset = 1
// CHECK-DAG: %[[B:.*]] = garray.shift %{{.*}}, %{{.*}}, dim = 0, offset = -1
// CHECK-NOT: garray.concatenate
// CHECK: return %[[A]], %[[B]]
func.func @concat_forms(%x: tensor<10xf32>) -> (tensor<10xf32>, tensor<10xf32>) {
  %c = garray.constant dense<-1.0> : tensor<1xf32>
  %head = garray.slice %x, start = [0], limit = [9], strides = [1] : (tensor<10xf32>) -> tensor<9xf32>
  %a = garray.concatenate %c, %head, dim = 0 : (tensor<1xf32>, tensor<9xf32>) -> tensor<10xf32>
  %tail = garray.slice %x, start = [1], limit = [10], strides = [1] : (tensor<10xf32>) -> tensor<9xf32>
  %b = garray.concatenate %tail, %c, dim = 0 : (tensor<9xf32>, tensor<1xf32>) -> tensor<10xf32>
  return %a, %b : tensor<10xf32>, tensor<10xf32>
}

// -----

// Not shifts: a middle part padded on both sides (x[0] would be fill though
// x[-1] is not the source of anything), a strided slice, a pad on another
// dim, a concatenation with a non-constant, the fill on the wrong side.
// CHECK-LABEL: func.func @not_shifts
// CHECK-NOT: garray.shift
// CHECK: return
func.func @not_shifts(%x: tensor<8x4xf32>, %y: tensor<1x4xf32>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %zero = garray.constant dense<0.0> : tensor<f32>
  %mid = garray.slice %x, start = [1, 0], limit = [7, 4], strides = [1, 1] : (tensor<8x4xf32>) -> tensor<6x4xf32>
  %a = garray.pad %mid, %zero, low = [1, 0], high = [1, 0] : (tensor<6x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  %st = garray.slice %x, start = [0, 0], limit = [8, 4], strides = [2, 1] : (tensor<8x4xf32>) -> tensor<4x4xf32>
  %b = garray.pad %st, %zero, low = [4, 0], high = [0, 0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  %h = garray.slice %x, start = [0, 0], limit = [7, 4], strides = [1, 1] : (tensor<8x4xf32>) -> tensor<7x4xf32>
  %d = garray.concatenate %y, %h, dim = 0 : (tensor<1x4xf32>, tensor<7x4xf32>) -> tensor<8x4xf32>
  %e = garray.pad %h, %zero, low = [0, 0], high = [1, 0] : (tensor<7x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  return %a, %b, %d, %e, %e : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}
