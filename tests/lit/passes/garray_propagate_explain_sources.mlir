// RUN: shardc-opt %s --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// explain names, per axis a value holds, the annotations that wrote it and
// a path of ops along which every value holds it (sharding/AxisOrigins.h):
// the strongest annotation first, the nearest among equals. When two
// annotations agree, both are named: the first with its path, the other
// after it as agreeing, with how far it is; one that explains only some
// axes says which.
// CHECK lines match the parts of each remark (value, sharding, origin and its location), not its wording.

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
// CHECK: explain_sources.mlir:[[@LINE-5]]:8: remark: %0 (garray.add): P("data") <- {{.*}}argument 'A' (%arg0){{.*}}P("data"){{.*}}explain_sources.mlir:[[@LINE-8]]:18{{.*}}garray.add ({{.*}}explain_sources.mlir:[[@LINE-5]]:8){{.*}}agree{{.*}}argument 'B' (%arg1){{.*}}P("data"){{.*}}explain_sources.mlir:[[@LINE-7]]:18{{[^(]*}}1 op away{{[^(]*$}}
// The agreement is kept down the chain.
// CHECK: explain_sources.mlir:[[@LINE-6]]:8: remark: %1 (garray.exp): P("data") <- {{.*}}argument 'A' (%arg0){{.*}}P("data"){{.*}}garray.add ({{.*}}), garray.exp ({{.*}}){{.*}}agree{{.*}}argument 'B' (%arg1){{.*}}P("data"){{[^(]*}}2 ops away{{[^(]*$}}

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
// CHECK: explain_sources.mlir:[[@LINE-5]]:8: remark: %0 (garray.exp): P("data") <- {{.*}}argument 'A' (%arg1){{.*}}P("data"){{.*}}garray.add ({{.*}}explain_sources.mlir:[[@LINE-4]]:8){{$}}
// CHECK: explain_sources.mlir:[[@LINE-5]]:8: remark: %1 (garray.add): P("data") <- {{.*}}argument 'A' (%arg1){{.*}}P("data"){{.*}}garray.add ({{.*}}explain_sources.mlir:[[@LINE-5]]:8){{$}}

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
// CHECK: explain_sources.mlir:[[@LINE-9]]:29: remark: %arg0 (argument of @grown_annotation): P("b", "a") <- {{.*}}"a"{{.*}}argument #0{{.*}}P(?, "a"){{.*}}explain_sources.mlir:[[@LINE-9]]:29{{[^(]*}}"b"{{.*}}sharding_constraint (%1){{.*}}P(None, "b"){{.*}}explain_sources.mlir:[[@LINE-6]]:8{{.*}}garray.sharding_constraint ({{.*}}:[[@LINE-6]]:8), garray.transpose ({{.*}}:[[@LINE-7]]:8){{$}}
// CHECK: explain_sources.mlir:[[@LINE-6]]:8: remark: %2 (garray.exp): P("b", "a") <- {{.*}}"b"{{.*}}sharding_constraint (%1){{.*}}P(None, "b"){{.*}}garray.sharding_constraint ({{.*}}), garray.transpose ({{.*}}), garray.exp ({{.*}}){{.*}}"a"{{.*}}argument #0 (%arg0){{.*}}P(?, "a"){{.*}}garray.exp ({{.*}}){{$}}
// CHECK: explain_sources.mlir:[[@LINE-6]]:8: remark: %3 (garray.reduce): P("b") <- {{.*}}sharding_constraint (%1){{.*}}P(None, "b"){{.*}}garray.sharding_constraint ({{.*}}), garray.transpose ({{.*}}), garray.reduce ({{.*}}){{.*}}partial result over "a"{{.*}}argument #0 (%arg0){{.*}}P(?, "a"){{.*}}garray.reduce ({{[^)]*}}){{[^"]*$}}
// CHECK: explain_sources.mlir:[[@LINE-6]]:8: remark: %4 (garray.reduce): P("a") <- {{.*}}argument #0 (%arg0){{.*}}P(?, "a"){{.*}}garray.reduce ({{.*}}){{.*}}partial result over "b"{{.*}}sharding_constraint (%1){{.*}}P(None, "b"){{.*}}garray.sharding_constraint ({{.*}}), garray.transpose ({{.*}}), garray.reduce ({{[^)]*}}){{[^"]*$}}

