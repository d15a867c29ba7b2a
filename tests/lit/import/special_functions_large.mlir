// RUN: shardc import %s | FileCheck %s
// RUN: rm -rf %t.out && shardc compile %s -o %t.out --quiet
//
// The special functions' expansions hold their constants as scalars
// broadcast: on a 16M-element operand, full-shape splats (a dozen per
// function) would pass the input contract's bound on the model's constant
// elements (2^26), and an exact GELU would be refused.
//
// CHECK-NOT: garray.constant {{.*}} : tensor<4096x4096xf32>
// CHECK: garray.constant {{.*}} : tensor<f32>
// CHECK: garray.broadcast_in_dim {{.*}} : (tensor<f32>) -> tensor<4096x4096xf32>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4096x4096xf32>) -> (tensor<4096x4096xf32>, tensor<4096x4096xf32>, tensor<4096x4096xf32>), sym_name = "main"}> ({
  ^bb0(%x: tensor<4096x4096xf32>):
    %e = "chlo.erf"(%x) : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
    %l = "chlo.lgamma"(%x) : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
    %p = "chlo.polygamma"(%x, %x) : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
    "func.return"(%e, %l, %p) : (tensor<4096x4096xf32>, tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> ()
  }) : () -> ()
}) : () -> ()
