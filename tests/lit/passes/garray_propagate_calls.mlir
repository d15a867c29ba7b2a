// RUN: shardc-opt %s -split-input-file --garray-propagate | FileCheck %s
// RUN: shardc-opt %s -split-input-file --garray-propagate > %t.once
// RUN: shardc-opt %t.once -split-input-file --garray-propagate > %t.twice
// RUN: diff %t.once %t.twice
// RUN: shardc-opt %s -split-input-file --garray-propagate --garray-insert-reshards | FileCheck %s --check-prefix=RESHARD
// RUN: shardc-opt %s -split-input-file --shardc-propagation-phase="split-idle-axes=false" --shardc-partition-phase --shardc-local-phase | FileCheck %s --check-prefix=LOCAL
//
// Propagation across func.call (docs/propagation.md, "Calls"): one sharding
// per function signature. A callee's arguments are tied to the operands of
// every call of it, its results to the results of every call, so shardings
// flow into the callee and back out; insert-reshards makes each call site
// match the signature.

garray.mesh @mesh ["data" = 2, "model" = 2]

// Into the callee and back out: %x's rows flow into @helper's argument,
// through its body, out of its result and into %r's user.
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: %arg0: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK-SAME: -> (tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
// CHECK: garray.exp {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK-LABEL: func.func @into_and_out
// CHECK: call @helper({{.*}}) {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.neg {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// RESHARD-LABEL: func.func @into_and_out
// RESHARD-NOT: garray.reshard
// RESHARD: return
// LOCAL-LABEL: func.func private @helper
// LOCAL-SAME: (%arg0: tensor<4x4xf32>) -> tensor<4x4xf32>
// LOCAL-LABEL: func.func @into_and_out
// LOCAL: call @helper({{.*}}) : (tensor<4x4xf32>) -> tensor<4x4xf32>
func.func private @helper(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %e = garray.exp %a : tensor<8x4xf32>
  return %e : tensor<8x4xf32>
}
func.func @into_and_out(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8x4xf32> {
  %r = call @helper(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %n = garray.neg %r : tensor<8x4xf32>
  return %n : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Back out of a callee: the callee's declared result sharding reaches the
// caller's values, which had no annotation.
// CHECK-LABEL: func.func @out_of_callee
// CHECK: call @make({{.*}}) {garray.sharding = #garray.sharding<@mesh, P(None, "model")>}
// CHECK: garray.exp {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "model")>}
// CHECK-SAME: tensor<4x8xf32>
func.func private @make(%a: tensor<4x8xf32>) -> (tensor<4x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "model")>}) {
  %t = garray.tanh %a : tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
func.func @out_of_callee(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = call @make(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = garray.exp %r : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Two call sites that disagree on the rows: one signature. The callee
// argument is P("data", None) (p0 at the first site beats the unprioritised
// "model" at the second), so only the second call site gets a reshard; both
// results come back with the callee's result sharding.
// CHECK-LABEL: func.func private @sq
// CHECK-SAME: %arg0: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK-SAME: -> (tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
// RESHARD-LABEL: func.func @two_sites
// RESHARD-NOT: garray.reshard %arg0
// RESHARD: garray.reshard %arg1 : tensor<8x8xf32> to #garray.sharding<@mesh, P("data", None)>
// RESHARD-SAME: reason = "argument #0 of @sq (one sharding per function signature)
// RESHARD-NOT: garray.reshard %arg0
// RESHARD: call @sq(%arg0) {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// RESHARD: call @sq(%{{.*}}) {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
func.func private @sq(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %m = garray.mul %a, %a : tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}
func.func @two_sites(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data" p0, None)>},
                     %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("model", None)>}) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %a = call @sq(%x) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = call @sq(%y) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %a, %b : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["x" = 2, "y" = 2]

// A call result a nearer user pulls elsewhere is still written as the
// callee's result (one signature); the constraint reshards it. Idempotent
// (the RUN lines above propagate the output again and diff).
// CHECK-LABEL: func.func @call_result_is_signature
// CHECK: call @h_sig({{.*}}) {garray.sharding = #garray.sharding<@mesh, P("x", None)>}
// CHECK: call @h_sig({{.*}}) {garray.sharding = #garray.sharding<@mesh, P("x", None)>}
func.func private @h_sig(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = garray.exp %a : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}
func.func @call_result_is_signature(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("x", None)>},
                                    %y: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %c1 = func.call @h_sig(%x) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %c2 = func.call @h_sig(%y) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = garray.sharding_constraint %c2 : tensor<8x8xf32> to #garray.sharding<@mesh, P("y", None)>
  return %c1, %s : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2]

// A declared callee result is its interface: the call result has exactly
// that layout (its users propagate from it, a group holding it agrees), even
// where the return operand reaches more.
// CHECK-LABEL: func.func @declared_result_is_interface
// CHECK: call @h_decl({{.*}}) {garray.sharding = #garray.sharding<@mesh, P(None, "b")>, garray.sharding_group = 0 : i64}
// CHECK: garray.exp {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "b")>}
func.func private @h_decl(%a: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>})
    -> (tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "b")>}) {
  %e = garray.tanh %a : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}
