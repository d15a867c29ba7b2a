// RUN: shardc-opt %s --gpu-stage-contractions | FileCheck %s
// RUN: shardc-opt %s --gpu-stage-contractions="workgroup-memory=0" | FileCheck %s --check-prefix=SEQ
// RUN: shardc-opt %s --gpu-stage-contractions --gpu-map-foralls | FileCheck %s --check-prefix=LAUNCH
// RUN: shardc-opt %s --gpu-stage-contractions --gpu-map-foralls --gpu-lower-mma | FileCheck %s --check-prefix=MMA
// RUN: shardc-opt %s --gpu-stage-contractions --gpu-map-foralls --gpu-lower-mma | FileCheck %s --check-prefix=BF16
// RUN: shardc-opt %s --gpu-stage-contractions | FileCheck %s --check-prefix=TF32STAGE
// RUN: shardc-opt %s --gpu-stage-contractions --gpu-map-foralls --gpu-lower-mma | FileCheck %s --check-prefix=TF32
//
// The tensor-core recipe: a contraction tile marked shardc.gpu_mma (f16
// operands, f32 output) stages A by rows of K (64 x (32 + 8)) and B by
// rows of N (32 x (64 + 8)) as the SIMT recipe does. C's tile comes in
// and goes out through a shared 64 x (64 + 4) f32 tile, by thread foralls
// (16 elements a thread, guarded at the edge). Between them, in a kernel,
// one forall of 8 warps runs the whole K chunk loop as warp code: warp
// w's 16 x 32 patch (warps 4 x 2 over the tile) is 1 x 4 accumulator
// tiles of 16 x 8, read once
// before the loop and carried by it (registers). Thread 32 w + lane
// (affine index math) fetches its share of each chunk one chunk ahead, a
// 16-byte load per run of 8 (carried across iterations as four i32s), and
// each iteration stores the fetched chunk into the tiles, a barrier,
// fetches the next, runs each K step of 16 adding A's 16 x 16 tiles times
// B's 16 x 8 ones (vector.contract of the extended operands), and a
// barrier. In the sequential fork each chunk
// has a staging thread forall and a warp forall instead (SEQ).
// gpu-map-foralls gives the warp code every lane, w = (16 ty + tx)
// floordiv 32, in a no_inline region; gpu-lower-mma makes each
// contraction an mma.sync m16n8k16 on ldmatrix fragments (B transposed),
// the loop's accumulators mma fragments, and inlines the region. bf16
// tiles become f16 tiles of the same bits (stores bitcast), and each
// mma.sync an nvvm.mma.sync on bf16 registers. An f32 tile (marked only
// under --matmul-precision=tf32) stages each operand rounded to TF32 (add
// 2^12 to the bits, clear the low 13; a NaN quieted instead), takes K
// steps of 8, and becomes mma.sync m16n8k8 with tf32Enabled (A by
// ldmatrix, B by plain shared loads).

