// RUN: shardc import %s | FileCheck %s
//
// A reduce over no dims (`jnp.sum(x, axis=())`, inside `jnp.unique(size=)`)
// is each element combined with the init: the combiner, no reduction.

"builtin.module"() <{sym_name = "jit_no_dims"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=1]>, sym_name = "mesh"}> : () -> ()
  // CHECK-LABEL: func.func @main(
  // CHECK-SAME: %[[X:.*]]: tensor<8xf32>
  // CHECK-NOT: garray.sum
  // CHECK: %[[INIT:.*]] = garray.broadcast_in_dim
  // CHECK: garray.add %[[X]], %[[INIT]]
  // CHECK-NOT: garray.sum
  // CHECK: return
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>,
                  res_attrs = [{jax.result_info = "result"}], sym_name = "main"}> ({
  ^bb0(%x: tensor<8xf32>):
    %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %s = "stablehlo.reduce"(%x, %zero) <{dimensions = array<i64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
    "func.return"(%s) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) : () -> ()
