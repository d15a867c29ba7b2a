// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// One negative case (at least) per labelled constraint of the reductions &
// indexing ops added with weighted mean, argmax/argmin, gather, scatter_add
// and iota (compare/select: elementwise_invalid.mlir). reduce and mean_c1..c4: invalid.mlir.

func.func @mean_c5_weights_shape(%x: tensor<8x2xf32>, %w: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{mean_c5: weights must have the operand's type 'tensor<8x2xf32>', not 'tensor<8xf32>'}}
  %0 = garray.mean %x, dims = [0] weights %w : (tensor<8x2xf32>, tensor<8xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// An i1 mask must be converted to the operand's float type first.
func.func @mean_c5_mask(%x: tensor<8xf32>, %m: tensor<8xi1>) -> tensor<f32> {
  // expected-error @+1 {{mean_c5: weights must have the operand's type 'tensor<8xf32>', not 'tensor<8xi1>'}}
  %0 = garray.mean %x, dims = [0] weights %m : (tensor<8xf32>, tensor<8xi1>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// 70000 overflows f16 (max 65504): the mean would silently be 0.
func.func @mean_c6_overflow(%x: tensor<70000xf16>) -> tensor<f16> {
  // expected-error @+1 {{mean_c6: the global count 70000 is not exactly representable in 'f16'; compute the mean in a wider float type}}
  %0 = garray.mean %x, dims = [0] : (tensor<70000xf16>) -> tensor<f16>
  return %0 : tensor<f16>
}

// -----

// 257 rounds to 256 in bf16 (8 significant bits).
func.func @mean_c6_rounds(%x: tensor<257x2xbf16>) -> tensor<2xbf16> {
  // expected-error @+1 {{mean_c6: the global count 257 is not exactly representable in 'bf16'}}
  %0 = garray.mean %x, dims = [0] : (tensor<257x2xbf16>) -> tensor<2xbf16>
  return %0 : tensor<2xbf16>
}

// -----

func.func @argmax_c1(%x: tensor<8x4xf32>) -> tensor<8xi64> {
  // expected-error @+1 {{argmax_c1: dim 2 is out of range for operand #0 of rank 2}}
  %0 = garray.argmax %x, dim = 2 : (tensor<8x4xf32>) -> tensor<8xi64>
  return %0 : tensor<8xi64>
}

// -----

func.func @argmax_c2(%x: tensor<8x4xf32>) -> tensor<4xi64> {
  // expected-error @+1 {{argmax_c2: the result must have shape [8] (the operand's without dim 1) but has 'tensor<4xi64>'}}
  %0 = garray.argmax %x, dim = 1 : (tensor<8x4xf32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @argmax_c3_float(%x: tensor<8x4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{argmax_c3: the result element type must be an integer wider than i1 that holds 4 (the size of dim 1), not 'f32'}}
  %0 = garray.argmax %x, dim = 1 : (tensor<8x4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// i8 holds indices up to 127; 200 positions need a wider type.
func.func @argmax_c3_narrow(%x: tensor<200xf32>) -> tensor<i8> {
  // expected-error @+1 {{argmax_c3: the result element type must be an integer wider than i1 that holds 200 (the size of dim 0), not 'i8'}}
  %0 = garray.argmax %x, dim = 0 : (tensor<200xf32>) -> tensor<i8>
  return %0 : tensor<i8>
}

// -----

func.func @argmin_c1(%x: tensor<8x4xf32>) -> tensor<8xi64> {
  // expected-error @+1 {{argmin_c1: dim -1 is out of range for operand #0 of rank 2}}
  %0 = garray.argmin %x, dim = -1 : (tensor<8x4xf32>) -> tensor<8xi64>
  return %0 : tensor<8xi64>
}

// -----

func.func @argmin_c2(%x: tensor<8x4xf32>) -> tensor<8x1xi64> {
  // expected-error @+1 {{argmin_c2: the result must have shape [8] (the operand's without dim 1) but has 'tensor<8x1xi64>'}}
  %0 = garray.argmin %x, dim = 1 : (tensor<8x4xf32>) -> tensor<8x1xi64>
  return %0 : tensor<8x1xi64>
}

// -----

func.func @argmin_c3_i1(%x: tensor<8x4xi32>) -> tensor<4xi1> {
  // expected-error @+1 {{argmin_c3: the result element type must be an integer wider than i1 that holds 8 (the size of dim 0), not 'i1'}}
  %0 = garray.argmin %x, dim = 0 : (tensor<8x4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @gather_c1(%t: tensor<16x8xf32>, %i: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{gather_c1: indices (operand #1) must have an integer element type, not 'f32'}}
  %0 = garray.gather %t[%i] : (tensor<16x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @gather_c2(%t: tensor<f32>, %i: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{gather_c2: the table (operand #0) must have rank >= 1, not 'tensor<f32>'}}
  %0 = garray.gather %t[%i] : (tensor<f32>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gather_c3(%t: tensor<16x8xf32>, %i: tensor<4xi64>) -> tensor<4x16xf32> {
  // expected-error @+1 {{gather_c3: the result must have shape [4, 8] (indices.shape ++ table.shape[1:]) but has 'tensor<4x16xf32>'}}
  %0 = garray.gather %t[%i] : (tensor<16x8xf32>, tensor<4xi64>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @gather_c4(%t: tensor<16x8xf32>, %i: tensor<4xi64>) -> tensor<4x8xf64> {
  // expected-error @+1 {{gather_c4: the result element type 'f64' differs from the table's 'f32'}}
  %0 = garray.gather %t[%i] : (tensor<16x8xf32>, tensor<4xi64>) -> tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}

// -----

func.func @scatter_add_c1(%b: tensor<16x8xf32>, %i: tensor<4xf64>, %u: tensor<4x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{scatter_add_c1: indices (operand #1) must have an integer element type, not 'f64'}}
  %0 = garray.scatter_add %b, %i, %u : (tensor<16x8xf32>, tensor<4xf64>, tensor<4x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @scatter_add_c2(%b: tensor<f32>, %i: tensor<4xi64>, %u: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{scatter_add_c2: base (operand #0) must have rank >= 1, not 'tensor<f32>'}}
  %0 = garray.scatter_add %b, %i, %u : (tensor<f32>, tensor<4xi64>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @scatter_add_c3(%b: tensor<16x8xf32>, %i: tensor<4xi64>, %u: tensor<2x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{scatter_add_c3: updates (operand #2) must have shape [4, 8] (indices.shape ++ base.shape[1:]) but has 'tensor<2x8xf32>'}}
  %0 = garray.scatter_add %b, %i, %u : (tensor<16x8xf32>, tensor<4xi64>, tensor<2x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @scatter_add_c4_result(%b: tensor<16x8xf32>, %i: tensor<4xi64>, %u: tensor<4x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{scatter_add_c4: the result must have base's type 'tensor<16x8xf32>', not 'tensor<8x8xf32>'}}
  %0 = garray.scatter_add %b, %i, %u : (tensor<16x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @scatter_add_c4_updates(%b: tensor<16x8xf32>, %i: tensor<4xi64>, %u: tensor<4x8xf64>) -> tensor<16x8xf32> {
  // expected-error @+1 {{scatter_add_c4: updates (operand #2) has element type 'f64' but base has 'f32'}}
  %0 = garray.scatter_add %b, %i, %u : (tensor<16x8xf32>, tensor<4xi64>, tensor<4x8xf64>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @scatter_add_c5(%b: tensor<16xi1>, %i: tensor<4xi64>, %u: tensor<4xi1>) -> tensor<16xi1> {
  // expected-error @+1 {{scatter_add_c5: cannot add i1 values; convert them to a number type first}}
  %0 = garray.scatter_add %b, %i, %u : (tensor<16xi1>, tensor<4xi64>, tensor<4xi1>) -> tensor<16xi1>
  return %0 : tensor<16xi1>
}

// -----

func.func @iota_c1_range() -> tensor<8x4xi64> {
  // expected-error @+1 {{iota_c1: dim 2 is out of range for a result of rank 2}}
  %0 = garray.iota dim = 2 : tensor<8x4xi64>
  return %0 : tensor<8x4xi64>
}

// -----

func.func @iota_c1_scalar() -> tensor<i64> {
  // expected-error @+1 {{iota_c1: dim 0 is out of range for a result of rank 0}}
  %0 = garray.iota dim = 0 : tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @iota_c2() -> tensor<8xi1> {
  // expected-error @+1 {{iota_c2: the element type must be a float or an integer wider than i1}}
  %0 = garray.iota dim = 0 : tensor<8xi1>
  return %0 : tensor<8xi1>
}

// -----

// i8 holds 0..127.
func.func @iota_c3_int() -> tensor<4x200xi8> {
  // expected-error @+1 {{iota_c3: the indices 0..199 along dim 1 are not all exactly representable in 'i8'}}
  %0 = garray.iota dim = 1 : tensor<4x200xi8>
  return %0 : tensor<4x200xi8>
}

// -----

// 4096 itself is an f16, but 2049 is not: every index must be exact.
func.func @iota_c3_float() -> tensor<4097xf16> {
  // expected-error @+1 {{iota_c3: the indices 0..4096 along dim 0 are not all exactly representable in 'f16'}}
  %0 = garray.iota dim = 0 : tensor<4097xf16>
  return %0 : tensor<4097xf16>
}

// -----

func.func @argmax_c1_empty(%x: tensor<0x4xf32>) -> tensor<4xi64> {
  // expected-error @+1 {{argmax_c1: dim 0 of operand #0 is empty; an empty dimension has no argmax}}
  %0 = garray.argmax %x, dim = 0 : (tensor<0x4xf32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Clamping to [0, V - 1] needs V >= 1.
func.func @gather_c2_no_rows(%t: tensor<0x8xf32>, %i: tensor<4xi64>) -> tensor<4x8xf32> {
  // expected-error @+1 {{gather_c2: the table (operand #0) has no rows to read: 'tensor<0x8xf32>'}}
  %0 = garray.gather %t[%i] : (tensor<0x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @scatter_add_c2_no_rows(%b: tensor<0x8xf32>, %i: tensor<4xi64>, %u: tensor<4x8xf32>) -> tensor<0x8xf32> {
  // expected-error @+1 {{scatter_add_c2: base (operand #0) has no rows to write into: 'tensor<0x8xf32>'}}
  %0 = garray.scatter_add %b, %i, %u : (tensor<0x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<0x8xf32>
  return %0 : tensor<0x8xf32>
}

// -----

func.func @scatter_reduce_c1(%b: tensor<16x8xf32>, %i: tensor<4xf32>, %u: tensor<4x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{scatter_reduce_c1: indices (operand #1) must have an integer element type, not 'f32'}}
  %0 = garray.scatter_reduce <max> %b, %i, %u : (tensor<16x8xf32>, tensor<4xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @scatter_reduce_c3(%b: tensor<16x8xf32>, %i: tensor<4xi64>, %u: tensor<4x2xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{scatter_reduce_c3: updates (operand #2) must have shape [4, 8] (indices.shape ++ base.shape[1:]) but has 'tensor<4x2xf32>'}}
  %0 = garray.scatter_reduce <min> %b, %i, %u : (tensor<16x8xf32>, tensor<4xi64>, tensor<4x2xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @scatter_reduce_c5_kind(%b: tensor<16x8xf32>, %i: tensor<4xi64>, %u: tensor<4x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{scatter_reduce_c5: the kind must be max, min or prod, not sum (scatter_add adds)}}
  %0 = garray.scatter_reduce <sum> %b, %i, %u : (tensor<16x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @scatter_reduce_c5_i1(%b: tensor<16xi1>, %i: tensor<4xi64>, %u: tensor<4xi1>) -> tensor<16xi1> {
  // expected-error @+1 {{scatter_reduce_c5: i1 values are not combined here}}
  %0 = garray.scatter_reduce <max> %b, %i, %u : (tensor<16xi1>, tensor<4xi64>, tensor<4xi1>) -> tensor<16xi1>
  return %0 : tensor<16xi1>
}
