// RUN: shardc-opt %s --split-input-file --gpu-copy-kernels | FileCheck %s
//
// gpu-copy-kernels: a strided copy outside the tiles becomes a one-thread-
// per-element nest (256 threads a block, the last block guarded); a store
// of a host scalar into a buffer becomes a one-thread nest; dense copies
// stay; a strided copy out of a constant reads a dense device copy of it.

// CHECK-LABEL: func.func @strided
// CHECK-NOT: memref.copy
// CHECK: scf.forall (%[[B:.*]]) in (1)
// CHECK: scf.forall (%[[T:.*]]) in (256)
// CHECK: %[[I:.*]] = arith.addi
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %c12
// CHECK: scf.if %[[IN]]
// CHECK: %[[COL:.*]] = arith.remui %[[I]], %c3
// CHECK: %[[ROW:.*]] = arith.divui %[[I]], %c3
// CHECK: %[[V:.*]] = memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<4x3xf32>
// CHECK: memref.store %[[V]], %{{.*}}[%[[ROW]], %[[COL]]] : memref<4x3xf32, strided<[6, 1], offset: 3>>
// CHECK: {mapping = [#gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<x>], shardc.gpu_recipe = "copy"}
func.func @strided(%a: memref<4x3xf32>, %b: memref<4x6xf32>) {
  %sub = memref.subview %b[0, 3] [4, 3] [1, 1] : memref<4x6xf32> to memref<4x3xf32, strided<[6, 1], offset: 3>>
  memref.copy %a, %sub : memref<4x3xf32> to memref<4x3xf32, strided<[6, 1], offset: 3>>
  return
}

// -----

// CHECK-LABEL: func.func @scalar
// CHECK: scf.forall (%{{.*}}) in (1)
// CHECK-NEXT: scf.forall (%{{.*}}) in (1)
// CHECK-NEXT: memref.store %arg0, %arg1[] : memref<i64>
// CHECK: {mapping = [#gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<x>], shardc.gpu_recipe = "store"}
func.func @scalar(%v: i64, %buf: memref<i64>) {
  memref.store %v, %buf[] : memref<i64>
  return
}

// -----

// CHECK-LABEL: func.func @dense
// CHECK-NOT: scf.forall
// CHECK: memref.copy %arg0, %arg1 : memref<8xf32> to memref<8xf32>
func.func @dense(%a: memref<8xf32>, %b: memref<8xf32>) {
  memref.copy %a, %b : memref<8xf32> to memref<8xf32>
  return
}

// -----

// A strided copy out of a constant (host memory): the whole constant is
// copied into a dense buffer first (the host phase uploads it), and the
// nest reads the same view of that buffer.
memref.global "private" constant @table : memref<4xi64> = dense<[0, 1, 2, 3]>

// CHECK-LABEL: func.func @constant_view
// CHECK: %[[T:.*]] = memref.get_global @table
// CHECK: %[[S:.*]] = memref.alloc() : memref<4xi64>
// CHECK: memref.copy %[[T]], %[[S]] : memref<4xi64> to memref<4xi64>
// CHECK: %[[V:.*]] = memref.subview %[[S]][2] [2] [1]
// CHECK: scf.forall
// CHECK: memref.load %[[V]]
// CHECK: {mapping = [#gpu.block<x>], shardc.gpu_recipe = "copy"}
func.func @constant_view(%c: memref<2xi64>) {
  %t = memref.get_global @table : memref<4xi64>
  %s = memref.subview %t[2] [2] [1] : memref<4xi64> to memref<2xi64, strided<[1], offset: 2>>
  memref.copy %s, %c : memref<2xi64, strided<[1], offset: 2>> to memref<2xi64>
  return
}
