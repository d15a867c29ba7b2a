// RUN: shardc-opt %s -split-input-file --garray-verify-partitioned -verify-diagnostics | FileCheck %s
// RUN: shardc-opt %s -split-input-file --shardc-partition-phase | FileCheck %s --check-prefix=PHASE
//
// garray-verify-partitioned: the gate that ends the partitioning phase. No
// reshard or constraint is left, and a pending value reaches only users
// linear in it. Each case below breaks it when the gate runs alone; the
// whole phase (PHASE) inserts the collective that mends it.

garray.mesh @mesh ["data" = 2]

// A pending sum scaled (linear) and returned pending by a private function
// (its callers' signature carries the pending sum): passes unchanged.
// CHECK-LABEL: func.func private @linear
// CHECK: garray.neg
func.func private @linear(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> (tensor<f32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>}) {
  %0 = garray.reduce <sum> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : (tensor<8xf32>) -> tensor<f32>
  %1 = garray.neg %0 {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : tensor<f32>
  return %1 : tensor<f32>
}

// -----

garray.mesh @mesh ["data" = 2]

// PHASE-LABEL: func.func @exp_of_partial
// PHASE: %[[S:.*]] = garray.reduce <sum>
// PHASE: %[[R:.*]] = garray.all_reduce <sum> %[[S]]
// PHASE: garray.exp %[[R]]
func.func @exp_of_partial(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<f32> {
  %0 = garray.reduce <sum> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : (tensor<8xf32>) -> tensor<f32>
  // expected-error @+1 {{verify-partitioned: operand #0 of 'garray.exp' is pending (P(), unreduced = sum("data")) but the op is not linear in it}}
  %1 = garray.exp %0 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
  return %1 : tensor<f32>
}

// -----

garray.mesh @mesh ["data" = 2]

// PHASE-LABEL: func.func @returned_partial
// PHASE: %[[S:.*]] = garray.reduce <sum>
// PHASE: %[[R:.*]] = garray.all_reduce <sum> %[[S]]
// PHASE: return %[[R]]
func.func @returned_partial(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<f32> {
  %0 = garray.reduce <sum> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : (tensor<8xf32>) -> tensor<f32>
  // expected-error @+1 {{verify-partitioned: operand #0 of 'func.return' is pending (P(), unreduced = sum("data")) but a public function's results must be whole}}
  return %0 : tensor<f32>
}

// -----

garray.mesh @mesh ["data" = 2]

// PHASE-LABEL: func.func @reshard_left
// PHASE-NOT: garray.reshard
// PHASE: garray.all_gather
func.func @reshard_left(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  // expected-error @+1 {{verify-partitioned: 'garray.reshard' should have become collectives}}
  %0 = garray.reshard %x : tensor<8xf32> to #garray.sharding<@mesh, P()>
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A pending max through an op linear only in sums.
// PHASE-LABEL: func.func @neg_of_max
// PHASE: %[[M:.*]] = garray.reduce <max>
// PHASE: %[[R:.*]] = garray.all_reduce <max> %[[M]]
// PHASE: garray.neg %[[R]]
func.func @neg_of_max(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<f32> {
  %0 = garray.reduce <max> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = max("data")>} : (tensor<8xf32>) -> tensor<f32>
  // expected-error @+1 {{verify-partitioned: operand #0 of 'garray.neg' is pending (P(), unreduced = max("data")) but the op passes only pending sum partials}}
  %1 = garray.neg %0 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
  return %1 : tensor<f32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Moving elements commutes with every reduction: a pending min reshaped
// (as packing scalars for one collective does) passes.
// CHECK-LABEL: func.func private @reshape_of_min
// CHECK: garray.reshape
func.func private @reshape_of_min(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> (tensor<1xf32> {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = min("data")>}) {
  %0 = garray.reduce <min> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = min("data")>} : (tensor<8xf32>) -> tensor<f32>
  %1 = garray.reshape %0 {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = min("data")>} : (tensor<f32>) -> tensor<1xf32>
  return %1 : tensor<1xf32>
}
