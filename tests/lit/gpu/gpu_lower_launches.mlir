// RUN: shardc-opt %s --gpu-lower-launches | FileCheck %s
//
// gpu-lower-launches: the module image becomes a constant global (PTX gets a
// terminating NUL), the launch a shardrt_cuda_launch call whose parameter
// array holds a slot per kernel argument (the buffer's aligned pointer, the
// index as i64, the float as it is); a constant read by a kernel is passed
// as its device copy.

// CHECK-DAG: llvm.mlir.global internal constant @__shardc_image_k("PTX!\00") {addr_space = 0 : i32, alignment = 16 : i64}
// CHECK-DAG: llvm.mlir.global internal constant @__shardc_kernel_1("kern\00")
// CHECK-DAG: func.func private @shardrt_cuda_launch(!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i32, !llvm.ptr) -> i32
// CHECK-DAG: func.func private @shardrt_cuda_constant(!llvm.ptr, i64) -> !llvm.ptr
// CHECK-LABEL: func.func @host
// CHECK: %[[PARAMS:.*]] = llvm.alloca %{{.*}} x !llvm.array<4 x ptr>
// CHECK: %[[S0:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK: %[[S1:.*]] = llvm.alloca %{{.*}} x i64
// CHECK: %[[S2:.*]] = llvm.alloca %{{.*}} x f32
// CHECK: %[[S3:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[N:.*]] = arith.index_cast %arg1 : index to i64
// CHECK: %[[C:.*]] = call @shardrt_cuda_constant(%{{.*}}, %c32_i64)
// CHECK: llvm.store %{{.*}}, %[[S0]]
// CHECK: llvm.getelementptr %[[PARAMS]][0, 0]
// CHECK: llvm.store %[[N]], %[[S1]]
// CHECK: llvm.getelementptr %[[PARAMS]][0, 1]
// CHECK: llvm.store %arg2, %[[S2]]
// CHECK: llvm.store %[[C]], %[[S3]]
// CHECK: llvm.getelementptr %[[PARAMS]][0, 3]
// CHECK: %[[IMAGE:.*]] = llvm.mlir.addressof @__shardc_image_k
// CHECK: %[[NAME:.*]] = llvm.mlir.addressof @__shardc_kernel_1
// CHECK: %[[GX:.*]] = arith.index_cast %c4 : index to i64
// CHECK: call @shardrt_cuda_launch(%[[IMAGE]], %c5_i64, %[[NAME]], %[[GX]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0_i32, %[[PARAMS]])
// CHECK-NOT: gpu.
module attributes {gpu.container_module} {
  memref.global "private" constant @weights : memref<8xf32> = dense<1.0>
  gpu.binary @k [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "PTX!">]
  func.func @host(%buf: memref<16xf32>, %n: index, %x: f32) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %w = memref.get_global @weights : memref<8xf32>
    gpu.launch_func @k::@kern blocks in (%c4, %c1, %c1) threads in (%c4, %c1, %c1)
        args(%buf : memref<16xf32>, %n : index, %x : f32, %w : memref<8xf32>)
    return
  }
}

