// RUN: shardc-opt %s --split-input-file --gpu-device-memory --verify-diagnostics | FileCheck %s
// RUN: shardc-opt %s --split-input-file --gpu-device-memory --verify-diagnostics | FileCheck %s --check-prefix=GONE
//
// gpu-device-memory: host code's malloc/free become the rank's device
// allocator (the site is the value's source position), a whole-buffer
// memcpy a device copy, a collective its staged twin on device buffers.

// CHECK: llvm.mlir.global internal constant @__shardc_site_1("model.mlir:7:3\00")
// CHECK-LABEL: llvm.func @main_shardc_body
// CHECK: %[[SITE:.*]] = llvm.mlir.addressof @__shardc_site_1
// CHECK: %[[A:.*]] = llvm.call @shardrt_cuda_alloc(%arg1, %[[SITE]])
// CHECK: llvm.call @shardrt_cuda_copy(%[[A]], %arg0, %arg1)
// CHECK: llvm.call @shardrt_cuda_all_reduce(%[[A]],
// CHECK: llvm.call @shardrt_cuda_free(%[[A]])
// CHECK-DAG: llvm.func @shardrt_cuda_alloc(i64, !llvm.ptr) -> !llvm.ptr
// CHECK-DAG: llvm.func @shardrt_cuda_free(!llvm.ptr)
// CHECK-DAG: llvm.func @shardrt_cuda_copy(!llvm.ptr, !llvm.ptr, i64) -> i32
// CHECK-DAG: llvm.func @shardrt_cuda_all_reduce(!llvm.ptr, i64, i32, i32, !llvm.ptr, i64, i64) -> i32
// GONE-NOT: llvm.func @malloc(
// GONE-NOT: llvm.func @free(
// GONE-NOT: llvm.func @shardrt_all_reduce(
llvm.func @malloc(i64) -> !llvm.ptr
llvm.func @free(!llvm.ptr)
llvm.func @shardrt_all_reduce(!llvm.ptr, i64, i32, i32, !llvm.ptr, i64, i64) -> i32
llvm.func @main_shardc_body(%src: !llvm.ptr, %bytes: i64, %groups: !llvm.ptr) {
  %a = llvm.call @malloc(%bytes) : (i64) -> !llvm.ptr loc("model.mlir":7:3)
  "llvm.intr.memcpy"(%a, %src, %bytes) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
  %c4 = llvm.mlir.constant(4 : i64) : i64
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i64) : i64
  %s = llvm.call @shardrt_all_reduce(%a, %c4, %c0, %c0, %groups, %c1, %c4) : (!llvm.ptr, i64, i32, i32, !llvm.ptr, i64, i64) -> i32
  llvm.call @free(%a) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

// A strided copy (MLIR's memrefCopy) and a memset cannot run on device
// memory from the host.
llvm.func @memrefCopy(i64, !llvm.ptr, !llvm.ptr)
llvm.func @strided(%n: i64, %a: !llvm.ptr, %b: !llvm.ptr) {
  // expected-error@+1 {{cannot copy a strided view on the host}}
  llvm.call @memrefCopy(%n, %a, %b) : (i64, !llvm.ptr, !llvm.ptr) -> ()
  llvm.return
}

// -----

llvm.func @fill(%a: !llvm.ptr, %n: i64) {
  %z = llvm.mlir.constant(0 : i8) : i8
  // expected-error@+1 {{may not write buffers itself ('llvm.intr.memset')}}
  "llvm.intr.memset"(%a, %z, %n) <{isVolatile = false}> : (!llvm.ptr, i8, i64) -> ()
  llvm.return
}

// -----

// Only the entry's body allocates buffers.
llvm.func @malloc(i64) -> !llvm.ptr
llvm.func @helper(%n: i64) {
  // expected-error@+1 {{@helper allocates memory on the host}}
  %a = llvm.call @malloc(%n) : (i64) -> !llvm.ptr
  llvm.return
}

// -----

// A copy out of a global (a constant of the program, in host memory),
// through the memref descriptor finalize-memref-to-llvm builds: an upload.
llvm.mlir.global private constant @k(dense<[1.0, 2.0]> : tensor<2xf32>) : !llvm.array<2 x f32>
// CHECK-LABEL: llvm.func @main_shardc_body
// CHECK: llvm.call @shardrt_cuda_upload(%arg0, %{{.*}}, %{{.*}})
// CHECK-NOT: llvm.call @shardrt_cuda_copy
llvm.func @main_shardc_body(%dst: !llvm.ptr) {
  %g = llvm.mlir.addressof @k : !llvm.ptr
  %p = llvm.getelementptr %g[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x f32>
  %u = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64)>
  %d0 = llvm.insertvalue %p, %u[0] : !llvm.struct<(ptr, ptr, i64)>
  %d1 = llvm.insertvalue %p, %d0[1] : !llvm.struct<(ptr, ptr, i64)>
  %aligned = llvm.extractvalue %d1[1] : !llvm.struct<(ptr, ptr, i64)>
  %n = llvm.mlir.constant(8 : i64) : i64
  "llvm.intr.memcpy"(%dst, %aligned, %n) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
  llvm.return
}
