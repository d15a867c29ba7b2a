// RUN: split-file --leading-lines %s %t
// RUN: shardc import %t/lse.mlir | FileCheck %s --check-prefix=LSE
// RUN: shardc import %t/pairs.mlir | FileCheck %s --check-prefix=PAIRS
// RUN: not shardc import %t/opaque.mlir 2>&1 | FileCheck %s --check-prefix=OPAQUE
//
// A reduce_window whose body is not one add, multiply, max or min: the
// input padded with the init, one strided slice per window position, and
// the body folded over them from the init, its ops on whole tensors.

//--- lse.mlir
// cumlogsumexp over [3]: padding (2, 0) with -inf, windows of 3, so three
// taps [0:3], [1:4], [2:5]; each folds as max(a, b) + log1p(exp(-|a - b|)).
// LSE: garray.pad
// LSE-COUNT-3: garray.log1p
// LSE-NOT: garray.log1p
// LSE: return
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<3xf32>) -> tensor<3xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<3xf32>):
    %ninf = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %0 = "stablehlo.reduce_window"(%x, %ninf) <{padding = dense<[[2, 0]]> : tensor<1x2xi64>, window_dimensions = array<i64: 3>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %d = "stablehlo.subtract"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %n = "stablehlo.abs"(%d) : (tensor<f32>) -> tensor<f32>
      %g = "stablehlo.negate"(%n) : (tensor<f32>) -> tensor<f32>
      %e = "stablehlo.exponential"(%g) : (tensor<f32>) -> tensor<f32>
      %l = "stablehlo.log_plus_one"(%e) : (tensor<f32>) -> tensor<f32>
      %r = "stablehlo.add"(%m, %l) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%r) : (tensor<f32>) -> ()
    }) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    "func.return"(%0) : (tensor<3xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- pairs.mlir
// A windowed argmax of (value, index): two inputs fold together; windows of
// 2, stride 2, over [4]: taps [0:4:2] and [1:4:2] of each input.
// PAIRS-DAG: garray.slice %arg0, start = [0], limit = [3], strides = [2]
// PAIRS-DAG: garray.slice %arg0, start = [1], limit = [4], strides = [2]
// PAIRS-DAG: garray.slice %arg1, start = [0], limit = [3], strides = [2]
// PAIRS-DAG: garray.slice %arg1, start = [1], limit = [4], strides = [2]
// PAIRS: return {{.*}} : tensor<2xf32>, tensor<2xi32>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>, tensor<4xi32>) -> (tensor<2xf32>, tensor<2xi32>), sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>, %i: tensor<4xi32>):
    %ninf = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %zero = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %0:2 = "stablehlo.reduce_window"(%x, %i, %ninf, %zero) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
    ^bb0(%av: tensor<f32>, %ai: tensor<i32>, %bv: tensor<f32>, %bi: tensor<i32>):
      %ge = "stablehlo.compare"(%av, %bv) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %v = "stablehlo.select"(%ge, %av, %bv) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %k = "stablehlo.select"(%ge, %ai, %bi) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%v, %k) : (tensor<f32>, tensor<i32>) -> ()
    }) : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
    "func.return"(%0#0, %0#1) : (tensor<2xf32>, tensor<2xi32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- opaque.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<2xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %0 = "stablehlo.reduce_window"(%x, %zero) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      // OPAQUE: opaque.mlir:[[@LINE+1]]:{{[0-9]+}}: error: the body of 'stablehlo.reduce_window' uses 'stablehlo.reduce_precision'; shardc applies bodies built from elementwise ops, compares, selects and constants
      %r = "stablehlo.reduce_precision"(%a) <{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}> : (tensor<f32>) -> tensor<f32>
      %s = "stablehlo.add"(%r, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
