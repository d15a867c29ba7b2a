// RUN: shardc-opt %s -split-input-file --garray-lower-to-linalg -verify-diagnostics
//
// FIXED: a garray.mean reaching the lowering is reported as
// "'garray.mean' has no lowering for element type or shape 'tensor<f32>'",
// which suggests a missing pattern for f32; the fix is to run
// garray-decompose first (the mean has no lowering at any type, on purpose:
// its denominator must be the global count). Expected: a message that says so.

func.func @mean(%a: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{garray-decompose}}
  %0 = garray.mean %a, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
