// RUN: shardc-opt %s -split-input-file -verify-diagnostics --gpu-sequential-forall | FileCheck %s
//
// gpu-sequential-forall: bufferized foralls become scf.for nests in index
// order, mappings dropped; a forall with results is refused.

// CHECK-LABEL: func.func @nest
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
// CHECK-NOT: scf.forall
// CHECK-NOT: mapping
func.func @nest(%m: memref<4x8xf32>) {
  %c = arith.constant 1.0 : f32
  scf.forall (%i) = (0) to (4) step (1) {
    scf.forall (%j) = (0) to (8) step (1) {
      memref.store %c, %m[%i, %j] : memref<4x8xf32>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  return
}

// -----

func.func @not_bufferized(%t: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{gpu-sequential-forall: the forall still has results; run it after bufferization}}
  %r = scf.forall (%i) in (4) shared_outs(%o = %t) -> (tensor<4xf32>) {
    scf.forall.in_parallel {
    }
  }
  return %r : tensor<4xf32>
}
