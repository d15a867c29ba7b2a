// RUN: shardc-opt %s -split-input-file --cpu-parallelize-leading-reductions | FileCheck %s
//
// A reduction whose outermost loop reduces (a column sum) gets its longest
// parallel loop split into 8 chunks as an outermost scf.parallel, each
// chunk the same op over its columns; the loop order inside is kept, so
// each output element is summed in the same order.

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @column_sum
// CHECK-SAME: (%[[X:[^:]+]]: memref<4096x1000xf32>, %[[B:[^:]+]]: memref<1000xf32>)
// CHECK: scf.parallel (%[[C:.*]]) = (%c0) to (%c1000) step (%c125)
// CHECK: %[[XS:.*]] = memref.subview %[[X]][0, %[[C]]] [4096, 125] [1, 1]
// CHECK: %[[BS:.*]] = memref.subview %[[B]][%[[C]]] [125] [1]
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel"]
// CHECK-SAME: ins(%[[XS]] :
// CHECK-SAME: outs(%[[BS]] :
// CHECK: scf.reduce
func.func @column_sum(%x: memref<4096x1000xf32>, %b: memref<1000xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<4096x1000xf32>) outs(%b : memref<1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Leading reductions over [4, 128] into [1, 256]: the longest parallel
// loop (256) is the one split, in chunks of 32.

#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d2, d3)>

// CHECK-LABEL: func.func @longest_parallel_loop
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c256) step (%c32)
// CHECK: memref.subview %{{.*}}[0, 0, 0, %{{.*}}] [4, 128, 1, 32]
func.func @longest_parallel_loop(%x: memref<4x128x1x256xf32>, %b: memref<1x256xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "reduction", "parallel", "parallel"]}
      ins(%x : memref<4x128x1x256xf32>) outs(%b : memref<1x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left alone: a row sum (its outer loop is parallel, and the outlining
// pass already shares it out), a reduction below min-work (64 x 64), and
// one whose parallel loop is too short to split (8 columns).

#in = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @left_alone(%x: memref<4096x1000xf32>, %r: memref<4096xf32>, %s: memref<64x64xf32>,
                      %c: memref<64xf32>, %t: memref<65536x8xf32>, %d: memref<8xf32>) {
  linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4096x1000xf32>) outs(%r : memref<4096xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %o, %a : f32
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]}
      ins(%s : memref<64x64xf32>) outs(%c : memref<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %o, %a : f32
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]}
      ins(%t : memref<65536x8xf32>) outs(%d : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %o, %a : f32
    linalg.yield %v : f32
  }
  return
}
