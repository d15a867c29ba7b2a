// Everything the importer does not map is an error naming the op or
// attribute at its location, never a crash or a silently different program.
// RUN: split-file --leading-lines %s %t
// RUN: not shardc import %t/while.mlir 2>&1 | FileCheck %s --check-prefix=WHILE
// RUN: not shardc import %t/custom_call.mlir 2>&1 | FileCheck %s --check-prefix=CUSTOM
// RUN: not shardc import %t/gspmd.mlir 2>&1 | FileCheck %s --check-prefix=GSPMD
// RUN: not shardc import %t/sub_axis.mlir 2>&1 | FileCheck %s --check-prefix=SUBAXIS
// RUN: not shardc import %t/device_ids.mlir 2>&1 | FileCheck %s --check-prefix=DEVICES
// RUN: not shardc import %t/dynamic.mlir 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not shardc import %t/pretty.mlir 2>&1 | FileCheck %s --check-prefix=PRETTY
// RUN: not shardc compile %t/pretty.mlir 2>&1 | FileCheck %s --check-prefix=PRETTY
// RUN: not shardc import %t/unsigned_compare.mlir 2>&1 | FileCheck %s --check-prefix=UNSIGNED
// RUN: not shardc import %t/unsigned_arg.mlir 2>&1 | FileCheck %s --check-prefix=UARG
// RUN: not shardc import %t/unsigned_divide.mlir 2>&1 | FileCheck %s --check-prefix=UDIV
// RUN: not shardc import %t/select_and_scatter.mlir 2>&1 | FileCheck %s --check-prefix=SELSCAT
// RUN: not shardc import %t/erf_f64.mlir 2>&1 | FileCheck %s --check-prefix=ERF64
// RUN: not shardc import %t/big_conv.mlir 2>&1 | FileCheck %s --check-prefix=BIGCONV
// RUN: not shardc import %t/reduce_body.mlir 2>&1 | FileCheck %s --check-prefix=BODY
// RUN: not shardc import %t/argmax_no_nan.mlir 2>&1 | FileCheck %s --check-prefix=ARGMAX
// RUN: not shardc import %t/sort_comparator.mlir 2>&1 | FileCheck %s --check-prefix=SORTCMP
// RUN: not shardc import %t/scatter_subtract.mlir 2>&1 | FileCheck %s --check-prefix=SCATTER
// RUN: not shardc import %t/same_name.mlir 2>&1 | FileCheck %s --check-prefix=NAMES
// RUN: not shardc import %t/unknown_attr.mlir 2>&1 | FileCheck %s --check-prefix=ATTR
// RUN: not shardc import %t/f8.mlir 2>&1 | FileCheck %s --check-prefix=F8
// RUN: not shardc run %t/while.mlir 2>&1 | FileCheck %s --check-prefix=WHILE
// RUN: not shardc import %t/no_place.mlir 2>&1 | FileCheck %s --check-prefix=PLACE
// RUN: not shardc import %t/positional_name.mlir 2>&1 | FileCheck %s --check-prefix=POSITIONAL

//--- while.mlir
// WHILE: while.mlir:[[@LINE+5]]:{{[0-9]+}}: error: 'stablehlo.while' is imported only when its trip count is known when importing
// WHILE-SAME: lax.fori_loop and lax.scan with static bounds
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<i32>) -> tensor<i32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<i32>):
    %0 = "stablehlo.while"(%a) ({
    ^bb0(%x: tensor<i32>):
      %c = "stablehlo.compare"(%x, %x) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%x: tensor<i32>):
      "stablehlo.return"(%x) : (tensor<i32>) -> ()
    }) : (tensor<i32>) -> tensor<i32>
    "func.return"(%0) : (tensor<i32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- custom_call.mlir
// CUSTOM: error: 'stablehlo.custom_call' has no garray counterpart
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>):
    %0 = "stablehlo.custom_call"(%a) <{call_target_name = "Sharding"}> : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- gspmd.mlir
// GSPMD: gspmd.mlir:[[@LINE+2]]:3: error: mhlo.sharding (a GSPMD sharding string) on argument 'x' is not supported
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{mhlo.sharding = "{devices=[2]<=[2]}"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32> loc("x")):
    "func.return"(%a) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- sub_axis.mlir
// SUBAXIS: sub_axis.mlir:[[@LINE+3]]:3: error: sdy.sharding of argument 'x': {{.*}}sub-ax
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=4]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{"data":(1)2}]>}], function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32> loc("x")):
    "func.return"(%a) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- device_ids.mlir
