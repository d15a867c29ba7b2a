// RUN: shardc import %s | FileCheck %s
//
// A donated argument's next value is the result with its pytree path below
// the roots, not the first result of its type that JAX aliased: here JAX
// aliased params['W'] to the metric result[0]['update']. params['b'] lost
// its donation (its result is placed differently) but is state all the
// same: its siblings' next values are under result[1].

// CHECK-LABEL: func.func @main(
// CHECK-SAME: -> (tensor<f32> {garray.name = "result0.loss"
// CHECK-SAME: tensor<8x8xf32> {garray.name = "result0.update"
// CHECK-SAME: tensor<8x8xf32> {garray.name = "params.W"
// CHECK-SAME: tensor<8xf32> {garray.name = "params.b"
"builtin.module"() <{sym_name = "jit_step"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{tf.aliasing_output = 1 : i32}, {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}],
                  function_type = (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<f32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>),
                  res_attrs = [{jax.result_info = "result[0]['loss']"}, {jax.result_info = "result[0]['update']"},
                               {jax.result_info = "result[1]['W']"}, {jax.result_info = "result[1]['b']", sdy.sharding = #sdy.sharding<@mesh, [{}]>}],
                  sym_name = "main"}> ({
  ^bb0(%w: tensor<8x8xf32> loc("params['W']"), %b: tensor<8xf32> loc("params['b']")):
    %half = "stablehlo.constant"() <{value = dense<0.5> : tensor<8x8xf32>}> : () -> tensor<8x8xf32>
    %u = "stablehlo.multiply"(%w, %half) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %w2 = "stablehlo.subtract"(%w, %u) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    "func.return"(%zero, %u, %w2, %b) : (tensor<f32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
}) : () -> ()
