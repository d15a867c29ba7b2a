// RUN: split-file --leading-lines %s %t
// RUN: shardc import %t/ok.mlir | FileCheck %s
// RUN: not shardc import %t/ret.mlir 2>&1 | FileCheck %s --check-prefix=RET
// RUN: not shardc import %t/narrow.mlir 2>&1 | FileCheck %s --check-prefix=NARROW
// RUN: shardc import %t/nested.mlir | FileCheck %s --check-prefix=NESTED
//
// Zero-size tensors are removed before the import (garray has none): an
// empty concatenate operand is dropped, a pad of an empty operand is its
// padding value broadcast, a reduce over an empty dim is its init, a
// dot_general contracting one is zeros, a dynamic_update_slice of an empty
// update is its operand, ops computing empty values disappear, and calls
// that pass them are inlined. reduce_precision to the operand's own widths
// is dropped; to bfloat16's, a round trip through bf16.

//--- ok.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<4xf32>), sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    // CHECK-LABEL: func.func @main
    // CHECK-NOT: 0xf32
    // CHECK-NOT: call
    %e = "stablehlo.slice"(%x) <{start_indices = array<i64: 2>, limit_indices = array<i64: 2>, strides = array<i64: 1>}> : (tensor<4xf32>) -> tensor<0xf32>
    %d = "func.call"(%e) <{callee = @twice}> : (tensor<0xf32>) -> tensor<0xf32>
    %c = "stablehlo.concatenate"(%d, %x) <{dimension = 0 : i64}> : (tensor<0xf32>, tensor<4xf32>) -> tensor<4xf32>
    // CHECK: %[[ONE:.*]] = garray.constant dense<1.000000e+00> : tensor<f32>
    // CHECK: garray.broadcast_in_dim %[[ONE]], dims = [] : (tensor<f32>) -> tensor<3xf32>
    %one = "stablehlo.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    %p = "stablehlo.pad"(%d, %one) <{edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 2>, interior_padding = array<i64: 1>}> : (tensor<0xf32>, tensor<f32>) -> tensor<3xf32>
    // CHECK: %[[B:.*]] = garray.convert %arg0 lossy : (tensor<4xf32>) -> tensor<4xbf16>
    // CHECK: garray.convert %[[B]] : (tensor<4xbf16>) -> tensor<4xf32>
    %r = "stablehlo.reduce_precision"(%x) <{exponent_bits = 8 : i32, mantissa_bits = 23 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
    %h = "stablehlo.reduce_precision"(%x) <{exponent_bits = 8 : i32, mantissa_bits = 7 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
    // The sum over the empty dim: its init, 2.
    // CHECK: %[[TWO:.*]] = garray.constant dense<2.000000e+00> : tensor<f32>
    // CHECK: garray.broadcast_in_dim %[[TWO]], dims = [] : (tensor<f32>) -> tensor<3xf32>
    %two = "stablehlo.constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
    %e3 = "stablehlo.reshape"(%e) : (tensor<0xf32>) -> tensor<3x0xf32>
    %s = "stablehlo.reduce"(%e3, %two) <{dimensions = array<i64: 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) : (tensor<3x0xf32>, tensor<f32>) -> tensor<3xf32>
    // Contracting the empty dim: zeros (a scalar broadcast).
    // CHECK: %[[ZERO:.*]] = garray.constant dense<0.000000e+00> : tensor<f32>
    // CHECK: garray.broadcast_in_dim %[[ZERO]], dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %d2 = "stablehlo.dot_general"(%e3, %e3) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>}> : (tensor<3x0xf32>, tensor<3x0xf32>) -> tensor<3x3xf32>
    // Writing nothing: the operand.
    %i0 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %w = "stablehlo.dynamic_update_slice"(%x, %e, %i0) : (tensor<4xf32>, tensor<0xf32>, tensor<i32>) -> tensor<4xf32>
    // CHECK: return %arg0, %{{.*}}, %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %arg0
    "func.return"(%c, %p, %r, %h, %s, %d2, %w) : (tensor<4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<0xf32>) -> tensor<0xf32>, sym_name = "twice", sym_visibility = "private"}> ({
  ^bb0(%y: tensor<0xf32>):
    %s = "stablehlo.add"(%y, %y) : (tensor<0xf32>, tensor<0xf32>) -> tensor<0xf32>
    "func.return"(%s) : (tensor<0xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- ret.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x2xf32>) -> tensor<4x0xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4x2xf32>):
    %e = "stablehlo.slice"(%x) <{start_indices = array<i64: 0, 1>, limit_indices = array<i64: 4, 1>, strides = array<i64: 1, 1>}> : (tensor<4x2xf32>) -> tensor<4x0xf32>
    // RET: ret.mlir:[[@LINE+1]]:5: error: 'func.return' reads a zero-size 'tensor<4x0xf32>', which is not supported here
    "func.return"(%e) : (tensor<4x0xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- narrow.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    // NARROW: narrow.mlir:[[@LINE+1]]:10: error: 'stablehlo.reduce_precision' of 'f32' to 5 exponent and 10 mantissa bits is not supported
    %h = "stablehlo.reduce_precision"(%x) <{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%h) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- nested.mlir
// An unused op computing empty values in a region of its own goes with
// them; the ones inside are looked at before it, not after it freed them.
// NESTED-LABEL: func.func @main
// NESTED-NOT: 0xf32
// NESTED: return %arg0
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>):
    %e = "stablehlo.slice"(%a) <{start_indices = array<i64: 2>, limit_indices = array<i64: 2>, strides = array<i64: 1>}> : (tensor<4xf32>) -> tensor<0xf32>
    %0 = "sdy.manual_computation"(%e) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>, manual_axes = #sdy<manual_axes{"data"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>}> ({
    ^bb0(%x: tensor<0xf32>):
      %dead = "stablehlo.negate"(%x) : (tensor<0xf32>) -> tensor<0xf32>
      %t = "stablehlo.abs"(%x) : (tensor<0xf32>) -> tensor<0xf32>
      "sdy.return"(%t) : (tensor<0xf32>) -> ()
    }) : (tensor<0xf32>) -> tensor<0xf32>
    "func.return"(%a) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
