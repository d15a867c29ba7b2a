// RUN: shardc-opt %s -split-input-file --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// A whole value without a cause of its own is explained by the nearest
// whole value that has one (a replicated annotation, a reduction, a
// conflict), through the ops between them. They all read "no annotation
// reaches it" before, though one did.
// CHECK lines match the parts of each remark (value, sharding, origin and its location), not its wording.

garray.mesh @mesh ["data" = 2]
// CHECK: remark: %0 (garray.exp): P(None) <- {{.*}}whole like %arg0{{.*}}1 op away{{.*}}garray.exp ({{.*}}whole.mlir:[[@LINE+5]]:8){{.*}}argument 'w'{{.*}}P(None){{.*}}whole.mlir:[[@LINE+3]]:5
// CHECK: remark: %1 (garray.neg): P(None) <- {{.*}}whole like %arg0{{.*}}2 ops away{{.*}}garray.neg ({{.*}}whole.mlir:[[@LINE+5]]:8){{.*}}argument 'w'{{.*}}P(None)
func.func @replicated_annotation(
    %w: tensor<8xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(None)>})
    -> tensor<8xf32> {
  %e = garray.exp %w : tensor<8xf32>
  %n = garray.neg %e : tensor<8xf32>
  return %n : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
// CHECK: remark: %1 (garray.exp): P(None) <- operand #0 (%0) is a partial sum over "data", which insert-reshards reduces before garray.exp (its collective below says why): what it computes from is whole
func.func @after_a_full_reduction(
    %x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<4xf32> {
  %s = garray.reduce <sum> %x, dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  %e = garray.exp %s : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]
// CHECK: remark: %0 (garray.exp): P(None, None) <- {{.*}}whole like %arg0{{.*}}1 op away{{.*}}garray.exp ({{.*}}){{.*}}different layouts
// CHECK: remark: %0 (func.call): P(None, None) <- {{.*}}@h{{.*}}%0 in @h{{.*}}whole like %arg0 in @h{{.*}}1 op away{{.*}}garray.exp ({{.*}}){{.*}}different layouts
func.func private @h(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = garray.exp %a : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}
func.func @calls_conflict(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                          %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("model", None)>})
    -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = func.call @h(%x) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = func.call @h(%y) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0, %1 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A reshape does not carry an uneven split across merged dims: the remark
// says so (it said the operand was split along dims the op computes whole).
garray.mesh @mesh ["data" = 3]
// CHECK: remark: %0 (garray.reshape): P(None) <- {{.*}}operand #0 P("data", None){{.*}}dim 0 (size 8){{.*}}3 devices{{.*}}unevenly{{.*}}gathered
func.func @uneven_reshape(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<32xf32> {
  %r = garray.reshape %x : (tensor<8x4xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}

// -----

// A cause is followed per dim: the operands conflict on dim 0, which the
// reduce removes, so the reduce's result is not whole for that conflict.
// Nor is a scalar's "nothing to split" a cause for its neighbours.
garray.mesh @mesh ["data" = 2, "model" = 2]
// CHECK: remark: %arg2 (argument of @conflict_reduced_away): P(None) <- {{.*}}no annotation reaches
// CHECK: remark: %0 (garray.add): P(None, None) <- {{.*}}conflict
// CHECK: remark: %1 (garray.reduce): P(None) <- {{.*}}no annotation reaches
func.func @conflict_reduced_away(%x: tensor<8x6xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                                 %y: tensor<8x6xf32> {garray.sharding = #garray.sharding<@mesh, P("model", None)>},
                                 %z: tensor<8xf32>) -> (tensor<6xf32>, tensor<f32>) {
  %a = garray.add %x, %y : tensor<8x6xf32>
  %r = garray.reduce <sum> %a, dims = [0] : (tensor<8x6xf32>) -> tensor<6xf32>
  %s = garray.reduce <sum> %z, dims = [0] : (tensor<8xf32>) -> tensor<f32>
  return %r, %s : tensor<6xf32>, tensor<f32>
}

// -----

// A value computed from a partial sum that insert-reshards reduces first
// (exp passes no partial sum on) is whole for that reason, and its users
// are whole like it (both read "no annotation reaches it" before).
garray.mesh @mesh ["data" = 2]
// CHECK: remark: %1 (garray.exp): P(None) <- operand #0 (%0) is a partial sum over "data", which insert-reshards reduces before garray.exp (its collective below says why): what it computes from is whole
// CHECK: remark: %2 (garray.tanh): P(None) <- {{.*}}whole like %1 (garray.{{[a-z_]+}}{{[^)]*}}){{.*}}1 op away{{.*}}garray.tanh
func.func @after_a_partial_sum(%x: tensor<8x6xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<6xf32> {
  %r = garray.reduce <sum> %x, dims = [0] : (tensor<8x6xf32>) -> tensor<6xf32>
  %e = garray.exp %r : tensor<6xf32>
  %t = garray.tanh %e : tensor<6xf32>
  return %t : tensor<6xf32>
}

// -----

// (Not a whole value, but the same file of explain wording.) A group copies
// a constraint's annotation to its other member: explain names the
// annotation once, not also as the original reached through the group.
garray.mesh @mesh ["a" = 2, "b" = 2]
// CHECK: remark: %1 (garray.exp): P("b") <- {{[^"]*}}sharding_constraint{{[^"]*}}P("b"){{[^"]*}}%arg0{{[^"]*}}sharding group 2{{[^"]*}}garray.exp ({{[^)]*}}){{$}}
func.func @group_copy_named_once(%m: tensor<8xf32> {garray.sharding_group = 2 : i64},
                                 %x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>}) -> (tensor<8xf32>, tensor<8xf32>) {
  %c = garray.sharding_constraint %x : tensor<8xf32> to #garray.sharding<@mesh, P("b")> {garray.sharding_group = 2 : i64}
  %e = garray.exp %m : tensor<8xf32>
  return %c, %e : tensor<8xf32>, tensor<8xf32>
}

// -----

// A reshape carries an even split only where the devices divide the leading
// piece of the regrouped dim, and never the split of a minor piece: the
// remark says which (it read "split only along dims it reduces").
garray.mesh @mesh ["data" = 4]
// CHECK: remark: %0 (garray.reshape): P(None, None) <- {{.*}}operand #0 P("data"){{.*}}dim 0 (size 16){{.*}}4 contiguous blocks{{.*}}2 x 8{{.*}}4 devices{{.*}}leading piece (2){{.*}}gathered
// CHECK: remark: %1 (garray.reshape): P(None) <- {{.*}}operand #0 P(None, "data"){{.*}}dim 1 (size 8){{.*}}4 contiguous blocks{{.*}}result dim 0{{.*}}pieces 2{{.*}}minor piece{{.*}}gathered
func.func @reshape_drops_even_split(
    %v: tensor<16xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>},
    %u: tensor<2x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>})
    -> (tensor<2x8xf32>, tensor<16xf32>) {
  %a = garray.reshape %v : (tensor<16xf32>) -> tensor<2x8xf32>
  %b = garray.reshape %u : (tensor<2x8xf32>) -> tensor<16xf32>
  return %a, %b : tensor<2x8xf32>, tensor<16xf32>
}

// -----

// A conflict on dim 0 explains dim 0 of the values after it; dim 1, which
// no annotation splits, is said apart (the whole remark read "no annotation
// reaches it").
garray.mesh @mesh ["data" = 2, "model" = 2]
// CHECK: remark: %1 (garray.tanh): P(None, None) <- {{.*}}dim 0{{[^;]*}}whole like %0 (garray.add{{.*}}whole.mlir:[[@LINE+4]]:8){{.*}}1 op away{{.*}}garray.tanh ({{.*}}whole.mlir:[[@LINE+5]]:8){{.*}}conflict{{.*}}operand #0 P("data", None), operand #1 P("model", None){{.*}}dim 1{{[^;]*}}no annotation reaches
func.func @conflict_on_one_dim(
    %a: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %b: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("model", None)>}) -> tensor<8x8xf32> {
  %s = garray.add %a, %b : tensor<8x8xf32>
  %t = garray.tanh %s : tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}

// -----

// A value computed from a branch target's argument is whole like it.
garray.mesh @mesh ["data" = 2]
// CHECK: remark: %1 (garray.neg): P(None) <- {{.*}}whole like %0 ({{.*}}block argument{{.*}}whole.mlir:[[@LINE+4]]:{{[0-9]+}}){{.*}}1 op away{{.*}}garray.neg ({{.*}}whole.mlir:[[@LINE+5]]:8){{.*}}function's entry
func.func @after_a_block_argument(
    %x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P()>}) -> tensor<8xf32> {
  cf.br ^b(%x : tensor<8xf32>)
^b(%v: tensor<8xf32>):
  %n = garray.neg %v : tensor<8xf32>
  return %n : tensor<8xf32>
}

