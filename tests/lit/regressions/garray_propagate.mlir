// RUN: shardc-opt %s -split-input-file --garray-propagate -verify-diagnostics | FileCheck %s
//
// garray-propagate around ops without a sharding rule.

garray.mesh @mesh ["data" = 2]

// An op without a sharding rule computes on whole values (insert-reshards
// gives it replicated operands and a replicated result), so propagation does
// not pull its user's layout backward onto its result: arith.addf stays
// P(None) (closed), and its user's operand layout is left to insert-reshards.
// CHECK-LABEL: func.func @ruleless_result
// CHECK: arith.addf {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None)>}
func.func @ruleless_result(%a: tensor<8xf32>, %x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  %s = arith.addf %a, %a : tensor<8xf32>
  %t = garray.add %s, %x : tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A sharded operand of a ruleless op is an error that prints the layout as
// it would be printed, P("data"), not propagation's internal open marker
// P("data"?), which the user never wrote (the value was derived, and is
// closed once propagation ends).
func.func @ruleless_message(%a: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  %n = garray.neg %a : tensor<8xf32>
  // expected-error @+1 {{'arith.addf' has no sharding rule, but operand #0 is sharded P("data");}}
  %s = arith.addf %n, %n : tensor<8xf32>
  return %s : tensor<8xf32>
}
