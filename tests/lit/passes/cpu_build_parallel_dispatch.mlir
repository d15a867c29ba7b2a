// RUN: shardc-opt %s -split-input-file --cpu-build-parallel-dispatch | FileCheck %s
//
// cpu-build-parallel-dispatch: a dispatch declaration (LLVM arguments, after
// convert-func-to-llvm) becomes a function that packs its arguments into a
// stack frame and hands shardrt_parallel_for a task that unpacks them and
// calls the chunk function.

// CHECK-LABEL: llvm.func @f_par0(
// CHECK: llvm.func internal @f_par0_task(%[[CTX:.*]]: !llvm.ptr, %[[B:.*]]: i64, %[[E:.*]]: i64)
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[CTX]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64, f32)>
// CHECK: %[[V0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[P1:.*]] = llvm.getelementptr %[[CTX]][0, 1]
// CHECK: %[[V1:.*]] = llvm.load %[[P1]] : !llvm.ptr -> i64
// CHECK: %[[P2:.*]] = llvm.getelementptr %[[CTX]][0, 2]
// CHECK: %[[V2:.*]] = llvm.load %[[P2]] : !llvm.ptr -> f32
// CHECK: llvm.call @f_par0(%[[B]], %[[E]], %[[V0]], %[[V1]], %[[V2]])
// CHECK: llvm.func internal @f_par0_dispatch(%[[N:.*]]: i64, %[[A0:.*]]: !llvm.ptr, %[[A1:.*]]: i64, %[[A2:.*]]: f32)
// CHECK-NOT: shardc.parallel_body
// CHECK: %[[FRAME:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, i64, f32)>
// CHECK: llvm.store %[[A0]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: llvm.store %[[A1]], %{{.*}} : i64, !llvm.ptr
// CHECK: llvm.store %[[A2]], %{{.*}} : f32, !llvm.ptr
// CHECK: %[[TASK:.*]] = llvm.mlir.addressof @f_par0_task : !llvm.ptr
// CHECK: llvm.call @shardrt_parallel_for(%[[N]], %[[TASK]], %[[FRAME]]) : (i64, !llvm.ptr, !llvm.ptr) -> ()
// A dispatch marked shardc.parallel_own calls the own-threads entry.
// CHECK: llvm.func internal @f_par1_dispatch(%[[N1:.*]]: i64)
// CHECK-NOT: shardc.parallel_own
// CHECK: llvm.call @shardrt_parallel_for_own(%[[N1]], %{{.*}}, %{{.*}}) : (i64, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-DAG: llvm.func @shardrt_parallel_for(i64, !llvm.ptr, !llvm.ptr)
// CHECK-DAG: llvm.func @shardrt_parallel_for_own(i64, !llvm.ptr, !llvm.ptr)
module {
  llvm.func @f_par0(%begin: i64, %end: i64, %p: !llvm.ptr, %n: i64, %s: f32) {
    llvm.return
  }
  llvm.func @f_par0_dispatch(i64, !llvm.ptr, i64, f32) attributes {shardc.parallel_body = @f_par0}
  llvm.func @f_par1(%begin: i64, %end: i64) {
    llvm.return
  }
  llvm.func @f_par1_dispatch(i64) attributes {shardc.parallel_body = @f_par1, shardc.parallel_own}
}

// -----

// Two dispatches of one body (cpu-merge-identical-functions merged two
// identical bodies, and only one dispatch is marked shardc.parallel_own, so
// the dispatches stay two): both hand the runtime the body's one task.

// CHECK-LABEL: llvm.func @g_par0(
// CHECK: llvm.func internal @g_par0_task(
// CHECK-NOT: @g_par0_task(
// CHECK: llvm.func internal @g_par0_dispatch(
// CHECK: llvm.mlir.addressof @g_par0_task
// CHECK: llvm.call @shardrt_parallel_for(
// CHECK: llvm.func internal @g_par1_dispatch(
// CHECK: llvm.mlir.addressof @g_par0_task
// CHECK: llvm.call @shardrt_parallel_for_own(
module {
  llvm.func @g_par0(%begin: i64, %end: i64, %p: !llvm.ptr) {
    llvm.return
  }
  llvm.func @g_par0_dispatch(i64, !llvm.ptr) attributes {shardc.parallel_body = @g_par0}
  llvm.func @g_par1_dispatch(i64, !llvm.ptr) attributes {shardc.parallel_body = @g_par0, shardc.parallel_own}
}
