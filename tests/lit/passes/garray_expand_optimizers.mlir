// RUN: shardc-opt %s -split-input-file --garray-expand-optimizers | FileCheck %s
//
// garray-expand-optimizers: updates become elementwise garray ops; the
// clipping norm is a sum over every gradient's global shape.

// CHECK-LABEL: func.func @sgd
// CHECK-SAME: (%[[W:.*]]: tensor<2xf32>, %[[G:.*]]: tensor<2xf32>)
// CHECK: %[[LR:.*]] = garray.constant dense<1.000000e-01> : tensor<2xf32>
// CHECK: %[[S:.*]] = garray.mul %[[G]], %[[LR]]
// CHECK: %[[W1:.*]] = garray.sub %[[W]], %[[S]]
// CHECK: return %[[W1]]
func.func @sgd(%w: tensor<2xf32>, %g: tensor<2xf32>) -> tensor<2xf32> {
  %w1 = garray.sgd_update %w, %g {lr = 0.1 : f64} : tensor<2xf32>
  return %w1 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @clip
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[A2:.*]] = garray.mul %[[A]], %[[A]]
// CHECK: %[[SA:.*]] = garray.reduce <sum> %[[A2]], dims = [0, 1] : (tensor<2x3xf32>) -> tensor<f32>
// CHECK: %[[B2:.*]] = garray.mul %[[B]], %[[B]]
// CHECK: %[[SB:.*]] = garray.reduce <sum> %[[B2]], dims = [0] : (tensor<3xf32>) -> tensor<f32>
// CHECK: %[[T:.*]] = garray.add %[[SA]], %[[SB]]
// CHECK: %[[N:.*]] = garray.sqrt %[[T]]
// CHECK: %[[M:.*]] = garray.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[D:.*]] = garray.max %[[N]], %[[M]]
// CHECK: %[[F:.*]] = garray.div %[[M]], %[[D]]
// CHECK: garray.broadcast_in_dim %[[F]], dims = [] : (tensor<f32>) -> tensor<2x3xf32>
// CHECK-NOT: clip_by_global_norm
func.func @clip(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %ca, %cb = garray.clip_by_global_norm %a, %b {max_norm = 2.0 : f64}
      : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>, tensor<3xf32>
  return %ca, %cb : tensor<2x3xf32>, tensor<3xf32>
}

// -----

// Bias correction with the runtime step count t: 1 - beta^t.
// CHECK-LABEL: func.func @adam
// CHECK-SAME: %[[T:[^:]*]]: tensor<f32>)
// CHECK: %[[B1:.*]] = garray.constant dense<0.899999976> : tensor<f32>
// CHECK: %[[P1:.*]] = garray.pow %[[B1]], %[[T]] : tensor<f32>
// CHECK: %[[B2:.*]] = garray.constant dense<9.990000e-01> : tensor<f32>
// CHECK: %[[P2:.*]] = garray.pow %[[B2]], %[[T]] : tensor<f32>
// CHECK: garray.sqrt
// CHECK-NOT: adam_update
func.func @adam(%w: tensor<2xf32>, %g: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>,
                %t: tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a, %b, %c = garray.adam_update %w, %g, %m, %v, %t {lr = 0.1 : f64} : tensor<2xf32>, tensor<f32>
  return %a, %b, %c : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
