// RUN: shardc-opt %s -split-input-file --garray-propagate | FileCheck %s
// RUN: shardc-opt %s -split-input-file --garray-propagate > %t.once
// RUN: shardc-opt %t.once -split-input-file --garray-propagate > %t.twice
// RUN: diff %t.once %t.twice
//
// Steering garray-propagate (docs/propagation.md): per-dim priorities run in
// rounds, strongest first; pass-through ops before dots and reductions within
// a round; sharding_constraint is a hard constraint; sharding groups tie
// values. The last two RUN lines check idempotence: propagating the
// propagated output again changes nothing.

garray.mesh @mesh ["data" = 2, "model" = 2]

// Same priority: "data" and "model" conflict on the rows of %s; the common
// prefix (nothing) wins, so %s is replicated.
// CHECK-LABEL: func.func @no_priority
// CHECK: garray.add {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, None)>}
func.func @no_priority(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                       %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("model", None)>}) -> tensor<8x8xf32> {
  %s = garray.add %x, %y : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// p0 beats p1: round 0 sees only %x's rows, so %s takes "data"; round 1's
// "model" conflicts with what %s already has and cannot change it.
// CHECK-LABEL: func.func @p0_beats_p1
// CHECK-SAME: P("data", None)
// CHECK-SAME: P("model", None)
// CHECK: garray.add {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
func.func @p0_beats_p1(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data" p0, None)>},
                       %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("model" p1, None)>}) -> tensor<8x8xf32> {
  %s = garray.add %x, %y : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// The same with the priorities swapped: the operand order does not matter,
// the priority does.
// CHECK-LABEL: func.func @p0_beats_p1_swapped
// CHECK: garray.add {{.*}} {garray.sharding = #garray.sharding<@mesh, P("model", None)>}
func.func @p0_beats_p1_swapped(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data" p1, None)>},
                               %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("model" p0, None)>}) -> tensor<8x8xf32> {
  %s = garray.add %x, %y : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Unprioritised annotations come after every numbered round.
// CHECK-LABEL: func.func @numbered_before_unprioritised
// CHECK: garray.add {{.*}} {garray.sharding = #garray.sharding<@mesh, P("model", None)>}
func.func @numbered_before_unprioritised(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                                         %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("model" p3, None)>}) -> tensor<8x8xf32> {
  %s = garray.add %x, %y : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2, "c" = 2, "d" = 2]

// Priorities are per dimension: dim 0 of %y (p0) wins over dim 0 of %x,
// while dim 1 of %x (p0) wins over dim 1 of %y.
// CHECK-LABEL: func.func @per_dim
// CHECK: garray.add {{.*}} {garray.sharding = #garray.sharding<@mesh, P("b", "c")>}
func.func @per_dim(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a" p1, "c" p0)>},
                   %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("b" p0, "d" p1)>}) -> tensor<8x8xf32> {
  %s = garray.add %x, %y : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Op classes: within one round pass-through ops (the add) go before dots, so
// %u takes "model" from %v through the add before the dot could give it
// "data" from %x; the dot's disagreement is reshard-ed later.
// CHECK-LABEL: func.func @pass_through_first
// CHECK: garray.dot_general {{.*}} {garray.sharding = #garray.sharding<@mesh, P("model", None)>}
// CHECK: garray.add {{.*}} {garray.sharding = #garray.sharding<@mesh, P("model", None)>}
func.func @pass_through_first(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                              %w: tensor<4x8xf32>,
                              %v: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("model", None)>}) -> tensor<8x8xf32> {
  %u = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %r = garray.add %u, %v : tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// A prioritised sharding_constraint is a hard constraint that also wins the
// values around it over a weaker argument annotation: %n takes "model".
// CHECK-LABEL: func.func @constraint_priority
// CHECK: garray.neg {{.*}} {garray.sharding = #garray.sharding<@mesh, P("model")>}
// CHECK: garray.sharding_constraint {{.*}} {garray.sharding = #garray.sharding<@mesh, P("model")>}
func.func @constraint_priority(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  %n = garray.neg %x : tensor<8xf32>
  %c = garray.sharding_constraint %n : tensor<8xf32> to #garray.sharding<@mesh, P("model" p0)>
  return %c : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Sharding groups: the optimizer moment %m shares its parameter's sharding,
// and passes it on to %g through the mul.
// CHECK-LABEL: func.func @group
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>, garray.sharding_group = 0 : i64}
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>, garray.sharding_group = 0 : i64}
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}
// CHECK: garray.mul {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}
func.func @group(%p: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>, garray.sharding_group = 0 : i64},
                 %m: tensor<8x4xf32> {garray.sharding_group = 0 : i64},
                 %g: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %u = garray.mul %m, %g : tensor<8x4xf32>
  return %u : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// A group on an op result ties it to an argument in another part of the
