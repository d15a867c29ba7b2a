// RUN: shardc-opt %s -split-input-file --garray-lower-to-linalg -verify-diagnostics | FileCheck %s
//
// garray-lower-to-linalg: local garray compute ops become tensor-level
// linalg/arith/math. Elementwise ops are linalg.generics with identity maps;
// broadcasts read the operand through a projection; dot_general is a
// (batch_)matmul in the canonical layout over a zero-filled accumulator,
// with transposes/reshapes where the operands need them; reductions start from
// the identity of their kind. No garray op may remain.

// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @elementwise_float
// CHECK-SAME: (%[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<4xf32>)
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[ADD:.*]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>) outs(%[[E0]] : tensor<4xf32>)
// CHECK: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[V:.*]] = arith.addf %[[L]], %[[R]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[ADD]] : tensor<4xf32>)
// CHECK: math.exp
// CHECK: arith.maximumf
// CHECK: arith.negf
// CHECK-NOT: garray.
// CHECK: return
func.func @elementwise_float(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = garray.add %a, %b : tensor<4xf32>
  %1 = garray.exp %0 : tensor<4xf32>
  %2 = garray.max %1, %b : tensor<4xf32>
  %3 = garray.neg %2 : tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// Integer bodies: signed division, neg as 0 - x.
// CHECK-LABEL: func.func @elementwise_int
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: arith.divsi
// CHECK: ^bb0(%[[IN:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: arith.subi %[[ZERO]], %[[IN]] : i32
// CHECK: arith.minsi
func.func @elementwise_int(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = garray.div %a, %b : tensor<4xi32>
  %1 = garray.neg %0 : tensor<4xi32>
  %2 = garray.min %1, %a : tensor<4xi32>
  return %2 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]]
func.func @constant() -> tensor<2xf32> {
  %0 = garray.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A stretched size-1 dim is read at index 0.
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW0:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[W:[^:]+]]: tensor<2xf32>, %[[S:[^:]+]]: tensor<1x2xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[W]] : tensor<2xf32>) outs(%{{.*}} : tensor<8x2xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ROW0]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[S]] : tensor<1x2xf32>) outs(%{{.*}} : tensor<8x2xf32>)
func.func @broadcast(%w: tensor<2xf32>, %s: tensor<1x2xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>) {
  %0 = garray.broadcast_in_dim %w, dims = [1] : (tensor<2xf32>) -> tensor<8x2xf32>
  %1 = garray.broadcast_in_dim %s, dims = [0, 1] : (tensor<1x2xf32>) -> tensor<8x2xf32>
  return %0, %1 : tensor<8x2xf32>, tensor<8x2xf32>
}

// -----

// dot_general is a named (batch_)matmul in the canonical layout
// [B, M, K] x [B, K, N]: already canonical operands are used as they are.
// CHECK-LABEL: func.func @dot_general
// CHECK-SAME: (%[[B:[^:]+]]: tensor<3x4x5xf32>, %[[C:[^:]+]]: tensor<3x5x6xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<3x4x6xf32>)
// CHECK: %[[MM:.*]] = linalg.batch_matmul ins(%[[B]], %[[C]] : tensor<3x4x5xf32>, tensor<3x5x6xf32>) outs(%[[ACC]] : tensor<3x4x6xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return %[[MM]]
func.func @dot_general(%b: tensor<3x4x5xf32>, %c: tensor<3x5x6xf32>) -> tensor<3x4x6xf32> {
  %0 = garray.dot_general %b, %c, batch = [0] x [0], contracting = [2] x [1]
      : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>
  return %0 : tensor<3x4x6xf32>
}

// -----

