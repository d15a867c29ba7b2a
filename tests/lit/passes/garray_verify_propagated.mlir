// RUN: shardc-opt %s -split-input-file --garray-verify-propagated -verify-diagnostics | FileCheck %s
// RUN: shardc-opt %s -split-input-file --shardc-propagation-phase | FileCheck %s --check-prefix=PHASE
//
// garray-verify-propagated: the gate that ends the propagation phase. In a
// function anything placed, every ranked tensor argument and op result has
// a closed sharding, without priorities, on a declared mesh. Each case below
// breaks it when the gate runs alone; the whole phase (PHASE) fills it in.

garray.mesh @mesh ["data" = 2]

// Fully placed: passes unchanged.
// CHECK-LABEL: func.func @placed
func.func @placed(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  %0 = garray.neg %x {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// Nothing placed: nothing to check.
// CHECK-LABEL: func.func @unplaced
func.func @unplaced(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = garray.neg %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// PHASE-LABEL: func.func @missing
// PHASE: garray.neg {{.*}}P("data")
func.func @missing(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  // expected-error @+1 {{verify-propagated: result #0 of 'garray.neg' has no sharding}}
  %0 = garray.neg %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// PHASE-LABEL: func.func @open
// PHASE: garray.neg {{.*}}P("data")>
func.func @open(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  // expected-error @+1 {{verify-propagated: result #0 of 'garray.neg' has an open dim (P(?))}}
  %0 = garray.neg %x {garray.sharding = #garray.sharding<@mesh, P(?)>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// PHASE-LABEL: func.func @priority
// PHASE-SAME: P("data")>
func.func @priority(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data" p0)>}) -> tensor<8xf32> {
  // expected-error @-1 {{verify-propagated: argument #0 keeps a priority (P("data" p0))}}
  %0 = garray.neg %x {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
