// RUN: shardc run %s | FileCheck %s
//
// Unsigned integers (JAX's random bits) are read as signless ones of the
// same width; the ops whose results tell the two apart are rewritten first:
// ordering compares and maximum flip the sign bits, a convert from an
// unsigned integer zero-extends; division and remainder run on operands
// zero-extended to twice the width; clamp flips the sign bits like maximum,
// abs is the operand and sign is 0 or 1; a reduce by maximum or minimum
// flips the sign bits of its operand, initial value and result. Shifts by amounts outside
// [0, width) give 0 (logical, left) or the sign (arithmetic);
// bitcast_convert keeps the bits.
//
// a = [1, 2^32 - 1, 2^31, 7], b = [2, 1, 2^31 - 1, 7] (ui32)
// CHECK: result0 = [true, false, false, false]
// CHECK: result1 = [2, 4294967295, 2147483648, 7]
// CHECK: result2 = [1, 4.294967e+09, 2.147484e+09, 7]
// CHECK: result3 = [0, 1, 0, 7]
// CHECK: result4 = [4, 0, 4294967294, 0]
// CHECK: result5 = [-4, -1, 4, -1]
// CHECK: result6 = [1, 2]
// CHECK: result7 = [0, 4294967295, 1, 1]
// CHECK: result8 = [1, 0, 1, 0]
// CHECK: result9 = [0, 1, 1, 1]
// CHECK: result10 = [5, 3000000000, 2147483648, 7]
// CHECK: result11 = [1, 4294967295, 2147483648, 7]
// CHECK: result12 = 4294967295
// CHECK: result13 = 1
"builtin.module"() ({
  "func.func"() <{function_type = () -> (tensor<4xi1>, tensor<4xi64>, tensor<4xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi32>, tensor<2xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<i64>, tensor<i64>), sym_name = "main"}> ({
    %a = "stablehlo.constant"() <{value = dense<[1, 4294967295, 2147483648, 7]> : tensor<4xui32>}> : () -> tensor<4xui32>
    %b = "stablehlo.constant"() <{value = dense<[2, 1, 2147483647, 7]> : tensor<4xui32>}> : () -> tensor<4xui32>
    %lt = "stablehlo.compare"(%a, %b) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
    %mx = "stablehlo.maximum"(%a, %b) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    %mx64 = "stablehlo.convert"(%mx) : (tensor<4xui32>) -> tensor<4xi64>
    %af = "stablehlo.convert"(%a) : (tensor<4xui32>) -> tensor<4xf32>
    %s1 = "stablehlo.constant"() <{value = dense<[1, 31, 32, 0]> : tensor<4xui32>}> : () -> tensor<4xui32>
    %sr = "stablehlo.shift_right_logical"(%a, %s1) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    %sr64 = "stablehlo.convert"(%sr) : (tensor<4xui32>) -> tensor<4xi64>
    %s2 = "stablehlo.constant"() <{value = dense<[1, 32, 1, 40]> : tensor<4xui32>}> : () -> tensor<4xui32>
    %sl = "stablehlo.shift_left"(%b, %s2) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    %sl64 = "stablehlo.convert"(%sl) : (tensor<4xui32>) -> tensor<4xi64>
    %c = "stablehlo.constant"() <{value = dense<[-8, -1, 16, -5]> : tensor<4xi32>}> : () -> tensor<4xi32>
    %s3 = "stablehlo.constant"() <{value = dense<[1, 40, 2, 31]> : tensor<4xi32>}> : () -> tensor<4xi32>
    %sa = "stablehlo.shift_right_arithmetic"(%c, %s3) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %bits = "stablehlo.constant"() <{value = dense<[1065353216, 1073741824]> : tensor<2xui32>}> : () -> tensor<2xui32>
    %f = "stablehlo.bitcast_convert"(%bits) : (tensor<2xui32>) -> tensor<2xf32>
    %dv = "stablehlo.divide"(%a, %b) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    %dv64 = "stablehlo.convert"(%dv) : (tensor<4xui32>) -> tensor<4xi64>
    %rm = "stablehlo.remainder"(%a, %b) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    %rm64 = "stablehlo.convert"(%rm) : (tensor<4xui32>) -> tensor<4xi64>
    %one = "stablehlo.constant"() <{value = dense<1> : tensor<4xui32>}> : () -> tensor<4xui32>
    %am1 = "stablehlo.subtract"(%a, %one) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    %sg = "stablehlo.sign"(%am1) : (tensor<4xui32>) -> tensor<4xui32>
    %sg64 = "stablehlo.convert"(%sg) : (tensor<4xui32>) -> tensor<4xi64>
    %lo = "stablehlo.constant"() <{value = dense<5> : tensor<4xui32>}> : () -> tensor<4xui32>
    %hi = "stablehlo.constant"() <{value = dense<3000000000> : tensor<4xui32>}> : () -> tensor<4xui32>
    %cl = "stablehlo.clamp"(%lo, %a, %hi) : (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    %cl64 = "stablehlo.convert"(%cl) : (tensor<4xui32>) -> tensor<4xi64>
    %ab = "stablehlo.abs"(%a) : (tensor<4xui32>) -> tensor<4xui32>
    %ab64 = "stablehlo.convert"(%ab) : (tensor<4xui32>) -> tensor<4xi64>
    %z = "stablehlo.constant"() <{value = dense<0> : tensor<ui32>}> : () -> tensor<ui32>
    %rmax = "stablehlo.reduce"(%a, %z) <{dimensions = array<i64: 0>}> ({
    ^bb0(%p: tensor<ui32>, %q: tensor<ui32>):
      %m = "stablehlo.maximum"(%p, %q) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
      "stablehlo.return"(%m) : (tensor<ui32>) -> ()
    }) : (tensor<4xui32>, tensor<ui32>) -> tensor<ui32>
    %rmax64 = "stablehlo.convert"(%rmax) : (tensor<ui32>) -> tensor<i64>
    %top = "stablehlo.constant"() <{value = dense<4294967295> : tensor<ui32>}> : () -> tensor<ui32>
    %rmin = "stablehlo.reduce"(%a, %top) <{dimensions = array<i64: 0>}> ({
    ^bb0(%p: tensor<ui32>, %q: tensor<ui32>):
      %m = "stablehlo.minimum"(%p, %q) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
      "stablehlo.return"(%m) : (tensor<ui32>) -> ()
    }) : (tensor<4xui32>, tensor<ui32>) -> tensor<ui32>
    %rmin64 = "stablehlo.convert"(%rmin) : (tensor<ui32>) -> tensor<i64>
    "func.return"(%lt, %mx64, %af, %sr64, %sl64, %sa, %f, %dv64, %rm64, %sg64, %cl64, %ab64, %rmax64, %rmin64) : (tensor<4xi1>, tensor<4xi64>, tensor<4xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi32>, tensor<2xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<i64>, tensor<i64>) -> ()
  }) : () -> ()
}) : () -> ()