// A weight gradient as autodiff writes it, (dyᵀ·x)ᵀ: the transpose of the
// product is the product with its operands swapped, xᵀ·dy, which reads
// both as they lie (A transposed, B as is); no transpose is left.
// CHECK-LABEL: func.func @transposed_product
// CHECK-SAME: (%[[DY:[^:]+]]: tensor<64x32xf32>, %[[X:[^:]+]]: tensor<64x16xf32>)
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16x32xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%[[X]], %[[DY]] : tensor<64x16xf32>, tensor<64x32xf32>) outs(%[[ACC]] : tensor<16x32xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return %[[MM]] : tensor<16x32xf32>
func.func @transposed_product(%dy: tensor<64x32xf32>, %x: tensor<64x16xf32>) -> tensor<16x32xf32> {
  %0 = garray.dot_general %dy, %x, batch = [] x [], contracting = [0] x [0]
      : (tensor<64x32xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
  %1 = garray.transpose %0, permutation = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
  return %1 : tensor<16x32xf32>
}

// -----

// The product has another use: it is computed once, and transposed.
// CHECK-LABEL: func.func @transposed_and_kept
// CHECK: linalg.matmul
// CHECK: linalg.transpose
func.func @transposed_and_kept(%dy: tensor<64x32xf32>, %x: tensor<64x16xf32>) -> (tensor<16x32xf32>, tensor<32x16xf32>) {
  %0 = garray.dot_general %dy, %x, batch = [] x [], contracting = [0] x [0]
      : (tensor<64x32xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
  %1 = garray.transpose %0, permutation = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
  return %1, %0 : tensor<16x32xf32>, tensor<32x16xf32>
}

// -----

// X^T r: the lhs lies as [K, M], so the matmul reads it through a
// transposed map (no copy); the vector rhs is reshaped (a view) to [K, 1],
// and the [M, 1] product back to the result shape.
// CHECK-DAG: #[[AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[BN:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[CN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @dot_general_transposed
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x2xf32>, %[[R:[^:]+]]: tensor<8xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[RK:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x1xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul indexing_maps = [#[[AT]], #[[BN]], #[[CN]]] ins(%[[X]], %[[RK]] : tensor<8x2xf32>, tensor<8x1xf32>) outs(%[[ACC]] : tensor<2x1xf32>)
// CHECK: %[[OUT:.*]] = tensor.collapse_shape %[[MM]] {{\[\[}}0, 1]] : tensor<2x1xf32> into tensor<2xf32>
// CHECK: return %[[OUT]]
func.func @dot_general_transposed(%x: tensor<8x2xf32>, %r: tensor<8xf32>) -> tensor<2xf32> {
  %0 = garray.dot_general %x, %r, batch = [] x [], contracting = [0] x [0]
      : (tensor<8x2xf32>, tensor<8xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// bf16 (and f16) products sum in an f32 accumulator and round once.
// CHECK-LABEL: func.func @dot_general_bf16
// CHECK-SAME: (%[[A:[^:]+]]: tensor<4x5xbf16>, %[[B:[^:]+]]: tensor<5x6xbf16>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4x6xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x5xbf16>, tensor<5x6xbf16>) outs(%[[ACC]] : tensor<4x6xf32>)
// CHECK: %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[MM]] : tensor<4x6xf32>) outs(%{{.*}} : tensor<4x6xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: return %[[OUT]]
func.func @dot_general_bf16(%a: tensor<4x5xbf16>, %b: tensor<5x6xbf16>) -> tensor<4x6xbf16> {
  %0 = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0]
      : (tensor<4x5xbf16>, tensor<5x6xbf16>) -> tensor<4x6xbf16>
  return %0 : tensor<4x6xbf16>
}

// -----

// q · kᵀ per batch: the rhs lies as [B, N, K], read through a transposed
// map; no copy.
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func.func @dot_general_batched_nt
// CHECK-NOT: linalg.transpose
// CHECK: linalg.batch_matmul indexing_maps = [#{{.*}}, #[[BT]], #{{.*}}] ins(%{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<2x5x8xf32>)
func.func @dot_general_batched_nt(%q: tensor<2x4x8xf32>, %k: tensor<2x5x8xf32>) -> tensor<2x4x5xf32> {
  %0 = garray.dot_general %q, %k, batch = [0] x [0], contracting = [2] x [2]
      : (tensor<2x4x8xf32>, tensor<2x5x8xf32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// -----

// A contracting dim between free dims lies in neither order: one transpose,
// to [K, M] (read through a transposed map), which keeps the innermost dim
// innermost and so copies whole rows, not to [M, K].
// CHECK-DAG: #[[AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-LABEL: func.func @dot_general_interleaved
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x8x3xf32>) outs(%{{.*}} : tensor<8x2x3xf32>) permutation = [1, 0, 2]
// CHECK: linalg.matmul indexing_maps = [#[[AT]], #{{.*}}, #{{.*}}] ins(%{{.*}}, %{{.*}} : tensor<8x6xf32>, tensor<8x4xf32>)
func.func @dot_general_interleaved(%x: tensor<2x8x3xf32>, %w: tensor<8x4xf32>) -> tensor<2x3x4xf32> {
  %0 = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<2x8x3xf32>, tensor<8x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Attention's q·kᵀ with the heads between sequence and features
// ("bqhd,bkhd->bhqk"): both operands need a copy (batch dims b, h do not
// lead); k goes to [b, h, s, d] and is read transposed, so both copies
// move whole rows of d.
// CHECK-DAG: #[[KT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func.func @attention_scores
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x8x2x4xf32>) outs(%{{.*}} : tensor<2x2x8x4xf32>) permutation = [0, 2, 1, 3]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x8x2x4xf32>) outs(%{{.*}} : tensor<2x2x8x4xf32>) permutation = [0, 2, 1, 3]
// CHECK: linalg.batch_matmul indexing_maps = [#{{.*}}, #[[KT]], #{{.*}}] ins(%{{.*}}, %{{.*}} : tensor<4x8x4xf32>, tensor<4x8x4xf32>)
func.func @attention_scores(%q: tensor<2x8x2x4xf32>, %k: tensor<2x8x2x4xf32>) -> tensor<2x2x8x8xf32> {
  %0 = garray.dot_general %q, %k, batch = [0, 2] x [0, 2], contracting = [3] x [3]
      : (tensor<2x8x2x4xf32>, tensor<2x8x2x4xf32>) -> tensor<2x2x8x8xf32>
  return %0 : tensor<2x2x8x8xf32>
}

// -----

// i1 keeps the contraction generic: linalg.matmul would use and/or on i1.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @dot_general_bool
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK-NOT: linalg.matmul
func.func @dot_general_bool(%x: tensor<8x2xi1>, %r: tensor<8xi1>) -> tensor<2xi1> {
  %0 = garray.dot_general %x, %r, batch = [] x [], contracting = [0] x [0]
      : (tensor<8x2xi1>, tensor<8xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// Identities: 0 for sum, -inf for a float max, INT_MAX for an integer min.
// CHECK-DAG: #[[IN2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COLS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[KEEP:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @reduce
// CHECK-DAG: %[[IMAX:.*]] = arith.constant 2147483647 : i32
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[FZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F0:.*]] = linalg.fill ins(%[[FZERO]] : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[IN2]], #[[COLS]]], iterator_types = ["reduction", "parallel"]} {{.*}} outs(%[[F0]] : tensor<2xf32>)
// CHECK: arith.addf
// CHECK: %[[F1:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<8x1xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[IN2]], #[[KEEP]]], iterator_types = ["parallel", "reduction"]} {{.*}} outs(%[[F1]] : tensor<8x1xf32>)
// CHECK: arith.maximumf
// CHECK: %[[F2:.*]] = linalg.fill ins(%[[IMAX]] : i32) outs(%{{.*}} : tensor<i32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} {{.*}} outs(%[[F2]] : tensor<i32>)
// CHECK: arith.minsi
func.func @reduce(%x: tensor<8x2xf32>, %i: tensor<8xi32>) -> (tensor<2xf32>, tensor<8x1xf32>, tensor<i32>) {
  %0 = garray.reduce <sum> %x, dims = [0] : (tensor<8x2xf32>) -> tensor<2xf32>
  %1 = garray.reduce <max> %x, dims = [1] keepdims : (tensor<8x2xf32>) -> tensor<8x1xf32>
  %2 = garray.reduce <min> %i, dims = [0] : (tensor<8xi32>) -> tensor<i32>
  return %0, %1, %2 : tensor<2xf32>, tensor<8x1xf32>, tensor<i32>
}

// -----

// CHECK-LABEL: func.func @reduce_prod
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ONE]] : f32)
// CHECK: arith.mulf
func.func @reduce_prod(%x: tensor<8xf32>) -> tensor<f32> {
  %0 = garray.reduce <prod> %x, dims = [0] : (tensor<8xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// exp has no integer body: an error naming the op and its constraint (the
// verifier rejects it before any lowering could leave it behind).
func.func @no_lowering(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{exp_c2: the operand has element type 'i32', but 'garray.exp' needs a float element type}}
  %0 = garray.exp %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}
