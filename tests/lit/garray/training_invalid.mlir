// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// Labelled constraints of value_and_grad and the optimizer ops.

func.func private @f(%x: tensor<4xf32>) -> tensor<f32>
func.func @wrt_range(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  // expected-error @+1 {{value_and_grad_c2: wrt index 1 is out of range for 1 arguments}}
  %l, %g = garray.value_and_grad @f(%x) wrt [1] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %l, %g : tensor<f32>, tensor<4xf32>
}

// -----

func.func @no_callee(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  // expected-error @+1 {{value_and_grad_c1: no function @missing with a body to differentiate}}
  %l, %g = garray.value_and_grad @missing(%x) wrt [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %l, %g : tensor<f32>, tensor<4xf32>
}

// -----

func.func private @two(%x: tensor<4xf32>) -> (tensor<f32>, tensor<f32>) {
  %l = garray.reduce <sum> %x, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l, %l : tensor<f32>, tensor<f32>
}
func.func @two_results(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  // expected-error @+1 {{value_and_grad_c1: @two has type '(tensor<4xf32>) -> (tensor<f32>, tensor<f32>)' but must return exactly one 'tensor<f32>' (the loss)}}
  %l, %g = garray.value_and_grad @two(%x) wrt [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %l, %g : tensor<f32>, tensor<4xf32>
}

// -----

func.func private @h(%x: tensor<4xi64>) -> tensor<f32>
func.func @int_wrt(%x: tensor<4xi64>) -> (tensor<f32>, tensor<4xi64>) {
  // expected-error @+1 {{value_and_grad_c2: argument #0 has type 'tensor<4xi64>', not a float tensor}}
  %l, %g = garray.value_and_grad @h(%x) wrt [0] : (tensor<4xi64>) -> (tensor<f32>, tensor<4xi64>)
  return %l, %g : tensor<f32>, tensor<4xi64>
}

// -----

func.func @grad_type(%x: tensor<4xf32>) -> (tensor<f32>, tensor<3xf32>) {
  // expected-error @+1 {{value_and_grad_c3: result #1 has type 'tensor<3xf32>' but the gradient of argument #0 has its type 'tensor<4xf32>'}}
  %l, %g = garray.value_and_grad @f2(%x) wrt [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<3xf32>)
  return %l, %g : tensor<f32>, tensor<3xf32>
}
func.func private @f2(%x: tensor<4xf32>) -> tensor<f32>

// -----

func.func @adam_t(%w: tensor<2xf32>, %t: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{adam_update_c2: the step count `t` must be a 'tensor<f32>', not 'tensor<2xf32>'}}
  %a, %b, %c = garray.adam_update %w, %w, %w, %w, %t {lr = 0.1 : f64} : tensor<2xf32>, tensor<2xf32>
  return %a : tensor<2xf32>
}

// -----

func.func @sgd_int(%w: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{sgd_update_c1: the parameter must be a float tensor, not 'tensor<2xi32>'}}
  %a = garray.sgd_update %w, %w {lr = 0.1 : f64} : tensor<2xi32>
  return %a : tensor<2xi32>
}

// -----

func.func @clip_norm(%g: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{clip_by_global_norm_c2: max_norm must be positive, not 0}}
  %c = garray.clip_by_global_norm %g {max_norm = 0.0 : f64} : tensor<2xf32> -> tensor<2xf32>
  return %c : tensor<2xf32>
}
