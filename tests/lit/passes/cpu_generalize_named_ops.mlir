// RUN: shardc-opt %s -split-input-file --cpu-generalize-named-ops | FileCheck %s
//
// cpu-generalize-named-ops: every named linalg op becomes a linalg.generic
// (so elementwise fusion sees it), except linalg.matmul and
// linalg.batch_matmul, which the GEMM recipe matches later.

// CHECK-LABEL: func.func @transpose_into_matmul
// CHECK: %[[FILL:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: %[[T:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%{{.*}} : tensor<8x4xf32>)
// CHECK: linalg.matmul ins(%[[T]], %{{.*}} : tensor<4x8xf32>, tensor<8x2xf32>) outs(%[[FILL]] : tensor<4x2xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.fill
func.func @transpose_into_matmul(%a: tensor<8x4xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %et = tensor.empty() : tensor<4x8xf32>
  %t = linalg.transpose ins(%a : tensor<8x4xf32>) outs(%et : tensor<4x8xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%t, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%acc : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

// CHECK-LABEL: func.func @batch_matmul_stays
// CHECK: linalg.batch_matmul
func.func @batch_matmul_stays(%a: tensor<2x4x8xf32>, %b: tensor<2x8x2xf32>, %c: tensor<2x4x2xf32>) -> tensor<2x4x2xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x2xf32>) outs(%c : tensor<2x4x2xf32>) -> tensor<2x4x2xf32>
  return %r : tensor<2x4x2xf32>
}
