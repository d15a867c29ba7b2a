// RUN: shardc-opt %s --gpu-block-reductions | FileCheck %s
// RUN: shardc-opt %s --gpu-block-reductions="workgroup-memory=0" | FileCheck %s --check-prefix=SEQ
// RUN: shardc-opt %s --gpu-block-reductions --gpu-map-foralls | FileCheck %s --check-prefix=LAUNCH
// RUN: shardc-opt %s --gpu-block-reductions --gpu-map-foralls --gpu-lower-warp-trees | FileCheck %s --check-prefix=SHUFFLE
//
// gpu-block-reductions: a marked row-reduction tile of [R = 1 row, T =
// 256 threads] becomes 256 threads each folding elements t, t + 256, ...
// from the combiner's neutral value into a workgroup array, a pairwise
// tree (s = 128 down to 32, threads below s), the last five steps as warp
// code of the row's first warp (32 partials halved: element t takes in
// t + s, s = 16, ..., 1; the total stored as partial 0), and thread 0
// folding the total into the output. In the sequential fork the array is
// a plain buffer at the function's entry; gpu-map-foralls puts a barrier
// after every thread and warp forall; gpu-lower-warp-trees makes the
// halving five shuffles down and one from lane 0.

// CHECK-LABEL: func.func @rows
// CHECK: %[[P:.*]] = memref.alloca() {alignment = 16 : i64} : memref<1x256xf32, #gpu.address_space<workgroup>>
// CHECK: scf.forall (%[[ROW:.*]], %[[T:.*]]) in (1, 256)
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[END:.*]] = arith.select %{{.*}}, %c2050{{.*}}, %c0
// CHECK: %[[R:.*]] = scf.for %[[J:.*]] = %[[T]] to %[[END]] step %c256{{.*}} iter_args(%[[A:.*]] = %[[Z]])
// CHECK: memref.load %{{.*}}[%{{.*}}, %[[J]]]
// CHECK: arith.addf
// CHECK: memref.store %[[R]], %[[P]][%[[ROW]], %[[T]]]
// CHECK: } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: scf.forall
// CHECK: arith.cmpi ult, %{{.*}}, %c128
// CHECK: memref.load %[[P]]
// CHECK: arith.addf
// CHECK-COUNT-2: arith.cmpi ult
// CHECK: scf.forall (%{{.*}}) in (8)
// CHECK: %[[VALS:.*]] = vector.transfer_read %[[P]][%{{.*}}, %c0{{.*}}], %{{.*}} {in_bounds = [true]} : memref<1x256xf32, #gpu.address_space<workgroup>>, vector<32xf32>
// CHECK-DAG: %[[LO:.*]] = vector.extract_strided_slice %[[VALS]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK-DAG: %[[HI:.*]] = vector.extract_strided_slice %[[VALS]] {offsets = [16], sizes = [16], strides = [1]}
// CHECK: arith.addf %[[HI]], %[[LO]] : vector<16xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<1xf32>
// CHECK: %[[TOTAL:.*]] = vector.extract %{{.*}}[0] : f32 from vector<1xf32>
// CHECK: memref.store %[[TOTAL]], %[[P]]
// CHECK: } {mapping = [#gpu.warp<x>]}
// CHECK: arith.cmpi eq
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<1xf32
// CHECK: arith.addf
// CHECK: memref.store
// CHECK-NOT: linalg.generic

// SEQ-LABEL: func.func @rows
// SEQ-NEXT: memref.alloca() {alignment = 16 : i64} : memref<1x256xf32>

// LAUNCH: gpu.launch
// LAUNCH-SAME: workgroup(
// LAUNCH-COUNT-4: gpu.barrier
// LAUNCH: scf.execute_region no_inline
// LAUNCH: vector.transfer_read
// LAUNCH-COUNT-2: gpu.barrier
// LAUNCH-NOT: gpu.barrier
// LAUNCH: gpu.terminator

// SHUFFLE: gpu.launch
// SHUFFLE-NOT: scf.execute_region
// SHUFFLE: %[[LANE:.*]] = gpu.lane_id
// SHUFFLE: %[[AT:.*]] = arith.addi %c0{{.*}}, %[[LANE]] : index
// SHUFFLE: %[[X:.*]] = memref.load %{{.*}}[%{{.*}}, %[[AT]]] : memref<1x256xf32, #gpu.address_space<workgroup>>
// SHUFFLE: %[[Y:.*]], %{{.*}} = gpu.shuffle  down %[[X]], %c16{{.*}}, %c32{{.*}} : f32
// SHUFFLE: arith.addf %[[Y]], %[[X]] : f32
// SHUFFLE-COUNT-4: gpu.shuffle  down
// SHUFFLE: gpu.shuffle  idx %{{.*}}, %c0{{.*}}, %c32{{.*}} : f32
// SHUFFLE-NOT: vector.
// SHUFFLE: gpu.terminator
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @rows(%x: memref<6x2050xf32>, %s: memref<6xf32>) {
  scf.forall (%i) in (6) {
    %xi = memref.subview %x[%i, 0] [1, 2050] [1, 1] : memref<6x2050xf32> to memref<1x2050xf32, strided<[2050, 1], offset: ?>>
    %si = memref.subview %s[%i] [1] [1] : memref<6xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
        ins(%xi : memref<1x2050xf32, strided<[2050, 1], offset: ?>>)
        outs(%si : memref<1xf32, strided<[1], offset: ?>>) attrs = {shardc.gpu_block_tree = array<i64: 1, 256>} {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  } {mapping = [#gpu.block<x>]}
  return
}
