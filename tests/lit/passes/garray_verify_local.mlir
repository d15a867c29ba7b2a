// RUN: shardc-opt %s -split-input-file --garray-verify-local -verify-diagnostics | FileCheck %s
//
// garray-verify-local: the gate after global-to-local. A local program may
// hold local garray compute ops and comm collectives, but nothing global:
// no mesh, no sharding attribute, no reshard/constraint/global collective,
// no mean (decomposed before propagation).

// A local program passes unchanged.
// CHECK-LABEL: func.func @local
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2xf32>)
// CHECK-NEXT: %[[R:.*]] = comm.all_reduce <sum> %[[X]] groups = {{\[}}[0, 1]] : tensor<2xf32> -> tensor<2xf32>
// CHECK-NEXT: %[[N:.*]] = garray.neg %[[R]] : tensor<2xf32>
// CHECK-NEXT: return %[[N]]
func.func @local(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = comm.all_reduce <sum> %x groups = [[0, 1]] : tensor<2xf32> -> tensor<2xf32>
  %1 = garray.neg %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// expected-error @+1 {{verify-local: 'garray.mesh' belongs to the global program and survived global-to-local}}
garray.mesh @mesh ["data" = 2]

// -----

func.func @mean(%x: tensor<2xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{verify-local: 'garray.mean' belongs to the global program and survived global-to-local}}
  %0 = garray.mean %x, dims = [0] keepdims : (tensor<2xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// The mesh is written after the function so that the collective is met first.
func.func @global_collective(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{verify-local: 'garray.all_reduce' belongs to the global program and survived global-to-local}}
  %0 = garray.all_reduce <sum> %x on @mesh ["data"] : tensor<2xf32>
  return %0 : tensor<2xf32>
}
garray.mesh @mesh ["data" = 2]

// -----

func.func @reshard(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{verify-local: 'garray.reshard' belongs to the global program and survived global-to-local}}
  %0 = garray.reshard %x : tensor<2xf32> to #garray.sharding<@mesh, P()>
  return %0 : tensor<2xf32>
}
garray.mesh @mesh ["data" = 2]

// -----

func.func @constraint(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{verify-local: 'garray.sharding_constraint' belongs to the global program and survived global-to-local}}
  %0 = garray.sharding_constraint %x : tensor<2xf32> to #garray.sharding<@mesh, P()>
  return %0 : tensor<2xf32>
}
garray.mesh @mesh ["data" = 2]

// -----

// A sharding left in a local program (no mesh any more) is caught by the
// dialect's attribute verifier as soon as it is read, before verify-local.
func.func @op_sharding(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{the result names mesh @mesh, but no garray.mesh with that name is in scope}}
  %0 = garray.neg %x {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// expected-error @+1 {{argument #0 names mesh @mesh, but no garray.mesh with that name is in scope}}
func.func @argument_sharding(%x: tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P()>}) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// The planner's comm collectives are local; their garray counterparts are not.
// CHECK-LABEL: func.func @planner_local
// CHECK: comm.reduce_scatter
// CHECK: comm.all_to_all
// CHECK: comm.collective_permute
func.func @planner_local(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = comm.reduce_scatter <sum> %x, dim = 0 groups = [[0, 1]] : tensor<4x4xf32> -> tensor<2x4xf32>
  %1 = comm.all_to_all %0, split_dim = 1, concat_dim = 0 groups = [[0, 1]] : tensor<2x4xf32> -> tensor<4x2xf32>
  %2 = comm.collective_permute %1 pairs = [[0, 1], [1, 0]] : tensor<4x2xf32> -> tensor<4x2xf32>
  %3 = comm.all_gather %2, dim = 1 groups = [[0, 1]] : tensor<4x2xf32> -> tensor<4x4xf32>
  return %3 : tensor<4x4xf32>
}

// -----

func.func @global_all_to_all(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{verify-local: 'garray.all_to_all' belongs to the global program and survived global-to-local}}
  %0 = garray.all_to_all %x, split_dim = 1, concat_dim = 0 on @mesh ["x"] : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
garray.mesh @mesh ["x" = 2]

// -----

func.func @global_reduce_scatter(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{verify-local: 'garray.reduce_scatter' belongs to the global program and survived global-to-local}}
  %0 = garray.reduce_scatter <sum> %x, dim = 0 on @mesh ["x"] : tensor<4xf32>
  return %0 : tensor<4xf32>
}
garray.mesh @mesh ["x" = 2]

// -----

func.func @global_permute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{verify-local: 'garray.collective_permute' belongs to the global program and survived global-to-local}}
  %0 = garray.collective_permute %x on @mesh ["x"] pairs = [0, 1, 1, 0] : tensor<4xf32>
  return %0 : tensor<4xf32>
}
garray.mesh @mesh ["x" = 2]
