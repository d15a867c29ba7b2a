// RUN: shardc-opt %s -split-input-file --gpu-vectorize-threads | FileCheck %s
//
// gpu-vectorize-threads: a thread's elementwise op on its run of 4 becomes
// vector loads, the body on vectors and vector stores, guarded by a run
// check of extent 4 and alignment of every operand that reads the run, the
// scalar op kept for the rest; broadcast operands are loaded once. A
// contraction's run loops over K in order with the 4 outputs carried as a
// vector (named ops are generalized first). Transposed reads, bool
// operands and ops outside thread foralls stay.

// CHECK-LABEL: func.func @run
// CHECK: scf.forall
// CHECK: arith.cmpi eq, %{{.*}}, %c4
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: memref.extract_strided_metadata
// CHECK: arith.remui %{{.*}}, %c16
// CHECK: scf.if
// CHECK: vector.load %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<1x?xf32, strided<[1000, 1], offset: ?>>, vector<4xf32>
// CHECK: %[[S:.*]] = memref.load
// CHECK: vector.broadcast %[[S]] : f32 to vector<4xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: math.tanh %{{.*}} : vector<4xf32>
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64}
// CHECK: } else {
// CHECK: linalg.generic
// CHECK: } {mapping = [#gpu.thread<x>]}
func.func @run(%a: memref<8x1000xf32>, %s: memref<8xf32>, %out: memref<8x1000xf32>) {
  scf.forall (%t) in (250) {
    %j = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
    %n = affine.min affine_map<(d0) -> (4, 1000 - d0 * 4)>(%t)
    %av = memref.subview %a[3, %j] [1, %n] [1, 1] : memref<8x1000xf32> to memref<1x?xf32, strided<[1000, 1], offset: ?>>
    %sv = memref.subview %s[3] [1] [1] : memref<8xf32> to memref<1xf32, strided<[1], offset: 3>>
    %ov = memref.subview %out[3, %j] [1, %n] [1, 1] : memref<8x1000xf32> to memref<1x?xf32, strided<[1000, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>,
                                     affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%av, %sv : memref<1x?xf32, strided<[1000, 1], offset: ?>>, memref<1xf32, strided<[1], offset: 3>>)
        outs(%ov : memref<1x?xf32, strided<[1000, 1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %m = arith.mulf %x, %y : f32
      %r = math.tanh %m : f32
      linalg.yield %r : f32
    }
  } {mapping = [#gpu.thread<x>]}
  return
}

// -----

// A matmul's run: K in order, A's element broadcast, B's run loaded (its
// row stride checked too), C carried.
// CHECK-LABEL: func.func @contraction
// CHECK: memref.extract_strided_metadata
// CHECK: arith.remui %{{.*}}, %c4
// CHECK: scf.if
// CHECK: %[[C:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<1x4xf32
// CHECK: %[[R:.*]] = scf.for %[[K:.*]] = %{{.*}} to %c256 step %c1 iter_args(%[[ACC:.*]] = %[[C]]) -> (vector<4xf32>)
// CHECK: %[[A:.*]] = memref.load %{{.*}}[%{{.*}}, %[[K]]]
// CHECK: vector.broadcast %[[A]]
// CHECK: vector.load %{{.*}}[%[[K]], %{{.*}}] {alignment = 16 : i64} : memref<256x4xf32
// CHECK: arith.mulf {{.*}} : vector<4xf32>
// CHECK: arith.addf {{.*}} : vector<4xf32>
// CHECK: vector.store %[[R]]
// CHECK: } else {
// CHECK: linalg.generic
func.func @contraction(%a: memref<512x256xf32>, %b: memref<256x384xf32>, %c: memref<512x384xf32>) {
  scf.forall (%t) in (96) {
    %j = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
    %av = memref.subview %a[3, 0] [1, 256] [1, 1] : memref<512x256xf32> to memref<1x256xf32, strided<[256, 1], offset: 768>>
    %bv = memref.subview %b[0, %j] [256, 4] [1, 1] : memref<256x384xf32> to memref<256x4xf32, strided<[384, 1], offset: ?>>
    %cv = memref.subview %c[3, %j] [1, 4] [1, 1] : memref<512x384xf32> to memref<1x4xf32, strided<[384, 1], offset: ?>>
    linalg.matmul ins(%av, %bv : memref<1x256xf32, strided<[256, 1], offset: 768>>, memref<256x4xf32, strided<[384, 1], offset: ?>>)
                  outs(%cv : memref<1x4xf32, strided<[384, 1], offset: ?>>)
  } {mapping = [#gpu.thread<x>]}
  return
}

// -----

// Left alone: a transposed read, bool elements, and an op in no thread
// forall.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: vector.load
// CHECK-NOT: scf.if
func.func @kept(%a: memref<4x4xf32>, %b: memref<1x4xi1>, %out: memref<1x4xf32>, %o2: memref<1x4xi1>) {
  scf.forall (%t) in (1) {
    %col = memref.subview %a[0, 0] [4, 1] [1, 1] : memref<4x4xf32> to memref<4x1xf32, strided<[4, 1]>>
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%col : memref<4x1xf32, strided<[4, 1]>>) outs(%out : memref<1x4xf32>) {
    ^bb0(%x: f32, %o: f32):
      linalg.yield %x : f32
    }
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%b : memref<1x4xi1>) outs(%o2 : memref<1x4xi1>) {
    ^bb0(%x: i1, %o: i1):
      linalg.yield %x : i1
    }
  } {mapping = [#gpu.thread<x>]}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%out : memref<1x4xf32>) outs(%out : memref<1x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}
