// RUN: shardc import %s | FileCheck %s
// RUN: rm -rf %t.out && shardc compile %s -o %t.out --quiet
// RUN: FileCheck %s --check-prefix=SIG < %t.out/manifest.json
//
// A PRNG key passed in and returned, and uint8 pixels: the entry's unsigned
// arguments and results become signless integers of their width, marked
// garray.unsigned, and the host exchanges them as u32 and u8 arrays.
//
// CHECK: func.func @main(%{{.*}}: tensor<2xi32> {garray.name = "key", garray.unsigned}, %{{.*}}: tensor<4x3xi8> {garray.name = "pixels", garray.unsigned})
// CHECK-SAME: -> (tensor<2xi32> {garray.name = "key", garray.unsigned}, tensor<4xi8> {garray.name = "brightest", garray.unsigned})
// SIG: "inputs"
// SIG: "dtype": "u32"
// SIG: "name": "key"
// SIG: "dtype": "u8"
// SIG: "name": "pixels"
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{jax.buffer_donor = true}, {}], function_type = (tensor<2xui32>, tensor<4x3xui8>) -> (tensor<2xui32>, tensor<4xui8>), res_attrs = [{jax.result_info = "key"}, {jax.result_info = "brightest"}], sym_name = "main"}> ({
  ^bb0(%k: tensor<2xui32> loc("key"), %px: tensor<4x3xui8> loc("pixels")):
    %one = "stablehlo.constant"() <{value = dense<1> : tensor<2xui32>}> : () -> tensor<2xui32>
    %next = "stablehlo.add"(%k, %one) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %z = "stablehlo.constant"() <{value = dense<0> : tensor<ui8>}> : () -> tensor<ui8>
    %b = "stablehlo.reduce"(%px, %z) <{dimensions = array<i64: 1>}> ({
    ^bb0(%p: tensor<ui8>, %q: tensor<ui8>):
      %m = "stablehlo.maximum"(%p, %q) : (tensor<ui8>, tensor<ui8>) -> tensor<ui8>
      "stablehlo.return"(%m) : (tensor<ui8>) -> ()
    }) : (tensor<4x3xui8>, tensor<ui8>) -> tensor<4xui8>
    "func.return"(%next, %b) : (tensor<2xui32>, tensor<4xui8>) -> ()
  }) : () -> ()
}) : () -> ()
