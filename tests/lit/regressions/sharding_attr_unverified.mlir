// RUN: shardc-opt %s -split-input-file --garray-insert-reshards -verify-diagnostics
// RUN: shardc-opt %s -split-input-file --garray-global-to-local -verify-diagnostics
//
// The discardable `garray.sharding` attribute on ops and function arguments
// is checked against its value and mesh before garray-insert-reshards and
// garray-global-to-local use it: an unknown axis or too many entries is the
// sharding_c2/c3 error naming the value, as for sharding_constraint, not a
// crash.

garray.mesh @mesh ["data" = 2]
func.func @unknown_axis_on_op(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  // expected-error @+1 {{sharding_c3: "bogus" is not an axis of mesh @mesh}}
  %0 = garray.neg %x {garray.sharding = #garray.sharding<@mesh, P("bogus")>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{sharding_c3: "bogus" is not an axis of mesh @mesh}}
func.func @unknown_axis_on_argument(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("bogus")>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
// expected-error @+1 {{sharding_c2: the sharding has 2 entries but the value has rank 1}}
func.func @too_many_entries(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8xf32> {
  %0 = garray.neg %x {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
