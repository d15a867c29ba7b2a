// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// One negative case per labelled constraint of garray.mesh and the compute
// ops (GArrayOps.td); each expected error carries the constraint's label.
// Placement ops and #garray.sharding: sharding_invalid.mlir; global
// collectives: collectives_invalid.mlir.

// expected-error @+1 {{mesh_c1: a mesh needs at least one axis}}
garray.mesh @mesh []

// -----

// expected-error @+1 {{mesh_c1: 2 axes but 1 sizes}}
"garray.mesh"() {sym_name = "mesh", axes = ["data", "model"], sizes = array<i64: 2>} : () -> ()

// -----

// expected-error @+1 {{mesh_c2: axis names must be non-empty}}
garray.mesh @mesh ["" = 2]

// -----

// expected-error @+1 {{mesh_c2: axis "data" is declared twice}}
garray.mesh @mesh ["data" = 2, "model" = 2, "data" = 4]

// -----

// expected-error @+1 {{mesh_c3: axis "model" has size 0; sizes must be positive}}
garray.mesh @mesh ["data" = 2, "model" = 0]

// -----

// expected-error @+1 {{mesh_c3: axis "data" has size -2; sizes must be positive}}
garray.mesh @mesh ["data" = -2]

// -----

// A mesh too large to compile for is an error, not minutes of enumerating
// device groups (or an overflowing product: 2^32 x 2^32 devices).
// expected-error @+1 {{mesh_c4: the mesh has more than 65536 devices (sizes 4294967296, 4294967296); shardc compiles for at most 65536 devices: use smaller axis sizes}}
garray.mesh @mesh ["data" = 4294967296, "model" = 4294967296]

// -----

// expected-error @+1 {{mesh_c4: the mesh has more than 65536 devices (sizes 256, 512)}}
garray.mesh @mesh ["data" = 256, "model" = 512]

// -----

garray.mesh @mesh ["data" = 256, "model" = 256]

// -----

