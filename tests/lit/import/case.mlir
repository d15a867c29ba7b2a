// RUN: shardc run %s | FileCheck %s
//
// stablehlo.case (lax.cond, lax.switch) runs every branch and selects each
// result by the index; an index out of range selects the last branch, as
// the spec says. The branches read a value of the enclosing function.
//
// CHECK: result0 = [20, 40]
// CHECK: result1 = [30, 60]
// CHECK: result2 = [30, 60]
// CHECK: result3 = [11, 22]
"builtin.module"() ({
  "func.func"() <{function_type = () -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>), sym_name = "main"}> ({
    %x = "stablehlo.constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %i1 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %i5 = "stablehlo.constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
    %im = "stablehlo.constant"() <{value = dense<-1> : tensor<i32>}> : () -> tensor<i32>
    %i0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %r:4 = "stablehlo.case"(%i1) ({
      %c = "stablehlo.constant"() <{value = dense<10.0> : tensor<2xf32>}> : () -> tensor<2xf32>
      %m = "stablehlo.multiply"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%m, %m, %m, %m) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> ()
    }, {
      %c = "stablehlo.constant"() <{value = dense<20.0> : tensor<2xf32>}> : () -> tensor<2xf32>
      %m = "stablehlo.multiply"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%m, %m, %m, %m) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> ()
    }, {
      %c = "stablehlo.constant"() <{value = dense<30.0> : tensor<2xf32>}> : () -> tensor<2xf32>
      %m = "stablehlo.multiply"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%m, %m, %m, %m) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> ()
    }) : (tensor<i32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
    %s = "stablehlo.case"(%i5) ({
      %c = "stablehlo.constant"() <{value = dense<10.0> : tensor<2xf32>}> : () -> tensor<2xf32>
      %m = "stablehlo.multiply"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%m) : (tensor<2xf32>) -> ()
    }, {
      %c = "stablehlo.constant"() <{value = dense<30.0> : tensor<2xf32>}> : () -> tensor<2xf32>
      %m = "stablehlo.multiply"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%m) : (tensor<2xf32>) -> ()
    }) : (tensor<i32>) -> tensor<2xf32>
    %t = "stablehlo.case"(%im) ({
      %c = "stablehlo.constant"() <{value = dense<10.0> : tensor<2xf32>}> : () -> tensor<2xf32>
      %m = "stablehlo.multiply"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%m) : (tensor<2xf32>) -> ()
    }, {
      %c = "stablehlo.constant"() <{value = dense<30.0> : tensor<2xf32>}> : () -> tensor<2xf32>
      %m = "stablehlo.multiply"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%m) : (tensor<2xf32>) -> ()
    }) : (tensor<i32>) -> tensor<2xf32>
    %u = "stablehlo.case"(%i0) ({
      %in = "stablehlo.case"(%i0) ({
        %c = "stablehlo.constant"() <{value = dense<11.0> : tensor<2xf32>}> : () -> tensor<2xf32>
        %m = "stablehlo.multiply"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
        "stablehlo.return"(%m) : (tensor<2xf32>) -> ()
      }, {
        "stablehlo.return"(%x) : (tensor<2xf32>) -> ()
      }) : (tensor<i32>) -> tensor<2xf32>
      "stablehlo.return"(%in) : (tensor<2xf32>) -> ()
    }, {
      "stablehlo.return"(%x) : (tensor<2xf32>) -> ()
    }) : (tensor<i32>) -> tensor<2xf32>
    "func.return"(%r#1, %s, %t, %u) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
