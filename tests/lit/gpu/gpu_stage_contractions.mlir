// RUN: shardc-opt %s --gpu-stage-contractions | FileCheck %s
// RUN: shardc-opt %s --gpu-stage-contractions="workgroup-memory=0" | FileCheck %s --check-prefix=SEQ
// RUN: shardc-opt %s --gpu-stage-contractions --gpu-map-foralls | FileCheck %s --check-prefix=LAUNCH
//
// gpu-stage-contractions: a marked contraction tile on buffers becomes
// workgroup buffers for A (k-major) and B, padded by 16 bytes a row, and
// thread-private accumulators (a [1, 16] buffer in the block's code: one
// per thread); a thread forall loads each thread's 4 x 4 outputs from C
// (guarded at the tile's edge); a loop over K chunks of BK = 32 holds a
// staging thread forall (each thread copies 64 * 32 / 256 = 8 elements of
// each operand as two runs of 4 along the operand's rows: one 16-byte
// load when the run lies inside and the operand's alignment, checked once
// in the block's code, allows, else 4 guarded loads; A's runs go to its
// K-major tile element by element, B's as one 16-byte store) and a compute
// thread forall (the accumulators, the op's body over the chunk's steps
// with A's and B's runs as vector loads, multiplies and adds free to
// contract, the accumulators again); a last thread forall writes them to
// C, guarded. In the sequential fork the buffers are plain ones at the
// function's entry, the accumulators a row per thread. gpu-map-foralls
// then puts a barrier after each thread forall and makes the shared
// buffers the launch's workgroup attributions.

// CHECK-LABEL: func.func @tile
// CHECK: scf.forall
// CHECK-DAG: %[[AS:.*]] = memref.alloca() {alignment = 16 : i64} : memref<32x68xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[BS:.*]] = memref.alloca() {alignment = 16 : i64} : memref<32x68xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[ACC:.*]] = memref.alloca() : memref<1x16xf32>
// CHECK-DAG: memref.extract_aligned_pointer_as_index %{{.*}} : memref<64x100xf32, strided<[100, 1], offset: ?>>
// CHECK-DAG: memref.extract_aligned_pointer_as_index %{{.*}} : memref<100x64xf32, strided<[128, 1], offset: ?>>
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (16, 16)
// CHECK-COUNT-16: memref.store %{{.*}}, %[[ACC]][%c0{{.*}}, %c{{[0-9]+}}{{.*}}] : memref<1x16xf32>
// CHECK: } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: scf.for %[[K0:.*]] = %c0{{.*}} to %c100 step %c32
// CHECK: %[[KC:.*]] = arith.minsi
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (16, 16)
// CHECK: scf.if %{{.*}} -> (vector<4xf32>)
// CHECK-NEXT: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x100xf32, strided<[100, 1], offset: ?>>, vector<4xf32>
// CHECK: } else {
// CHECK: vector.from_elements %{{.*}} : vector<4xf32>
// CHECK-COUNT-8: memref.store %{{.*}}, %[[AS]][
// CHECK-NOT: memref.store %{{.*}}, %[[BS]][
// CHECK-COUNT-2: vector.store %{{.*}}, %[[BS]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<32x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (16, 16)
// CHECK-COUNT-16: memref.load %[[ACC]]
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %[[KC]] step %c1{{.*}} iter_args(
// CHECK: vector.load %[[AS]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<32x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: vector.load %[[BS]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<32x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: scf.yield
// CHECK-COUNT-16: memref.store %{{.*}}, %[[ACC]]
// CHECK: } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: }
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (16, 16)
// CHECK-COUNT-16: scf.if
// CHECK: } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK-NOT: linalg.matmul
// CHECK: } {mapping = [#gpu.block<y>, #gpu.block<x>]}

// SEQ-LABEL: func.func @tile
// SEQ-NEXT: memref.alloca() : memref<256x16xf32>
// SEQ-NEXT: memref.alloca() {alignment = 16 : i64} : memref<32x68xf32>
// SEQ-NEXT: memref.alloca() {alignment = 16 : i64} : memref<32x68xf32>
// SEQ: scf.forall

// LAUNCH-LABEL: func.func @tile
// LAUNCH: gpu.launch
// LAUNCH-SAME: threads(%{{[^)]*}}) in (%{{[a-z0-9]+}} = %c16, %{{[a-z0-9]+}} = %c16{{(_[0-9]+)?}}, %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}})
// LAUNCH-SAME: workgroup(%[[A:[a-z0-9_]+]] : memref<32x68xf32, #gpu.address_space<workgroup>>, %[[B:[a-z0-9_]+]] : memref<32x68xf32, #gpu.address_space<workgroup>>)
// LAUNCH-NOT: memref.alloca{{.*}}workgroup
// LAUNCH: memref.alloca() : memref<1x16xf32>
// LAUNCH: gpu.barrier
// LAUNCH: scf.for
// LAUNCH: memref.store %{{.*}}, %[[A]]
// LAUNCH: gpu.barrier
// LAUNCH: vector.load %[[A]]
// LAUNCH: gpu.barrier
// LAUNCH-NEXT: }
// LAUNCH: gpu.barrier
// LAUNCH-NEXT: gpu.terminator
func.func @tile(%a: memref<128x100xf32>, %b: memref<100x128xf32>, %c: memref<128x128xf32>) {
  scf.forall (%i, %j) = (0, 0) to (128, 128) step (64, 64) {
    %sa = memref.subview %a[%i, 0] [64, 100] [1, 1] : memref<128x100xf32> to memref<64x100xf32, strided<[100, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [100, 64] [1, 1] : memref<100x128xf32> to memref<100x64xf32, strided<[128, 1], offset: ?>>
    %sc = memref.subview %c[%i, %j] [64, 64] [1, 1] : memref<128x128xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
    linalg.matmul {shardc.gpu_staged = array<i64: 64, 64, 32, 4, 4>}
        ins(%sa, %sb : memref<64x100xf32, strided<[100, 1], offset: ?>>, memref<100x64xf32, strided<[128, 1], offset: ?>>)
        outs(%sc : memref<64x64xf32, strided<[128, 1], offset: ?>>)
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}
