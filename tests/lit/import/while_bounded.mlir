// RUN: shardc import %s | FileCheck %s
//
// A while loop whose condition ands a counter bound (i < 3) with a test on
// data (sum(x) > 1), through jnp.logical_and's convert(compare(b, false,
// NE)): unrolled to the bound, each iteration's results kept only while
// the whole condition holds.

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>), sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %r:2 = "stablehlo.while"(%c0, %x) ({
    ^bb0(%i: tensor<i32>, %y: tensor<4xf32>):
      %n = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
      %lt = "stablehlo.compare"(%i, %n) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %z = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
      %s = "stablehlo.reduce"(%y, %z) <{dimensions = array<i64: 0>}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%t) : (tensor<f32>) -> ()
      }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
      %one = "stablehlo.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
      %gt = "stablehlo.compare"(%s, %one) <{comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %f = "stablehlo.constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
      %ne = "stablehlo.compare"(%lt, %f) <{comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %cv = "stablehlo.convert"(%ne) : (tensor<i1>) -> tensor<i1>
      %and = "stablehlo.and"(%cv, %gt) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%and) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %y: tensor<4xf32>):
      %c1 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %j = "stablehlo.add"(%i, %c1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %h = "stablehlo.constant"() <{value = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
      %y2 = "stablehlo.multiply"(%y, %h) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%j, %y2) : (tensor<i32>, tensor<4xf32>) -> ()
    }) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
    "func.return"(%r#1, %r#0) : (tensor<4xf32>, tensor<i32>) -> ()
  }) : () -> ()
}) : () -> ()

// Three iterations, each: the condition on the carried values (a sum),
// the body (a multiply), and a select of each carried value by the
// condition; the next iteration reads the selected values.
// CHECK-LABEL: func.func @main
// CHECK: %[[S1:.*]] = garray.reduce <sum> %arg0
// CHECK: %[[M1:.*]] = garray.mul %arg0
// CHECK: %[[I1:.*]] = garray.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i1>, tensor<i32>, tensor<i32>)
// CHECK: %[[Y1:.*]] = garray.select %{{.*}}, %[[M1]], %arg0
// CHECK: garray.reduce <sum> %[[Y1]]
// CHECK: %[[M2:.*]] = garray.mul %[[Y1]]
// CHECK: %[[I2:.*]] = garray.select %{{.*}}, %{{.*}}, %[[I1]]
// CHECK: %[[Y2:.*]] = garray.select %{{.*}}, %[[M2]], %[[Y1]]
// CHECK: garray.reduce <sum> %[[Y2]]
// CHECK: %[[M3:.*]] = garray.mul %[[Y2]]
// CHECK: %[[I3:.*]] = garray.select %{{.*}}, %{{.*}}, %[[I2]]
// CHECK: %[[Y3:.*]] = garray.select %{{.*}}, %[[M3]], %[[Y2]]
// CHECK-NOT: garray.reduce
// CHECK: return %[[Y3]], %[[I3]]
