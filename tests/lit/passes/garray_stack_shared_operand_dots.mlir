// RUN: shardc-opt %s -split-input-file --garray-stack-shared-operand-dots | FileCheck %s
//
// garray-stack-shared-operand-dots: small products that share one operand
// become one product of the others, stacked along a new dim.

// A scan's input products (each step's slice of %xs times %w) beside its
// recurrence (%h times %u): the input products are one product of the
// stacked slices, built where the first was, the second slice moving up
// to it; the recurrence's products, each reading the step before, stay.
// CHECK-LABEL: func.func @scan_inputs
// CHECK-SAME: (%[[XS:[^:]*]]: tensor<3x4x2xf32>, %[[W:[^:]*]]: tensor<2x5xf32>, %[[H0:[^:]*]]: tensor<4x5xf32>, %[[U:[^:]*]]: tensor<5x5xf32>)
// CHECK: %[[S0:.*]] = garray.slice %[[XS]], start = [0, 0, 0]
// CHECK: %[[X0:.*]] = garray.reshape %[[S0]]
// CHECK: %[[S1:.*]] = garray.slice %[[XS]], start = [1, 0, 0]
// CHECK: %[[X1:.*]] = garray.reshape %[[S1]]
// CHECK: %[[R0:.*]] = garray.reshape %[[X0]] : (tensor<4x2xf32>) -> tensor<1x4x2xf32>
// CHECK: %[[R1:.*]] = garray.reshape %[[X1]] : (tensor<4x2xf32>) -> tensor<1x4x2xf32>
// CHECK: %[[ST:.*]] = garray.concatenate %[[R0]], %[[R1]], dim = 0 : {{.*}} -> tensor<2x4x2xf32>
// CHECK: %[[P:.*]] = garray.dot_general %[[ST]], %[[W]], batch = [] x [], contracting = [2] x [0] : (tensor<2x4x2xf32>, tensor<2x5xf32>) -> tensor<2x4x5xf32>
// CHECK: %[[Q0:.*]] = garray.slice %[[P]], start = [0, 0, 0], limit = [1, 4, 5]
// CHECK: %[[P0:.*]] = garray.reshape %[[Q0]] : (tensor<1x4x5xf32>) -> tensor<4x5xf32>
// CHECK: %[[Q1:.*]] = garray.slice %[[P]], start = [1, 0, 0], limit = [2, 4, 5]
// CHECK: %[[P1:.*]] = garray.reshape %[[Q1]] : (tensor<1x4x5xf32>) -> tensor<4x5xf32>
// CHECK: %[[A0:.*]] = garray.dot_general %[[H0]], %[[U]]
// CHECK: %[[H1:.*]] = garray.add %[[P0]], %[[A0]]
// CHECK: %[[A1:.*]] = garray.dot_general %[[H1]], %[[U]]
// CHECK: %[[H2:.*]] = garray.add %[[P1]], %[[A1]]
// CHECK: return %[[H2]]
func.func @scan_inputs(%xs: tensor<3x4x2xf32>, %w: tensor<2x5xf32>, %h0: tensor<4x5xf32>,
    %u: tensor<5x5xf32>) -> tensor<4x5xf32> {
  %s0 = garray.slice %xs, start = [0, 0, 0], limit = [1, 4, 2], strides = [1, 1, 1] : (tensor<3x4x2xf32>) -> tensor<1x4x2xf32>
  %x0 = garray.reshape %s0 : (tensor<1x4x2xf32>) -> tensor<4x2xf32>
  %p0 = garray.dot_general %x0, %w, batch = [] x [], contracting = [1] x [0] : (tensor<4x2xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
  %r0 = garray.dot_general %h0, %u, batch = [] x [], contracting = [1] x [0] : (tensor<4x5xf32>, tensor<5x5xf32>) -> tensor<4x5xf32>
  %h1 = garray.add %p0, %r0 : tensor<4x5xf32>
  %s1 = garray.slice %xs, start = [1, 0, 0], limit = [2, 4, 2], strides = [1, 1, 1] : (tensor<3x4x2xf32>) -> tensor<1x4x2xf32>
  %x1 = garray.reshape %s1 : (tensor<1x4x2xf32>) -> tensor<4x2xf32>
  %p1 = garray.dot_general %x1, %w, batch = [] x [], contracting = [1] x [0] : (tensor<4x2xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
  %r1 = garray.dot_general %h1, %u, batch = [] x [], contracting = [1] x [0] : (tensor<4x5xf32>, tensor<5x5xf32>) -> tensor<4x5xf32>
  %h2 = garray.add %p1, %r1 : tensor<4x5xf32>
  return %h2 : tensor<4x5xf32>
}

// -----

// A shared lhs with the weights on the rhs, contracted over their leading
// dim: the weights stack along a new dim before their free dim, so the
// stack is [2, 2, 5] read as one [2, 10] operand, and the result's new dim
// follows the lhs's free dim.
// CHECK-LABEL: func.func @shared_lhs
// CHECK-SAME: (%[[H:[^:]*]]: tensor<4x2xf32>, %[[A:[^:]*]]: tensor<2x5xf32>, %[[B:[^:]*]]: tensor<2x5xf32>)
// CHECK: %[[RA:.*]] = garray.reshape %[[A]] : (tensor<2x5xf32>) -> tensor<2x1x5xf32>
// CHECK: %[[RB:.*]] = garray.reshape %[[B]] : (tensor<2x5xf32>) -> tensor<2x1x5xf32>
// CHECK: %[[ST:.*]] = garray.concatenate %[[RA]], %[[RB]], dim = 1 : {{.*}} -> tensor<2x2x5xf32>
// CHECK: %[[P:.*]] = garray.dot_general %[[H]], %[[ST]], batch = [] x [], contracting = [1] x [0] : (tensor<4x2xf32>, tensor<2x2x5xf32>) -> tensor<4x2x5xf32>
// CHECK: garray.slice %[[P]], start = [0, 0, 0], limit = [4, 1, 5]
// CHECK: garray.slice %[[P]], start = [0, 1, 0], limit = [4, 2, 5]
// CHECK-NOT: garray.dot_general
func.func @shared_lhs(%h: tensor<4x2xf32>, %a: tensor<2x5xf32>, %b: tensor<2x5xf32>)
    -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %p = garray.dot_general %h, %a, batch = [] x [], contracting = [1] x [0] : (tensor<4x2xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
  %q = garray.dot_general %h, %b, batch = [] x [], contracting = [1] x [0] : (tensor<4x2xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
  return %p, %q : tensor<4x5xf32>, tensor<4x5xf32>
}

// -----

// Left alone: products with batch dims, a product the user placed, products
// whose other operand differs in type, a product whose operand is made
// after the group's first member by an op that cannot move up to it (an
// add), and products of more than 2^22 multiply-adds.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: garray.concatenate
// CHECK-COUNT-8: garray.dot_general
// CHECK-NOT: garray.concatenate
garray.mesh @mesh ["data" = 2]
func.func @left_alone(%x: tensor<4x2xf32>, %y: tensor<4x2xf32>, %w: tensor<2x5xf32>,
    %bx: tensor<3x4x2xf32>, %bw: tensor<3x2x5xf32>, %z: tensor<6x2xf32>,
    %big: tensor<2048x1024xf32>, %bigw: tensor<1024x1024xf32>, %big2: tensor<2048x1024xf32>)
    -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<6x5xf32>,
        tensor<4x5xf32>, tensor<2048x1024xf32>, tensor<2048x1024xf32>) {
  %b0 = garray.dot_general %bx, %bw, batch = [0] x [0], contracting = [2] x [1] : (tensor<3x4x2xf32>, tensor<3x2x5xf32>) -> tensor<3x4x5xf32>
  %b1 = garray.dot_general %bx, %bw, batch = [0] x [0], contracting = [2] x [1] : (tensor<3x4x2xf32>, tensor<3x2x5xf32>) -> tensor<3x4x5xf32>
  %placed = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P()>} : (tensor<4x2xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
  %alone = garray.dot_general %y, %w, batch = [] x [], contracting = [1] x [0] : (tensor<4x2xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
  %other = garray.dot_general %z, %w, batch = [] x [], contracting = [1] x [0] : (tensor<6x2xf32>, tensor<2x5xf32>) -> tensor<6x5xf32>
  %sum = garray.add %x, %y : tensor<4x2xf32>
  %late = garray.dot_general %sum, %w, batch = [] x [], contracting = [1] x [0] : (tensor<4x2xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
  %g0 = garray.dot_general %big, %bigw, batch = [] x [], contracting = [1] x [0] : (tensor<2048x1024xf32>, tensor<1024x1024xf32>) -> tensor<2048x1024xf32>
  %g1 = garray.dot_general %big2, %bigw, batch = [] x [], contracting = [1] x [0] : (tensor<2048x1024xf32>, tensor<1024x1024xf32>) -> tensor<2048x1024xf32>
  return %b0, %b1, %placed, %alone, %other, %late, %g0, %g1
      : tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<6x5xf32>,
        tensor<4x5xf32>, tensor<2048x1024xf32>, tensor<2048x1024xf32>
}
