// RUN: shardc-opt %s -split-input-file --garray-propagate -verify-diagnostics | FileCheck %s
//
// garray-propagate: from a few annotations, every tensor value (arguments, op
// results, function results) gets a closed #garray.sharding; information flows
// forward through users and backward through definitions, and only open dims
// (`?`, `"a"?`) or unannotated values are ever extended.

garray.mesh @mesh ["data" = 2]

// Forward: the rows of X split over "data" become the rows of X @ w and of
// exp(X @ w); the unannotated w is used whole along the contracting factor.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: %{{[^:]+}}: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK-SAME: %{{[^:]+}}: tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>}
// CHECK-SAME: -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>})
// CHECK: garray.dot_general {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data")>}
// CHECK: garray.exp {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data")>}
func.func @forward(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                   %w: tensor<2xf32>) -> tensor<8xf32> {
  %p = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
  %e = garray.exp %p : tensor<8xf32>
  return %e : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Backward: a constraint on a late value reaches the arguments through the
// definitions of its operands (neg, then add's other operand).
// CHECK-LABEL: func.func @backward
// CHECK-SAME: %{{[^:]+}}: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}
// CHECK-SAME: %{{[^:]+}}: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}
// CHECK: garray.neg {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data")>}
// CHECK: garray.add {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data")>}
// CHECK: garray.sharding_constraint {{.*}} to #garray.sharding<@mesh, P("data")> {garray.sharding = #garray.sharding<@mesh, P("data")>}
func.func @backward(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %n = garray.neg %a : tensor<8xf32>
  %m = garray.add %n, %b : tensor<8xf32>
  %c = garray.sharding_constraint %m : tensor<8xf32> to #garray.sharding<@mesh, P("data")>
  return %c : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A declared function result pulls its producer and, through it, the argument.
// CHECK-LABEL: func.func @through_result
// CHECK-SAME: (%{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>})
// CHECK-SAME: -> (tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>})
// CHECK: garray.tanh {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
func.func @through_result(%a: tensor<8x4xf32>)
    -> (tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}) {
  %t = garray.tanh %a : tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// sharding_constraint is a hard constraint: its result keeps P() although its
// operand is split, and the split does not pass through it either way.
// CHECK-LABEL: func.func @hard_constraint
// CHECK-SAME: -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>})
// CHECK: %[[N:.*]] = garray.neg %{{.*}} {garray.sharding = #garray.sharding<@mesh, P("data")>}
// CHECK: %[[C:.*]] = garray.sharding_constraint %[[N]] : {{.*}} to #garray.sharding<@mesh, P()> {garray.sharding = #garray.sharding<@mesh, P(None)>}
// CHECK: garray.exp %[[C]] {garray.sharding = #garray.sharding<@mesh, P(None)>}
func.func @hard_constraint(%a: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  %n = garray.neg %a : tensor<8xf32>
  %c = garray.sharding_constraint %n : tensor<8xf32> to #garray.sharding<@mesh, P()>
  %e = garray.exp %c : tensor<8xf32>
  return %e : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Open dims (`?`) take the axes their users need; closed dims (None) never
// change, even when the op's result is split. The `?` marks are gone after.
// CHECK-LABEL: func.func @open_vs_closed
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>}
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}
// CHECK: garray.add {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}
// CHECK: garray.add {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}
// CHECK-NOT: ?
// CHECK: return
func.func @open_vs_closed(%open: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(?, ?)>},
                          %closed: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>},
                          %z: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>})
    -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %s = garray.add %open, %z : tensor<8x4xf32>
  %t = garray.add %closed, %z : tensor<8x4xf32>
  return %s, %t : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// An open axis list ("data"?) may be extended by appending axes.
// CHECK-LABEL: func.func @open_extends
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(("data", "model"), None)>}
// CHECK: garray.add {{.*}} {garray.sharding = #garray.sharding<@mesh, P(("data", "model"), None)>}
func.func @open_extends(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data"?, None)>},
                        %z: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(("data", "model"), None)>})
    -> tensor<8x4xf32> {
  %s = garray.add %x, %z : tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2, "extra" = 2]

