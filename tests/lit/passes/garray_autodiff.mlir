// RUN: shardc-opt %s -split-input-file --garray-autodiff | FileCheck %s
//
// garray-autodiff: value_and_grad becomes the callee's body (the forward
// pass) and, in reverse, each op's adjoint (VjpOpInterface); a value used
// twice gets the sum of its cotangents (x * x: g x + g x, the two equal
// products merged by CSE); the private loss function, now unused, is
// erased; cotangents of inactive operands are not kept.

// CHECK-NOT: func.func private @sq
// CHECK-LABEL: func.func @square_sum
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[SQ:.*]] = garray.mul %[[X]], %[[X]] : tensor<4xf32>
// CHECK: %[[L:.*]] = garray.reduce <sum> %[[SQ]], dims = [0]
// CHECK: %[[ONE:.*]] = garray.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[GS:.*]] = garray.broadcast_in_dim %[[ONE]], dims = [] : (tensor<f32>) -> tensor<4xf32>
// CHECK: %[[A:.*]] = garray.mul %[[GS]], %[[X]]
// CHECK-NOT: garray.mul
// CHECK: %[[G:.*]] = garray.add %[[A]], %[[A]]
// CHECK: return %[[L]], %[[G]]
// CHECK-NOT: value_and_grad
func.func private @sq(%x: tensor<4xf32>) -> tensor<f32> {
  %s = garray.mul %x, %x : tensor<4xf32>
  %l = garray.reduce <sum> %s, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @square_sum(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %l, %g = garray.value_and_grad @sq(%x) wrt [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %l, %g : tensor<f32>, tensor<4xf32>
}

// -----

// Only w is differentiated: X's cotangent (a dot with w) is not built, and
// the gradient is a dot contracting the batch dim of X (the pending sum a
// sharded batch turns into one all-reduce).
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<8x2xf32>, %[[W:.*]]: tensor<2xf32>)
// CHECK: %[[P:.*]] = garray.dot_general %[[X]], %[[W]], batch = [] x [], contracting = [1] x [0]
// CHECK: %[[L:.*]] = garray.reduce <sum> %[[P]]
// CHECK: %[[GP:.*]] = garray.broadcast_in_dim
// CHECK-NOT: contracting = [] x []
// CHECK: %[[G:.*]] = garray.dot_general %[[GP]], %[[X]], batch = [] x [], contracting = [0] x [0] : (tensor<8xf32>, tensor<8x2xf32>) -> tensor<2xf32>
// CHECK: return %[[L]], %[[G]]
func.func private @lin(%X: tensor<8x2xf32>, %w: tensor<2xf32>) -> tensor<f32> {
  %p = garray.dot_general %X, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
  %l = garray.reduce <sum> %p, dims = [0] : (tensor<8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @linear(%X: tensor<8x2xf32>, %w: tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>) {
  %l, %g = garray.value_and_grad @lin(%X, %w) wrt [1]
      : (tensor<8x2xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>)
  return %l, %g : tensor<f32>, tensor<2xf32>
}

// -----

// An argument the loss does not depend on gets a zero gradient.
// CHECK-LABEL: func.func @unused
// CHECK: %[[Z:.*]] = garray.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK: return %{{.*}}, %[[Z]]
func.func private @first(%a: tensor<f32>, %b: tensor<3xf32>) -> tensor<f32> {
  %e = garray.exp %a : tensor<f32>
  return %e : tensor<f32>
}
func.func @unused(%a: tensor<f32>, %b: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %l, %g = garray.value_and_grad @first(%a, %b) wrt [1]
      : (tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return %l, %g : tensor<f32>, tensor<3xf32>
}

// -----

// stop_gradient: the value flows, the gradient does not. d/dx sum(x *
// stop_gradient(x)) is x, not 2x; and no stop_gradient is left, in the
// differentiated function or in one that is not.
// CHECK-LABEL: func.func @stopped
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[SQ:.*]] = garray.mul %[[X]], %[[X]] : tensor<4xf32>
// CHECK: %[[L:.*]] = garray.reduce <sum> %[[SQ]], dims = [0]
// CHECK: %[[GS:.*]] = garray.broadcast_in_dim
// CHECK: %[[G:.*]] = garray.mul %[[GS]], %[[X]]
// CHECK-NOT: garray.add
// CHECK: return %[[L]], %[[G]]
// CHECK-LABEL: func.func @forward_only
// CHECK-NEXT: %[[E:.*]] = garray.exp %{{.*}}
// CHECK-NEXT: return %[[E]]
// CHECK-NOT: stop_gradient
func.func private @half_sq(%x: tensor<4xf32>) -> tensor<f32> {
  %c = garray.stop_gradient %x : tensor<4xf32>
  %s = garray.mul %x, %c : tensor<4xf32>
  %l = garray.reduce <sum> %s, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @stopped(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %l, %g = garray.value_and_grad @half_sq(%x) wrt [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %l, %g : tensor<f32>, tensor<4xf32>
}
func.func @forward_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = garray.stop_gradient %x : tensor<4xf32>
  %e = garray.exp %c : tensor<4xf32>
  return %e : tensor<4xf32>
}
