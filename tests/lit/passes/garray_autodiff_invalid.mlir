// RUN: shardc-opt %s -split-input-file --garray-autodiff -verify-diagnostics
//
// Differentiating through an op without an adjoint is an error at that op.

garray.mesh @mesh ["data" = 2]
func.func private @f(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'garray.all_reduce' has no adjoint (VjpOpInterface), so @f cannot be differentiated through it}}
  %r = garray.all_reduce <sum> %x on @mesh ["data"] : tensor<4xf32>
  %l = garray.reduce <sum> %r, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %l, %g = garray.value_and_grad @f(%x) wrt [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %l, %g : tensor<f32>, tensor<4xf32>
}

// -----

func.func private @g(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{garray-autodiff: no adjoint for reduce <prod> yet (sum, max and min have one)}}
  %l = garray.reduce <prod> %x, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %l, %g = garray.value_and_grad @g(%x) wrt [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %l, %g : tensor<f32>, tensor<4xf32>
}
