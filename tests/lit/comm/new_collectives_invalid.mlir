// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// comm.reduce_scatter, comm.all_to_all, comm.collective_permute: one negative
// case per labelled constraint (CommOps.td).

func.func @reduce_scatter_c1_overlap(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{comm_reduce_scatter_c1: device 1 appears in two groups}}
  %0 = comm.reduce_scatter <sum> %x, dim = 0 groups = [[0, 1], [1, 2]] : tensor<4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_scatter_c2_size(%x: tensor<4x3xf32>) -> tensor<1x3xf32> {
  // expected-error @+1 {{comm_reduce_scatter_c2: expected dim 0 of the gathered type to be 2, got 4}}
  %0 = comm.reduce_scatter <sum> %x, dim = 0 groups = [[0, 1]] : tensor<4x3xf32> -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

func.func @reduce_scatter_c2_dim(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{comm_reduce_scatter_c2: dim 1 is out of range}}
  %0 = comm.reduce_scatter <sum> %x, dim = 1 groups = [[0, 1]] : tensor<4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @all_to_all_c1_empty(%x: tensor<4x4xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{comm_all_to_all_c1: groups must be non-empty}}
  %0 = comm.all_to_all %x, split_dim = 1, concat_dim = 0 groups = [] : tensor<4x4xf32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @all_to_all_c2_same_dim(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{comm_all_to_all_c2: split_dim and concat_dim are both 0}}
  %0 = comm.all_to_all %x, split_dim = 0, concat_dim = 0 groups = [[0, 1]] : tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @all_to_all_c2_range(%x: tensor<4x4xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{comm_all_to_all_c2: dim 2 is out of range}}
  %0 = comm.all_to_all %x, split_dim = 2, concat_dim = 0 groups = [[0, 1]] : tensor<4x4xf32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @all_to_all_c2_indivisible(%x: tensor<4x3xf32>) -> tensor<8x1xf32> {
  // expected-error @+1 {{comm_all_to_all_c2: split dim 1 of size 3 does not split into 2 pieces}}
  %0 = comm.all_to_all %x, split_dim = 1, concat_dim = 0 groups = [[0, 1]] : tensor<4x3xf32> -> tensor<8x1xf32>
  return %0 : tensor<8x1xf32>
}

// -----

func.func @all_to_all_c2_shape(%x: tensor<4x4xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{comm_all_to_all_c2: expected dim 0 of the result to be 8, got 4}}
  %0 = comm.all_to_all %x, split_dim = 1, concat_dim = 0 groups = [[0, 1]] : tensor<4x4xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @all_to_all_c2_element_type(%x: tensor<4x4xf32>) -> tensor<8x2xf64> {
  // expected-error @+1 {{comm_all_to_all_c2: element types differ}}
  %0 = comm.all_to_all %x, split_dim = 1, concat_dim = 0 groups = [[0, 1]] : tensor<4x4xf32> -> tensor<8x2xf64>
  return %0 : tensor<8x2xf64>
}

// -----

func.func @collective_permute_c1_empty(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comm_collective_permute_c1: pairs must be non-empty}}
  %0 = comm.collective_permute %x pairs = [] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @collective_permute_c1_two_sources(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comm_collective_permute_c1: device 0 is a source twice}}
  %0 = comm.collective_permute %x pairs = [[0, 1], [0, 2]] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @collective_permute_c1_two_targets(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comm_collective_permute_c1: device 1 is a target twice}}
  %0 = comm.collective_permute %x pairs = [[0, 1], [2, 1]] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @collective_permute_c1_negative(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comm_collective_permute_c1: device id -1 is negative}}
  %0 = comm.collective_permute %x pairs = [[0, -1]] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @collective_permute_c1_odd(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comm_collective_permute_c1: pairs has an odd number of ids}}
  %0 = "comm.collective_permute"(%x) {pairs = array<i64: 0, 1, 2>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @collective_permute_c2(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{comm_collective_permute_c2: operand type 'tensor<4xf32>' differs from result type 'tensor<2xf32>'}}
  %0 = comm.collective_permute %x pairs = [[0, 1], [1, 0]] : tensor<4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