// DEVICES: error: mesh @mesh: {{.*}}device_ids
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2], device_ids=[1, 0]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>):
    "func.return"(%a) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- dynamic.mlir
// DYNAMIC: error: operand #0 of 'stablehlo.abs' has the dynamic shape 'tensor<?xf32>'; shardc imports static shapes only
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<?xf32>) -> tensor<?xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<?xf32>):
    %0 = "stablehlo.abs"(%a) : (tensor<?xf32>) -> tensor<?xf32>
    "func.return"(%0) : (tensor<?xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- pretty.mlir
// PRETTY: pretty.mlir:1:1: error: this is StableHLO in its pretty form{{.*}}print the generic op form
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

//--- unsigned_compare.mlir
// UNSIGNED: error: compare_type UNSIGNED on 'i32' is not supported
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xi32>) -> tensor<4xi1>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xi32>):
    %0 = "stablehlo.compare"(%a, %a) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    "func.return"(%0) : (tensor<4xi1>) -> ()
  }) : () -> ()
}) : () -> ()

//--- unsigned_arg.mlir
// UARG: unsigned_arg.mlir:[[@LINE+2]]:{{[0-9]+}}: error: argument #0 of @main has type 'tensor<2xui4>': shardc exchanges unsigned integers of 8, 16, 32 and 64 bits; convert it to uint32 in JAX
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2xui4>) -> tensor<2xui4>, sym_name = "main"}> ({
  ^bb0(%k: tensor<2xui4>):
    %r = "stablehlo.add"(%k, %k) : (tensor<2xui4>, tensor<2xui4>) -> tensor<2xui4>
    "func.return"(%r) : (tensor<2xui4>) -> ()
  }) : () -> ()
}) : () -> ()

//--- unsigned_divide.mlir
// UDIV: unsigned_divide.mlir:[[@LINE+4]]:{{[0-9]+}}: error: 'stablehlo.divide' divides 64-bit unsigned integers: shardc has no unsigned integers and reads them as signed ones of the same width, which this op would tell apart
"builtin.module"() ({
  "func.func"() <{function_type = () -> tensor<2xi64>, sym_name = "main"}> ({
    %a = "stablehlo.constant"() <{value = dense<[4000000000, 6]> : tensor<2xui64>}> : () -> tensor<2xui64>
    %q = "stablehlo.divide"(%a, %a) : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xui64>
    %r = "stablehlo.bitcast_convert"(%q) : (tensor<2xui64>) -> tensor<2xi64>
    "func.return"(%r) : (tensor<2xi64>) -> ()
  }) : () -> ()
}) : () -> ()

//--- erf_f64.mlir
// ERF64: erf_f64.mlir:[[@LINE+4]]:{{[0-9]+}}: error: 'chlo.erf' on 'f64' is not supported: shardc computes it with an f32 approximation; convert the operand to f32 first
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf64>) -> tensor<4xf64>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf64>):
    %0 = "chlo.erf"(%a) : (tensor<4xf64>) -> tensor<4xf64>
    "func.return"(%0) : (tensor<4xf64>) -> ()
  }) : () -> ()
}) : () -> ()

//--- big_conv.mlir
// BIGCONV: big_conv.mlir:[[@LINE+4]]:{{[0-9]+}}: error: this convolution (window [40, 40], output [40, 40]) would stack 1600 slices of its input, one per window tap or output position; shardc imports convolutions of at most 1024
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<1x79x79x1xf32>, tensor<40x40x1x1xf32>) -> tensor<1x40x40x1xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<1x79x79x1xf32>, %k: tensor<40x40x1x1xf32>):
    %0 = "stablehlo.convolution"(%a, %k) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64}> : (tensor<1x79x79x1xf32>, tensor<40x40x1x1xf32>) -> tensor<1x40x40x1xf32>
    "func.return"(%0) : (tensor<1x40x40x1xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- select_and_scatter.mlir
// A scatter body that multiplies is no pooling gradient.
// SELSCAT: error: 'stablehlo.select_and_scatter' is imported when its select body is one compare (GE, GT, LE, LT) of its arguments and its scatter body adds
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>, %s: tensor<2xf32>, %z: tensor<f32>):
    %0 = "stablehlo.select_and_scatter"(%a, %s, %z) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %c = "stablehlo.compare"(%x, %y) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %t = "stablehlo.multiply"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- reduce_body.mlir
