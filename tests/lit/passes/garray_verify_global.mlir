// RUN: shardc-opt %s -split-input-file --garray-verify-global -verify-diagnostics | FileCheck %s
// RUN: shardc-opt %s -split-input-file --shardc-global-phase | FileCheck %s --check-prefix=PHASE
//
// garray-verify-global: the gate that ends the global phase. Later phases
// see core garray ops only: no composite (mean, argmax, argmin), no
// value_and_grad, no optimizer update. Each case below breaks the invariant
// when the gate runs alone; the whole phase (PHASE) removes the op first.

// A core program passes unchanged.
// CHECK-LABEL: func.func @core
// CHECK: garray.reduce <sum>
func.func @core(%x: tensor<8x4xf32>) -> tensor<4xf32> {
  %0 = garray.reduce <sum> %x, dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// PHASE-LABEL: func.func @mean
// PHASE-NOT: garray.mean
// PHASE: garray.reduce <sum>
// PHASE: garray.div
func.func @mean(%x: tensor<8xf32>) -> tensor<f32> {
  // expected-error @+1 {{verify-global: 'garray.mean' should have been written in core garray ops by garray-decompose before propagation}}
  %0 = garray.mean %x, dims = [0] : (tensor<8xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// PHASE-LABEL: func.func @sgd
// PHASE-NOT: garray.sgd_update
// PHASE: garray.sub
func.func @sgd(%w: tensor<2xf32>, %g: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{verify-global: 'garray.sgd_update' should have been written in core garray ops by garray-expand-optimizers before propagation}}
  %0 = garray.sgd_update %w, %g {lr = 0.1 : f64} : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = garray.reduce <sum> %x, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// PHASE-LABEL: func.func @grad
// PHASE-NOT: garray.value_and_grad
func.func @grad(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  // expected-error @+1 {{verify-global: 'garray.value_and_grad' should have been written in core garray ops by garray-autodiff before propagation}}
  %l, %g = garray.value_and_grad @f(%x) wrt [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %l, %g : tensor<f32>, tensor<4xf32>
}
