// RUN: shardc-opt %s -split-input-file --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// explain on values where annotations conflict, on block arguments, and on
// functions propagation does not reach (docs/propagation.md, "Explanations").
// CHECK lines match the parts of each remark (value, sharding, origin and its location), not its wording.

garray.mesh @mesh ["data" = 2, "model" = 2]

// Two ops want different layouts for %n: it says so, and names both.
// CHECK: remark: %arg0 'n' (argument of @two_users): P(None) <- {{.*}}conflicting proposals{{.*}}P("model") from garray.add ({{.*}}:[[@LINE+5]]:8), P("data") from garray.add ({{.*}}:[[@LINE+6]]:8)
func.func @two_users(%n: tensor<8xf32> {garray.name = "n"},
                     %y: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("model")>},
                     %z: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<8xf32>, tensor<8xf32>) {
  %a = garray.add %n, %y : tensor<8xf32>
  %b = garray.add %n, %z : tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// One op's operands disagree: its result says why it is replicated.
// CHECK: remark: %0 (garray.add): P(None) <- {{.*}}conflict{{.*}}operand #0 P("data"), operand #1 P("model"){{.*}}resharded
func.func @one_op(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>},
                  %y: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("model")>}) -> tensor<8xf32> {
  %s = garray.add %x, %y : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A non-entry block's argument gets its remark; a function no annotation
// or call reaches gets one per value.
// CHECK-DAG: remark: %arg0 (argument of @lonely): replicated <- {{.*}}no annotation{{.*}}no call
// CHECK-DAG: remark: %0 (block argument): P(None) <- {{.*}}function's entry{{.*}}sharding rule
func.func @blocks(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P()>},
                  %w: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  cf.br ^bb1(%x : tensor<8xf32>)
^bb1(%b: tensor<8xf32>):
  %e = garray.exp %b : tensor<8xf32>
  return %e : tensor<8xf32>
}
func.func @lonely(%u: tensor<8xf32>) -> tensor<8xf32> {
  return %u : tensor<8xf32>
}

// -----

