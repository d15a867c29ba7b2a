// RUN: shardc-opt %s --gpu-stage-transposes | FileCheck %s
// RUN: shardc-opt %s --gpu-stage-transposes="workgroup-memory=0" | FileCheck %s --check-prefix=SEQ
// RUN: shardc-opt %s --gpu-stage-transposes --gpu-map-foralls | FileCheck %s --check-prefix=LAUNCH
//
// gpu-stage-transposes: a marked 32 x 32 transpose tile becomes a read
// phase (8 x 32 threads, tx along the input's innermost dim, 4 elements
// each, guarded at the tile's edge) into a [32, 33] workgroup array and a
// write phase (tx along the output's innermost dim) out of it. In the
// sequential fork the array is a plain buffer at the function's entry;
// gpu-map-foralls puts a barrier after each phase.

// CHECK-LABEL: func.func @tile
// CHECK: %[[T:.*]] = memref.alloca() {alignment = 16 : i64} : memref<32x33xf32, #gpu.address_space<workgroup>>
// CHECK: scf.forall (%[[Y:.*]], %[[X:.*]]) in (8, 32)
// CHECK-COUNT-4: scf.if
// CHECK: memref.load %{{.*}}[%{{.*}}, %[[X]]] : memref<?x?xf32
// CHECK: memref.store %{{.*}}, %[[T]][%{{.*}}, %[[X]]]
// CHECK: } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: scf.forall (%[[Y2:.*]], %[[X2:.*]]) in (8, 32)
// CHECK: memref.load %[[T]][%[[X2]], %{{.*}}]
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %[[X2]]] : memref<?x?xf32
// CHECK: } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK-NOT: linalg.transpose

// SEQ-LABEL: func.func @tile
// SEQ-NEXT: memref.alloca() {alignment = 16 : i64} : memref<32x33xf32>

// LAUNCH: gpu.launch
// LAUNCH-SAME: workgroup(
// LAUNCH-COUNT-2: gpu.barrier
// LAUNCH: gpu.terminator
func.func @tile(%x: memref<100x70xf32>, %y: memref<70x100xf32>) {
  scf.forall (%i, %j) = (0, 0) to (70, 100) step (32, 32) {
    %m = affine.min affine_map<(d0) -> (32, 70 - d0)>(%i)
    %n = affine.min affine_map<(d0) -> (32, 100 - d0)>(%j)
    %xs = memref.subview %x[%j, %i] [%n, %m] [1, 1] : memref<100x70xf32> to memref<?x?xf32, strided<[70, 1], offset: ?>>
    %ys = memref.subview %y[%i, %j] [%m, %n] [1, 1] : memref<70x100xf32> to memref<?x?xf32, strided<[100, 1], offset: ?>>
    linalg.transpose ins(%xs : memref<?x?xf32, strided<[70, 1], offset: ?>>)
        outs(%ys : memref<?x?xf32, strided<[100, 1], offset: ?>>) permutation = [1, 0]
        {shardc.gpu_transpose = array<i64: 1, 0>}
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}