// BODY: error: this reduce body is not supported
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>, tensor<f32>) -> tensor<f32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>, %z: tensor<f32>):
    %0 = "stablehlo.reduce"(%a, %z) <{dimensions = array<i64: 0>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %d = "stablehlo.subtract"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%d) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    "func.return"(%0) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- argmax_no_nan.mlir
// An argmax body that ignores NaNs computes something else than garray.argmax.
// ARGMAX: error: a two-operand reduce is imported only as argmax or argmin {{.*}}NaN-aware
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8x4xf32>) -> tensor<8xi32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<8x4xf32>):
    %iota = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<8x4xi32>
    %ninf = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %zero = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %0:2 = "stablehlo.reduce"(%x, %iota, %ninf, %zero) <{dimensions = array<i64: 1>}> ({
    ^bb0(%av: tensor<f32>, %ai: tensor<i32>, %bv: tensor<f32>, %bi: tensor<i32>):
      %gt = "stablehlo.compare"(%av, %bv) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %rv = "stablehlo.select"(%gt, %av, %bv) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %ri = "stablehlo.select"(%gt, %ai, %bi) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%rv, %ri) : (tensor<f32>, tensor<i32>) -> ()
    }) : (tensor<8x4xf32>, tensor<8x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>)
    "func.return"(%0#1) : (tensor<8xi32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- scatter_subtract.mlir
// SCATTER: error: only add-, multiply-, max- and min-scatters {{.*}} and sets {{.*}} are supported; this scatter's body does something else
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<8x4xf32>, sym_name = "main"}> ({
  ^bb0(%t: tensor<8x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>):
    %0 = "stablehlo.scatter"(%t, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = "stablehlo.subtract"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%m) : (tensor<f32>) -> ()
    }) : (tensor<8x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<8x4xf32>
    "func.return"(%0) : (tensor<8x4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- same_name.mlir
// NAMES: error: arguments #0 and #1 are both named 'x.a'
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32> loc("x['a']"), %b: tensor<4xf32> loc("x.a")):
    %0 = "stablehlo.abs"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- unknown_attr.mlir
// ATTR: error: attribute `result_accuracy` of 'stablehlo.exponential' is not supported
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32>):
    %0 = "stablehlo.exponential"(%a) <{result_accuracy = #stablehlo.result_accuracy<atol = 0.0, rtol = 0.0, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>}> : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- f8.mlir
// F8: error: operand #0 of 'stablehlo.add' has element type 'f8E4M3FN', which garray does not have
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf8E4M3FN>):
    %0 = "stablehlo.add"(%a, %a) : (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
    "func.return"(%0) : (tensor<4xf8E4M3FN>) -> ()
  }) : () -> ()
}) : () -> ()

//--- no_place.mlir
// An op JAX gives no file location (only a name) is placed at its line.
// PLACE: no_place.mlir:[[@LINE+5]]:10: error: 'chlo.bessel_i1e' has no garray counterpart
// PLACE-SAME: chlo.square
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32> loc(unknown)):
    %0 = "chlo.bessel_i1e"(%a) : (tensor<4xf32>) -> tensor<4xf32> loc("bessel_i1e")
    "func.return"(%0) : (tensor<4xf32>) -> () loc(unknown)
  }) : () -> () loc(unknown)
}) : () -> () loc(unknown)

//--- positional_name.mlir
// POSITIONAL: error: argument #0 is named 'arg1', the positional name of argument #1
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32> loc("arg1"), %b: tensor<4xf32> loc("y")):
    %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- sort_comparator.mlir
// SORTCMP: sort_comparator.mlir:[[@LINE+6]]:{{[0-9]+}}: error: the comparator of 'stablehlo.sort' uses 'stablehlo.reduce_precision'; shardc applies bodies built from elementwise ops, compares, selects and constants
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<5xf32>) -> tensor<5xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<5xf32>):
    %0 = "stablehlo.sort"(%a) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %r = "stablehlo.reduce_precision"(%x) <{exponent_bits = 5 : i32, mantissa_bits = 2 : i32}> : (tensor<f32>) -> tensor<f32>
      %c = "stablehlo.compare"(%r, %y) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }) : (tensor<5xf32>) -> tensor<5xf32>
    "func.return"(%0) : (tensor<5xf32>) -> ()
  }) : () -> ()
}) : () -> ()
