// RUN: shardc-opt %s --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// Explanations across a call name the caller's values with their function
// ("%arg0 in @main"), and a long chain names its first and last three ops
// and counts the rest (docs/propagation.md, "Explanations").
// CHECK lines match the parts of each remark (value, sharding, origin and its location), not its wording.

garray.mesh @mesh ["data" = 2]

// CHECK: remark: %1 (garray.neg): P("data") <- {{.*}}argument 'x' (%arg0 in @main){{.*}}P("data"){{.*}}chains.mlir:[[@LINE+6]]:17{{.*}}func.call ({{.*}}chains.mlir:[[@LINE+8]]:8), garray.exp ({{.*}}), garray.neg ({{.*}})
func.func private @helper(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e = garray.exp %a : tensor<8xf32>
  %n = garray.neg %e : tensor<8xf32>
  return %n : tensor<8xf32>
}
func.func @main(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.name = "x"},
                %y: tensor<8xf32>) -> tensor<8xf32> {
  %c = func.call @helper(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %0 = garray.neg %c : tensor<8xf32>
  %1 = garray.exp %0 : tensor<8xf32>
  %2 = garray.neg %1 : tensor<8xf32>
  %3 = garray.exp %2 : tensor<8xf32>
  %4 = garray.neg %3 : tensor<8xf32>
  // CHECK: remark: {{.*}} (garray.exp): P("data") <- {{.*}}argument 'x' (%arg0){{.*}}P("data"){{.*}}func.call ({{.*}}), garray.exp ({{.*}}), garray.neg ({{.*}}){{.*}}5 more ops{{.*}}garray.exp ({{.*}}), garray.neg ({{.*}}), garray.exp ({{.*}}chains.mlir:[[@LINE+1]]:8)
  %5 = garray.exp %4 : tensor<8xf32>
  return %5 : tensor<8xf32>
}
