// RUN: shardc-opt %s --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// garray-propagate with `explain`: one remark per value, at its location,
// with its final sharding and where it came from (the annotation and its
// location, and the ops it flowed through).
// CHECK lines match the parts of each remark (value, sharding, origin and its location), not its wording.

garray.mesh @mesh ["data" = 2]

func.func @explain(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>, garray.name = "X"},
                   %w: tensor<2xf32>) -> tensor<8xf32> {
  %p = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
  %e = garray.exp %p : tensor<8xf32>
  return %e : tensor<8xf32>
}

// CHECK: garray_propagate_explain.mlir:10:20: remark: %arg0 'X' (argument of @explain): P("data", None) <- {{.*}}argument 'X'{{.*}}P("data", None){{.*}}garray_propagate_explain.mlir:10:20
// CHECK: garray_propagate_explain.mlir:11:20: remark: %arg1 (argument of @explain): P(None) <- {{.*}}%arg0 (P("data", None)){{.*}}garray.dot_general ({{.*}}explain.mlir:12:8){{.*}}none of its axes
// CHECK: garray_propagate_explain.mlir:12:8: remark: %0 (garray.dot_general): P("data") <- {{.*}}argument 'X' (%arg0){{.*}}P("data", None){{.*}}explain.mlir:10:20{{.*}}garray.dot_general ({{.*}}explain.mlir:12:8)
// CHECK: garray_propagate_explain.mlir:14:8: remark: %1 (garray.exp): P("data") <- {{.*}}argument 'X' (%arg0){{.*}}P("data", None){{.*}}explain.mlir:10:20{{.*}}garray.dot_general ({{.*}}explain.mlir:12:8), garray.exp ({{.*}}explain.mlir:14:8)

// Backward from a function result annotation, and through a sharding group.
func.func @backward(%a: tensor<8xf32>, %m: tensor<8xf32> {garray.sharding_group = 0 : i64})
    -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) {
  %n = garray.neg %a {garray.sharding_group = 0 : i64} : tensor<8xf32>
  return %n : tensor<8xf32>
}
// CHECK: explain.mlir:[[@LINE-5]]:21: remark: %arg0 (argument of @backward): P("data") <- {{.*}}result #0 of @backward{{.*}}P("data"){{.*}}explain.mlir:[[@LINE-2]]:3{{.*}}func.return ({{.*}}), garray.neg ({{.*}}explain.mlir:[[@LINE-3]]:8)
// CHECK: explain.mlir:[[@LINE-6]]:40: remark: %arg1 (argument of @backward): P("data") <- {{.*}}result #0 of @backward{{.*}}P("data"){{.*}}func.return ({{.*}}), sharding group 0{{$}}
// CHECK: explain.mlir:[[@LINE-5]]:8: remark: %0 (garray.neg): P("data") <- {{.*}}result #0 of @backward{{.*}}P("data"){{.*}}func.return ({{.*}})

// An annotation written on one member of a group holds for the others: the
// remark names the member it was written on and the group.
func.func @group_annotation(%p: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>, garray.sharding_group = 5 : i64},
                            %m: tensor<8xf32> {garray.sharding_group = 5 : i64},
                            %x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  %s = garray.add %m, %x : tensor<8xf32>
  return %s : tensor<8xf32>
}
// CHECK: explain.mlir:[[@LINE-5]]:29: remark: %arg1 (argument of @group_annotation): P(None) <- {{.*}}argument #0{{.*}}P(None){{.*}}explain.mlir:[[@LINE-6]]:29{{.*}}sharding group 5
