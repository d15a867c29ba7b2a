// RUN: shardc-opt %s -split-input-file --garray-insert-reshards | FileCheck %s
//
// garray-insert-reshards on propagated programs (the shardings below are what
// garray-propagate writes). A sharded reduction factor leaves its result
// *pending* (unreduced); linear users keep it pending; the first use that needs
// the whole value gets one garray.reshard, right after the definition and
// shared by every use; operands whose layout differs from the op's factor rule
// get a reshard whose `reason` names the op and operand.

garray.mesh @mesh ["data" = 2]

// A sum over a dim split on "data": the result is a pending sum.
// CHECK-LABEL: func.func @pending_reduction
// CHECK: %[[S:.*]] = garray.reduce <sum> %{{.*}}, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>}
// CHECK: %[[R:.*]] = garray.reshard %[[S]] : {{.*}} to #garray.sharding<@mesh, P(None)>
// CHECK-SAME: reason = "{{[^"]*}}reduced once for{{[^"]*}}needs the whole value"
// CHECK: return %[[R]]
func.func @pending_reduction(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>}) {
  %s = garray.reduce <sum> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>}
      : (tensor<8x2xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// neg, mul by a reduced value and div by a reduced value are linear in the
// pending operand: the partial sums flow through all three, and only exp
// (not linear) needs the reduced value, so there is exactly one reshard.
// CHECK-LABEL: func.func @linear_ops_stay_pending
// CHECK-SAME: (%{{[^:]+}}: tensor<8x2xf32> {{.*}}, %[[C:[^:]+]]: tensor<2xf32>
// CHECK: %[[S:.*]] = garray.reduce <sum> {{.*}}unreduced = sum("data")>}
// CHECK-NOT: garray.reshard
// CHECK: %[[N:.*]] = garray.neg %[[S]] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>}
// CHECK-NOT: garray.reshard
// CHECK: %[[M:.*]] = garray.mul %[[N]], %[[C]] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>}
// CHECK-NOT: garray.reshard
// CHECK: %[[D:.*]] = garray.div %[[M]], %[[C]] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>}
// CHECK: %[[R:.*]] = garray.reshard %[[D]] : {{.*}} to #garray.sharding<@mesh, P(None)> {garray.sharding = #garray.sharding<@mesh, P(None)>, reason = "{{[^"]*}}reduced once for{{[^"]*}}needs the whole value"}
// CHECK: %[[E:.*]] = garray.exp %[[R]] {garray.sharding = #garray.sharding<@mesh, P(None)>}
// CHECK-NOT: garray.reshard
// CHECK: return %[[E]]
func.func @linear_ops_stay_pending(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                                   %c: tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>})
    -> (tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>}) {
  %s = garray.reduce <sum> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<8x2xf32>) -> tensor<2xf32>
  %n = garray.neg %s {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  %m = garray.mul %n, %c {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  %d = garray.div %m, %c {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  %e = garray.exp %d {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  return %e : tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Two pending sums over the same axes add up to a pending sum.
// CHECK-LABEL: func.func @pending_plus_pending
// CHECK: %[[A:.*]] = garray.reduce <sum>
// CHECK: %[[B:.*]] = garray.reduce <sum>
// CHECK-NOT: garray.reshard
// CHECK: %[[S:.*]] = garray.add %[[A]], %[[B]] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>}
// CHECK: %[[R:.*]] = garray.reshard %[[S]] : {{.*}} to #garray.sharding<@mesh, P(None)>
// CHECK: return %[[R]]
func.func @pending_plus_pending(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>}) {
  %a = garray.reduce <sum> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<8x2xf32>) -> tensor<2xf32>
  %b = garray.reduce <sum> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<8x2xf32>) -> tensor<2xf32>
  %s = garray.add %a, %b {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A non-linear use (exp), a linear one (neg) and a function result share ONE
// reshard placed right after the definition: one collective per value, never
// one per use.
// CHECK-LABEL: func.func @one_reshard_for_all_uses
// CHECK: %[[S:.*]] = garray.reduce <sum> {{.*}}unreduced = sum("data")>}
// CHECK-NEXT: %[[R:.*]] = garray.reshard %[[S]] : {{.*}} to #garray.sharding<@mesh, P(None)>
// CHECK-NOT: garray.reshard
// CHECK: garray.exp %[[R]]
// CHECK-NOT: garray.reshard
// CHECK: garray.neg %[[R]]
// CHECK-NOT: garray.reshard
// CHECK: return %[[R]], %{{.*}}, %{{.*}} :
func.func @one_reshard_for_all_uses(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>},
        tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>},
        tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>}) {
  %s = garray.reduce <sum> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<8x2xf32>) -> tensor<2xf32>
  %e = garray.exp %s {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  %n = garray.neg %s {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  return %s, %e, %n : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A pending max is not linear for neg (only sums are): reduced before it.
// CHECK-LABEL: func.func @pending_max
// CHECK: %[[M:.*]] = garray.reduce <max> {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = max("data")>}
// CHECK: %[[R:.*]] = garray.reshard %[[M]] : {{.*}} to #garray.sharding<@mesh, P(None)>
// CHECK: garray.neg %[[R]] {garray.sharding = #garray.sharding<@mesh, P(None)>}
func.func @pending_max(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>}) {
  %m = garray.reduce <max> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<8x2xf32>) -> tensor<2xf32>
  %n = garray.neg %m {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  return %n : tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Conflicting layouts: add's rule wants both operands split like its result,
// so %y (columns on "data") is resharded to rows on "data", with a reason.
// CHECK-LABEL: func.func @conflicting_layouts
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x4xf32> {{.*}}, %[[Y:[^:]+]]: tensor<8x4xf32>
// CHECK: %[[R:.*]] = garray.reshard %[[Y]] : {{.*}} to #garray.sharding<@mesh, P("data", None)> {garray.sharding = #garray.sharding<@mesh, P("data", None)>, reason = "{{[^"]*}}operand #1 of garray.add at {{.*}}.mlir:[[@LINE+5]]:8: has P(None, \22data\22), needs P(\22data\22, None){{[^"]*}}"}
// CHECK: garray.add %[[X]], %[[R]] {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
func.func @conflicting_layouts(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                               %y: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>})
    -> (tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) {
  %s = garray.add %x, %y {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A sharding_constraint becomes a reshard to its (closed) sharding.
// CHECK-LABEL: func.func @constraint
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8xf32>
// CHECK-NOT: garray.sharding_constraint
// CHECK: %[[R:.*]] = garray.reshard %[[X]] : {{.*}} to #garray.sharding<@mesh, P(None)> {garray.sharding = #garray.sharding<@mesh, P(None)>, reason = "garray.sharding_constraint at {{.*}}.mlir:[[@LINE+5]]:8: has P(\22data\22), needs P(None)"}
// CHECK: garray.exp %[[R]]
// CHECK-NOT: garray.sharding_constraint
func.func @constraint(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>}) {
  %c = garray.sharding_constraint %x : tensor<8xf32> to #garray.sharding<@mesh, P()> {garray.sharding = #garray.sharding<@mesh, P(None)>}
  %e = garray.exp %c {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<8xf32>
  return %e : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A function result declared with a different layout than its value's.
// CHECK-LABEL: func.func @declared_result
// CHECK-SAME: -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>})
// CHECK: %[[N:.*]] = garray.neg
// CHECK: %[[R:.*]] = garray.reshard %[[N]] : {{.*}} to #garray.sharding<@mesh, P(None)>
// CHECK-SAME: reason = "{{[^"]*}}function result{{[^"]*}}has P(\22data\22), needs P(None){{[^"]*}}"
// CHECK: return %[[R]]
func.func @declared_result(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P()>}) {
  %n = garray.neg %x {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
  return %n : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Nothing to do: consistent layouts get no reshard.
// CHECK-LABEL: func.func @consistent
// CHECK-NOT: garray.reshard
// CHECK: return
func.func @consistent(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) {
  %n = garray.neg %x {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
  return %n : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A NeedReplication factor (scatter_add's row dim V) stays whole even when
// the op's result was given a split along it (here by the declared function
// result): the op computes whole rows and a reshard splits them afterwards.
// Splitting V inside the op would scatter global indices into local rows.
// CHECK-LABEL: func.func @need_replication_result
// CHECK: %[[S:.*]] = garray.scatter_add %arg0, %arg1, %arg2 {garray.sharding = #garray.sharding<@mesh, P(None, None)>}
// CHECK: %[[R:.*]] = garray.reshard %[[S]] : {{.*}} to #garray.sharding<@mesh, P("data", None)>
// CHECK: return %[[R]]
func.func @need_replication_result(
    %b: tensor<16x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>},
    %i: tensor<8xi64> {garray.sharding = #garray.sharding<@mesh, P(None)>},
    %u: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>})
    -> (tensor<16x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) {
  %0 = garray.scatter_add %b, %i, %u {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
      : (tensor<16x4xf32>, tensor<8xi64>, tensor<8x4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// A partial sum multiplied by itself: reduced once and used in both slots
// (one all_reduce), not kept pending in one slot and reduced again after.
// CHECK-LABEL: func.func @square_of_partial
// CHECK: %[[R:.*]] = garray.reshard %{{.*}} to #garray.sharding<@mesh, P(None)>
// CHECK-NOT: garray.reshard
// CHECK: garray.mul %[[R]], %[[R]] {garray.sharding = #garray.sharding<@mesh, P(None)>}
// CHECK-NOT: garray.reshard
// CHECK: return
func.func @square_of_partial(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<4xf32> {
  %s = garray.reduce <sum> %x, dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  %t = garray.mul %s, %s : tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A partial sum added to a whole bias: add passes partial sums through only
// when every operand is one over the same axes, and the reason says that
// (not "a non-linear use": add is linear).
// CHECK-LABEL: func.func @partial_plus_bias
// CHECK: garray.reshard {{.*}} reason = "a pending partial passes through this op only when operands #0 and #1 are pending over the same axes (and no other operand is), and operand #1 is not (operand #0 of garray.add at {{.*}}.mlir:[[@LINE+5]]:8: has P(None, None) unreduced=sum(\22data\22), needs P(None, None))"
func.func @partial_plus_bias(%x: tensor<4x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>},
                             %w: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                             %b: tensor<4x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>}) -> tensor<4x4xf32> {
  %p = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P(None, None), unreduced = sum("data")>} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %s = garray.add %p, %b {garray.sharding = #garray.sharding<@mesh, P(None, None)>} : tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A constraint the compiler wrote carries its reason into the reduction a
// use of it forces, so the collectives report does not name a constraint the
// user never wrote. The reduced copy is already in the constraint's layout:
// the constraint adds no reshard of its own (one would read "has P(None,
// None), needs P(None, None)").
// CHECK-LABEL: func.func @compiler_constraint
// CHECK: garray.reshard {{.*}} reason = "{{[^"]*}}operand #0 of garray.sharding_constraint at {{.*}}.mlir:[[@LINE+6]]:8 (pinned by a pass) needs the whole value"
// CHECK-NOT: garray.reshard
// CHECK: return
func.func @compiler_constraint(%x: tensor<4x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>},
                               %w: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<4x4xf32> {
  %p = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P(None, None), unreduced = sum("data")>} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %c = garray.sharding_constraint %p : tensor<4x4xf32> to #garray.sharding<@mesh, P(None, None)> {reason = "pinned by a pass"}
  return %c : tensor<4x4xf32>
}

// -----

// Two ops of one kind share an operand and need it in different layouts:
// each reshard's reason says which op (by location) needs which layout.
garray.mesh @mesh ["a" = 2, "b" = 2]
// CHECK-LABEL: func.func @reason_names_the_op
// CHECK-DAG: garray.reshard %arg3 {{.*}} to #garray.sharding<@mesh, P("b", None)> {{.*}}reason = "layout for the op's factor rule{{[^(;]*}}(operand #1 of garray.dot_general at {{.*}}.mlir:[[@LINE+7]]:8: has P(None, None), needs P(\22b\22, None))"
// CHECK-DAG: garray.reshard %arg3 {{.*}} to #garray.sharding<@mesh, P("a", None)> {{.*}}reason = "layout for the op's factor rule{{[^(;]*}}(operand #1 of garray.dot_general at {{.*}}.mlir:[[@LINE+7]]:9: has P(None, None), needs P(\22a\22, None))"
func.func @reason_names_the_op(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "a")>},
                               %w: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>},
                               %v: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "b")>},
                               %k: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>}) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %p = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %q = garray.dot_general %v, %k, batch = [] x [], contracting = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %p2 = garray.dot_general %x, %k, batch = [] x [], contracting = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = garray.add %p, %q : tensor<8x8xf32>
  %s2 = garray.add %p, %p2 : tensor<8x8xf32>
  return %s, %s2 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A reshard written in the program gets a reason too, so its collectives
// say who asked for them (they had none: "(no reason recorded)").
garray.mesh @mesh ["data" = 2]
// CHECK-LABEL: func.func @written_reshard
// CHECK: garray.reshard %arg0 {{.*}}reason = "garray.reshard written at {{.*}}.mlir:[[@LINE+3]]:8: has P(\22data\22), needs P(None)"
func.func @written_reshard(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>}) {
  %r = garray.reshard %x : tensor<8xf32> to #garray.sharding<@mesh, P(None)> {garray.sharding = #garray.sharding<@mesh, P(None)>}
  return %r : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Four ops need %x whole: they share one reshard, whose reason names the
// first two after the first and counts the rest (an op that needs a layout
// is not hidden behind the first one that asked). A use with the same cause
// as the first is named by its place only.
// CHECK-LABEL: func.func @shared_reshard_names_its_uses
// CHECK: garray.reshard %arg0 {{.*}}reason = "layout for the op's factor rule{{[^(;]*}}(operand #0 of garray.exp at {{[^;]*}}: has P(\22data\22), needs P(None)); also for operand #0 of garray.neg at {{[^;]*}}, the same cause; also for operand #0 of garray.tanh at {{[^;]*}}, the same cause; and 1 more use(s)"
// CHECK-NOT: garray.reshard
func.func @shared_reshard_names_its_uses(
    %x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>},
        tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>},
        tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>},
        tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>}) {
  %a = garray.exp %x {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<8xf32>
  %b = garray.neg %x {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<8xf32>
  %c = garray.tanh %x {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<8xf32>
  %d = garray.abs %x {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<8xf32>
  return %a, %b, %c, %d : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// "model" is asked for by the dot's contracted dim (h's dim 1) and by its
// output dim (w's dim 1); the contraction has it. The reshard of w says
// where the op uses the axis instead of on w's dim 1.
// CHECK-LABEL: func.func @axis_used_elsewhere
// CHECK: garray.reshard %arg1 {{.*}}reason = "layout for the op's factor rule: the op uses \22model\22 for a dim it reduces, where operand #0 holds it (its dim 1), not for this operand's dim 1 (operand #1 of garray.dot_general at {{[^:]*}}:{{[0-9]+}}:{{[0-9]+}}: has P(None, \22model\22), needs P(\22model\22, None))"
func.func @axis_used_elsewhere(
    %h: tensor<8x16xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
    %w: tensor<16x32xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "model")>})
    -> (tensor<8x32xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) {
  %y = garray.dot_general %h, %w, batch = [] x [], contracting = [1] x [0]
      {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

garray.mesh @mesh ["a" = 2]

// A constraint whose operand is already in its layout (it steered its
// neighbours; nothing moves) is dropped: no reshard reading "has P("a",
// None), needs P("a", None)" in the IR a user inspects.
// CHECK-LABEL: func.func @constraint_in_place
// CHECK-NOT: garray.reshard
// CHECK-NOT: garray.sharding_constraint
// CHECK: garray.neg %arg0
func.func @constraint_in_place(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>}) -> tensor<8x8xf32> {
  %c = garray.sharding_constraint %x : tensor<8x8xf32> to #garray.sharding<@mesh, P("a", None)>
  %n = garray.neg %c {garray.sharding = #garray.sharding<@mesh, P("a", None)>} : tensor<8x8xf32>
  return %n : tensor<8x8xf32>
}
