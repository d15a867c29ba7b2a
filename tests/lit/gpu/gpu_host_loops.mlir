// RUN: shardc-opt %s --split-input-file --gpu-host-loops | FileCheck %s
//
// gpu-host-loops: a host loop over buffers (scatter_add's) runs whole on
// one GPU thread; its temporaries move before it, its copies become
// linalg.copy. A loop that calls a function stays on the host.

// CHECK-LABEL: func.func @scatter
// CHECK: %[[T:.*]] = memref.alloc() : memref<1xf32>
// CHECK: scf.forall (%{{.*}}) in (1)
// CHECK-NEXT: scf.forall (%{{.*}}) in (1)
// CHECK-NEXT: scf.for
// CHECK: memref.load %arg0
// CHECK: linalg.copy ins(%{{.*}} : memref<1xf32, strided<[1], offset: ?>>) outs(%[[T]] : memref<1xf32>)
// CHECK: {mapping = [#gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<x>]}
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