// -----

// Each dim names the cause that reached it (dim 0 from x, dim 2 from y),
// whatever order the causes are found in; a dim none reaches is said apart.
// (One cause was credited with every reached dim, and which one changed
// from run to run.)
garray.mesh @mesh ["a" = 2]
// CHECK: remark: %2 (garray.mul): P(None, None, None) <- {{.*}}dim 0{{[^;]*}}whole like %arg0{{[^;]*}}2 ops away{{[^;]*}}garray.mul ({{[^)]*}}){{[^;]*}}argument #0{{[^;]*}}P(None){{[^;]*}};{{[^;]*}}dim 2{{[^;]*}}whole like %arg1{{[^;]*}}2 ops away{{[^;]*}}garray.mul ({{[^)]*}}){{[^;]*}}argument #1{{[^;]*}}P(None){{[^;]*}};{{[^;]*}}dim 1{{[^;]*}}no annotation reaches
func.func @each_dim_its_cause(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>},
                              %y: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>}) -> tensor<8x8x8xf32> {
  %b1 = garray.broadcast_in_dim %x, dims = [0] : (tensor<8xf32>) -> tensor<8x8x8xf32>
  %b2 = garray.broadcast_in_dim %y, dims = [2] : (tensor<8xf32>) -> tensor<8x8x8xf32>
  %t = garray.mul %b1, %b2 : tensor<8x8x8xf32>
  return %t : tensor<8x8x8xf32>
}
