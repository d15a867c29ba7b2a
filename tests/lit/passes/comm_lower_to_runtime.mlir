// RUN: shardc-opt %s -split-input-file --comm-lower-to-runtime="async=false" -verify-diagnostics | FileCheck %s
//
// comm-lower-to-runtime: each comm collective becomes a call into the shardrt
// C ABI (runtime/include/shardrt.h) on a buffer of its own; device groups (and
// the per-device slice positions) become private constant globals, one per
// distinct list. (Blocking all-reduces here; the asynchronous start/done
// form: comm_lower_to_runtime_async.mlir.)

// CHECK-DAG: memref.global "private" constant @[[G01:__shardc_groups_[0-9]+]] : memref<4xi64> = dense<[0, 1, 2, 3]>
// CHECK-DAG: memref.global "private" constant @[[G02:__shardc_groups_[0-9]+]] : memref<4xi64> = dense<[0, 2, 1, 3]>
// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2xf32>)
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<2xf32>
// CHECK: bufferization.materialize_in_destination %[[X]] in restrict writable %[[BUF]]
// CHECK: %[[GROUPS:.*]] = memref.get_global @[[G01]] : memref<4xi64>
// CHECK: %[[GADDR:.*]] = memref.extract_aligned_pointer_as_index %[[GROUPS]]
// CHECK: %[[GI:.*]] = arith.index_cast %[[GADDR]] : index to i64
// CHECK: %[[GPTR:.*]] = llvm.inttoptr %[[GI]] : i64 to !llvm.ptr
// CHECK: %[[NGROUPS:.*]] = arith.constant 2 : i64
// CHECK: %[[GSIZE:.*]] = arith.constant 2 : i64
// CHECK: %[[BADDR:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK: %[[BI:.*]] = arith.index_cast %[[BADDR]] : index to i64
// CHECK: %[[BPTR:.*]] = llvm.inttoptr %[[BI]] : i64 to !llvm.ptr
// CHECK: %[[COUNT:.*]] = arith.constant 2 : i64
// CHECK: %[[F32:.*]] = arith.constant 0 : i32
// CHECK: %[[MAX:.*]] = arith.constant 1 : i32
// CHECK: call @shardrt_all_reduce(%[[BPTR]], %[[COUNT]], %[[F32]], %[[MAX]], %[[GPTR]], %[[NGROUPS]], %[[GSIZE]]) : (!llvm.ptr, i64, i32, i32, !llvm.ptr, i64, i64) -> i32
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[BUF]] restrict writable : memref<2xf32> to tensor<2xf32>
// The same groups again reuse the same global; the kind is now sum (0).
// CHECK: memref.get_global @[[G01]]
// CHECK: call @shardrt_all_reduce
// CHECK-NOT: comm.
// CHECK: func.func private @shardrt_all_reduce(!llvm.ptr, i64, i32, i32, !llvm.ptr, i64, i64) -> i32
func.func @all_reduce(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = comm.all_reduce <max> %x groups = [[0, 1], [2, 3]] : tensor<2xf32> -> tensor<2xf32>
  %1 = comm.all_reduce <sum> %0 groups = [[0, 1], [2, 3]] : tensor<2xf32> -> tensor<2xf32>
  %2 = comm.all_reduce <sum> %1 groups = [[0, 2], [1, 3]] : tensor<2xf32> -> tensor<2xf32>
  return %2 : tensor<2xf32>
}

// -----

// Gathering dim 1 of a 3x2x5 local block: outer = 3, inner = 2 * 5 = 10.
// CHECK: memref.global "private" constant @[[G:__shardc_groups_[0-9]+]] : memref<4xi64> = dense<[0, 2, 1, 3]>
// CHECK-LABEL: func.func @all_gather
// CHECK-SAME: (%[[X:[^:]+]]: tensor<3x2x5xi64>)
// CHECK: %[[SRC:.*]] = memref.alloc() : memref<3x2x5xi64>
// CHECK: bufferization.materialize_in_destination %[[X]] in restrict writable %[[SRC]]
// CHECK: %[[DST:.*]] = memref.alloc() : memref<3x4x5xi64>
// CHECK: memref.get_global @[[G]]
// CHECK: %[[OUTER:.*]] = arith.constant 3 : i64
// CHECK: %[[INNER:.*]] = arith.constant 10 : i64
// CHECK: %[[I64:.*]] = arith.constant 4 : i32
// CHECK: call @shardrt_all_gather(%{{.*}}, %{{.*}}, %[[OUTER]], %[[INNER]], %[[I64]], %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64, i32, !llvm.ptr, i64, i64) -> i32
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[DST]] restrict writable : memref<3x4x5xi64> to tensor<3x4x5xi64>
// CHECK: return %[[R]]
func.func @all_gather(%x: tensor<3x2x5xi64>) -> tensor<3x4x5xi64> {
  %0 = comm.all_gather %x, dim = 1 groups = [[0, 2], [1, 3]] : tensor<3x2x5xi64> -> tensor<3x4x5xi64>
  return %0 : tensor<3x4x5xi64>
}

// -----

// No communication: each device reads its position in its group from a
// per-device table (indexed by shardrt_rank) and extracts that block.
// Groups [[0, 2], [1, 3]]: devices 0 and 1 keep block 0, devices 2 and 3 block 1.
// CHECK: memref.global "private" constant @[[POS:__shardc_position_[0-9]+]] : memref<4xi64> = dense<[0, 0, 1, 1]>
// CHECK-LABEL: func.func @all_slice
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4x3xf32>)
// CHECK: %[[TABLE:.*]] = memref.get_global @[[POS]] : memref<4xi64>
// CHECK: %[[RANK:.*]] = call @shardrt_rank() : () -> i64
// CHECK: %[[RI:.*]] = arith.index_cast %[[RANK]] : i64 to index
// CHECK: %[[P:.*]] = memref.load %[[TABLE]][%[[RI]]] : memref<4xi64>
// CHECK: %[[PI:.*]] = arith.index_cast %[[P]] : i64 to index
// CHECK: %[[BLOCK:.*]] = arith.constant 2 : index
// CHECK: %[[OFF:.*]] = arith.muli %[[PI]], %[[BLOCK]] : index
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][%[[OFF]], 0] [2, 3] [1, 1] : tensor<4x3xf32> to tensor<2x3xf32>
// CHECK: return %[[S]]
// CHECK-NOT: shardrt_all
// CHECK: func.func private @shardrt_rank() -> i64
func.func @all_slice(%x: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %0 = comm.all_slice %x, dim = 0 groups = [[0, 2], [1, 3]] : tensor<4x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @no_runtime_type(%x: tensor<2xi4>) -> tensor<2xi4> {
  // expected-error @+1 {{the runtime has no collective for element type 'i4'}}
  %0 = comm.all_reduce <sum> %x groups = [[0, 1]] : tensor<2xi4> -> tensor<2xi4>
  return %0 : tensor<2xi4>
}
