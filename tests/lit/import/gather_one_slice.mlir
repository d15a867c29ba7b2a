// RUN: split-file --leading-lines %s %t
// RUN: shardc import %t/ok.mlir | FileCheck %s
// RUN: not shardc import %t/bad.mlir 2>&1 | FileCheck %s --check-prefix=BAD
//
// A gather whose indices are one start vector (jnp.median's and
// jnp.quantile's pick of a sorted position, jnp.take of one column) is one
// slice: dynamic_slice at that start, the collapsed dims reshaped away.

//--- ok.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<6x13xf32>, tensor<1xi32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<f32>), sym_name = "main"}> ({
  ^bb0(%x: tensor<6x13xf32>, %i: tensor<1xi32>):
    // A constant start (clamped to 12 - 0): a static slice of column 12.
    // CHECK: %[[COL:.*]] = garray.slice %arg0, start = [0, 12], limit = [6, 13]
    // CHECK: garray.reshape %[[COL]] : (tensor<6x1xf32>) -> tensor<6xf32>
    %c = "stablehlo.constant"() <{value = dense<40> : tensor<1xi32>}> : () -> tensor<1xi32>
    %0 = "stablehlo.gather"(%x, %c) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false, slice_sizes = array<i64: 6, 1>}> : (tensor<6x13xf32>, tensor<1xi32>) -> tensor<6xf32>
    // A start known only when running: a one-hot sum along dim 1 of the
    // start clamped to [0, 12].
    // CHECK: %[[S:.*]] = garray.reshape %arg1 : (tensor<1xi32>) -> tensor<i32>
    // CHECK: garray.clamp %{{.*}}, %[[S]], %{{.*}} : tensor<i32>
    // CHECK: garray.iota dim = 1 : tensor<6x13xi32>
    // CHECK: garray.reduce <sum> %{{.*}}, dims = [1] keepdims
    // CHECK: garray.reshape %{{.*}} -> tensor<6xf32>
    %1 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false, slice_sizes = array<i64: 6, 1>}> : (tensor<6x13xf32>, tensor<1xi32>) -> tensor<6xf32>
    // Two indexed dims, both collapsed: one element, x[2, 5].
    // CHECK: garray.slice %arg0, start = [2, 5], limit = [3, 6]
    %c2 = "stablehlo.constant"() <{value = dense<[2, 5]> : tensor<2xi32>}> : () -> tensor<2xi32>
    %2 = "stablehlo.gather"(%x, %c2) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1]>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<6x13xf32>, tensor<2xi32>) -> tensor<f32>
    "func.return"(%0, %1, %2) : (tensor<6xf32>, tensor<6xf32>, tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- bad.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<6x13xf32>, tensor<2xi32>) -> tensor<f32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<6x13xf32>, %i: tensor<2xi32>):
    // BAD: bad.mlir:[[@LINE+1]]:10: error: a gather of one start vector is supported as one slice
    %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [1, 1]>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<6x13xf32>, tensor<2xi32>) -> tensor<f32>
    "func.return"(%0) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()