// Two open annotations that grow from each other: each remark starts with
// the value's own annotation and names the other as what it grew from (not
// the other alone, which would leave the value's own axis unexplained).
func.func @grown_from_each_other(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh2, P(?, "a")>},
                                 %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh2, P("b", ?)>}) -> tensor<8x8xf32> {
  %s = garray.add %x, %y : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}
// CHECK: remark: %arg0 (argument of @grown_from_each_other): P("b", "a") <- {{.*}}"a"{{.*}}argument #0{{.*}}P(?, "a"){{[^(]*}}"b"{{.*}}argument #1 (%arg1){{.*}}P("b", ?){{.*}}garray.add ({{.*}}){{$}}
// CHECK: remark: %arg1 (argument of @grown_from_each_other): P("b", "a") <- {{.*}}"b"{{.*}}argument #1{{.*}}P("b", ?){{[^(]*}}"a"{{.*}}argument #0 (%arg0){{.*}}P(?, "a"){{.*}}garray.add ({{.*}}){{$}}

// Two annotations meet at an add from different sides: each value names,
// per axis, the annotation it came from and a path every value of which
// holds that axis. %e holds "b" from z through exp (z to %f) and the add
// (%f to %e), not through an op between x and %e.
func.func @meet(%x: tensor<8x8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh2, P("a", None)>},
                %z: tensor<8x8xf32> {garray.name = "z", garray.sharding = #garray.sharding<@mesh2, P(None, "b")>}) -> tensor<8x8xf32> {
  %e = garray.exp %x : tensor<8x8xf32>
  %f = garray.exp %z : tensor<8x8xf32>
  %s = garray.add %e, %f : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}
// CHECK-LABEL: remark: %arg0 'x' (argument of @meet)
// CHECK: :[[@LINE-6]]:8: remark: %0 (garray.exp): P("a", "b") <- {{.*}}"a"{{.*}}argument 'x' (%arg0){{.*}}P("a", None){{.*}}:[[@LINE-8]]:17{{.*}}garray.exp ({{.*}}:[[@LINE-6]]:8){{[^(]*}}"b"{{.*}}argument 'z' (%arg1){{.*}}P(None, "b"){{.*}}:[[@LINE-7]]:17{{.*}}garray.exp ({{.*}}:[[@LINE-5]]:8), garray.add ({{.*}}:[[@LINE-4]]:8){{$}}
// CHECK: :[[@LINE-6]]:8: remark: %1 (garray.exp): P("a", "b") <- {{.*}}"a"{{.*}}argument 'x' (%arg0){{.*}}P("a", None){{.*}}garray.exp ({{.*}}:[[@LINE-7]]:8), garray.add ({{.*}}:[[@LINE-5]]:8){{[^(]*}}"b"{{.*}}argument 'z' (%arg1){{.*}}P(None, "b"){{.*}}garray.exp ({{.*}}:[[@LINE-6]]:8){{$}}
// CHECK: :[[@LINE-6]]:8: remark: %2 (garray.add): P("a", "b") <- {{.*}}"a"{{.*}}argument 'x' (%arg0){{.*}}P("a", None){{.*}}garray.exp ({{.*}}:[[@LINE-8]]:8), garray.add ({{.*}}:[[@LINE-6]]:8){{[^(]*}}"b"{{.*}}argument 'z' (%arg1){{.*}}P(None, "b"){{.*}}garray.exp ({{.*}}:[[@LINE-7]]:8), garray.add ({{.*}}:[[@LINE-6]]:8){{$}}

// An annotation whose axis lost at a dot is not named as a source: w wrote
// "a" on the result's dim 1, x on dim 0; the result holds "a" on dim 0 only,
// and the remark says where w's "a" went instead, and why (x's round, p0,
// came first).
func.func @lost(%x: tensor<8x8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh2, P("a" p0, None)>},
                %w: tensor<8x8xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh2, P(None, "a")>}) -> tensor<8x8xf32> {
  %y = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
// CHECK-LABEL: remark: %arg0 'x' (argument of @lost)
// CHECK: remark: %0 (garray.dot_general): P("a", None) <- {{.*}}argument 'x' (%arg0){{.*}}P("a" p0, None){{.*}}garray.dot_general ({{.*}}){{.*}}operand #1's "a" (its dim 1){{.*}}dim 1{{.*}}dim 0{{.*}}"a"{{.*}}dim 1{{.*}}argument 'w' (%arg1){{.*}}P(None, "a"){{.*}}garray.dot_general ({{.*}}){{.*}}"a"{{.*}}dim 0{{.*}}round p0{{.*}}last round{{[^"]*$}}