// No annotation anywhere: every value is named as replicated, with why.
// CHECK: remark: %0 (garray.exp): replicated <- {{.*}}no function{{.*}}annotated
func.func @nothing(%u: tensor<8xf32>) -> tensor<8xf32> {
  %e = garray.exp %u : tensor<8xf32>
  return %e : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A sum over a sharded dim: its layout reads replicated, and the remark
// says why (not "no annotation reaches it") and that each device holds a
// partial result.
// CHECK: remark: %0 (garray.reduce): P(None) <- {{.*}}operand #0 P("data", None){{.*}}dims it reduces{{.*}}partial result over "data"{{.*}}argument #0 (%arg0){{.*}}P("data", None){{.*}}:[[@LINE+1]]:20{{.*}}garray.reduce ({{.*}}:[[@LINE+2]]:8){{.*}}insert-reshards
func.func @partial(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<4xf32> {
  %s = garray.reduce <sum> %x, dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// %s grows twice: "data" from x in round p0, "model" from y after. Both
// annotations are named, each with the axis it gave and its own path, and
// as written (the priority too).
// CHECK: remark: %1 (garray.add): P("data", "model") <- {{.*}}"data"{{.*}}argument 'x' (%arg0){{.*}}P("data" p0, None){{.*}}:[[@LINE+1]]:23{{.*}}garray.exp ({{.*}}:[[@LINE+3]]:8), garray.add ({{.*}}:[[@LINE+4]]:8){{.*}}"model"{{.*}}argument 'y' (%arg1){{.*}}P(None, "model"){{.*}}:[[@LINE+2]]:23{{.*}}garray.add ({{.*}}:[[@LINE+4]]:8){{$}}
func.func @grew_twice(%x: tensor<8x8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data" p0, None)>},
                      %y: tensor<8x8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P(None, "model")>}) -> tensor<8x8xf32> {
  %a = garray.exp %x : tensor<8x8xf32>
  %s = garray.add %a, %y : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2]

// Operands that split the contracted dim by ("a", "b") and by "a" do not
// conflict: "a" is a prefix, the merge takes both axes (operand #1 is
// resharded to add "b"), and the product is a partial sum over both, as
// insert-reshards computes it. The operands' layouts differ, but no factor
// of the result is asked two ways.
// CHECK: remark: %0 (garray.dot_general): P(None, None) <- {{.*}}operand #0 P(None, ("a", "b")), operand #1 P("a", None){{.*}}dims it reduces{{.*}}partial result over "a", "b"{{.*}}argument #0 (%arg0){{.*}}P(None, ("a", "b")){{.*}}garray.dot_general ({{.*}}){{.*}}"a"{{.*}}argument #1 (%arg1){{.*}}P("a", None){{.*}}garray.dot_general ({{.*}}){{.*}}insert-reshards
func.func @contracted_prefix(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, ("a", "b"))>},
                             %w: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>}) -> tensor<8x8xf32> {
  %y = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// An op that needs a dim whole (reverse's reversed dim) gathers its operand:
// not a conflict (one operand), not a partial sum.
// CHECK: remark: %0 (garray.reverse): P(None, None) <- {{.*}}operand #0 P("data", None){{.*}}computes whole{{.*}}gathered{{[^"]*$}}
func.func @needs_whole(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8x4xf32> {
  %r = garray.reverse %x, dims = [0] : tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Two calls of one helper give its argument different layouts: the remark
// on the argument says so and where (not "no annotation reaches it").
// CHECK: remark: %arg0 (argument of @sq): P(None, None) <- {{.*}}different layouts{{.*}}P("data", None){{.*}}:[[@LINE+7]]:8{{.*}}P("model", None){{.*}}:[[@LINE+8]]:8{{.*}}resharded
func.func private @sq(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %m = garray.mul %a, %a : tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}
func.func @two_sites(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                     %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("model", None)>}) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %a = call @sq(%x) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = call @sq(%y) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %a, %b : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2]

// A partial sum passed on by a linear op (a reduce-sum of a partial dot) is
// still one: its remark says so and where the split came from (it said "no
// annotation reaches it" and nothing of the pending sum insert-reshards
// reduces after it).
// CHECK-LABEL: remark: %arg0 'x' (argument of @passed_on)
// CHECK: remark: %3 (garray.reduce): P(None) <- {{.*}}partial result over "a"{{.*}}passes on{{.*}}argument 'x' (%arg0){{.*}}P(None, "a"){{.*}}garray.exp ({{.*}}), garray.dot_general ({{.*}}), garray.reduce ({{.*}}){{.*}}insert-reshards
func.func @passed_on(%x: tensor<8x16xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P(None, "a")>},
                     %w: tensor<16x4xf32> {garray.name = "w"}) -> tensor<8xf32> {
  %x1 = garray.exp %x : tensor<8x16xf32>
  %w1 = garray.neg %w : tensor<16x4xf32>
  %y = garray.dot_general %x1, %w1, batch = [] x [], contracting = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %r = garray.reduce <sum> %y, dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A scalar has nothing to split: said so, not "no annotation reaches it".
// CHECK: remark: %arg1 't' (argument of @scalar): P() <- {{.*}}scalar{{.*}}nothing to split
func.func @scalar(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>},
                  %t: tensor<f32> {garray.name = "t"}) -> tensor<8xf32> {
  %b = garray.broadcast_in_dim %t, dims = [] : (tensor<f32>) -> tensor<8xf32>
  %s = garray.add %x, %b : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// "model" is asked for by the dot's contracted dim (h's dim 1) and by its
// output dim (w's dim 1): the contraction has it, and the result's remark
// says where w's "model" went (the remark named h alone).
garray.mesh @mesh ["data" = 2, "model" = 2]
// CHECK: remark: %0 (garray.dot_general): P("data", None) <- {{.*}}argument 'h' (%arg0){{.*}}P("data", "model"){{.*}}garray.dot_general ({{[^)]*}}){{.*}}operand #1's "model" (its dim 1){{.*}}dim 1{{.*}}dim it reduces{{.*}}operand #0{{.*}}(its dim 1){{.*}}partial result over "model"
func.func @contraction_takes_the_axis(
    %h: tensor<8x16xf32> {garray.name = "h", garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
    %w: tensor<16x32xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(None, "model")>}) -> tensor<8x32xf32> {
  %y = garray.dot_general %h, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}
