// RUN: shardc-opt %s -split-input-file --garray-decompose | FileCheck %s
//
// garray-decompose: garray.mean becomes reduce <sum>, a constant holding the
// *global* element count, and a division, so the denominator is fixed before
// anything is sharded.

// CHECK-LABEL: func.func @mean_1d
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK: %[[SUM:.*]] = garray.reduce <sum> %[[X]], dims = [0] : (tensor<8xf32>) -> tensor<f32>
// CHECK: %[[N:.*]] = garray.constant dense<8.000000e+00> : tensor<f32>
// CHECK: %[[MEAN:.*]] = garray.div %[[SUM]], %[[N]] : tensor<f32>
// CHECK: return %[[MEAN]]
// CHECK-NOT: garray.mean
func.func @mean_1d(%x: tensor<8xf32>) -> tensor<f32> {
  %m = garray.mean %x, dims = [0] : (tensor<8xf32>) -> tensor<f32>
  return %m : tensor<f32>
}

// -----

// The count is the product of the reduced dims only (4 * 3 = 12, then 3).
// CHECK-LABEL: func.func @mean_dims
// CHECK-SAME: (%[[X:.*]]: tensor<4x3x5xf64>)
// CHECK: %[[S1:.*]] = garray.reduce <sum> %[[X]], dims = [0, 1] : (tensor<4x3x5xf64>) -> tensor<5xf64>
// CHECK: %[[N1:.*]] = garray.constant dense<1.200000e+01> : tensor<5xf64>
// CHECK: %[[M1:.*]] = garray.div %[[S1]], %[[N1]] : tensor<5xf64>
// CHECK: %[[S2:.*]] = garray.reduce <sum> %[[X]], dims = [1] keepdims : (tensor<4x3x5xf64>) -> tensor<4x1x5xf64>
// CHECK: %[[N2:.*]] = garray.constant dense<3.000000e+00> : tensor<4x1x5xf64>
// CHECK: %[[M2:.*]] = garray.div %[[S2]], %[[N2]] : tensor<4x1x5xf64>
// CHECK: return %[[M1]], %[[M2]]
func.func @mean_dims(%x: tensor<4x3x5xf64>) -> (tensor<5xf64>, tensor<4x1x5xf64>) {
  %0 = garray.mean %x, dims = [0, 1] : (tensor<4x3x5xf64>) -> tensor<5xf64>
  %1 = garray.mean %x, dims = [1] keepdims : (tensor<4x3x5xf64>) -> tensor<4x1x5xf64>
  return %0, %1 : tensor<5xf64>, tensor<4x1x5xf64>
}

// -----

garray.mesh @mesh ["data" = 2]

// A sharding written on the mean stays with the value: it moves to the div.
// The global count does not depend on the mesh: still 8, not 8 / 2.
// CHECK-LABEL: func.func @mean_keeps_sharding
// CHECK: %[[SUM:.*]] = garray.reduce <sum> %{{.*}}, dims = [0] : (tensor<8xf32>) -> tensor<f32>
// CHECK: %[[N:.*]] = garray.constant dense<8.000000e+00> : tensor<f32>
// CHECK: garray.div %[[SUM]], %[[N]] {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
func.func @mean_keeps_sharding(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<f32> {
  %m = garray.mean %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P()>} : (tensor<8xf32>) -> tensor<f32>
  return %m : tensor<f32>
}

// -----

// Other ops are untouched, including reductions.
// CHECK-LABEL: func.func @no_mean
// CHECK-SAME: (%[[X:.*]]: tensor<8xf16>)
// CHECK-NEXT: %[[R:.*]] = garray.reduce <max> %[[X]], dims = [0] : (tensor<8xf16>) -> tensor<f16>
// CHECK-NEXT: return %[[R]]
func.func @no_mean(%x: tensor<8xf16>) -> tensor<f16> {
  %r = garray.reduce <max> %x, dims = [0] : (tensor<8xf16>) -> tensor<f16>
  return %r : tensor<f16>
}