func.func @declared_result_is_interface(%x1: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "b")>, garray.sharding_group = 0 : i64},
                                        %x2: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>}) -> tensor<8x8xf32> {
  %v = call @h_decl(%x2) {garray.sharding_group = 0 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %u = garray.exp %v : tensor<8x8xf32>
  return %u : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2]

// A declared result with an open dim, P("a", ?): the dim is decided by the
// callee's body and the calls' users together (the call results are tied to
// the return operands, as for an undeclared result) and written closed; the
// call's users propagate from exactly what is written on the call (here
// P("a", "b"), "b" from %y through the add), so no reshard sits between the
// call and its users. The calls are not annotated closed, P("a", None),
// while the signature has the dim filled: that mismatch would make the
// users need an all_gather.
// CHECK-LABEL: func.func private @h_open
// CHECK-SAME: -> (tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", "b")>})
// CHECK-LABEL: func.func @open_argument_closed_call_result
// CHECK-SAME: (%arg0: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", "b")>}
// CHECK: call @h_open({{.*}}) {garray.sharding = #garray.sharding<@mesh, P("a", "b")>}
// CHECK: garray.exp {{.*}} {garray.sharding = #garray.sharding<@mesh, P("a", "b")>}
func.func private @h_open(%a: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>})
    -> (tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", ?)>}) {
  %e = garray.tanh %a : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}
func.func @open_argument_closed_call_result(
    %x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", ?)>},
    %z: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>},
    %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", "b")>})
    -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %v = call @h_open(%z) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %w = garray.exp %v : tensor<8x8xf32>
  %s = garray.add %x, %y : tensor<8x8xf32>
  %t = garray.add %v, %y : tensor<8x8xf32>
  return %s, %t, %w : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A module with two meshes: each function lives on its annotations' mesh,
// and an unannotated helper on the mesh of the functions that call it. So
// @helper, called only from @on_m1, is propagated with it on @m1 (not left
// unpropagated, its call opaque, because the module has two meshes), and
// @on_m1 and @also_m1 propagate together across their call while @on_m2
// propagates on @m2.
garray.mesh @m1 ["a" = 2]
garray.mesh @m2 ["b" = 4]
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%arg0: tensor<8xf32> {garray.sharding = #garray.sharding<@m1, P("a")>})
// CHECK-SAME: -> (tensor<8xf32> {garray.sharding = #garray.sharding<@m1, P("a")>})
func.func private @helper(%p: tensor<8xf32>) -> tensor<8xf32> {
  %e = garray.exp %p : tensor<8xf32>
  return %e : tensor<8xf32>
}
// CHECK-LABEL: func.func private @also_m1
// CHECK-SAME: -> (tensor<8xf32> {garray.sharding = #garray.sharding<@m1, P("a")>})
func.func private @also_m1(%q: tensor<8xf32> {garray.sharding = #garray.sharding<@m1, P(?)>}) -> tensor<8xf32> {
  %n = garray.neg %q : tensor<8xf32>
  return %n : tensor<8xf32>
}
// CHECK-LABEL: func.func @on_m2
// CHECK: garray.exp {{.*}} {garray.sharding = #garray.sharding<@m2, P("b")>}
func.func @on_m2(%y: tensor<8xf32> {garray.sharding = #garray.sharding<@m2, P("b")>}) -> tensor<8xf32> {
  %e = garray.exp %y : tensor<8xf32>
  return %e : tensor<8xf32>
}
// CHECK-LABEL: func.func @on_m1
// CHECK: call @helper({{.*}}) {garray.sharding = #garray.sharding<@m1, P("a")>}
// CHECK: call @also_m1({{.*}}) {garray.sharding = #garray.sharding<@m1, P("a")>}
func.func @on_m1(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@m1, P("a")>}) -> tensor<8xf32> {
  %c = call @helper(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %d = call @also_m1(%c) : (tensor<8xf32>) -> tensor<8xf32>
  return %d : tensor<8xf32>
}
