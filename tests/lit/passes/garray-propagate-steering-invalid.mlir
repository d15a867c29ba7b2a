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

func.func @group_shapes(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = 0 : i64},
                        // expected-note @-1 {{first member of the group}}
                        // expected-error @+1 {{sharding group 0 ties values of types 'tensor<8xf32>' and 'tensor<4xf32>'; its members must have one type}}
                        %y: tensor<4xf32> {garray.sharding_group = 0 : i64}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// expected-error @+1 {{garray.sharding_group must be an integer on a tensor argument or tensor result}}
func.func @group_not_int(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = "a"}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Annotated members that disagree cannot share one sharding: an error, not a
// group that silently is not one.
func.func @group_conflict(%p: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = 0 : i64},
                          // expected-note @-1 {{first member of the group}}
                          // expected-error @+1 {{sharding group 0 cannot give its members one sharding: this member ends P("model") (annotated P("model")), the first ends P("data") (annotated P("data")); make the annotations that reach the members agree, or annotate one member with the sharding the group should have}}
                          %m: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("model")>, garray.sharding_group = 0 : i64},
                          %v: tensor<8xf32> {garray.sharding_group = 0 : i64}) -> tensor<8xf32> {
  %s = garray.add %p, %m : tensor<8xf32>
  %t = garray.add %s, %v : tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// expected-error @+1 {{garray.sharding_group on result #0 is not supported: put it on the op that makes the returned value, or on an argument}}
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

garray.mesh @mesh ["a" = 2, "b" = 2]

// The group's annotation is not copied onto the result of a call to an
// external function (computed whole on every device): the group cannot be
// one sharding, an error now rather than a placement the next run refuses.
func.func private @ext(tensor<8xf32>) -> tensor<8xf32>
func.func @group_ruleless_member(%p: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>, garray.sharding_group = 0 : i64},
                                 // expected-note @-1 {{first member of the group}}
                                 %x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sharding group 0 cannot give its members one sharding: this member ends P(None) (made by 'func.call' of @ext, which has no sharding rule: computed whole on every device), the first ends P("a") (annotated P("a")); take the value without a sharding rule out of the group, or give the group values that ops with a rule compute}}
  %m = call @ext(%x) {garray.sharding_group = 0 : i64} : (tensor<8xf32>) -> tensor<8xf32>
  %s = garray.add %m, %p : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2]

// A declared callee result is the call result's annotation, also when the
// call result is in a group: the group holds two different annotations.
func.func private @h_decl(%a: tensor<8x8xf32>) -> (tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "b")>}) {
  %e = garray.tanh %a : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}
func.func @group_declared_call_result(%x1: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>, garray.sharding_group = 0 : i64},
                                      // expected-note @-1 {{first member of the group}}
                                      %x2: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{this member ends P(None, "b") (annotated P(None, "b")), the first ends P("a", None) (annotated P("a", None))}}
  %v = call @h_decl(%x2) {garray.sharding_group = 0 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %v : tensor<8x8xf32>
}
