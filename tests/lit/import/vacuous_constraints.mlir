// RUN: shardc import %s | FileCheck %s
//
// Sharding constraints that constrain nothing (on a scalar, every dim open
// without axes) are dropped before the import, so that a reducer body is
// one op again; a constraint that names an axis stays.

"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2]>, sym_name = "mesh"}> : () -> ()
  // CHECK-LABEL: func.func @main(
  // CHECK: garray.sharding_constraint %{{.*}} to #garray.sharding<@mesh, P("data", None)>
  // CHECK-NOT: garray.sharding_constraint
  // CHECK: garray.reduce <sum>
  // CHECK-NOT: garray.sharding_constraint
  // CHECK: return
  "func.func"() <{function_type = (tensor<8x4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<8x4xf32>):
    %a = "sdy.sharding_constraint"(%x) <{sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}> : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %b = "sdy.sharding_constraint"(%a) <{sharding = #sdy.sharding<@mesh, [{?}, {?}]>}> : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %s = "stablehlo.reduce"(%b, %zero) <{dimensions = array<i64: 0>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %pc = "sdy.sharding_constraint"(%p) <{sharding = #sdy.sharding<@mesh, []>}> : (tensor<f32>) -> tensor<f32>
      %r = "stablehlo.add"(%pc, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%r) : (tensor<f32>) -> ()
    }) : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
    "func.return"(%s) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
