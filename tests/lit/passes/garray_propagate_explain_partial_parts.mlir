// RUN: shardc-opt %s --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// An op's own partial sum names as its parts what split its operands'
// reduced dims (per operand, the first source of the axis). Another
// annotation that reaches the result through an operand that already held
// the axis only agrees: it is named last, without its way. Explain once
// listed %arg2 as a part of %y (through the other dot and back to %a).

garray.mesh @mesh ["data" = 2]
// CHECK: remark: %0 (garray.dot_general): P(None, None) <- {{.*}}each device holds a partial result over "data" (the axes its operands split the reduced dims by: argument #0 (%arg0) annotated P(None, "data") at {{.*}}:[[@LINE+5]]:14 via garray.dot_general ({{.*}}:[[@LINE+8]]:8), and argument #1 (%arg1) annotated P("data", None) at {{.*}}:[[@LINE+6]]:14 via garray.dot_general ({{.*}}:[[@LINE+8]]:8) (also reached by annotations that agree: argument #2 (%arg2) annotated P("data", None) at {{.*}}:[[@LINE+7]]:14, 2 ops away)), which
// CHECK: remark: %1 (garray.dot_general): {{.*}}(the axes its operands split the reduced dims by: argument #0 (%arg0) {{.*}}, and argument #2 (%arg2) {{.*}} (also reached by annotations that agree: argument #1 (%arg1) annotated P("data", None) at {{.*}}, 2 ops away)), which
// A partial sum passed on names every part of the sums it adds.
// CHECK: remark: %2 (garray.add): {{.*}}(a partial sum it passes on from its operands: argument #0 (%arg0) {{.*}}, and argument #1 (%arg1) {{.*}}, and argument #2 (%arg2) {{.*}}), which
// CHECK-NOT: agree
func.func @f(%a: tensor<4x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>},
             %b: tensor<8x6xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
             %c: tensor<8x6xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<4x6xf32> {
  %y = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %z = garray.dot_general %a, %c, batch = [] x [], contracting = [1] x [0] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %s = garray.add %y, %z : tensor<4x6xf32>
  return %s : tensor<4x6xf32>
}