// CHECK-LABEL: func.func @tile
// CHECK-DAG: %[[AS:.*]] = memref.alloca() {alignment = 16 : i64} : memref<64x40xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[BS:.*]] = memref.alloca() {alignment = 16 : i64} : memref<32x72xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[ACC:.*]] = memref.alloca() {alignment = 16 : i64} : memref<64x68xf32, #gpu.address_space<workgroup>>
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (16, 16)
// CHECK-COUNT-16: memref.store %{{.*}}, %[[ACC]]
// CHECK: } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: scf.forall (%[[W:.*]]) in (8)
// CHECK-COUNT-4: vector.transfer_read %[[ACC]]{{.*}} vector<16x8xf32>
// CHECK: gpu.lane_id
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x100xf16, strided<[100, 1], offset: ?>>, vector<8xf16>
// CHECK: vector.bitcast %{{.*}} : vector<8xf16> to vector<4xi32>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<100x64xf16, strided<[128, 1], offset: ?>>, vector<8xf16>
// CHECK: vector.bitcast %{{.*}} : vector<8xf16> to vector<4xi32>
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c100 step %c32 iter_args({{.*}}) -> (vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, i32, i32, i32, i32, i32, i32, i32, i32)
// CHECK: vector.bitcast %{{.*}} : vector<4xi32> to vector<8xf16>
// CHECK: vector.store %{{.*}}, %[[AS]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: vector.bitcast %{{.*}} : vector<4xi32> to vector<8xf16>
// CHECK: vector.store %{{.*}}, %[[BS]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<32x72xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NEXT: gpu.barrier
// CHECK: affine.max
// CHECK: vector.load %{{.*}} : memref<64x100xf16, strided<[100, 1], offset: ?>>, vector<8xf16>
// CHECK: vector.load %{{.*}} : memref<100x64xf16, strided<[128, 1], offset: ?>>, vector<8xf16>
// CHECK: vector.transfer_read %[[AS]][%{{.*}}, %c0{{.*}}]{{.*}}vector<16x16xf16>
// CHECK: arith.extf %{{.*}} : vector<16x16xf16> to vector<16x16xf32>
// CHECK: vector.transfer_read %[[BS]][%c0{{.*}}, %{{.*}}]{{.*}}vector<16x8xf16>
// CHECK-COUNT-4: vector.contract
// CHECK: vector.transfer_read %[[AS]][%{{.*}}, %c16{{.*}}]
// CHECK-COUNT-4: vector.contract
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, i32,
// CHECK-NEXT: }
// CHECK-COUNT-4: vector.transfer_write %{{.*}}, %[[ACC]]
// CHECK: } {mapping = [#gpu.warp<x>]}
// CHECK-NEXT: scf.forall (%{{.*}}, %{{.*}}) in (16, 16)
// CHECK-COUNT-16: scf.if
// CHECK: } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK-NOT: linalg.matmul

// SEQ-LABEL: func.func @tile
// SEQ-DAG: memref.alloca() {alignment = 16 : i64} : memref<64x68xf32>
// SEQ-DAG: memref.alloca() {alignment = 16 : i64} : memref<64x40xf16>
// SEQ-DAG: memref.alloca() {alignment = 16 : i64} : memref<32x72xf16>
// SEQ: scf.for %{{.*}} = %c0{{.*}} to %c100 step %c32 {
// SEQ: scf.forall (%{{.*}}, %{{.*}}) in (16, 16)
// SEQ: scf.forall (%{{.*}}) in (8)
// SEQ-NOT: gpu.barrier
// SEQ-NOT: gpu.lane_id
// SEQ-COUNT-4: vector.transfer_write

// LAUNCH-LABEL: func.func @tile
// LAUNCH: gpu.launch
// LAUNCH-SAME: threads(%[[TX:[a-z0-9_]+]], %[[TY:[a-z0-9_]+]], %{{[a-z0-9_]+}}) in (%{{[a-z0-9]+}} = %c16, %{{[a-z0-9]+}} = %c16{{(_[0-9]+)?}}, %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}})
// LAUNCH-SAME: workgroup(
// LAUNCH: gpu.barrier
// LAUNCH-NEXT: scf.execute_region no_inline {
// LAUNCH-NEXT: %[[W:.*]] = affine.apply #{{.*}}(%[[TX]], %[[TY]])
// LAUNCH: scf.for
// LAUNCH: gpu.lane_id
// LAUNCH: gpu.barrier
// LAUNCH: vector.contract
// LAUNCH: gpu.barrier
// LAUNCH: scf.yield
// LAUNCH-NEXT: }
// LAUNCH: scf.yield
// LAUNCH-NEXT: }
// LAUNCH-NEXT: gpu.barrier
// LAUNCH-NOT: scf.forall

