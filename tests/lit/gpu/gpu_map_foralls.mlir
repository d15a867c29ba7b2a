// RUN: shardc-opt %s -split-input-file -verify-diagnostics --gpu-map-foralls | FileCheck %s
//
// gpu-map-foralls: a block forall becomes a gpu.launch whose grid x is the
// product of its trip counts (delinearized, fastest mapping index first)
// and whose block is the shape of its thread foralls; self-copies left by
// bufferization go. The launch is named after the recipe that made the
// forall, so the outlined kernel is <function>_<recipe>.

// CHECK-LABEL: func.func @launch
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], {{.*}}) in (%{{[^ ]*}} = %c6, {{.*}} threads({{.*}}) in (%{{[^ ]*}} = %c256, {{.*}} function(@launch_output)
// x (the 2 column tiles) is the fastest part of the block id, then the 3
// rows:
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: arith.remui %[[BX]], %[[C2]]
// CHECK: %[[REST:.*]] = arith.divui %[[BX]], %[[C2]]
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: arith.remui %[[REST]], %[[C3]]
// CHECK: memref.store
// CHECK-NOT: memref.copy
// CHECK-NOT: scf.forall
// CHECK: gpu.terminator
func.func @launch(%m: memref<3x2000xf32>) {
  %c = arith.constant 1.0 : f32
  scf.forall (%i, %j) = (0, 0) to (3, 2000) step (1, 1024) {
    scf.forall (%ty, %tx) in (1, 256) {
      %k = arith.addi %j, %tx : index
      memref.store %c, %m[%i, %k] : memref<3x2000xf32>
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    memref.copy %m, %m : memref<3x2000xf32> to memref<3x2000xf32>
  } {mapping = [#gpu.block<y>, #gpu.block<x>], shardc.gpu_recipe = "output"}
  return
}

// -----

func.func @dynamic(%m: memref<?xf32>, %n: index) {
  %c = arith.constant 1.0 : f32
  // expected-error @+1 {{gpu-map-foralls: a block forall needs static bounds and one block mapping per loop}}
  scf.forall (%i) = (0) to (%n) step (1) {
    memref.store %c, %m[%i] : memref<?xf32>
  } {mapping = [#gpu.block<x>]}
  return
}

// -----

func.func @too_many_threads(%m: memref<4096xf32>) {
  %c = arith.constant 1.0 : f32
  // expected-error @+1 {{gpu-map-foralls: 1 blocks of 2048x1 threads exceed the GPU's limits}}
  scf.forall (%i) = (0) to (4096) step (4096) {
    scf.forall (%t) in (2048) {
      memref.store %c, %m[%t] : memref<4096xf32>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  return
}
