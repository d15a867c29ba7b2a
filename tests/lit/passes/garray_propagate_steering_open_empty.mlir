// RUN: shardc-opt %s -split-input-file --garray-propagate | FileCheck %s
//
// An open dim written without axes (`?`) leaves the dim to propagation: it
// takes part in every round, like a dim nobody annotated, rather than being
// closed and empty until the round of dims without a priority (which kept
// out what a p0 annotation brought, so `?` steered more than no annotation;
// docs/propagation.md, "Priorities").

garray.mesh @mesh ["a" = 2, "b" = 2]

// x's `?` takes y's p0 "a" in round p0, as an unannotated x does; z's "b"
// comes later and loses. Before, x stayed empty until the last round, where
// "a" and "b" conflicted and x was replicated.
// CHECK-LABEL: func.func @open_empty
// CHECK-SAME: %arg0: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>}
// CHECK-SAME: -> (tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>}, tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>})
func.func @open_empty(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(?, None)>},
                      %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a" p0, None)>},
                      %z: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("b", None)>}) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %s = garray.add %x, %y : tensor<8x8xf32>
  %t = garray.add %x, %z : tensor<8x8xf32>
  return %s, %t : tensor<8x8xf32>, tensor<8x8xf32>
}
// The same program without x's annotation: the same shardings.
// CHECK-LABEL: func.func @unannotated
// CHECK-SAME: %arg0: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>}
// CHECK-SAME: -> (tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>}, tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>})
func.func @unannotated(%x: tensor<8x8xf32>,
                       %y: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a" p0, None)>},
                       %z: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("b", None)>}) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %s = garray.add %x, %y : tensor<8x8xf32>
  %t = garray.add %x, %z : tensor<8x8xf32>
  return %s, %t : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

garray.mesh @mesh ["a" = 2, "b" = 2]

// A declared `P(?, None)` callee result and a p0 constraint on the call's
// result: the constraint's "a" enters the callee through the open dim, so
// the signature, the call result and its user agree on "a" and only the
// call's operand (x, "b") is resharded. Before, the call result was written
// with the callee's "b" while its user took the p0 "a": two reshards.
// CHECK-LABEL: func.func private @h
// CHECK-SAME: {garray.sharding = #garray.sharding<@mesh, P("a", None)>}) -> (tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>})
// CHECK: garray.exp %arg0 {garray.sharding = #garray.sharding<@mesh, P("a", None)>}
// CHECK-LABEL: func.func @main
// CHECK: call @h(%arg0) {garray.sharding = #garray.sharding<@mesh, P("a", None)>}
// CHECK: garray.neg %0 {garray.sharding = #garray.sharding<@mesh, P("a", None)>}
func.func private @h(%x: tensor<8x8xf32>) -> (tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(?, None)>}) {
  %e = garray.exp %x : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}
func.func @main(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("b", None)>}) -> tensor<8x8xf32> {
  %r = func.call @h(%x) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %c = garray.sharding_constraint %r : tensor<8x8xf32> to #garray.sharding<@mesh, P("a" p0, None)>
  %n = garray.neg %r : tensor<8x8xf32>
  return %n : tensor<8x8xf32>
}
