// RUN: not shardc import %s 2>&1 | FileCheck %s
//
// An op of a JAX helper (a private function) carries only a name; an error
// on it also names the user's line that called the helper.
//
// CHECK: helper_call_site.mlir:[[@LINE+10]]:{{[0-9]+}}: error: 'stablehlo.custom_call'
// CHECK: model.py:7:3: note: called from
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %r = "func.call"(%x) <{callee = @helper}> : (tensor<4xf32>) -> tensor<4xf32> loc("model.py":7:3)
    "func.return"(%r) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "helper", sym_visibility = "private"}> ({
  ^bb0(%y: tensor<4xf32>):
    %s = "stablehlo.custom_call"(%y) <{call_target_name = "Foo"}> : (tensor<4xf32>) -> tensor<4xf32> loc("foo")
    "func.return"(%s) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
