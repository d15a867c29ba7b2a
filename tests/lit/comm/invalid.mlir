// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// comm ops: one negative case per labelled constraint (CommOps.td). Groups
// must be non-empty, equal-sized and disjoint: a device in two groups of one
// collective would deadlock.

func.func @all_reduce_c1_no_groups(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{comm_all_reduce_c1: groups must be non-empty}}
  %0 = comm.all_reduce <sum> %x groups = [] : tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @all_reduce_c1_empty_group(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{comm_all_reduce_c1: groups must be non-empty}}
  %0 = comm.all_reduce <sum> %x groups = [[]] : tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @all_reduce_c1_overlap(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{comm_all_reduce_c1: device 1 appears in two groups}}
  %0 = comm.all_reduce <sum> %x groups = [[0, 1], [1, 2]] : tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @all_reduce_c1_negative(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{comm_all_reduce_c1: device id -1 is negative}}
  %0 = comm.all_reduce <sum> %x groups = [[0, -1]] : tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @all_reduce_c1_ragged_flat(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{comm_all_reduce_c1: 3 device ids do not split into groups of 2}}
  %0 = "comm.all_reduce"(%x) {kind = #garray.reduction<sum>, groups = array<i64: 0, 1, 2>, group_size = 2 : i64}
      : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @all_reduce_c1_zero_size(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{comm_all_reduce_c1: groups must be non-empty}}
  %0 = "comm.all_reduce"(%x) {kind = #garray.reduction<sum>, groups = array<i64: 0, 1>, group_size = 0 : i64}
      : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @all_reduce_c2(%x: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comm_all_reduce_c2: operand type 'tensor<2xf32>' differs from result type 'tensor<4xf32>'}}
  %0 = comm.all_reduce <sum> %x groups = [[0, 1]] : tensor<2xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @all_gather_c1_overlap(%x: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comm_all_gather_c1: device 0 appears in two groups}}
  %0 = comm.all_gather %x, dim = 0 groups = [[0, 0]] : tensor<2xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @all_gather_c1_no_groups(%x: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comm_all_gather_c1: groups must be non-empty}}
  %0 = comm.all_gather %x, dim = 0 groups = [] : tensor<2xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @all_gather_c2_dim(%x: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comm_all_gather_c2: dim 1 is out of range}}
  %0 = comm.all_gather %x, dim = 1 groups = [[0, 1]] : tensor<2xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @all_gather_c2_rank(%x: tensor<2x3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comm_all_gather_c2: dim 0 is out of range}}
  %0 = comm.all_gather %x, dim = 0 groups = [[0, 1]] : tensor<2x3xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @all_gather_c2_gathered_dim(%x: tensor<2x3xf32>) -> tensor<6x3xf32> {
  // expected-error @+1 {{comm_all_gather_c2: expected dim 0 of the gathered type to be 4, got 6}}
  %0 = comm.all_gather %x, dim = 0 groups = [[0, 1], [2, 3]] : tensor<2x3xf32> -> tensor<6x3xf32>
  return %0 : tensor<6x3xf32>
}

// -----

func.func @all_gather_c2_other_dim(%x: tensor<2x3xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{comm_all_gather_c2: expected dim 1 of the gathered type to be 3, got 6}}
  %0 = comm.all_gather %x, dim = 0 groups = [[0, 1]] : tensor<2x3xf32> -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @all_gather_c2_element_type(%x: tensor<2x3xf32>) -> tensor<4x3xf64> {
  // expected-error @+1 {{comm_all_gather_c2: element types differ}}
  %0 = comm.all_gather %x, dim = 0 groups = [[0, 1]] : tensor<2x3xf32> -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}

// -----

func.func @all_slice_c1_overlap(%x: tensor<4x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{comm_all_slice_c1: device 0 appears in two groups}}
  %0 = comm.all_slice %x, dim = 0 groups = [[0, 1], [0, 2]] : tensor<4x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @all_slice_c2_dim(%x: tensor<4x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{comm_all_slice_c2: dim 2 is out of range}}
  %0 = comm.all_slice %x, dim = 2 groups = [[0, 1]] : tensor<4x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @all_slice_c2_size(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // The operand must be the result with dim 0 multiplied by the group size.
  // expected-error @+1 {{comm_all_slice_c2: expected dim 0 of the gathered type to be 8, got 4}}
  %0 = comm.all_slice %x, dim = 0 groups = [[0, 1]] : tensor<4x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @all_slice_c2_element_type(%x: tensor<4x3xf32>) -> tensor<2x3xi32> {
  // expected-error @+1 {{comm_all_slice_c2: element types differ}}
  %0 = comm.all_slice %x, dim = 0 groups = [[0, 1]] : tensor<4x3xf32> -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = comm.all_slice %x, dim = 0 groups = [[0, 1]] : tensor<*xf32> -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
