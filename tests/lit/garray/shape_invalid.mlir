// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// One negative case (at least) per labelled constraint of the shape ops
// (GArrayShapeOps.td); each expected error carries the constraint's label.

func.func @reshape_c1(%x: tensor<8x4xf32>) -> tensor<30xf32> {
  // expected-error @+1 {{reshape_c1: the operand 'tensor<8x4xf32>' has 32 elements but the result 'tensor<30xf32>' has 30}}
  %0 = garray.reshape %x : (tensor<8x4xf32>) -> tensor<30xf32>
  return %0 : tensor<30xf32>
}

// -----

func.func @reshape_c2(%x: tensor<8x4xf32>) -> tensor<32xi32> {
  // expected-error @+1 {{reshape_c2: element types differ: 'f32' vs 'i32'}}
  %0 = garray.reshape %x : (tensor<8x4xf32>) -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

// -----

func.func @transpose_c1_length(%x: tensor<8x4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{transpose_c1: permutation has 1 entries but the operand has rank 2}}
  %0 = garray.transpose %x, permutation = [1] : (tensor<8x4xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @transpose_c1_range(%x: tensor<8x4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{transpose_c1: permutation dimension 2 is out of range for rank 2}}
  %0 = garray.transpose %x, permutation = [2, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @transpose_c1_repeat(%x: tensor<8x4xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{transpose_c1: permutation dimension 0 is listed twice}}
  %0 = garray.transpose %x, permutation = [0, 0] : (tensor<8x4xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @transpose_c2(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{transpose_c2: result dim 0 has size 8 but operand dim 1 (permutation[0]) has size 4}}
  %0 = garray.transpose %x, permutation = [1, 0] : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @transpose_c3(%x: tensor<8x4xf32>) -> tensor<4x8xf64> {
  // expected-error @+1 {{transpose_c3: element types differ: 'f32' vs 'f64'}}
  %0 = garray.transpose %x, permutation = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}

// -----

func.func @slice_c1(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{slice_c1: limit has 1 entries but the operand has rank 2}}
  %0 = garray.slice %x, start = [0, 0], limit = [8], strides = [1, 1]
      : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @slice_c2_limit(%x: tensor<8x4xf32>) -> tensor<9x4xf32> {
  // expected-error @+1 {{slice_c2: dim 0 has start 0 and limit 9, but 0 <= start < limit <= 8 (its size) must hold}}
  %0 = garray.slice %x, start = [0, 0], limit = [9, 4], strides = [1, 1]
      : (tensor<8x4xf32>) -> tensor<9x4xf32>
  return %0 : tensor<9x4xf32>
}

// -----

func.func @slice_c2_empty(%x: tensor<8x4xf32>) -> tensor<8x0xf32> {
  // expected-error @+1 {{slice_c2: dim 1 has start 2 and limit 2, but 0 <= start < limit <= 4 (its size) must hold}}
  %0 = garray.slice %x, start = [0, 2], limit = [8, 2], strides = [1, 1]
      : (tensor<8x4xf32>) -> tensor<8x0xf32>
  return %0 : tensor<8x0xf32>
}

// -----

func.func @slice_c2_negative(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{slice_c2: dim 0 has start -1 and limit 7}}
  %0 = garray.slice %x, start = [-1, 0], limit = [7, 4], strides = [1, 1]
      : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @slice_c3(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{slice_c3: dim 1 has stride 0; strides must be positive}}
  %0 = garray.slice %x, start = [0, 0], limit = [8, 4], strides = [1, 0]
      : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @slice_c4(%x: tensor<8x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{slice_c4: result dim 0 has size 4 but 1:8:3 selects 3 elements}}
  %0 = garray.slice %x, start = [1, 0], limit = [8, 4], strides = [3, 1]
      : (tensor<8x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @slice_c5(%x: tensor<8x4xf32>) -> tensor<8x4xi32> {
  // expected-error @+1 {{slice_c5: element types differ: 'f32' vs 'i32'}}
  %0 = garray.slice %x, start = [0, 0], limit = [8, 4], strides = [1, 1]
      : (tensor<8x4xf32>) -> tensor<8x4xi32>
  return %0 : tensor<8x4xi32>
}

// -----

func.func @pad_c1(%x: tensor<8x4xf32>, %v: tensor<f32>) -> tensor<9x4xf32> {
  // expected-error @+1 {{pad_c1: low has 1 and high 2 entries but the operand has rank 2}}
  %0 = garray.pad %x, %v, low = [1], high = [0, 0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<9x4xf32>
  return %0 : tensor<9x4xf32>
}

// -----

func.func @pad_c2(%x: tensor<8x4xf32>, %v: tensor<f32>) -> tensor<7x4xf32> {
  // expected-error @+1 {{pad_c2: dim 0 has low -1 and high 0; padding must be non-negative (use garray.slice to cut)}}
  %0 = garray.pad %x, %v, low = [-1, 0], high = [0, 0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<7x4xf32>
  return %0 : tensor<7x4xf32>
}

// -----

func.func @pad_c3(%x: tensor<8x4xf32>, %v: tensor<f32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{pad_c3: result dim 1 has size 4 but 0 + 4 + 2 = 6}}
  %0 = garray.pad %x, %v, low = [0, 0], high = [0, 2] : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @pad_c4_rank(%x: tensor<8x4xf32>, %v: tensor<1xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{pad_c4: the padding value must be a rank-0 tensor, not 'tensor<1xf32>'}}
  %0 = garray.pad %x, %v, low = [0, 0], high = [0, 0] : (tensor<8x4xf32>, tensor<1xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @pad_c4_type(%x: tensor<8x4xf32>, %v: tensor<i32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{pad_c4: element types differ: operand 'f32', padding value 'i32', result 'f32'}}
  %0 = garray.pad %x, %v, low = [0, 0], high = [0, 0] : (tensor<8x4xf32>, tensor<i32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @concatenate_c1_empty() -> tensor<4xf32> {
  // expected-error @+1 {{concatenate_c1: at least one operand is needed}}
  %0 = "garray.concatenate"() {dim = 0 : i64} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @concatenate_c1_rank(%a: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{concatenate_c1: operand #1 has rank 1 but the result has rank 2}}
  %0 = garray.concatenate %a, %b, dim = 0 : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @concatenate_c1_dim(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{concatenate_c1: dim 2 is out of range for rank 2}}
  %0 = garray.concatenate %a, dim = 2 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @concatenate_c2(%a: tensor<4x4xf32>, %b: tensor<4x2xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{concatenate_c2: operand #1 has size 2 in dim 1 but the result has 4}}
  %0 = garray.concatenate %a, %b, dim = 0 : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @concatenate_c3(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<12x4xf32> {
  // expected-error @+1 {{concatenate_c3: the result has size 12 in dim 0 but the operands add up to 8}}
  %0 = garray.concatenate %a, %b, dim = 0 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<12x4xf32>
  return %0 : tensor<12x4xf32>
}

// -----

func.func @concatenate_c4(%a: tensor<4x4xf32>, %b: tensor<4x4xi32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{concatenate_c4: operand #1 has element type 'i32' but the result has 'f32'}}
  %0 = garray.concatenate %a, %b, dim = 0 : (tensor<4x4xf32>, tensor<4x4xi32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @reverse_c1_range(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{reverse_c1: reversed dimension 2 is out of range for rank 2}}
  %0 = garray.reverse %x, dims = [2] : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @reverse_c1_repeat(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{reverse_c1: reversed dimension 1 is listed twice}}
  %0 = garray.reverse %x, dims = [1, 1] : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @shift_c1_dim(%x: tensor<8xf32>, %f: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+1 {{shift_c1: dim 1 is out of range for an operand of rank 1}}
  %0 = garray.shift %x, %f, dim = 1, offset = 1 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @shift_c1_offset(%x: tensor<8xf32>, %f: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+1 {{shift_c1: offset -8 moves every element of dim 0 (size 8) out; |offset| must be less than the size}}
  %0 = garray.shift %x, %f, dim = 0, offset = -8 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @shift_c2(%x: tensor<8xf32>, %f: tensor<f32>) -> tensor<8xf64> {
  // expected-error @+1 {{shift_c2: the result type 'tensor<8xf64>' differs from the operand's 'tensor<8xf32>'}}
  %0 = garray.shift %x, %f, dim = 0, offset = 1 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf64>
  return %0 : tensor<8xf64>
}

// -----

func.func @shift_c3(%x: tensor<8xf32>, %f: tensor<1xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{shift_c3: fill must be a rank-0 tensor of 'f32', not 'tensor<1xf32>'}}
  %0 = garray.shift %x, %f, dim = 0, offset = 1 : (tensor<8xf32>, tensor<1xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
