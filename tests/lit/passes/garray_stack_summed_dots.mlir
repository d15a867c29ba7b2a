// RUN: shardc-opt %s -split-input-file --garray-stack-summed-dots | FileCheck %s
//
// garray-stack-summed-dots: the products of a sum that contract their
// operands' leading dims become one product of the stacked operands.

// A weight gradient over three steps, each product transposed the same way
// (as JAX's scan writes it), plus a term that is not a product: the
// products become one, contracting the stack dim and the batch dim, in the
// place of the first; the other term keeps its place.
// CHECK-LABEL: func.func @scan_gradient
// CHECK-SAME: (%[[X0:[^:]*]]: tensor<4x3xf32>, %[[X1:[^:]*]]: tensor<4x3xf32>, %[[X2:[^:]*]]: tensor<4x3xf32>, %[[G0:[^:]*]]: tensor<4x5xf32>, %[[G1:[^:]*]]: tensor<4x5xf32>, %[[G2:[^:]*]]: tensor<4x5xf32>, %[[B:[^:]*]]: tensor<5x3xf32>)
// CHECK-DAG: %[[R0:.*]] = garray.reshape %[[X0]] : (tensor<4x3xf32>) -> tensor<1x4x3xf32>
// CHECK-DAG: %[[R1:.*]] = garray.reshape %[[X1]]
// CHECK-DAG: %[[R2:.*]] = garray.reshape %[[X2]]
// CHECK: %[[XS:.*]] = garray.concatenate %[[R0]], %[[R1]], %[[R2]], dim = 0 : {{.*}} -> tensor<3x4x3xf32>
// CHECK: %[[GS:.*]] = garray.concatenate {{.*}}, dim = 0 : {{.*}} -> tensor<3x4x5xf32>
// CHECK: %[[P:.*]] = garray.dot_general %[[XS]], %[[GS]], batch = [] x [], contracting = [0, 1] x [0, 1] : (tensor<3x4x3xf32>, tensor<3x4x5xf32>) -> tensor<3x5xf32>
// CHECK: %[[T:.*]] = garray.transpose %[[P]], permutation = [1, 0]
// CHECK: %[[S:.*]] = garray.add %[[T]], %[[B]] : tensor<5x3xf32>
// CHECK-NOT: garray.dot_general
// CHECK: return %[[S]]
func.func @scan_gradient(%x0: tensor<4x3xf32>, %x1: tensor<4x3xf32>, %x2: tensor<4x3xf32>,
    %g0: tensor<4x5xf32>, %g1: tensor<4x5xf32>, %g2: tensor<4x5xf32>, %b: tensor<5x3xf32>)
    -> tensor<5x3xf32> {
  %p0 = garray.dot_general %x0, %g0, batch = [] x [], contracting = [0] x [0] : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %t0 = garray.transpose %p0, permutation = [1, 0] : (tensor<3x5xf32>) -> tensor<5x3xf32>
  %p1 = garray.dot_general %x1, %g1, batch = [] x [], contracting = [0] x [0] : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %t1 = garray.transpose %p1, permutation = [1, 0] : (tensor<3x5xf32>) -> tensor<5x3xf32>
  %s1 = garray.add %t0, %t1 : tensor<5x3xf32>
  %s2 = garray.add %s1, %b : tensor<5x3xf32>
  %p2 = garray.dot_general %x2, %g2, batch = [] x [], contracting = [0] x [0] : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %t2 = garray.transpose %p2, permutation = [1, 0] : (tensor<3x5xf32>) -> tensor<5x3xf32>
  %s3 = garray.add %s2, %t2 : tensor<5x3xf32>
  return %s3 : tensor<5x3xf32>
}

// -----

// Left alone: products that contract a dim other than the leading one (a
// forward x·W), a product whose value is read elsewhere too, a product
// the user placed, a sum with one qualifying product, and products deeper
// than 256.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-2: contracting = [1] x [0]
// CHECK-COUNT-3: contracting = [0] x [0]
// CHECK-COUNT-2: contracting = [0] x [0] : (tensor<512x3xf32>
// CHECK-NOT: garray.concatenate
garray.mesh @mesh ["data" = 2]
func.func @left_alone(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>, %w: tensor<3x5xf32>,
    %g: tensor<4x5xf32>, %big: tensor<512x3xf32>, %gbig: tensor<512x5xf32>)
    -> (tensor<4x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %f0 = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  %f1 = garray.dot_general %y, %w, batch = [] x [], contracting = [1] x [0] : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  %forward = garray.add %f0, %f1 : tensor<4x5xf32>
  %shared = garray.dot_general %x, %g, batch = [] x [], contracting = [0] x [0] : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %placed = garray.dot_general %y, %g, batch = [] x [], contracting = [0] x [0] {garray.sharding = #garray.sharding<@mesh, P()>} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %plain = garray.dot_general %x, %g, batch = [] x [], contracting = [0] x [0] : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %a = garray.add %shared, %placed : tensor<3x5xf32>
  %b = garray.add %a, %plain : tensor<3x5xf32>
  %d0 = garray.dot_general %big, %gbig, batch = [] x [], contracting = [0] x [0] : (tensor<512x3xf32>, tensor<512x5xf32>) -> tensor<3x5xf32>
  %d1 = garray.dot_general %big, %gbig, batch = [] x [], contracting = [0] x [0] : (tensor<512x3xf32>, tensor<512x5xf32>) -> tensor<3x5xf32>
  %deep = garray.add %d0, %d1 : tensor<3x5xf32>
  return %forward, %b, %shared, %deep : tensor<4x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}
