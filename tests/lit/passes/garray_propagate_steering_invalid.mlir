// RUN: shardc-opt %s -split-input-file --garray-propagate -verify-diagnostics
//
// Errors of the steering features of garray-propagate (docs/propagation.md).

garray.mesh @mesh ["data" = 2]

// expected-error @+1 {{expected a priority such as p0 or p1 after a dimension entry, not 'q0'}}
func.func @bad_priority(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data" q0)>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A leading zero is refused (p01 would print back as p1).
// expected-error @+1 {{expected a priority such as p0 or p1 after a dimension entry, not 'p01'}}
func.func @priority_leading_zero(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data" p01)>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// The largest int64 would mean "no priority" inside propagation: refused.
// expected-error @+1 {{priority 'p9223372036854775807' is too large: priorities go from p0 (strongest) to p2147483647}}
func.func @huge_priority(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data" p9223372036854775807)>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

func.func @group_shapes(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = 0 : i64},
                        // expected-note @-1 {{first member of the group}}
                        // expected-error @+1 {{sharding group 0 ties values of types 'tensor<8xf32>' and 'tensor<4xf32>'; its members must have one type}}
                        %y: tensor<4xf32> {garray.sharding_group = 0 : i64}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// expected-error @+1 {{garray.sharding_group on argument #0 is "a"; a group id is a non-negative integer of at most 64 bits, e.g. 0 : i64}}
func.func @group_not_int(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = "a"}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Annotated members that disagree cannot share one sharding: an error, not a
// group that silently is not one.
func.func @group_conflict(%p: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = 0 : i64},
                          // expected-note @-1 {{first member of the group}}
                          // expected-error @+1 {{sharding group 0 cannot give its members one sharding: this member ends P("model") (argument #1 of @group_conflict, annotated P("model")), the first ends P("data") (argument #0 of @group_conflict, annotated P("data")); its annotated members differ in sharding or priority, so neither holds for the others; write one sharding, with the same priorities, on each}}
                          %m: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("model")>, garray.sharding_group = 0 : i64},
                          %v: tensor<8xf32> {garray.sharding_group = 0 : i64}) -> tensor<8xf32> {
  %s = garray.add %p, %m : tensor<8xf32>
  %t = garray.add %s, %v : tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// expected-error @+1 {{garray.sharding_group on result #0 of @group_on_result is not supported: put it on the op that makes the returned value, or on an argument}}
func.func @group_on_result(%a: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = 0 : i64})
    -> (tensor<8xf32> {garray.sharding_group = 0 : i64}) {
  return %a : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A sharding on the result of an op without a rule is refused (the op
// computes whole values), not silently replaced by a replicated one.
func.func @ruleless_annotated(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'arith.addf' has no sharding rule, so result #0 is computed whole on every device and cannot be placed P("data"); write the sharding on a garray.sharding_constraint of the result instead, or express the op with garray ops}}
  %s = arith.addf %a, %a {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// expected-error @+1 {{a dimension entry takes one priority, written last; found 'p1' after p0}}
func.func @two_priorities(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data" p0 p1)>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// expected-error @+1 {{'?' comes before the priority: write "axis"? p0}}
func.func @open_after_priority(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data" p0?)>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// expected-error @+1 {{'?' and a priority apply to the whole dimension: write ("a", "b")? p0, outside the parentheses}}
func.func @priority_in_tuple(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(("data" p0, "model"))>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["x" = 2, "y" = 2]

func.func private @h(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = garray.exp %a : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}
func.func @call_result_annotated(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "y")>}) -> tensor<8x8xf32> {
  // expected-error @+1 {{the result of a call to @h has the callee's result layout P(None, "y") (one sharding per function signature), not the P(None, "x") written on it; put a garray.sharding_constraint after the call}}
  %c = func.call @h(%x) {garray.sharding = #garray.sharding<@mesh, P(None, "x")>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}

// -----

// The error quotes the annotation as written: open dims and priorities too.
garray.mesh @mesh ["x" = 2, "y" = 2]

func.func private @h(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = garray.exp %a : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}
func.func @call_result_priority(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("x", None)>}) -> tensor<8x8xf32> {
  // expected-error @+1 {{the result of a call to @h has the callee's result layout P("x", None) (one sharding per function signature), not the P(?, "y" p0) written on it}}
  %c = func.call @h(%x) {garray.sharding = #garray.sharding<@mesh, P(?, "y" p0)>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2]

// The group's annotation is not copied onto the result of a call to an
// external function (computed whole on every device): the group cannot be
// one sharding, an error here rather than a placement the next run refuses.
func.func private @ext(tensor<8xf32>) -> tensor<8xf32>
func.func @group_ruleless_member(%p: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>, garray.sharding_group = 0 : i64},
                                 // expected-note @-1 {{first member of the group}}
                                 %x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sharding group 0 cannot give its members one sharding: this member ends P(None) (made by 'func.call' of @ext, which has no sharding rule: computed whole on every device), the first ends P("a") (argument #0 of @group_ruleless_member, annotated P("a")); take the value without a sharding rule out of the group, or give the group values that ops with a rule compute}}
  %m = call @ext(%x) {garray.sharding_group = 0 : i64} : (tensor<8xf32>) -> tensor<8xf32>
  %s = garray.add %m, %p : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2]

// A declared callee result is the call result's annotation, also when the
// call result is in a group: the group holds two different annotations. The
// error says the call result is written as the declaration and gives the
// call advice (not "annotated", nor advice to write one sharding on each
// member, which on a call result is itself an error).
func.func private @h_decl(%a: tensor<8x8xf32>) -> (tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "b")>}) {
  %e = garray.tanh %a : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}
func.func @group_declared_call_result(%x1: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>, garray.sharding_group = 0 : i64},
                                      // expected-note @-1 {{first member of the group}}
                                      %x2: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{this member ends P(None, "b") (the callee's declared result P(None, "b")), the first ends P("a", None) (argument #0 of @group_declared_call_result, annotated P("a", None)); a call's result is written as its callee's result (one sharding per signature), so the group's annotation cannot hold for it: annotate the callee's result, or group a sharding_constraint of the call's result instead}}
  %v = call @h_decl(%x2) {garray.sharding_group = 0 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %v : tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2]

// Members annotated alike but with different priorities: neither annotation
// is copied to the unannotated member, which a nearer p0 annotation pulls
// away. The error names the two annotations that differ, as written,
// priorities included, and says why they did not hold.
func.func @group_priorities_differ(%p: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a" p0)>, garray.sharding_group = 0 : i64},
                                   // expected-note @-1 {{first member of the group}}
                                   // expected-error @+1 {{this member ends P("a") (argument #1 of @group_priorities_differ, annotated P("a" p1)), the first ends P("a") (argument #0 of @group_priorities_differ, annotated P("a" p0)); its annotated members differ in sharding or priority, so neither holds for the others; write one sharding, with the same priorities, on each}}
                                   %m: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a" p1)>, garray.sharding_group = 0 : i64},
                                   %v: tensor<8xf32> {garray.sharding_group = 0 : i64},
                                   %y: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("b" p0)>}) -> tensor<8xf32> {
  %s = garray.add %v, %y : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2]

// A call's result in a group: it is written as its callee's result, so the
// group's annotation cannot hold for it; the advice says what can.
func.func private @h(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e = garray.exp %a : tensor<8xf32>
  return %e : tensor<8xf32>
}
func.func @group_call_result(%p: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>, garray.sharding_group = 0 : i64},
                             // expected-note @-1 {{first member of the group}}
                             %x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("b")>}) -> tensor<8xf32> {
  // expected-error @+1 {{a call's result is written as its callee's result (one sharding per signature), so the group's annotation cannot hold for it: annotate the callee's result, or group a sharding_constraint of the call's result instead}}
  %v = call @h(%x) {garray.sharding_group = 0 : i64} : (tensor<8xf32>) -> tensor<8xf32>
  %s = garray.add %v, %p : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Every result of a multi-result op joins the group: the error says which.
func.func private @two(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %e = garray.exp %a : tensor<8x8xf32>
  %n = garray.neg %b : tensor<8x8xf32>
  return %e, %n : tensor<8x8xf32>, tensor<8x8xf32>
}
func.func @group_multi_result(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                              %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
                              %z: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  // expected-error @+2 {{this member ends P("data", None) (result #1, unannotated), the first ends P("data", "model") (result #0, unannotated)}}
  // expected-note @+1 {{first member of the group}}
  %r0, %r1 = call @two(%x, %x) {garray.sharding_group = 0 : i64} : (tensor<8x8xf32>, tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>)
  %s0 = garray.add %r0, %y : tensor<8x8xf32>
  %s1 = garray.add %r1, %z : tensor<8x8xf32>
  return %s0, %s1 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["a" = 2]

// A group on a return ties nothing: an error, not silently ignored.
func.func @group_on_return(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>, garray.sharding_group = 0 : i64}) -> tensor<8xf32> {
  // expected-error @+1 {{garray.sharding_group on 'func.return', which has no results, ties nothing: put it on the op that makes the returned value, or on an argument}}
  return {garray.sharding_group = 0 : i64} %x : tensor<8xf32>
}

// -----

garray.mesh @m1 ["a" = 2]
garray.mesh @m2 ["a" = 2]

// A group between functions on different meshes could not be held: an
// error that says where each function lives.
func.func @f(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@m1, P("a")>, garray.sharding_group = 0 : i64}) -> tensor<8xf32> {
  // expected-note @-1 {{first member of the group}}
  return %x : tensor<8xf32>
}
// expected-error @+1 {{sharding group 0 ties values of @f (on mesh @m1) and @g (on mesh @m2); a group's members must be propagated together: keep them in functions on one mesh}}
func.func @g(%m: tensor<8xf32> {garray.sharding_group = 0 : i64},
             %z: tensor<8xf32> {garray.sharding = #garray.sharding<@m2, P(None)>}) -> tensor<8xf32> {
  %s = garray.add %m, %z : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

garray.mesh @mesh ["a" = 2]

// Group members are checked in functions propagation does not visit too.
func.func @unvisited(%x: tensor<8xf32> {garray.sharding_group = 0 : i64},
                     // expected-note @-1 {{first member of the group}}
                     // expected-error @+1 {{sharding group 0 ties values of types 'tensor<8xf32>' and 'tensor<4xf32>'; its members must have one type}}
                     %y: tensor<4xf32> {garray.sharding_group = 0 : i64}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
func.func @annotated(%z: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>}) -> tensor<8xf32> {
  return %z : tensor<8xf32>
}

// -----

garray.mesh @m1 ["a" = 2]
garray.mesh @m2 ["b" = 2]

// A call between functions on different meshes is an error: the callee's
// values would live on other devices, in other layouts.
// expected-note @+1 {{@g is defined here}}
func.func private @g(%y: tensor<8xf32> {garray.sharding = #garray.sharding<@m2, P("b")>}) -> tensor<8xf32> {
  %e = garray.exp %y : tensor<8xf32>
  return %e : tensor<8xf32>
}
func.func @f(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@m1, P()>}) -> tensor<8xf32> {
  // expected-error @+1 {{@f lives on mesh @m1 and calls @g, which lives on mesh @m2: a function and the functions it calls run on one mesh (the callee's values would be on other devices, in other layouts); annotate both on one mesh, or call a copy of @g annotated on @m1}}
  %r = call @g(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

garray.mesh @m1 ["a" = 2]
garray.mesh @m2 ["b" = 4]

// An unannotated helper called from functions on two meshes could live on
// either: it is not propagated, and a sharded operand of a call to it is an
// error that says so.
func.func private @h(%p: tensor<8xf32>) -> tensor<8xf32> {
  %e = garray.exp %p : tensor<8xf32>
  return %e : tensor<8xf32>
}
func.func @g(%y: tensor<8xf32> {garray.sharding = #garray.sharding<@m2, P()>}) -> tensor<8xf32> {
  %e = call @h(%y) : (tensor<8xf32>) -> tensor<8xf32>
  return %e : tensor<8xf32>
}
func.func @f(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@m1, P("a")>}) -> tensor<8xf32> {
  // expected-error @+1 {{'func.call' has no sharding rule, but operand #0 is sharded P("a") (@h has no annotation and calls join it to functions on @m2 and @m1, so it could live on either and is not propagated; annotate it, or give each mesh its own copy)}}
  %r = call @h(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

garray.mesh @m1 ["a" = 2]
garray.mesh @m2 ["b" = 2]

// An unannotated function joined to two meshes is not propagated (its
// values are whole), so it cannot call a function whose signature is placed:
// an error naming both meshes, rather than whole values passed to @g's
// localized signature and a failure in MLIR's verifier.
// expected-note @+1 {{@g is defined here}}
func.func private @g(%p: tensor<8xf32> {garray.sharding = #garray.sharding<@m2, P("b")>}) -> tensor<8xf32> {
  %e = garray.exp %p : tensor<8xf32>
  return %e : tensor<8xf32>
}
func.func private @h(%p: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{@h has no annotation and calls join it to functions on @m2 and @m1, so it could live on either and is not propagated; but it calls @g, which lives on mesh @m2 and takes its arguments placed there; annotate @h on @m2, or give each mesh its own copy of it}}
  %r = call @g(%p) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @f(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@m1, P()>}) -> tensor<8xf32> {
  %r = call @h(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

garray.mesh @m1 ["a" = 2]
garray.mesh @m2 ["a" = 4]

// A hand-written reshard's target counts as an annotation for the
// one-mesh rule: the error names the reshard's target mesh, rather than a
// garray.sharding on @m1 written next to its @m2 target that the verifier
// would blame.
// expected-note @+1 {{@m1 is named here}}
func.func @reshard_other_mesh(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@m1, P("a")>}) -> tensor<8xf32> {
  // expected-error @+1 {{the target of this 'garray.reshard' names mesh @m2, but the signature of @reshard_other_mesh names @m1: the values of one function live on one mesh}}
  %r = garray.reshard %x : tensor<8xf32> to #garray.sharding<@m2, P("a")>
  return %r : tensor<8xf32>
}

// -----

// A declaration has no body to run in a layout: a sharding on its signature
// could not be honoured (it was ignored, and compile then failed with an
// error that called the module's mesh missing).
garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{result #0 of @ext has a sharding, but @ext is a declaration (no body): calls to it take and return whole values; drop the sharding, or give @ext a body}}
func.func private @ext(tensor<8xf32>) -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = call @ext(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{argument #0 of @ext has a sharding, but @ext is a declaration (no body)}}
func.func private @ext(tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32>

// -----

// A function result cannot be left a partial sum (the annotation was
// dropped without a word, or became another layout plus an all_reduce).
garray.mesh @mesh ["data" = 2, "model" = 2]
// expected-error @+1 {{result #0 of @main is annotated P("model"), unreduced = sum("data"), a partial sum; a function returns its results reduced: drop the unreduced part (insert-reshards reduces the value before the return)}}
func.func @main(%x: tensor<8xf32>) -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("model"), unreduced = sum("data")>}) {
  %0 = garray.exp %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Group ids wider than 64 bits (or i1) would alias other groups when read.
garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{garray.sharding_group on argument #1 is 18446744073709551616 : i128; a group id is a non-negative integer of at most 64 bits, e.g. 0 : i64}}
func.func @group_i128(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = 0 : i64}, %y: tensor<8xf32> {garray.sharding_group = 18446744073709551616 : i128}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// A narrow id that sign-extends (3 : i2 is -1) or a negative one would alias
// another group (and -1 is "no group" to the memory estimate).
garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{garray.sharding_group on argument #0 is -1 : i2; a group id is a non-negative integer of at most 64 bits}}
func.func @group_i2(%x: tensor<8xf32> {garray.sharding_group = 3 : i2}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{garray.sharding_group on argument #0 is -1 : i64; a group id is a non-negative integer of at most 64 bits}}
func.func @group_negative(%x: tensor<8xf32> {garray.sharding_group = -1 : i64}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// Groups are checked in every function, not only those propagation visits:
// @u has no annotation and nothing joins it to a mesh.
garray.mesh @m ["a" = 2]
// expected-error @+1 {{garray.sharding_group on result #0 of @u is not supported}}
func.func @u(%y: tensor<8xf32>) -> (tensor<8xf32> {garray.sharding_group = 0 : i64}) {
  return %y : tensor<8xf32>
}
func.func @f(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@m, P("a")>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @m ["a" = 2]
func.func @u(%y: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{garray.sharding_group on 'func.return', which has no results, ties nothing}}
  return {garray.sharding_group = 0 : i64} %y : tensor<8xf32>
}
func.func @f(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@m, P("a")>, garray.sharding_group = 0 : i64}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// A declaration's arguments are whole at every call: a group there ties
// nothing (and a member of another type went unchecked).
garray.mesh @m ["a" = 2]
// expected-error @+1 {{garray.sharding_group on argument #0 of @ext, a declaration (no body): calls to it take whole values, so the group ties nothing there; drop it, or give @ext a body}}
func.func private @ext(tensor<4xf32> {garray.sharding_group = 0 : i64}) -> tensor<8xf32>
func.func @f(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@m, P("a")>, garray.sharding_group = 0 : i64}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @m ["a" = 2]
func.func private @sink(tensor<8xf32>)
func.func @f(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@m, P("a")>, garray.sharding_group = 0 : i64}) -> tensor<8xf32> {
  // expected-error @+1 {{garray.sharding_group on 'func.call', which has no results, ties nothing: put it on an op's result, or on an argument}}
  call @sink(%x) {garray.sharding_group = 0 : i64} : (tensor<8xf32>) -> ()
  return %x : tensor<8xf32>
}

// -----

// The error names the two annotated members that differ, not the first
// member (unannotated here) and whichever was compared with it.
garray.mesh @m ["a" = 2, "b" = 2]
func.func @names_the_differing_pair(
    %g0: tensor<8xf32> {garray.sharding_group = 0 : i64},
    // expected-note @+1 {{the other member}}
    %p: tensor<8xf32> {garray.sharding = #garray.sharding<@m, P("a")>, garray.sharding_group = 0 : i64},
    // expected-error @+1 {{sharding group 0 cannot give its members one sharding: this member ends P("b") (argument #2 of @names_the_differing_pair, annotated P("b")), another ends P("a") (argument #1 of @names_the_differing_pair, annotated P("a")); its annotated members differ}}
    %q: tensor<8xf32> {garray.sharding = #garray.sharding<@m, P("b")>, garray.sharding_group = 0 : i64}) -> tensor<8xf32> {
  return %g0 : tensor<8xf32>
}
