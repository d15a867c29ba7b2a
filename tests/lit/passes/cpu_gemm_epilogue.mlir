// RUN: shardc-opt %s -split-input-file --cpu-tile-and-vectorize-matmul="vector-bits=256 tile-rows=8 tile-vectors=2 cache-tiles=144,4096,256" | FileCheck %s
// RUN: shardc-opt %s -split-input-file --cpu-tile-and-vectorize-matmul="vector-bits=256 tile-rows=8 tile-vectors=2 cache-tiles=144,4096,256 fuse-epilogues=0" | FileCheck %s --check-prefix=UNFUSED
//
// A C that only one elementwise generic reads: the tiles compute the
// generic in the last K block and store its result; C is stored only in
// the K blocks before; the generic itself runs on C's edges alone.

// 37 x 45 with 8 x 16 tiles: full tiles cover 32 x 32; K = 300 is two K
// blocks of 256.
// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME: (%[[A:.*]]: memref<37x300xf32>, %[[B:.*]]: memref<300x45xf32>, %[[BIAS:.*]]: memref<45xf32>, %[[H:.*]]: memref<37x45xf32>)
// CHECK: %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<37x45xf32>
// CHECK: scf.for {{.*}} {
// CHECK: %[[LAST:.*]] = arith.cmpi sge
// CHECK: scf.if %[[LAST]] {
// CHECK: vector.load %[[BIAS]]
// CHECK: arith.addf {{.*}} : vector<8x16xf32>
// CHECK: arith.maximumf {{.*}} : vector<8x16xf32>
// CHECK: vector.transfer_write {{.*}}, %[[H]]
// CHECK: } else {
// CHECK: vector.transfer_write {{.*}}, %[[C]]
// CHECK: }
// The edges: rows 32..36, then columns 32..44 of rows 0..31.
// CHECK: %[[ROWS:.*]] = memref.subview %[[C]][32, 0] [5, 45] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[ROWS]],
// CHECK: %[[COLS:.*]] = memref.subview %[[C]][0, 32] [32, 13] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[COLS]],
// UNFUSED-LABEL: func.func @bias_relu
// UNFUSED-NOT: arith.cmpi sge
// UNFUSED: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<37x45xf32>, memref<45xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu(%a: memref<37x300xf32>, %b: memref<300x45xf32>, %bias: memref<45xf32>,
                     %h: memref<37x45xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<37x45xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<37x45xf32>)
  linalg.matmul ins(%a, %b : memref<37x300xf32>, memref<300x45xf32>) outs(%c : memref<37x45xf32>)
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<37x45xf32>, memref<45xf32>) outs(%h : memref<37x45xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      %r = arith.maximumf %s, %zero : f32
      linalg.yield %r : f32
  }
  memref.dealloc %c : memref<37x45xf32>
  return
}

// -----

// C read by two ops: stored as before, the generic whole.
// CHECK-LABEL: func.func @two_readers
// CHECK-NOT: arith.cmpi sge
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<32x32xf32>, memref<32xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @two_readers(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %bias: memref<32xf32>,
                       %h: memref<32x32xf32>, %copy: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<32x32xf32>, memref<32xf32>) outs(%h : memref<32x32xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
  }
  memref.copy %c, %copy : memref<32x32xf32> to memref<32x32xf32>
  memref.dealloc %c : memref<32x32xf32>
  return
}
