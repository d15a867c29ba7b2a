// RUN: shardc-opt %s --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// An op's own partial sum names as its parts what split its operands'
// reduced dims (per operand, the first source of the axis). Another
// annotation that reaches the result through an operand that already held
// the axis only agrees: it is named last, without its way. Explain once
// listed %arg2 as a part of %y (through the other dot and back to %a).
// CHECK lines match the parts of each remark (value, sharding, origin and its location), not its wording.

garray.mesh @mesh ["data" = 2]
// CHECK: remark: %0 (garray.dot_general): P(None, None) <- {{.*}}partial result over "data"{{.*}}argument #0 (%arg0){{.*}}P(None, "data"){{.*}}:[[@LINE+5]]:14{{.*}}garray.dot_general ({{.*}}:[[@LINE+8]]:8){{.*}}argument #1 (%arg1){{.*}}P("data", None){{.*}}:[[@LINE+6]]:14{{.*}}garray.dot_general ({{.*}}:[[@LINE+8]]:8){{.*}}agree{{.*}}argument #2 (%arg2){{.*}}P("data", None){{.*}}:[[@LINE+7]]:14{{[^(]*}}2 ops away{{[^(]*$}}
// CHECK: remark: %1 (garray.dot_general): {{.*}}partial result over "data"{{.*}}argument #0 (%arg0){{.*}}argument #2 (%arg2){{.*}}agree{{.*}}argument #1 (%arg1){{.*}}P("data", None){{[^(]*}}2 ops away{{[^(]*$}}
// A partial sum passed on names every part of the sums it adds.
// CHECK: remark: %2 (garray.add): {{.*}}passes on{{.*}}argument #0 (%arg0){{.*}}argument #1 (%arg1){{.*}}argument #2 (%arg2)
// CHECK-NOT: agree
func.func @f(%a: tensor<4x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>},
             %b: tensor<8x6xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
             %c: tensor<8x6xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<4x6xf32> {
  %y = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %z = garray.dot_general %a, %c, batch = [] x [], contracting = [1] x [0] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %s = garray.add %y, %z : tensor<4x6xf32>
  return %s : tensor<4x6xf32>
}