// function: %b (no path from %x) takes "data".
// CHECK-LABEL: func.func @group_on_op
// CHECK: garray.neg {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = 1 : i64}
// CHECK: garray.exp {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = 1 : i64}
func.func @group_on_op(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>},
                       %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = garray.neg %x {garray.sharding_group = 1 : i64} : tensor<8xf32>
  %b = garray.exp %y {garray.sharding_group = 1 : i64} : tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2, "c" = 2]

// Same-priority conflict: ("a", "b") against ("a", "c") keeps the longest
// common prefix "a", whichever operand comes first.
// CHECK-LABEL: func.func @common_prefix
// CHECK: garray.add {{.*}} {garray.sharding = #garray.sharding<@mesh, P("a")>}
// CHECK: garray.add {{.*}} {garray.sharding = #garray.sharding<@mesh, P("a")>}
func.func @common_prefix(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(("a", "b"))>},
                         %y: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(("a", "c"))>}) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = garray.add %x, %y : tensor<8xf32>
  %t = garray.add %y, %x : tensor<8xf32>
  return %s, %t : tensor<8xf32>, tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// A declared result's open dim takes what reaches it, and results are
// written closed and without priorities, like arguments.
// CHECK-LABEL: func.func @result_open
// CHECK-SAME: -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}
// CHECK-SAME: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>})
func.func @result_open(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>},
                       %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "model")>})
    -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(?)>},
        tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data" p1, "model"? p0)>}) {
  %n = garray.neg %x : tensor<8xf32>
  %m = garray.neg %y : tensor<8x8xf32>
  return %n, %m : tensor<8xf32>, tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Group ids are module-wide: @unannotated holds a member of group 3, so it
// is propagated with @annotated and its member takes the group's sharding.
// CHECK-LABEL: func.func @annotated
// CHECK-LABEL: func.func @unannotated
// CHECK-SAME: garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = 3 : i64
func.func @annotated(%p: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = 3 : i64}) -> tensor<8xf32> {
  return %p : tensor<8xf32>
}
func.func @unannotated(%m: tensor<8xf32> {garray.sharding_group = 3 : i64}) -> tensor<8xf32> {
  return %m : tensor<8xf32>
}

// -----

garray.mesh @mesh ["x" = 2, "y" = 2]

// A constraint is exact even when its open dim is stronger: the p1 dim took
// "y" from %a, and gives it back when the written "y" on dim 0 activates.
// CHECK-LABEL: func.func @constraint_exact_across_rounds
// CHECK: garray.sharding_constraint {{.*}} {garray.sharding = #garray.sharding<@mesh, P("y", None)>}
func.func @constraint_exact_across_rounds(%a: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "y" p0)>}) -> tensor<8x8xf32> {
  %c = garray.sharding_constraint %a : tensor<8x8xf32> to #garray.sharding<@mesh, P("y", ? p1)>
  return %c : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "pipe" = 2]

