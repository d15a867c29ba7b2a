// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// garray values are tensors of static shape: local shapes and the global
// counts of means are derived from them. Unranked and dynamic tensors are
// rejected by the operand/result type constraints, before any verifier or
// pass looks at a shape.

func.func @unranked_broadcast(%a: tensor<*xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point or signless integer values, but got 'tensor<*xf32>'}}
  %0 = garray.broadcast_in_dim %a, dims = [1] : (tensor<*xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @unranked_dot_general(%a: tensor<*xf32>, %b: tensor<2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0] : (tensor<*xf32>, tensor<2xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @unranked_reduce(%a: tensor<*xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = garray.reduce <sum> %a, dims = [0] : (tensor<*xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @unranked_mean(%a: tensor<*xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = garray.mean %a, dims = [0] : (tensor<*xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Ops whose format names only the result type reject it while parsing.
garray.mesh @mesh ["data" = 2]
func.func @unranked_all_gather(%a: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{invalid kind of type specified}}
  %0 = garray.all_gather %a, dim = 0 on @mesh ["data"] : tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Elementwise ops parse any type (so that mismatches reach their labelled
// verifiers); the result's constraint then names what is wrong (operands
// are held to the result's type by `_c1`).
func.func @unranked_neg(%a: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{result #0 must be statically shaped tensor of floating-point or signless integer values, but got 'tensor<*xf32>'}}
  %0 = garray.neg %a : tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @unranked_constraint(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{invalid kind of type specified}}
  %0 = garray.sharding_constraint %x : tensor<*xf32> to #garray.sharding<@mesh, P("data")>
  return %0 : tensor<*xf32>
}

// -----

func.func @dynamic_neg(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{must be statically shaped tensor of floating-point or signless integer values, but got 'tensor<?xf32>'}}
  %0 = garray.neg %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A mean over a dynamic dim would have no global count.
func.func @dynamic_mean(%x: tensor<?xf32>) -> tensor<f32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = garray.mean %x, dims = [0] : (tensor<?xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

garray.mesh @mesh ["data" = 3]
func.func @dynamic_constraint(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = garray.sharding_constraint %x : tensor<?xf32> to #garray.sharding<@mesh, P("data")>
  return %0 : tensor<?xf32>
}

// -----

func.func @complex_elements(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  // expected-error @+1 {{must be statically shaped tensor of floating-point or signless integer values, but got 'tensor<2xcomplex<f32>>'}}
  %0 = garray.neg %a : tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}
