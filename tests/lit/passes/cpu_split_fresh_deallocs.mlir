// RUN: shardc-opt %s -split-input-file --cpu-split-fresh-deallocs | FileCheck %s
//
// cpu-split-fresh-deallocs: a dealloc of distinct fresh allocations (and
// arguments) that retains nothing becomes one dealloc per buffer; any other
// is left to upstream's simplification.

// CHECK-LABEL: func.func @fresh(
// CHECK-SAME: %[[X:.*]]: memref<2xf32>, %[[C:.*]]: i1
// CHECK: %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK: bufferization.dealloc (%[[A]] : memref<8xf32>) if (%[[T:.*]])
// CHECK-NEXT: bufferization.dealloc (%[[B]] : memref<4xf32>) if (%[[C]])
// CHECK-NEXT: bufferization.dealloc (%[[X]] : memref<2xf32>) if (%[[C]])
// CHECK-NEXT: return
func.func @fresh(%x: memref<2xf32>, %c: i1) {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<4xf32>
  bufferization.dealloc (%a, %b, %x : memref<8xf32>, memref<4xf32>, memref<2xf32>) if (%true, %c, %c)
  return
}

// -----

func.func private @make() -> memref<8xf32>

// A buffer from a call may be any other one: the dealloc stays whole; so
// does one that retains a value.
// CHECK-LABEL: func.func @unknown(
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}} : memref<8xf32>, memref<8xf32>) if
// CHECK-LABEL: func.func @retains(
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}} : memref<8xf32>, memref<4xf32>) if ({{.*}}) retain
func.func @unknown() {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  %m = call @make() : () -> memref<8xf32>
  bufferization.dealloc (%a, %m : memref<8xf32>, memref<8xf32>) if (%true, %true)
  return
}

func.func @retains(%r: memref<8xf32>) -> i1 {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<4xf32>
  %o = bufferization.dealloc (%a, %b : memref<8xf32>, memref<4xf32>) if (%true, %true) retain (%r : memref<8xf32>)
  return %o : i1
}
