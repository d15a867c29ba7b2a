// RUN: shardc-opt %s --gpu-sink-views | FileCheck %s
//
// gpu-sink-views: a view a launch reads (here a subview at a host-computed
// offset, of a reshape) is recomputed inside the launch; only the buffer and
// the offset cross.

// CHECK-LABEL: func.func @views
// CHECK-SAME: (%[[BUF:[^:]*]]: memref<12xf32>, %[[OFF:[^:]*]]: index)
// CHECK: gpu.launch
// CHECK-NEXT: %[[R:.*]] = memref.expand_shape %[[BUF]]
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[R]][%[[OFF]], 0] [1, 3] [1, 1]
// CHECK: memref.load %[[V]]
func.func @views(%buf: memref<12xf32>, %off: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = memref.expand_shape %buf [[0, 1]] output_shape [4, 3] : memref<12xf32> into memref<4x3xf32>
  %v = memref.subview %r[%off, 0] [1, 3] [1, 1] : memref<4x3xf32> to memref<1x3xf32, strided<[3, 1], offset: ?>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = memref.load %v[%c0, %tx] : memref<1x3xf32, strided<[3, 1], offset: ?>>
    memref.store %x, %v[%c0, %c0] : memref<1x3xf32, strided<[3, 1], offset: ?>>
    gpu.terminator
  }
  return
}
