// RUN: shardc-opt %s -split-input-file --cpu-tile-and-vectorize-matmul="vector-bits=256 tile-rows=4 tile-vectors=2 cache-tiles=32,1024,128 m-block-multiple=1" | FileCheck %s
//
// The order of a cache block's register tiles (GemmPacking.h): when one
// packed (N, K) block of B is at most 256 KiB it stays in L2, and the loop
// over A's micro-panels (rows of tiles) goes outside the loop over B's, so
// C is written row of tiles by row of tiles; a larger B keeps B's
// micro-panel outermost (in L1) while A's stream past it. Either way the
// kernel threads share the packing of B's block, as they share the M
// blocks: a parallel loop reads one row of B per iteration, in order, and
// stores its pieces into the micro-panels.

// B block 16 x 64 f32 (4 KiB): rows outermost, 4-row tiles (q < 8) outside
// 16-column ones (p < 4).
// CHECK-LABEL: func.func @small_b
// CHECK: scf.parallel
// CHECK: scf.for %[[Q:.*]] = %c0 to %c8 step %c1 {
// CHECK: %[[ROW:.*]] = arith.muli %[[Q]], %c4 : index
// CHECK: scf.for %[[P:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT: %[[COL:.*]] = arith.muli %[[P]], %c16 : index
// CHECK-NEXT: vector.transfer_read %{{.*}}[%{{.*}}, %[[COL]]]
func.func @small_b(%A: memref<64x16xf32>, %B: memref<16x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x16xf32>, memref<16x64xf32>) outs(%C : memref<64x64xf32>)
  return
}

// -----

// B block 128 x 1024 f32 (512 KiB): columns outermost, 16-column tiles
// (p < 64) outside 4-row ones (q < 8).
// CHECK-LABEL: func.func @large_b
// CHECK: %[[PANELS:.*]] = memref.alloc() {{.*}} : memref<64x129x16xf32>
// CHECK-NEXT: scf.parallel (%[[K:.*]]) = (%c0) to (%c128) step (%c1) {
// CHECK-NEXT: scf.for %[[I:.*]] = %c0 to %c64 step %c1 {
// CHECK: %[[V:.*]] = vector.load %arg1[%[[K]], %{{.*}}] : memref<128x1024xf32>, vector<16xf32>
// CHECK-NEXT: vector.store %[[V]], %[[PANELS]][%[[I]], %[[K]], %c0]
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce
// CHECK: scf.parallel
// CHECK: scf.for %[[P:.*]] = %c0 to %c64 step %c1 {
// CHECK: %[[COL:.*]] = arith.muli %[[P]], %c16 : index
// CHECK: scf.for %[[Q:.*]] = %c0 to %c8 step %c1 {
// CHECK: arith.muli %[[Q]], %c4 : index
// CHECK: vector.transfer_read %{{.*}}[%{{.*}}, %[[COL]]]
func.func @large_b(%A: memref<64x128xf32>, %B: memref<128x1024xf32>, %C: memref<64x1024xf32>) {
  linalg.matmul ins(%A, %B : memref<64x128xf32>, memref<128x1024xf32>) outs(%C : memref<64x1024xf32>)
  return
}
