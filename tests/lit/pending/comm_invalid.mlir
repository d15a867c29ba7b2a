// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// PENDING (bug): comm errors without their label or with a wrong message.

// Groups of different sizes are rejected by the groups parser, without the
// constraint label: "custom op 'comm.all_reduce' comm groups must all have 2
// members, but one has 1". comm_all_reduce_c1 says groups are "of one size".
func.func @ragged_groups(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{comm_all_reduce_c1}}
  %0 = comm.all_reduce <sum> %x groups = [[0, 1], [2]] : tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A dynamic dim is multiplied by the group size as if it were a number:
// "expected dim 0 of the gathered type to be 0, got -9223372036854775808".
// Expected: a message that names the dynamic dim (or dynamic dims accepted).
func.func @dynamic_dim(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{comm_all_gather_c2: dim 0 is dynamic}}
  %0 = comm.all_gather %x, dim = 0 groups = [[0, 1]] : tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
