// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// Global collectives (all_reduce, all_gather, all_slice): one negative case
// per labelled constraint. The _c2 constraints compare with the operand's
// sharding, written here on the function argument or on the defining op.

func.func @all_reduce_c1_no_mesh(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{all_reduce_c1: no garray.mesh named @mesh}}
  %0 = garray.all_reduce <sum> %x on @mesh ["data"] : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_reduce_c1_empty(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{all_reduce_c1: axes must not be empty}}
  %0 = garray.all_reduce <sum> %x on @mesh [] : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_reduce_c1_unknown_axis(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{all_reduce_c1: "model" is not an axis of mesh @mesh}}
  %0 = garray.all_reduce <sum> %x on @mesh ["model"] : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_reduce_c1_repeated(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{all_reduce_c1: axis "data" is listed twice}}
  %0 = garray.all_reduce <sum> %x on @mesh ["data", "data"] : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_reduce_c2_not_pending(%x: tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P()>}) -> tensor<2xf32> {
  // expected-error @+1 {{all_reduce_c2: the operand is not unreduced over mesh axis "data"}}
  %0 = garray.all_reduce <sum> %x on @mesh ["data"] : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]
func.func @all_reduce_c2_some_axes(%x: tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>}) -> tensor<2xf32> {
  // expected-error @+1 {{all_reduce_c2: the operand is not unreduced over mesh axis "model"}}
  %0 = garray.all_reduce <sum> %x on @mesh ["data", "model"] : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_reduce_c2_kind(%x: tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = max("data")>}) -> tensor<2xf32> {
  // expected-error @+1 {{all_reduce_c2: the operand is a pending max but this reduces with sum}}
  %0 = garray.all_reduce <sum> %x on @mesh ["data"] : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_gather_c1_no_mesh(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{all_gather_c1: no garray.mesh named @other}}
  %0 = garray.all_gather %x, dim = 0 on @other ["data"] : tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_gather_c1_unknown_axis(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{all_gather_c1: "model" is not an axis of mesh @mesh}}
  %0 = garray.all_gather %x, dim = 0 on @mesh ["model"] : tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_gather_c1_empty(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{all_gather_c1: axes must not be empty}}
  %0 = garray.all_gather %x, dim = 0 on @mesh [] : tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_gather_c1_dim(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{all_gather_c1: dim 2 is out of range for rank 2}}
  %0 = garray.all_gather %x, dim = 2 on @mesh ["data"] : tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_gather_c2_other_dim(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}) -> tensor<8x2xf32> {
  // expected-error @+1 {{all_gather_c2: axes must be the trailing axes of dim 0 of the operand's sharding #garray.sharding<@mesh, P(None, "data")>}}
  %0 = garray.all_gather %x, dim = 0 on @mesh ["data"] : tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]
func.func @all_gather_c2_major_axis(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P(("data", "model"))>}) -> tensor<8x2xf32> {
  // "data" is the major axis of dim 0: gathering it alone would interleave.
  // expected-error @+1 {{all_gather_c2: axes must be the trailing axes of dim 0 of the operand's sharding #garray.sharding<@mesh, P(("data", "model"))>}}
  %0 = garray.all_gather %x, dim = 0 on @mesh ["data"] : tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_slice_c1_dim(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{all_slice_c1: dim -1 is out of range for rank 2}}
  %0 = garray.all_slice %x, dim = -1 on @mesh ["data"] : tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_slice_c1_empty(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{all_slice_c1: axes must not be empty}}
  %0 = garray.all_slice %x, dim = 0 on @mesh [] : tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_slice_c1_repeated(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{all_slice_c1: axis "data" is listed twice}}
  %0 = garray.all_slice %x, dim = 0 on @mesh ["data", "data"] : tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_slice_c2_dims(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}) -> tensor<8x2xf32> {
  // expected-error @+1 {{all_slice_c2: mesh axis "data" is already used by the operand's sharding #garray.sharding<@mesh, P(None, "data")>}}
  %0 = garray.all_slice %x, dim = 0 on @mesh ["data"] : tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_slice_c2_pending(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>}) -> tensor<8x2xf32> {
  // expected-error @+1 {{all_slice_c2: mesh axis "data" is already used by the operand's sharding #garray.sharding<@mesh, P(), unreduced = sum("data")>}}
  %0 = garray.all_slice %x, dim = 0 on @mesh ["data"] : tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]
func.func @all_slice_c2_op_sharding(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // The operand's sharding may also sit on its defining op.
  %0 = garray.neg %x {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8x2xf32>
  // expected-error @+1 {{all_slice_c2: mesh axis "data" is already used by the operand's sharding #garray.sharding<@mesh, P("data")>}}
  %1 = garray.all_slice %0, dim = 1 on @mesh ["data"] : tensor<8x2xf32>
  return %1 : tensor<8x2xf32>
}