// Conflicting closed annotations: the result takes their longest common
// prefix ("data"), preferring neither side; the operands keep theirs.
// CHECK-LABEL: func.func @conflict_common_prefix
// CHECK-SAME: %{{[^:]+}}: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(("data", "model"))>}
// CHECK-SAME: %{{[^:]+}}: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(("data", "extra"))>}
// CHECK: garray.add {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data")>}
func.func @conflict_common_prefix(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(("data", "model"))>},
                                  %y: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(("data", "extra"))>})
    -> tensor<8xf32> {
  %s = garray.add %x, %y : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// No common prefix: the result is replicated.
// CHECK-LABEL: func.func @conflict_no_prefix
// CHECK: garray.add {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None)>}
func.func @conflict_no_prefix(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>},
                              %y: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("model")>})
    -> tensor<8xf32> {
  %s = garray.add %x, %y : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// A 2-D mesh: X's rows go to "data", W's columns to "model", so the product
// is split over both, one dim per axis; the contracting dim stays whole.
// CHECK-LABEL: func.func @dot_2d_mesh
// CHECK-SAME: -> (tensor<8x6xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>})
// CHECK: garray.dot_general {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}
func.func @dot_2d_mesh(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                       %w: tensor<4x6xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "model")>})
    -> tensor<8x6xf32> {
  %p = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  return %p : tensor<8x6xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Backward through a dot on a 2-D mesh: a result split over both axes splits
// the free dims of both open operands, each on its own axis.
// CHECK-LABEL: func.func @dot_2d_mesh_backward
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK-SAME: %{{[^:]+}}: tensor<4x6xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "model")>}
func.func @dot_2d_mesh_backward(%x: tensor<8x4xf32>, %w: tensor<4x6xf32>)
    -> (tensor<8x6xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}) {
  %p = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  return %p : tensor<8x6xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A contracting dim split over "data" does not split the result; its partial
// sums are the business of garray-insert-reshards, not of propagation.
// CHECK-LABEL: func.func @contracting_split
// CHECK: garray.dot_general {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None)>}
func.func @contracting_split(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                             %r: tensor<8xf32>) -> tensor<2xf32> {
  %g = garray.dot_general %x, %r, batch = [] x [], contracting = [0] x [0]
      : (tensor<8x2xf32>, tensor<8xf32>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// An op without a sharding rule must not compute on a sharded value.
func.func @ruleless_op(%a: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  %n = garray.neg %a : tensor<8xf32>
  // expected-error @+1 {{'arith.addf' has no sharding rule, but operand #0 is sharded}}
  %s = arith.addf %n, %n : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// The same for an op with regions: scf.yield has no rule either.
func.func @ruleless_region(%a: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}, %c: i1) -> tensor<8xf32> {
  %r = scf.if %c -> tensor<8xf32> {
    %n = garray.neg %a : tensor<8xf32>
    // expected-error @+1 {{'scf.yield' has no sharding rule, but operand #0 is sharded}}
    scf.yield %n : tensor<8xf32>
  } else {
    scf.yield %a : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// A function with no annotation is left alone: nothing placed, nothing to do.
// CHECK-LABEL: func.func @unannotated
// CHECK-SAME: (%[[A:.*]]: tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT: %[[N:.*]] = garray.neg %[[A]] : tensor<8xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[N]], %[[N]] : tensor<8xf32>
// CHECK-NEXT: return %[[S]] : tensor<8xf32>
func.func @unannotated(%a: tensor<8xf32>) -> tensor<8xf32> {
  %n = garray.neg %a : tensor<8xf32>
  %s = arith.addf %n, %n : tensor<8xf32>
  return %s : tensor<8xf32>
}

// (A sharding on a declaration's signature is an error:
// garray_propagate_steering_invalid.mlir.)
