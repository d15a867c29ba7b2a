// RUN: shardc-opt %s -split-input-file --garray-lower-to-linalg -verify-diagnostics | FileCheck %s
//
// garray-lower-to-linalg on the shape ops (passes/lowering/ShapeLowering.cpp):
// each becomes the upstream tensor/linalg op that says the same thing.

// Shapes that nest: one collapse or one expand.
// CHECK-LABEL: func.func @reshape_nested
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x4xf32>, %[[F:[^:]+]]: tensor<32xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<8x4xf32> into tensor<32xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [8, 4] : tensor<32xf32> into tensor<8x4xf32>
// CHECK: return %[[C]], %[[E]]
func.func @reshape_nested(%x: tensor<8x4xf32>, %f: tensor<32xf32>) -> (tensor<32xf32>, tensor<8x4xf32>) {
  %0 = garray.reshape %x : (tensor<8x4xf32>) -> tensor<32xf32>
  %1 = garray.reshape %f : (tensor<32xf32>) -> tensor<8x4xf32>
  return %0, %1 : tensor<32xf32>, tensor<8x4xf32>
}

// -----

// Shapes that do not nest go through the 1-D row-major order; a scalar
// through tensor<1xT>.
// CHECK-LABEL: func.func @reshape_via_1d
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x4xi32>, %[[S:[^:]+]]: tensor<i32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<8x4xi32> into tensor<32xi32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [4, 8] : tensor<32xi32> into tensor<4x8xi32>
// CHECK: %[[ONE:.*]] = tensor.expand_shape %[[S]] [] output_shape [1] : tensor<i32> into tensor<1xi32>
// CHECK: return %[[R]], %[[ONE]]
func.func @reshape_via_1d(%x: tensor<8x4xi32>, %s: tensor<i32>) -> (tensor<4x8xi32>, tensor<1xi32>) {
  %0 = garray.reshape %x : (tensor<8x4xi32>) -> tensor<4x8xi32>
  %1 = garray.reshape %s : (tensor<i32>) -> tensor<1xi32>
  return %0, %1 : tensor<4x8xi32>, tensor<1xi32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3x4xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK: return %[[T]]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = garray.transpose %x, permutation = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x8xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][2, 1] [2, 3] [3, 2] : tensor<8x8xf32> to tensor<2x3xf32>
// CHECK: return %[[S]]
func.func @slice(%x: tensor<8x8xf32>) -> tensor<2x3xf32> {
  %0 = garray.slice %x, start = [2, 1], limit = [8, 7], strides = [3, 2] : (tensor<8x8xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x4xf32>, %[[V:[^:]+]]: tensor<f32>)
// CHECK: %[[PV:.*]] = tensor.extract %[[V]][] : tensor<f32>
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[1, 0] high[2, 3]
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: tensor.yield %[[PV]] : f32
// CHECK-NEXT: } : tensor<8x4xf32> to tensor<11x7xf32>
// CHECK: return %[[P]]
func.func @pad(%x: tensor<8x4xf32>, %v: tensor<f32>) -> tensor<11x7xf32> {
  %0 = garray.pad %x, %v, low = [1, 0], high = [2, 3] : (tensor<8x4xf32>, tensor<f32>) -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>
}

// -----

// CHECK-LABEL: func.func @concatenate
// CHECK-SAME: (%[[A:[^:]+]]: tensor<4x4xi1>, %[[B:[^:]+]]: tensor<4x8xi1>)
// CHECK: %[[C:.*]] = tensor.concat dim(1) %[[A]], %[[B]], %[[A]] : (tensor<4x4xi1>, tensor<4x8xi1>, tensor<4x4xi1>) -> tensor<4x16xi1>
// CHECK: return %[[C]], %[[A]]
func.func @concatenate(%a: tensor<4x4xi1>, %b: tensor<4x8xi1>) -> (tensor<4x16xi1>, tensor<4x4xi1>) {
  %0 = garray.concatenate %a, %b, %a, dim = 1 : (tensor<4x4xi1>, tensor<4x8xi1>, tensor<4x4xi1>) -> tensor<4x16xi1>
  %1 = garray.concatenate %a, dim = 0 : (tensor<4x4xi1>) -> tensor<4x4xi1>
  return %0, %1 : tensor<4x16xi1>, tensor<4x4xi1>
}

// -----

// A reversed dim d of size n is read at n - 1 - d.
// CHECK-DAG: #[[REV:.*]] = affine_map<(d0, d1) -> (-d0 + 7, d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @reverse
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x4xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[REV]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<8x4xf32>) outs(%[[INIT]] : tensor<8x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: return %[[R]]
func.func @reverse(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = garray.reverse %x, dims = [0] : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
