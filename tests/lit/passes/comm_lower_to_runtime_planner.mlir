// RUN: shardc-opt %s -split-input-file --comm-lower-to-runtime -verify-diagnostics | FileCheck %s
//
// comm-lower-to-runtime for the planner's collectives: reduce_scatter,
// all_to_all and collective_permute become shardrt calls with the views of
// runtime/include/shardrt.h (outer/inner counted on the shapes below).

// CHECK-LABEL: func.func @reduce_scatter
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x6xf32>)
// CHECK: %[[SRC:.*]] = memref.alloc() : memref<8x6xf32>
// CHECK: bufferization.materialize_in_destination %[[X]] in restrict writable %[[SRC]]
// CHECK: %[[DST:.*]] = memref.alloc() : memref<8x3xf32>
// The output is [8, 3] and dim 1 is scattered: outer = 8, inner = 3.
// CHECK: %[[OUTER:.*]] = arith.constant 8 : i64
// CHECK-NEXT: %[[INNER:.*]] = arith.constant 3 : i64
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[MAX:.*]] = arith.constant 1 : i32
// Asynchronous (comm_lower_to_runtime_async.mlir); nothing lies between
// its start and the return that reads it.
// CHECK: %[[REQ:.*]] = call @shardrt_reduce_scatter_start(%{{.*}}, %{{.*}}, %[[OUTER]], %[[INNER]], %{{.*}}, %[[MAX]], %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64, i32, i32, !llvm.ptr, i64, i64) -> i64
// CHECK: call @shardrt_reduce_scatter_done(%[[REQ]], %{{.*}}, %{{.*}}) : (i64, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: bufferization.to_tensor %[[DST]] restrict writable : memref<8x3xf32> to tensor<8x3xf32>
func.func @reduce_scatter(%x: tensor<8x6xf32>) -> tensor<8x3xf32> {
  %0 = comm.reduce_scatter <max> %x, dim = 1 groups = [[0, 1], [2, 3]] : tensor<8x6xf32> -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

// CHECK-LABEL: func.func @all_to_all
// CHECK: %[[DST:.*]] = memref.alloc() : memref<8x2xf32>
// A piece is [4, 2]: split along dim 1 -> [4, 1 x 2] = 4 x 2; concat along
// dim 0 -> [1, 4 x 2] = 1 x 8.
// CHECK: %[[SO:.*]] = arith.constant 4 : i64
// CHECK-NEXT: %[[SI:.*]] = arith.constant 2 : i64
// CHECK-NEXT: %[[CO:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[CI:.*]] = arith.constant 8 : i64
// CHECK: call @shardrt_all_to_all(%{{.*}}, %{{.*}}, %[[SO]], %[[SI]], %[[CO]], %[[CI]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i32, !llvm.ptr, i64, i64) -> i32
// CHECK: bufferization.to_tensor %[[DST]] restrict writable : memref<8x2xf32> to tensor<8x2xf32>
func.func @all_to_all(%x: tensor<4x4xf32>) -> tensor<8x2xf32> {
  %0 = comm.all_to_all %x, split_dim = 1, concat_dim = 0 groups = [[0, 1], [2, 3]] : tensor<4x4xf32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

// CHECK: memref.global "private" constant @[[PAIRS:__shardc_groups_[0-9]+]] : memref<8xi64> = dense<[0, 0, 2, 1, 1, 2, 3, 3]>
// CHECK-LABEL: func.func @collective_permute
// CHECK: memref.get_global @[[PAIRS]] : memref<8xi64>
// CHECK: %[[COUNT:.*]] = arith.constant 6 : i64
// CHECK-NEXT: %[[I64:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[NPAIRS:.*]] = arith.constant 4 : i64
// CHECK: call @shardrt_collective_permute(%{{.*}}, %{{.*}}, %[[COUNT]], %[[I64]], %{{.*}}, %[[NPAIRS]]) : (!llvm.ptr, !llvm.ptr, i64, i32, !llvm.ptr, i64) -> i32
func.func @collective_permute(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %0 = comm.collective_permute %x pairs = [[0, 0], [2, 1], [1, 2], [3, 3]] : tensor<2x3xi64> -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}
