// RUN: shardc-opt %s -split-input-file --cpu-tile-and-vectorize-matmul="vector-bits=256 tile-rows=4 tile-vectors=2 cache-tiles=32,32,16" | FileCheck %s
// RUN: not shardc-opt %s -split-input-file --cpu-tile-and-vectorize-matmul="tile-rows=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADOPT
//
// cpu-tile-and-vectorize-matmul: cache blocks (loops N, K, M), register tiles
// (loops M, N, K) of tile-rows x (tile-vectors x lanes), the accumulator read
// before the K loop and written after it, FMAs in between. With 256-bit
// vectors an f32 tile is 4 x 16 and an f64 tile 4 x 8.

// BADOPT: error: cpu-tile-and-vectorize-matmul: invalid tile options (vector-bits=256, tile-rows=0, tile-vectors=2): expected positive sizes

// Sizes that divide the tiles: only full tiles, no linalg left.
// CHECK-LABEL: func.func @full_tiles
// CHECK-SAME: (%[[A:[^:]+]]: memref<64x32xf32>, %[[B:[^:]+]]: memref<32x64xf32>, %[[C:[^:]+]]: memref<64x64xf32>)
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: scf.for %[[N0:.*]] = %{{.*}} to %{{.*}} step %[[C32]]
// CHECK-NEXT: scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %[[C16]]
// CHECK-NEXT: scf.for %[[M0:.*]] = %{{.*}} to %{{.*}} step %[[C32]]
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[C32]] step %[[C4]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C32]] step %[[C16]]
// CHECK: %[[ACC:.*]] = vector.transfer_read %[[C]][%[[I:.*]], %[[J:.*]]], %{{.*}} : memref<64x64xf32>, vector<4x16xf32>
// CHECK-NEXT: %[[RES:.*]] = scf.for %{{.*}} = %{{.*}} to %[[C16]] step %[[C1]] iter_args(%[[ITER:.*]] = %[[ACC]]) -> (vector<4x16xf32>)
// CHECK: vector.transfer_read %[[A]]{{.*}} : memref<64x32xf32>, vector<4x1xf32>
// CHECK: vector.transfer_read %[[B]]{{.*}} : memref<32x64xf32>, vector<1x16xf32>
// CHECK-COUNT-4: vector.fma {{.*}} : vector<16xf32>
// CHECK: scf.yield %{{.*}} : vector<4x16xf32>
// CHECK: vector.transfer_write %[[RES]], %[[C]][%[[I]], %[[J]]] {{.*}} : vector<4x16xf32>, memref<64x64xf32>
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @full_tiles(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
  return
}

// -----

// 33 x 17 x 65 in f64: the peeled main loops hold vectorized 4 x 8 tiles; the
// last column and the last row stay linalg.matmul on subviews (scalar loops
// later), with dynamic sizes only in the row remainder.
// CHECK-LABEL: func.func @remainders
// CHECK: scf.yield %{{.*}} : vector<4x8xf64>
// CHECK: vector.transfer_write %{{.*}} : vector<4x8xf64>, memref<33x17xf64>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x1xf64, strided<[65, 1], offset: ?>>, memref<1x1xf64, strided<[17, 1], offset: ?>>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<?x1xf64, strided<[65, 1], offset: ?>>, memref<1x?xf64, strided<[17, 1], offset: ?>>)
func.func @remainders(%A: memref<33x65xf64>, %B: memref<65x17xf64>, %C: memref<33x17xf64>) {
  linalg.matmul ins(%A, %B : memref<33x65xf64>, memref<65x17xf64>) outs(%C : memref<33x17xf64>)
  return
}

// -----

// batch_matmul: a loop over the batch around the same recipe.
// CHECK-LABEL: func.func @batched
// CHECK-SAME: (%[[A:[^:]+]]: memref<3x8x16xf32>, %[[B:[^:]+]]: memref<3x16x16xf32>, %[[C:[^:]+]]: memref<3x8x16xf32>)
// CHECK: scf.for %[[BATCH:.*]] = %{{.*}} to %{{.*}} step
// CHECK: vector.transfer_read %[[C]][%[[BATCH]], %{{.*}}, %{{.*}}]{{.*}} : memref<3x8x16xf32>, vector<4x16xf32>
// CHECK-COUNT-4: vector.fma
// CHECK: vector.transfer_write %{{.*}}, %[[C]][%[[BATCH]], %{{.*}}, %{{.*}}]
// CHECK-NOT: linalg.batch_matmul
func.func @batched(%A: memref<3x8x16xf32>, %B: memref<3x16x16xf32>, %C: memref<3x8x16xf32>) {
  linalg.batch_matmul ins(%A, %B : memref<3x8x16xf32>, memref<3x16x16xf32>) outs(%C : memref<3x8x16xf32>)
  return
}

// -----

// Integers (and tensors, and other element types) are left to
// convert-linalg-to-loops.
// CHECK-LABEL: func.func @integers
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: return
func.func @integers(%A: memref<8x8xi32>, %B: memref<8x8xi32>, %C: memref<8x8xi32>) {
  linalg.matmul ins(%A, %B : memref<8x8xi32>, memref<8x8xi32>) outs(%C : memref<8x8xi32>)
  return
}
