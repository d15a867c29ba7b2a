// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// Where `garray.sharding_group` may be is the dialect's to check, with no
// pass run (docs/propagation.md, "Sharding groups"): on a tensor argument
// of a function with a body, or on an op whose results are all tensors.
// Anywhere else it would tie nothing, silently.

// expected-error @+1 {{garray.sharding_group on result #0 of @on_result is not supported: put it on the op that makes the returned value, or on an argument}}
func.func @on_result(%x: tensor<8xf32>) -> (tensor<8xf32> {garray.sharding_group = 0 : i64}) {
  return %x : tensor<8xf32>
}

// -----

func.func @on_return(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{garray.sharding_group on 'func.return', which has no results, ties nothing: put it on the op that makes the returned value, or on an argument}}
  return {garray.sharding_group = 0 : i64} %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{garray.sharding_group on argument #0 of @ext, a declaration (no body): calls to it take whole values, so the group ties nothing there; drop it, or give @ext a body}}
func.func private @ext(tensor<4xf32> {garray.sharding_group = 0 : i64})

// -----

// expected-error @+1 {{garray.sharding_group on argument #0 of @scalar, of type 'i32': only tensors can share a sharding}}
func.func @scalar(%n: i32 {garray.sharding_group = 1 : i64}) -> i32 {
  return %n : i32
}

// -----

func.func @non_tensor_result(%n: index) -> index {
  // expected-error @+1 {{garray.sharding_group must be on a tensor argument or an op whose results are tensors, not on 'arith.addi' with results of types 'index'}}
  %m = arith.addi %n, %n {garray.sharding_group = 1 : i64} : index
  return %m : index
}
