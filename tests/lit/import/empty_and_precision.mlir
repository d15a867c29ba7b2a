// RUN: split-file --leading-lines %s %t
// RUN: shardc import %t/ok.mlir | FileCheck %s
// RUN: not shardc import %t/dot.mlir 2>&1 | FileCheck %s --check-prefix=DOT
// RUN: not shardc import %t/narrow.mlir 2>&1 | FileCheck %s --check-prefix=NARROW
//
// Zero-size tensors are removed before the import (garray has none): an
// empty concatenate operand is dropped, a pad of an empty operand is its
// padding value broadcast, ops computing empty values disappear, and calls
// that pass them are inlined. reduce_precision to the operand's own widths
// is dropped; to bfloat16's, a round trip through bf16.

//--- ok.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>), sym_name = "main"}> ({
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
    // CHECK: return %arg0, %{{.*}}, %arg0, %{{.*}}
    "func.return"(%c, %p, %r, %h) : (tensor<4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<0xf32>) -> tensor<0xf32>, sym_name = "twice", sym_visibility = "private"}> ({
  ^bb0(%y: tensor<0xf32>):
    %s = "stablehlo.add"(%y, %y) : (tensor<0xf32>, tensor<0xf32>) -> tensor<0xf32>
    "func.return"(%s) : (tensor<0xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- dot.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x2xf32>) -> tensor<4x4xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4x2xf32>):
    %e = "stablehlo.slice"(%x) <{start_indices = array<i64: 0, 1>, limit_indices = array<i64: 4, 1>, strides = array<i64: 1, 1>}> : (tensor<4x2xf32>) -> tensor<4x0xf32>
    // DOT: dot.mlir:[[@LINE+1]]:10: error: 'stablehlo.dot_general' reads a zero-size 'tensor<4x0xf32>'; garray has no arrays of zero elements
    %d = "stablehlo.dot_general"(%e, %e) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>}> : (tensor<4x0xf32>, tensor<4x0xf32>) -> tensor<4x4xf32>
    "func.return"(%d) : (tensor<4x4xf32>) -> ()
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
