// RUN: shardc-opt %s -split-input-file --garray-insert-reshards -verify-diagnostics
// RUN: shardc-opt %s -split-input-file --garray-global-to-local -verify-diagnostics
//
// FIXED: the discardable `garray.sharding` attribute on ops and
// function arguments is never verified against its value and mesh (the
// dialect has no verifyOperationAttribute / verifyRegionArgAttribute), and
// garray-insert-reshards and garray-global-to-local dereference
// `*toCore(...)` without checking: an unknown axis or too many entries
// crashes them (stack dump). Expected: the sharding_c2/c3 error naming the
// value, as for sharding_constraint (best: at verification, before any pass).

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
