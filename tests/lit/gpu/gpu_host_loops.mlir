// RUN: shardc-opt %s --split-input-file --gpu-host-loops | FileCheck %s
//
// gpu-host-loops: a host loop over buffers (scatter_add's) runs whole on
// one GPU thread; its temporaries move before it, its copies become
// linalg.copy. A loop that calls a function stays on the host. A loop
// whose writes are elementwise linalg ops over rows that keep their
// buffers' innermost dim whole runs on one thread per column (blocks of
// 256), each thread the whole loop on its column; a row read shifted
// along that dim keeps the one-thread form.

// CHECK-LABEL: func.func @scatter
// CHECK: %[[T:.*]] = memref.alloc() : memref<1xf32>
// CHECK: scf.forall (%{{.*}}) in (1)
// CHECK-NEXT: scf.forall (%{{.*}}) in (1)
// CHECK-NEXT: scf.for
// CHECK: memref.load %arg0
// CHECK: linalg.copy ins(%{{.*}} : memref<1xf32, strided<[1], offset: ?>>) outs(%[[T]] : memref<1xf32>)
// CHECK: {mapping = [#gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<x>], shardc.gpu_recipe = "host_loop"}
func.func @scatter(%idx: memref<4xi64>, %upd: memref<4xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %k = memref.load %idx[%i] : memref<4xi64>
    %j = arith.index_cast %k : i64 to index
    %t = memref.alloc() : memref<1xf32>
    %s = memref.subview %out[%j] [1] [1] : memref<8xf32> to memref<1xf32, strided<[1], offset: ?>>
    memref.copy %s, %t : memref<1xf32, strided<[1], offset: ?>> to memref<1xf32>
    %u = memref.load %upd[%i] : memref<4xf32>
    %v = memref.load %t[%c0] : memref<1xf32>
    %w = arith.addf %u, %v : f32
    memref.store %w, %s[%c0] : memref<1xf32, strided<[1], offset: ?>>
  }
  return
}

// -----

func.func private @shardrt_rank() -> i64

// CHECK-LABEL: func.func @calls
// CHECK-NOT: scf.forall
func.func @calls(%out: memref<4xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %r = func.call @shardrt_rank() : () -> i64
    memref.store %r, %out[%i] : memref<4xi64>
  }
  return
}

// -----

// CHECK-LABEL: func.func @rows
// CHECK: %[[T:.*]] = memref.alloc() : memref<300xf32>
// CHECK: scf.forall (%[[B:.*]]) in (2)
// CHECK-NEXT: scf.forall (%[[C:.*]]) in (256)
// CHECK: %[[COL:.*]] = arith.addi %{{.*}}, %[[C]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[COL]], %c300
// CHECK: scf.if %[[IN]]
// CHECK-NEXT: scf.for
// CHECK: memref.load %arg0
// CHECK: memref.subview %{{.*}}[%[[COL]]] [1] [1]
// CHECK: linalg.copy ins(%{{.*}} : memref<1xf32, strided<[1], offset: ?>>) outs(%{{.*}} : memref<1xf32, strided<[1], offset: ?>>)
// CHECK: linalg.generic
// CHECK-SAME: memref<1xf32
// CHECK: {mapping = [#gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<x>], shardc.gpu_recipe = "by_columns"}
#id = affine_map<(d0) -> (d0)>
func.func @rows(%idx: memref<4xindex>, %upd: memref<4x300xf32>, %out: memref<8x300xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %j = memref.load %idx[%i] : memref<4xindex>
    %t = memref.alloc() : memref<300xf32>
    %s = memref.subview %out[%j, 0] [1, 300] [1, 1] : memref<8x300xf32> to memref<300xf32, strided<[1], offset: ?>>
    memref.copy %s, %t : memref<300xf32, strided<[1], offset: ?>> to memref<300xf32>
    %u = memref.subview %upd[%i, 0] [1, 300] [1, 1] : memref<4x300xf32> to memref<300xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%t, %u : memref<300xf32>, memref<300xf32, strided<[1], offset: ?>>)
        outs(%s : memref<300xf32, strided<[1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %w = arith.addf %a, %b : f32
      linalg.yield %w : f32
    }
  }
  return
}

// -----

// CHECK-LABEL: func.func @shifted
// CHECK: scf.forall (%{{.*}}) in (1)
// CHECK-NEXT: scf.forall (%{{.*}}) in (1)
#id1 = affine_map<(d0) -> (d0)>
func.func @shifted(%idx: memref<4xindex>, %out: memref<8x301xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %j = memref.load %idx[%i] : memref<4xindex>
    %s = memref.subview %out[%j, 0] [1, 300] [1, 1] : memref<8x301xf32> to memref<300xf32, strided<[1], offset: ?>>
    %r = memref.subview %out[%j, 1] [1, 300] [1, 1] : memref<8x301xf32> to memref<300xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
        ins(%r : memref<300xf32, strided<[1], offset: ?>>)
        outs(%s : memref<300xf32, strided<[1], offset: ?>>) {
    ^bb0(%a: f32, %o: f32):
      linalg.yield %a : f32
    }
  }
  return
}
