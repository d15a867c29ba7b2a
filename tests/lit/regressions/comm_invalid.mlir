// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// comm verifier errors carry their constraint label and the right message.

// Groups of different sizes are reported as comm_all_reduce_c1 (groups "of
// one size"), not by the groups parser without the label ("custom op
// 'comm.all_reduce' comm groups must all have 2 members, but one has 1").
func.func @ragged_groups(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{comm_all_reduce_c1}}
  %0 = comm.all_reduce <sum> %x groups = [[0, 1], [2]] : tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// comm ops take statically shaped tensors only (local shapes are static).
func.func @dynamic_dim(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = comm.all_gather %x, dim = 0 groups = [[0, 1]] : tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