// One axis wanted on different dims. The defining op holds against a user:
// %u keeps exp's P(None, "data"). Two users at equal distance conflict: %n
// keeps neither.
// CHECK-LABEL: func.func @axis_on_two_dims
// CHECK-SAME: garray.name = "n", garray.sharding = #garray.sharding<@mesh, P(None, None)>
// CHECK: garray.exp {{.*}}garray.name = "u", garray.sharding = #garray.sharding<@mesh, P(None, "data")>
func.func @axis_on_two_dims(%a: tensor<16x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>},
                            %n: tensor<8x8xf32> {garray.name = "n"},
                            %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>},
                            %z: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<16x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %u = garray.exp %a {garray.name = "u"} : tensor<16x8xf32>
  %c = garray.sharding_constraint %u : tensor<16x8xf32> to #garray.sharding<@mesh, P("data", None)>
  %p = garray.add %n, %y : tensor<8x8xf32>
  %q = garray.add %n, %z : tensor<8x8xf32>
  return %c, %p, %q : tensor<16x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["x" = 2, "y" = 2]

// A constraint's open dim is decided by propagation and written into the
// constraint, closed, so a second run starts from the decision (the RUN
// lines above diff two runs).
// CHECK-LABEL: func.func @constraint_open_decided
// CHECK: garray.sharding_constraint %{{.*}} : tensor<8x8xf32> to #garray.sharding<@mesh, P("x", "y")>
func.func @constraint_open_decided(%a: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "y")>}) -> tensor<8x8xf32> {
  %c = garray.sharding_constraint %a : tensor<8x8xf32> to #garray.sharding<@mesh, P("x", ?)>
  return %c : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// What is written on one member holds for every member: the moment %m is
// pinned to its parameter's closed P(None, "model"), although %x, as near to
// %m through the add as %p is through the group, wants "data" on dim 0 (the
// add gets a reshard instead of the group being pulled apart).
// CHECK-LABEL: func.func @group_pins_unannotated_member
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "model")>, garray.sharding_group = 0 : i64}
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "model")>, garray.sharding_group = 0 : i64}
func.func @group_pins_unannotated_member(
    %p: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "model")>, garray.sharding_group = 0 : i64},
    %m: tensor<8x4xf32> {garray.sharding_group = 0 : i64},
    %x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8x4xf32> {
  %s = garray.add %m, %x : tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2]

// An annotation with an open dim is not copied onto the other members (it
// would keep them empty until the last round): the tie carries what
// propagation decides, and the p0 annotation reaching the group through %m
// wins over the unprioritised one, as for any value.
// CHECK-LABEL: func.func @group_open_annotation
// CHECK-SAME: %{{[^:]+}}: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>, garray.sharding_group = 0 : i64}
// CHECK-SAME: %{{[^:]+}}: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>, garray.sharding_group = 0 : i64}
func.func @group_open_annotation(
    %p: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(?)>, garray.sharding_group = 0 : i64},
    %m: tensor<8xf32> {garray.sharding_group = 0 : i64},
    %x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a" p0)>},
    %y: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("b")>}) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = garray.add %m, %x : tensor<8xf32>
  %t = garray.add %m, %y : tensor<8xf32>
  return %s, %t : tensor<8xf32>, tensor<8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2]

// A reshard written by hand: its result is exactly its target, and its
// users propagate from it (left unknown and written P(None), it would show
// the later passes a layout the reshard does not produce).
// CHECK-LABEL: func.func @hand_written_reshard
// CHECK: garray.reshard %{{.*}} to #garray.sharding<@mesh, P("b")> {garray.sharding = #garray.sharding<@mesh, P("b")>}
// CHECK: garray.exp {{.*}} {garray.sharding = #garray.sharding<@mesh, P("b")>}
func.func @hand_written_reshard(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>}) -> tensor<8xf32> {
  %r = garray.reshard %x : tensor<8xf32> to #garray.sharding<@mesh, P("b")>
  %e = garray.exp %r : tensor<8xf32>
  return %e : tensor<8xf32>
}
