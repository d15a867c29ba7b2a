// RUN: shardc-opt %s --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// explain names the annotations whose axes actually reached a value: the
// tensors that held them *before* the step that grew it. When two
// annotations agree, both are named (the second with the op where it joined
// the chain); a neighbour that received the axes in the same step is not a
// source.

garray.mesh @mesh ["data" = 2]

// Two annotations agree on the add's operands.
func.func @agree(%a: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.name = "A"},
                 %b: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.name = "B"})
    -> tensor<8xf32> {
  %s = garray.add %a, %b : tensor<8xf32>
  %e = garray.exp %s : tensor<8xf32>
  return %e : tensor<8xf32>
}
// CHECK-LABEL: remark: %arg0 'A' (argument of @agree)
// CHECK: explain-sources.mlir:[[@LINE-5]]:8: remark: %0 (garray.add): P("data") <- argument 'A' (%arg0) annotated P("data") at {{.*}}explain-sources.mlir:[[@LINE-8]]:18 via garray.add ({{.*}}explain-sources.mlir:[[@LINE-5]]:8); also argument 'B' (%arg1) annotated P("data") at {{.*}}explain-sources.mlir:[[@LINE-7]]:18, joining at garray.add ({{.*}}explain-sources.mlir:[[@LINE-5]]:8){{$}}
// The agreement is kept down the chain.
// CHECK: explain-sources.mlir:[[@LINE-6]]:8: remark: %1 (garray.exp): P("data") <- argument 'A' (%arg0) annotated P("data") at {{.*}} via garray.add ({{.*}}), garray.exp ({{.*}}); also argument 'B' (%arg1) annotated P("data") at {{.*}}, joining at garray.add ({{.*}}){{$}}

// One annotation, and an unannotated operand that receives the axes in the
// same step as the result: the result's source is the annotated operand
// directly (one hop), not the operand that was filled alongside it.
func.func @same_step(%w: tensor<8xf32> {garray.name = "W"},
                     %a: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.name = "A"})
    -> tensor<8xf32> {
  %u = garray.exp %w : tensor<8xf32>
  %t = garray.add %u, %a : tensor<8xf32>
  return %t : tensor<8xf32>
}
// CHECK-LABEL: remark: %arg0 'W' (argument of @same_step)
// CHECK: explain-sources.mlir:[[@LINE-5]]:8: remark: %0 (garray.exp): P("data") <- argument 'A' (%arg1) annotated P("data") at {{.*}} via garray.add ({{.*}}explain-sources.mlir:[[@LINE-4]]:8){{$}}
// CHECK: explain-sources.mlir:[[@LINE-5]]:8: remark: %1 (garray.add): P("data") <- argument 'A' (%arg1) annotated P("data") at {{.*}} via garray.add ({{.*}}explain-sources.mlir:[[@LINE-5]]:8){{$}}

garray.mesh @mesh2 ["a" = 2, "b" = 2]

// An open annotation that grew: %x0 is written P(?, "a") and its dim 0 takes
// "b" from the constraint through the transpose. Its own remark names its
// annotation and the constraint (not a chain from itself back to itself);
// values computed from it name the constraint where they hold "b" or are
// partial sums over it, and not otherwise.
func.func @grown_annotation(%x0: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh2, P(?, "a")>})
    -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %t = garray.transpose %x0, permutation = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %c = garray.sharding_constraint %t : tensor<8x8xf32> to #garray.sharding<@mesh2, P(None, "b")>
  %e = garray.exp %x0 : tensor<8x8xf32>
  %r = garray.reduce <sum> %x0, dims = [1] : (tensor<8x8xf32>) -> tensor<8xf32>
  %q = garray.reduce <sum> %x0, dims = [0] : (tensor<8x8xf32>) -> tensor<8xf32>
  return %c, %e, %r, %q : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>
}
// CHECK: explain-sources.mlir:[[@LINE-9]]:29: remark: %arg0 (argument of @grown_annotation): P("b", "a") <- argument #0 annotated P(None, "a") at {{[^ ]*}}explain-sources.mlir:[[@LINE-9]]:29; also sharding_constraint (%1) annotated P(None, "b") at {{[^ ]*}}explain-sources.mlir:[[@LINE-6]]:8, joining at garray.sharding_constraint
// CHECK: explain-sources.mlir:[[@LINE-6]]:8: remark: %2 (garray.exp): P("b", "a") <- argument #0 (%arg0) annotated P(None, "a") at {{.*}} via garray.exp ({{.*}}); also sharding_constraint (%1) annotated P(None, "b")
// CHECK: explain-sources.mlir:[[@LINE-6]]:8: remark: %3 (garray.reduce): P("b") <- argument #0 (%arg0) annotated P(None, "a") at {{.*}} via garray.reduce ({{.*}}); also sharding_constraint (%1) annotated P(None, "b") {{.*}}; each device holds a partial result over "a"
// CHECK: explain-sources.mlir:[[@LINE-6]]:8: remark: %4 (garray.reduce): P("a") <- argument #0 (%arg0) annotated P(None, "a") at {{.*}} via garray.reduce ({{.*}}); also sharding_constraint (%1) annotated P(None, "b") {{.*}}; each device holds a partial result over "b"

// Two open annotations that grow from each other: each remark starts with
// the value's own annotation and names the other as what it grew from (not
// the other alone, which would leave the value's own axis unexplained).
func.func @grown_from_each_other(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh2, P(?, "a")>},
                                 %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh2, P("b", ?)>}) -> tensor<8x8xf32> {
  %s = garray.add %x, %y : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}
// CHECK: remark: %arg0 (argument of @grown_from_each_other): P("b", "a") <- argument #0 annotated P(None, "a") at {{[^;]*}}; also argument #1 (%arg1) annotated P("b", None) at {{.*}}, joining at garray.add
// CHECK: remark: %arg1 (argument of @grown_from_each_other): P("b", "a") <- argument #1 annotated P("b", None) at {{[^;]*}}; also argument #0 (%arg0) annotated P(None, "a") at {{.*}}, joining at garray.add
