// RUN: shardc-opt %s -split-input-file --garray-autodiff -verify-diagnostics
//
// Differentiating through an op without an adjoint is an error at that op.

func.func private @f(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'garray.rem' has no adjoint (VjpOpInterface), so @f cannot be differentiated through it}}
  %r = garray.rem %x, %x : tensor<4xf32>
  %l = garray.reduce <sum> %r, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %l, %g = garray.value_and_grad @f(%x) wrt [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %l, %g : tensor<f32>, tensor<4xf32>
}

// -----

func.func private @g(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{the adjoint of a strided slice needs interior padding}}
  %s = garray.slice %x, start = [0], limit = [4], strides = [2] : (tensor<4xf32>) -> tensor<2xf32>
  %l = garray.reduce <sum> %s, dims = [0] : (tensor<2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %l, %g = garray.value_and_grad @g(%x) wrt [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %l, %g : tensor<f32>, tensor<4xf32>
}