// MMA-LABEL: func.func @tile
// MMA-NOT: scf.execute_region
// MMA: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// MMA: nvgpu.ldmatrix %{{.*}} {numTiles = 2 : i32, transpose = true} : memref<32x72xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// MMA: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// MMA-COUNT-7: nvgpu.mma.sync
// MMA-NOT: vector.contract
// MMA-NOT: nvgpu.mma.sync
// MMA: gpu.terminator
func.func @tile(%a: memref<128x100xf16>, %b: memref<100x128xf16>, %c: memref<128x128xf32>) {
  scf.forall (%i, %j) = (0, 0) to (128, 128) step (64, 64) {
    %sa = memref.subview %a[%i, 0] [64, 100] [1, 1] : memref<128x100xf16> to memref<64x100xf16, strided<[100, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [100, 64] [1, 1] : memref<100x128xf16> to memref<100x64xf16, strided<[128, 1], offset: ?>>
    %sc = memref.subview %c[%i, %j] [64, 64] [1, 1] : memref<128x128xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
    linalg.matmul {shardc.gpu_mma = array<i64: 64, 64, 32>}
        ins(%sa, %sb : memref<64x100xf16, strided<[100, 1], offset: ?>>, memref<100x64xf16, strided<[128, 1], offset: ?>>)
        outs(%sc : memref<64x64xf32, strided<[128, 1], offset: ?>>)
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}

// BF16-LABEL: func.func @tile_bf16
// BF16: gpu.launch
// BF16-SAME: workgroup(%[[AS:[a-z0-9_]+]] : memref<64x40xf16, #gpu.address_space<workgroup>>, %[[BS:[a-z0-9_]+]] : memref<32x72xf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<64x68xf32, #gpu.address_space<workgroup>>)
// BF16: %[[BITS:.*]] = arith.bitcast %{{.*}} : vector<8xbf16> to vector<8xf16>
// BF16-NEXT: vector.store %[[BITS]], %[[AS]]
// BF16: nvgpu.ldmatrix %[[AS]]
// BF16: vector.bitcast %{{.*}} : vector<2xf16> to vector<1xi32>
// BF16: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// BF16-SAME: multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
// BF16-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
// BF16-COUNT-7: nvvm.mma.sync
// BF16-NOT: nvgpu.mma.sync
// BF16: gpu.terminator
func.func @tile_bf16(%a: memref<128x100xbf16>, %b: memref<100x128xbf16>, %c: memref<128x128xf32>) {
  scf.forall (%i, %j) = (0, 0) to (128, 128) step (64, 64) {
    %sa = memref.subview %a[%i, 0] [64, 100] [1, 1] : memref<128x100xbf16> to memref<64x100xbf16, strided<[100, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [100, 64] [1, 1] : memref<100x128xbf16> to memref<100x64xbf16, strided<[128, 1], offset: ?>>
    %sc = memref.subview %c[%i, %j] [64, 64] [1, 1] : memref<128x128xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
    linalg.matmul {shardc.gpu_mma = array<i64: 64, 64, 32>}
        ins(%sa, %sb : memref<64x100xbf16, strided<[100, 1], offset: ?>>, memref<100x64xbf16, strided<[128, 1], offset: ?>>)
        outs(%sc : memref<64x64xf32, strided<[128, 1], offset: ?>>)
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}

// TF32STAGE-LABEL: func.func @tile_tf32
// TF32STAGE-DAG: %[[AS:.*]] = memref.alloca() {alignment = 16 : i64} : memref<64x36xf32, #gpu.address_space<workgroup>>
// TF32STAGE-DAG: %[[BS:.*]] = memref.alloca() {alignment = 16 : i64} : memref<32x68xf32, #gpu.address_space<workgroup>>
// TF32STAGE: scf.forall (%{{.*}}) in (8)
// TF32STAGE: %[[V:.*]] = scf.if %{{.*}} -> (vector<4xf32>)
// TF32STAGE: %[[BITS:.*]] = arith.bitcast %[[V]] : vector<4xf32> to vector<4xi32>
// TF32STAGE: %[[ABS:.*]] = arith.constant dense<2147483647> : vector<4xi32>
// TF32STAGE: %[[MAG:.*]] = arith.andi %[[BITS]], %[[ABS]]
// TF32STAGE: %[[INF:.*]] = arith.constant dense<2139095040> : vector<4xi32>
// TF32STAGE: %[[NAN:.*]] = arith.cmpi ugt, %[[MAG]], %[[INF]]
// TF32STAGE: %[[HALF:.*]] = arith.constant dense<4096> : vector<4xi32>
// TF32STAGE: %[[UP:.*]], %[[CARRY:.*]] = arith.addui_extended %[[BITS]], %[[HALF]]
// TF32STAGE: %[[QUIETING:.*]] = arith.ori %[[NAN]], %[[CARRY]] : vector<4xi1>
// TF32STAGE: %[[QBIT:.*]] = arith.constant dense<4194304> : vector<4xi32>
// TF32STAGE: %[[QUIET:.*]] = arith.ori %[[BITS]], %[[QBIT]]
// TF32STAGE: %[[PICK:.*]] = arith.select %[[QUIETING]], %[[QUIET]], %[[UP]] : vector<4xi1>, vector<4xi32>
// TF32STAGE: %[[LOW:.*]] = arith.constant dense<-8192> : vector<4xi32>
// TF32STAGE: %[[CUT:.*]] = arith.andi %[[PICK]], %[[LOW]]
// TF32STAGE: %[[R:.*]] = arith.bitcast %[[CUT]] : vector<4xi32> to vector<4xf32>
// TF32STAGE: vector.bitcast %[[R]] : vector<4xf32> to vector<4xi32>
// TF32STAGE: scf.for %
// TF32STAGE: vector.store %{{.*}}, %[[AS]]
// TF32STAGE: gpu.barrier
// TF32STAGE: vector.transfer_read %[[AS]][%{{.*}}, %c0{{.*}}]{{.*}}vector<16x8xf32>
// TF32STAGE-NOT: arith.extf
// TF32STAGE-COUNT-4: vector.transfer_read %[[BS]][%c0{{.*}}, %{{.*}}]{{.*}}vector<8x8xf32>
// TF32STAGE-COUNT-4: vector.contract
// TF32STAGE: vector.transfer_read %[[AS]][%{{.*}}, %c8{{.*}}]
// TF32STAGE: vector.transfer_read %[[AS]][%{{.*}}, %c16{{.*}}]
// TF32STAGE: vector.transfer_read %[[AS]][%{{.*}}, %c24{{.*}}]
// TF32STAGE-NOT: vector.transfer_read %[[AS]][
// TF32STAGE: } {mapping = [#gpu.warp<x>]}

// TF32-LABEL: func.func @tile_tf32
// TF32: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x36xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
// TF32: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
// TF32-COUNT-15: nvgpu.mma.sync{{.*}}tf32Enabled
// TF32-NOT: nvgpu.mma.sync
// TF32-NOT: vector.contract
// TF32: gpu.terminator
func.func @tile_tf32(%a: memref<128x100xf32>, %b: memref<100x128xf32>, %c: memref<128x128xf32>) {
  scf.forall (%i, %j) = (0, 0) to (128, 128) step (64, 64) {
    %sa = memref.subview %a[%i, 0] [64, 100] [1, 1] : memref<128x100xf32> to memref<64x100xf32, strided<[100, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [100, 64] [1, 1] : memref<100x128xf32> to memref<100x64xf32, strided<[128, 1], offset: ?>>
    %sc = memref.subview %c[%i, %j] [64, 64] [1, 1] : memref<128x128xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
    linalg.matmul {shardc.gpu_mma = array<i64: 64, 64, 32>}
        ins(%sa, %sb : memref<64x100xf32, strided<[100, 1], offset: ?>>, memref<100x64xf32, strided<[128, 1], offset: ?>>)
        outs(%sc : memref<64x64xf32, strided<[128, 1], offset: ?>>)
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}
