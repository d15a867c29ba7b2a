// A JAX export calls its helpers (private functions) from function bodies
// and from op bodies; the importer inlines the latter before the module is
// verified, so each call is checked against its callee first: an error
// names the call, never a crash or a program that differs.
// RUN: split-file --leading-lines %s %t
// RUN: not shardc import %t/no_callee.mlir 2>&1 | FileCheck %s --check-prefix=NOCALLEE
// RUN: not shardc import %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not shardc import %t/arity.mlir 2>&1 | FileCheck %s --check-prefix=ARITY
// RUN: not shardc import %t/recursive.mlir 2>&1 | FileCheck %s --check-prefix=RECURSIVE
// RUN: not shardc import %t/no_return.mlir 2>&1 | FileCheck %s --check-prefix=NORETURN
// RUN: shardc import %t/in_body.mlir | FileCheck %s --check-prefix=INBODY

//--- no_callee.mlir
// NOCALLEE: no_callee.mlir:[[@LINE+7]]:12: error: 'func.call' op requires attribute 'callee'
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<f32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %z = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %r = "stablehlo.reduce"(%x, %z) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "func.call"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    "func.return"(%r) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- missing.mlir
// MISSING: missing.mlir:[[@LINE+7]]:12: error: 'func.call' op calls @nope, which is not a function of this module
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<f32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %z = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %r = "stablehlo.reduce"(%x, %z) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "func.call"(%a, %b) <{callee = @nope}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    "func.return"(%r) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- arity.mlir
// ARITY: arity.mlir:[[@LINE+7]]:12: error: 'func.call' op has type '(tensor<f32>) -> tensor<f32>' but @add has type '(tensor<f32>, tensor<f32>) -> tensor<f32>'
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<f32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %z = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %r = "stablehlo.reduce"(%x, %z) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "func.call"(%a) <{callee = @add}> : (tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    "func.return"(%r) : (tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<f32>, tensor<f32>) -> tensor<f32>, sym_name = "add", sym_visibility = "private"}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %t = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "func.return"(%t) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- recursive.mlir
// RECURSIVE: recursive.mlir:[[@LINE+19]]:10: error: 'func.call' op calls @add recursively; the importer inlines helper functions, so it refuses recursion
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<f32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %z = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %r = "stablehlo.reduce"(%x, %z) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "func.call"(%a, %b) <{callee = @add}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    "func.return"(%r) : (tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<f32>, tensor<f32>) -> tensor<f32>, sym_name = "add", sym_visibility = "private"}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %t = "func.call"(%p, %q) <{callee = @again}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "func.return"(%t) : (tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<f32>, tensor<f32>) -> tensor<f32>, sym_name = "again", sym_visibility = "private"}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %t = "func.call"(%p, %q) <{callee = @add}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "func.return"(%t) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- no_return.mlir
// NORETURN: no_return.mlir:[[@LINE+14]]:10: error: 'stablehlo.add' ends the body of @add, where a func.return of its results belongs
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<f32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %z = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %r = "stablehlo.reduce"(%x, %z) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "func.call"(%a, %b) <{callee = @add}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    "func.return"(%r) : (tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<f32>, tensor<f32>) -> tensor<f32>, sym_name = "add", sym_visibility = "private"}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %t = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  }) : () -> ()
}) : () -> ()

//--- in_body.mlir
// The helper's add becomes the reduction's kind once inlined.
// INBODY: garray.reduce <sum> %arg0, dims = [0]
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<f32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %z = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %r = "stablehlo.reduce"(%x, %z) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "func.call"(%a, %b) <{callee = @add}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    "func.return"(%r) : (tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<f32>, tensor<f32>) -> tensor<f32>, sym_name = "add", sym_visibility = "private"}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %t = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "func.return"(%t) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()
