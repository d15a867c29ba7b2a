// RUN: shardc-opt %s -split-input-file --garray-propagate | FileCheck %s
//
// A function with several returns gives as each result what all of them
// share (the common prefix per dim, as ties keep), whichever block comes
// first: before, the first return in block order decided the signature,
// so swapping two blocks changed it, and the call's result (written as
// the signature) disagreed with what its users propagated from.

garray.mesh @mesh ["a" = 2, "b" = 2]
// CHECK-LABEL: func.func private @h(
// CHECK-SAME: -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>})
func.func private @h(%x: tensor<8xf32>, %y: tensor<8xf32>, %p: i1) -> tensor<8xf32> {
  cf.cond_br %p, ^bb1, ^bb2
^bb1:
  %n = garray.neg %y : tensor<8xf32>
  return %n : tensor<8xf32>
^bb2:
  %e = garray.exp %x : tensor<8xf32>
  return %e : tensor<8xf32>
}
// CHECK-LABEL: func.func @main(
// CHECK: call @h{{.*}}P(None)
// CHECK: garray.abs {{.*}}P(None)
func.func @main(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>},
                %y: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("b")>}, %p: i1) -> tensor<8xf32> {
  %r = call @h(%x, %y, %p) : (tensor<8xf32>, tensor<8xf32>, i1) -> tensor<8xf32>
  %u = garray.abs %r : tensor<8xf32>
  return %u : tensor<8xf32>
}

// -----

// The same blocks swapped: the same signature.
garray.mesh @mesh ["a" = 2, "b" = 2]
// CHECK-LABEL: func.func private @h(
// CHECK-SAME: -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>})
func.func private @h(%x: tensor<8xf32>, %y: tensor<8xf32>, %p: i1) -> tensor<8xf32> {
  cf.cond_br %p, ^bb2, ^bb1
^bb1:
  %e = garray.exp %x : tensor<8xf32>
  return %e : tensor<8xf32>
^bb2:
  %n = garray.neg %y : tensor<8xf32>
  return %n : tensor<8xf32>
}
// CHECK-LABEL: func.func @main(
// CHECK: call @h{{.*}}P(None)
func.func @main(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>},
                %y: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("b")>}, %p: i1) -> tensor<8xf32> {
  %r = call @h(%x, %y, %p) : (tensor<8xf32>, tensor<8xf32>, i1) -> tensor<8xf32>
  %u = garray.abs %r : tensor<8xf32>
  return %u : tensor<8xf32>
}

// -----

// A declared open result is filled from what all returns share: both
// returns split by "a" first, so the open dim takes "a" (not "a", "b" from
// the first return alone).
garray.mesh @mesh ["a" = 2, "b" = 2]
// CHECK-LABEL: func.func @f(
// CHECK-SAME: -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>})
func.func @f(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(("a", "b"))>},
             %y: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("a")>}, %p: i1)
    -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(?)>}) {
  cf.cond_br %p, ^bb1, ^bb2
^bb1:
  %e = garray.exp %x : tensor<8xf32>
  return %e : tensor<8xf32>
^bb2:
  %n = garray.neg %y : tensor<8xf32>
  return %n : tensor<8xf32>
}