func.func @constant_not_dense() -> tensor<2xf32> {
  // expected-error @+1 {{constant_c1: the value must be a dense elements attribute}}
  %0 = garray.constant sparse<[[0]], [1.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @constant_resource() -> tensor<2xf32> {
  // expected-error @+1 {{constant_c1: the value must be a dense elements attribute}}
  %0 = garray.constant dense_resource<blob> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @broadcast_in_dim_c1(%a: tensor<2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{broadcast_in_dim_c1: dims has 2 entries but the operand has rank 1}}
  %0 = garray.broadcast_in_dim %a, dims = [0, 1] : (tensor<2xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @broadcast_in_dim_c2_range(%a: tensor<2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{broadcast_in_dim_c2: dims[0] = 2 is out of range for a result of rank 2}}
  %0 = garray.broadcast_in_dim %a, dims = [2] : (tensor<2xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @broadcast_in_dim_c2_negative(%a: tensor<2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{broadcast_in_dim_c2: dims[0] = -1 is out of range for a result of rank 2}}
  %0 = garray.broadcast_in_dim %a, dims = [-1] : (tensor<2xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @broadcast_in_dim_c2_order(%a: tensor<2x8xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{broadcast_in_dim_c2: dims must be strictly increasing, but dims[1] = 0 follows 1}}
  %0 = garray.broadcast_in_dim %a, dims = [1, 0] : (tensor<2x8xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @broadcast_in_dim_c3(%a: tensor<3xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{broadcast_in_dim_c3: operand dim 0 has size 3 but result dim 1 has size 2}}
  %0 = garray.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @broadcast_in_dim_c4(%a: tensor<2xf32>) -> tensor<8x2xf64> {
  // expected-error @+1 {{broadcast_in_dim_c4: element types differ: 'f32' vs 'f64'}}
  %0 = garray.broadcast_in_dim %a, dims = [1] : (tensor<2xf32>) -> tensor<8x2xf64>
  return %0 : tensor<8x2xf64>
}

// -----

func.func @dot_general_c1_batch(%x: tensor<8x2xf32>, %w: tensor<2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{dot_general_c1: lhs has 1 batch dims but rhs has 0}}
  %0 = garray.dot_general %x, %w, batch = [0] x [], contracting = [1] x [0]
      : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @dot_general_c1_contracting(%x: tensor<8x2xf32>, %w: tensor<2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{dot_general_c1: lhs has 1 contracting dims but rhs has 0}}
  %0 = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x []
      : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @dot_general_c2_range(%x: tensor<8x2xf32>, %w: tensor<2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{dot_general_c2: lhs contracting dimension 2 is out of range for rank 2}}
  %0 = garray.dot_general %x, %w, batch = [] x [], contracting = [2] x [0]
      : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @dot_general_c2_twice(%x: tensor<8x2xf32>, %w: tensor<2x2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{dot_general_c2: lhs contracting dimension 1 is listed twice}}
  %0 = garray.dot_general %x, %w, batch = [1] x [0], contracting = [1] x [1]
      : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @dot_general_c2_rhs(%x: tensor<8x2xf32>, %w: tensor<2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{dot_general_c2: rhs contracting dimension 1 is out of range for rank 1}}
  %0 = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [1]
      : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @dot_general_c3_contracting(%x: tensor<8x2xf32>, %w: tensor<3xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{dot_general_c3: lhs contracting dim 1 has size 2 but rhs contracting dim 0 has size 3}}
  %0 = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x2xf32>, tensor<3xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @dot_general_c3_batch(%x: tensor<4x8x2xf32>, %w: tensor<3x2xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dot_general_c3: lhs batch dim 0 has size 4 but rhs batch dim 0 has size 3}}
  %0 = garray.dot_general %x, %w, batch = [0] x [0], contracting = [2] x [1]
      : (tensor<4x8x2xf32>, tensor<3x2xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @dot_general_c4(%x: tensor<8x2xf32>, %w: tensor<2x5xf32>) -> tensor<5x8xf32> {
  // expected-error @+1 {{dot_general_c4: the result must have shape [8, 5] (batch, lhs free, rhs free) but has 'tensor<5x8xf32>'}}
  %0 = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x2xf32>, tensor<2x5xf32>) -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}

// -----

func.func @dot_general_c5_operands(%x: tensor<8x2xf32>, %w: tensor<2xf16>) -> tensor<8xf32> {
  // expected-error @+1 {{dot_general_c5: element types differ: 'f32', 'f16' -> 'f32'}}
  %0 = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x2xf32>, tensor<2xf16>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @dot_general_c5_result(%x: tensor<8x2xf32>, %w: tensor<2xf32>) -> tensor<8xf64> {
  // expected-error @+1 {{dot_general_c5: element types differ: 'f32', 'f32' -> 'f64'}}
  %0 = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf64>
  return %0 : tensor<8xf64>
}

// -----

func.func @reduce_c1_empty(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{reduce_c1: dims must not be empty}}
  %0 = garray.reduce <sum> %x, dims = [] : (tensor<8x2xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @reduce_c1_range(%x: tensor<8x2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{reduce_c1: reduced dimension 2 is out of range for rank 2}}
  %0 = garray.reduce <sum> %x, dims = [2] : (tensor<8x2xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reduce_c1_twice(%x: tensor<8x2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{reduce_c1: reduced dimension 0 is listed twice}}
  %0 = garray.reduce <max> %x, dims = [0, 0] : (tensor<8x2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_c2(%x: tensor<8x2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{reduce_c2: the result must have shape [2] but has 'tensor<8xf32>'}}
  %0 = garray.reduce <sum> %x, dims = [0] : (tensor<8x2xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reduce_c2_keepdims(%x: tensor<8x2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{reduce_c2: the result must have shape [1, 2] but has 'tensor<2xf32>'}}
  %0 = garray.reduce <sum> %x, dims = [0] keepdims : (tensor<8x2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_c3(%x: tensor<8x2xf32>) -> tensor<2xf64> {
  // expected-error @+1 {{reduce_c3: element types differ: 'f32' vs 'f64'}}
  %0 = garray.reduce <sum> %x, dims = [0] : (tensor<8x2xf32>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}

// -----

func.func @reduce_unknown_kind(%x: tensor<8x2xf32>) -> tensor<8xf32> {
  // expected-error @+2 {{expected ::mlir::garray::ReductionKind to be one of: sum, max, min, prod}}
  // expected-error @+1 {{failed to parse GArray_ReductionKindAttr parameter}}
  %0 = garray.reduce <avg> %x, dims = [1] : (tensor<8x2xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @mean_c1(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{mean_c1: dims must not be empty}}
  %0 = garray.mean %x, dims = [] : (tensor<8x2xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @mean_c1_range(%x: tensor<8x2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{mean_c1: reduced dimension -1 is out of range for rank 2}}
  %0 = garray.mean %x, dims = [-1] : (tensor<8x2xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @mean_c2(%x: tensor<8x2xf32>) -> tensor<8x1xf32> {
  // expected-error @+1 {{mean_c2: the result must have shape [8] but has 'tensor<8x1xf32>'}}
  %0 = garray.mean %x, dims = [1] : (tensor<8x2xf32>) -> tensor<8x1xf32>
  return %0 : tensor<8x1xf32>
}

// -----

func.func @mean_c3(%x: tensor<8x2xf32>) -> tensor<8xf16> {
  // expected-error @+1 {{mean_c3: element types differ: 'f32' vs 'f16'}}
  %0 = garray.mean %x, dims = [1] : (tensor<8x2xf32>) -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

func.func @mean_c4(%x: tensor<8x2xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{mean_c4: the element type must be a float, not 'i32'}}
  %0 = garray.mean %x, dims = [1] : (tensor<8x2xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}
