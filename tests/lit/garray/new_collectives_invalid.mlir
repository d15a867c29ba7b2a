// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// garray.reduce_scatter, garray.all_to_all, garray.collective_permute: one
// negative case per labelled constraint (GArrayOps.td).

garray.mesh @mesh ["x" = 2]
func.func @reduce_scatter_c1_dim(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{reduce_scatter_c1: dim 1 is out of range for rank 1}}
  %0 = garray.reduce_scatter <sum> %x, dim = 1 on @mesh ["x"] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

garray.mesh @mesh ["x" = 2]
func.func @reduce_scatter_c1_axis(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{reduce_scatter_c1: "y" is not an axis of mesh @mesh}}
  %0 = garray.reduce_scatter <sum> %x, dim = 0 on @mesh ["y"] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

garray.mesh @mesh ["x" = 2]
func.func @reduce_scatter_c2_not_pending(%x: tensor<4xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>}) -> tensor<4xf32> {
  // expected-error @+1 {{reduce_scatter_c2: the operand is not unreduced over mesh axis "x"}}
  %0 = garray.reduce_scatter <sum> %x, dim = 0 on @mesh ["x"] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

garray.mesh @mesh ["x" = 2]
func.func @reduce_scatter_c2_kind(%x: tensor<4xf32> {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = max("x")>}) -> tensor<4xf32> {
  // expected-error @+1 {{reduce_scatter_c2: the operand is a pending max but this reduces with sum}}
  %0 = garray.reduce_scatter <sum> %x, dim = 0 on @mesh ["x"] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

garray.mesh @mesh ["x" = 2]
func.func @all_to_all_c1_same_dim(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{all_to_all_c1: split_dim and concat_dim are both 0}}
  %0 = garray.all_to_all %x, split_dim = 0, concat_dim = 0 on @mesh ["x"] : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

garray.mesh @mesh ["x" = 2]
func.func @all_to_all_c1_empty(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{all_to_all_c1: axes must not be empty}}
  %0 = garray.all_to_all %x, split_dim = 1, concat_dim = 0 on @mesh [] : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

garray.mesh @mesh ["x" = 2]
func.func @all_to_all_c2_not_trailing(%x: tensor<4x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "x")>}) -> tensor<4x4xf32> {
  // expected-error @+1 {{all_to_all_c2: axes must be the trailing axes of dim 0 of the operand's sharding}}
  %0 = garray.all_to_all %x, split_dim = 1, concat_dim = 0 on @mesh ["x"] : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

garray.mesh @mesh ["x" = 2]
func.func @collective_permute_c1_axis(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{collective_permute_c1: "y" is not an axis of mesh @mesh}}
  %0 = garray.collective_permute %x on @mesh ["y"] pairs = [0, 1, 1, 0] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

garray.mesh @mesh ["x" = 2]
func.func @collective_permute_c2_odd(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{collective_permute_c2: pairs has 3 ids; it must list (source, target) pairs}}
  %0 = garray.collective_permute %x on @mesh ["x"] pairs = [0, 1, 1] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

garray.mesh @mesh ["x" = 2]
func.func @collective_permute_c2_range(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{collective_permute_c2: device 2 is not a device of mesh @mesh}}
  %0 = garray.collective_permute %x on @mesh ["x"] pairs = [0, 2] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

garray.mesh @mesh ["x" = 2]
func.func @collective_permute_c2_twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{collective_permute_c2: device 1 is a target twice}}
  %0 = garray.collective_permute %x on @mesh ["x"] pairs = [0, 1, 1, 1] : tensor<4xf32>
  return %0 : tensor<4xf32>
}
