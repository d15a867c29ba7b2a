// RUN: shardc-opt %s --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// explain links an axis between two values only where their op runs with
// it and at the same place in the dim (the same axes before it), and a
// partial sum only from an operand to the result (sharding/AxisOrigins.h,
// docs/propagation.md "Explanations"). Each case below has a hop that does
// not carry the axis, and checks that explain does not link through it.
// CHECK lines match the parts of each remark (value, sharding, origin and its location), not its wording.

garray.mesh @mesh ["a" = 2, "b" = 2]

// "a" under "b" is another layout than "a" alone: the result annotation
// P("a") lost at the return (a reshard there) and is no source of %e's "a".
func.func @minor_axis(%w: tensor<8xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(("b", "a"))>})
    -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>}) {
  %e = garray.exp %w : tensor<8xf32>
  return %e : tensor<8xf32>
}
// CHECK-LABEL: remark: %arg0 'w' (argument of @minor_axis)
// CHECK: remark: %0 (garray.exp): P(("b", "a")) <- {{.*}}argument 'w' (%arg0){{[^;]*}}P(("b", "a")){{[^;]*}}garray.exp ({{[^)]*}}){{.*}}conflicting proposals
// CHECK-NOT: also for "a", result #0

// The same through an op: %v's "a" (alone) is q's, not w's minor "a".
func.func @minor_axis_op(%w: tensor<8xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(("b", "a"))>},
                         %q: tensor<8xf32> {garray.name = "q", garray.sharding = #garray.sharding<@mesh, P("a")>}) -> tensor<8xf32> {
  %e1 = garray.exp %w : tensor<8xf32>
  %v = garray.exp %e1 : tensor<8xf32>
  %s = garray.add %v, %q : tensor<8xf32>
  return %s : tensor<8xf32>
}
// CHECK-LABEL: remark: %arg0 'w' (argument of @minor_axis_op)
// CHECK: remark: %0 (garray.exp): P(("b", "a")) <- {{.*}}argument 'w' (%arg0){{[^;]*}}P(("b", "a")){{[^;]*}}garray.exp ({{[^)]*}}){{$}}
// CHECK: remark: %1 (garray.exp): P("a") <- {{.*}}argument 'q' (%arg1){{[^;]*}}P("a"){{[^;]*}}garray.add ({{[^)]*}}){{$}}

// A partial sum flows from an operand to the result, never from one
// operand of the add to the other: %r names only x, %q only y, the add both.
func.func @partial_siblings(%x: tensor<8x8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P(None, "a")>},
                            %y: tensor<8x8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P(None, "a")>}) -> tensor<8xf32> {
  %r = garray.reduce <sum> %x, dims = [1] : (tensor<8x8xf32>) -> tensor<8xf32>
  %q = garray.reduce <sum> %y, dims = [1] : (tensor<8x8xf32>) -> tensor<8xf32>
  %s = garray.add %r, %q : tensor<8xf32>
  return %s : tensor<8xf32>
}
// CHECK-LABEL: remark: %arg0 'x' (argument of @partial_siblings)
// CHECK: remark: %0 (garray.reduce): P(None) <- {{.*}}partial result over "a"{{.*}}argument 'x' (%arg0){{[^;]*}}P(None, "a"){{[^;]*}}garray.reduce ({{[^)]*}}){{[^"]*$}}
// CHECK: remark: %1 (garray.reduce): P(None) <- {{.*}}partial result over "a"{{.*}}argument 'y' (%arg1){{[^;]*}}P(None, "a"){{[^;]*}}garray.reduce ({{[^)]*}}){{[^"]*$}}
// A value that only carries a partial sum is not "replicated, no annotation".
// CHECK: remark: %2 (garray.add): P(None) <- {{.*}}not split{{.*}}partial result over "a"{{.*}}passes on{{.*}}argument 'x'{{.*}}argument 'y'

// An axis that came through an op that ends up not running with it: the
// constraint's "a" wins the dot's row factor (the lower-numbered factor),
// so the dot does not contract over "a"; w keeps the "a" propagation gave
// it from x through that dot (dims only grow), and the remark says so.
func.func @dropped_factor(%x: tensor<8x8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P(None, "a")>},
                          %w: tensor<8x8xf32> {garray.name = "w"}) -> (tensor<8x8xf32>) {
  %p = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %n = garray.neg %p : tensor<8x8xf32>
  %c = garray.sharding_constraint %n : tensor<8x8xf32> to #garray.sharding<@mesh, P("a", None)>
  return %c : tensor<8x8xf32>
}
// CHECK-LABEL: remark: %arg0 'x' (argument of @dropped_factor)
// CHECK: remark: %arg1 'w' (argument of @dropped_factor): P("a", None) <- {{.*}}"a"{{.*}}argument 'x' (%arg0){{[^;]*}}P(None, "a"){{[^;]*}}garray.dot_general ({{[^)]*}}){{.*}}not running with it
// CHECK: remark: %0 (garray.dot_general): P("a", None) <- {{.*}}sharding_constraint (%2){{.*}}P("a", None)
