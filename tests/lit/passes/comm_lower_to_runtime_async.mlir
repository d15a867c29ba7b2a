// RUN: shardc-opt %s -split-input-file --comm-lower-to-runtime | FileCheck %s
//
// comm-lower-to-runtime, asynchronous all-reduces and reduce-scatters (the
// default): each starts right after the op that defines its operand and is
// finished just before the first op that reads its result, so the ops in
// between overlap it. With async=false each is one blocking call.
// RUN: shardc-opt %s -split-input-file --comm-lower-to-runtime=async=false | FileCheck %s --check-prefix=SYNC

// The gradient %g is ready before %h is computed; its reduction starts
// there, the independent %h runs, and it is finished just before %use.
// CHECK-LABEL: func.func @overlap
// CHECK: %[[G:.*]] = arith.mulf
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<4xf32>
// CHECK: bufferization.materialize_in_destination %[[G]] in restrict writable %[[BUF]]
// CHECK: %[[REQ:.*]] = call @shardrt_all_reduce_start(%{{.*}}) : (!llvm.ptr, i64, i32, i32, !llvm.ptr, i64, i64) -> i64
// CHECK: %[[H:.*]] = arith.addf
// CHECK: %[[H2:.*]] = arith.mulf %[[H]], %[[H]]
// CHECK: call @shardrt_all_reduce_done(%[[REQ]]) : (i64) -> i32
// CHECK-NEXT: %[[R:.*]] = bufferization.to_tensor %[[BUF]] restrict writable : memref<4xf32> to tensor<4xf32>
// CHECK-NEXT: %[[USE:.*]] = arith.subf %[[R]], %[[H2]]
// CHECK: func.func private @shardrt_all_reduce_start(!llvm.ptr, i64, i32, i32, !llvm.ptr, i64, i64) -> i64
// CHECK: func.func private @shardrt_all_reduce_done(i64) -> i32
func.func @overlap(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %g = arith.mulf %x, %x : tensor<4xf32>
  %h = arith.addf %y, %y : tensor<4xf32>
  %h2 = arith.mulf %h, %h : tensor<4xf32>
  %r = comm.all_reduce <sum> %g groups = [[0, 1]] : tensor<4xf32> -> tensor<4xf32>
  %use = arith.subf %r, %h2 : tensor<4xf32>
  return %use : tensor<4xf32>
}

// -----

// Two all-reduces ready at the same point keep their order; one whose
// result is first read inside a loop is finished before the loop; one
// that is never read is finished at once.
// CHECK-LABEL: func.func @order
// CHECK: %[[A:.*]] = call @shardrt_all_reduce_start
// CHECK: %[[B:.*]] = call @shardrt_all_reduce_start
// CHECK: %[[C:.*]] = call @shardrt_all_reduce_start
// CHECK-NEXT: call @shardrt_all_reduce_done(%[[C]])
// CHECK: call @shardrt_all_reduce_done(%[[A]])
// CHECK: call @shardrt_all_reduce_done(%[[B]])
// CHECK-NEXT: bufferization.to_tensor
// CHECK-NEXT: scf.for
func.func @order(%x: tensor<4xf32>, %n: index) -> (tensor<4xf32>, tensor<4xf32>) {
  %g = arith.mulf %x, %x : tensor<4xf32>
  %a = comm.all_reduce <sum> %g groups = [[0, 1]] : tensor<4xf32> -> tensor<4xf32>
  %b = comm.all_reduce <max> %g groups = [[0, 1]] : tensor<4xf32> -> tensor<4xf32>
  %unused = comm.all_reduce <min> %g groups = [[0, 1]] : tensor<4xf32> -> tensor<4xf32>
  %a2 = arith.addf %a, %a : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a2) -> tensor<4xf32> {
    %s = arith.addf %acc, %b : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %a2, %l : tensor<4xf32>, tensor<4xf32>
}

// -----

// A reduce-scatter (a sharded optimizer's gradient) starts where its
// operand is ready and is finished before its first reader; its done names
// the input buffer again, which peers read until then, so that buffer is
// not freed before it.
// CHECK-LABEL: func.func @reduce_scatter_overlap
// CHECK: %[[G:.*]] = arith.mulf
// CHECK: %[[SRC:.*]] = memref.alloc() : memref<4x6xf32>
// CHECK: bufferization.materialize_in_destination %[[G]] in restrict writable %[[SRC]]
// CHECK: %[[DST:.*]] = memref.alloc() : memref<4x3xf32>
// CHECK: %[[REQ:.*]] = call @shardrt_reduce_scatter_start(%{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64, i32, i32, !llvm.ptr, i64, i64) -> i64
// CHECK: %[[H:.*]] = arith.addf
// CHECK: %[[SRCIDX:.*]] = memref.extract_aligned_pointer_as_index %[[SRC]]
// CHECK: %[[DSTIDX:.*]] = memref.extract_aligned_pointer_as_index %[[DST]]
// CHECK: call @shardrt_reduce_scatter_done(%[[REQ]], %{{.*}}, %{{.*}}) : (i64, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-NEXT: %[[R:.*]] = bufferization.to_tensor %[[DST]] restrict writable : memref<4x3xf32> to tensor<4x3xf32>
// CHECK-NEXT: arith.subf %[[R]], %[[H]]
// CHECK: func.func private @shardrt_reduce_scatter_start(!llvm.ptr, !llvm.ptr, i64, i64, i32, i32, !llvm.ptr, i64, i64) -> i64
// CHECK: func.func private @shardrt_reduce_scatter_done(i64, !llvm.ptr, !llvm.ptr) -> i32
// SYNC-LABEL: func.func @reduce_scatter_overlap
// SYNC: call @shardrt_reduce_scatter(%{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64, i32, i32, !llvm.ptr, i64, i64) -> i32
// SYNC-NOT: _start
func.func @reduce_scatter_overlap(%x: tensor<4x6xf32>, %y: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %g = arith.mulf %x, %x : tensor<4x6xf32>
  %h = arith.addf %y, %y : tensor<4x3xf32>
  %r = comm.reduce_scatter <sum> %g, dim = 1 groups = [[0, 1]] : tensor<4x6xf32> -> tensor<4x3xf32>
  %use = arith.subf %r, %h : tensor<4x3xf32>
  return %use : tensor<4x3xf32>
}
