// RUN: shardc-opt %s -split-input-file --cpu-outline-body-segments="ops-per-segment=4" | FileCheck %s
//
// cpu-outline-body-segments: a long single-block LLVM function becomes calls
// of segment functions that pass the values crossing a cut through a frame
// on the caller's stack; ops without memory effects are cloned where read.

llvm.func @malloc(i64) -> !llvm.ptr
llvm.func @free(!llvm.ptr)
llvm.func @kernel(!llvm.ptr, !llvm.ptr)

// CHECK-LABEL: llvm.func @body(
// CHECK-SAME: %[[X:.*]]: !llvm.ptr
// CHECK: %[[F:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, ptr)>
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[F]][0, 0]
// CHECK: llvm.store %[[X]], %[[SLOT]]
// CHECK: llvm.call @body_seg0(%[[F]])
// CHECK-NEXT: llvm.call @body_seg1(%[[F]])
// CHECK-NEXT: llvm.call @body_seg2(%[[F]])
// CHECK-NEXT: llvm.call @body_seg3(%[[F]])
// CHECK-NEXT: llvm.return

// The first segment allocates two buffers and stores both in the frame.
// CHECK: llvm.func internal @body_seg0(%[[F0:.*]]: !llvm.ptr {llvm.noalias})
// CHECK-SAME: shardc.outlined_nest
// CHECK: %[[A:.*]] = llvm.call @malloc
// CHECK: %[[B:.*]] = llvm.call @malloc
// CHECK: %[[SA:.*]] = llvm.getelementptr %[[F0]][0, 1]
// CHECK: llvm.store %[[A]], %[[SA]]
// CHECK: %[[SB:.*]] = llvm.getelementptr %[[F0]][0, 2]
// CHECK: llvm.store %[[B]], %[[SB]]
// CHECK-NEXT: llvm.return

// Later segments load what they read, in the original order of the calls.
// CHECK: llvm.func internal @body_seg1(%[[F1:.*]]: !llvm.ptr {llvm.noalias})
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[F1]][0, 0]
// CHECK: %[[X1:.*]] = llvm.load %[[P0]]
// CHECK: %[[P1:.*]] = llvm.getelementptr %[[F1]][0, 1]
// CHECK: %[[A1:.*]] = llvm.load %[[P1]]
// CHECK: llvm.call @kernel(%[[X1]], %[[A1]])
// CHECK: llvm.func internal @body_seg2(
// CHECK: llvm.call @kernel
// CHECK: llvm.call @malloc
// CHECK: llvm.call @free

// The size constant that the last segment reads is cloned into it.
// CHECK: llvm.func internal @body_seg3(
// CHECK: llvm.mlir.constant(64 : i64)
// CHECK: llvm.call @malloc
// CHECK-COUNT-3: llvm.call @free
llvm.func @body(%x: !llvm.ptr) {
  %n = llvm.mlir.constant(64 : i64) : i64
  %a = llvm.call @malloc(%n) : (i64) -> !llvm.ptr
  %b = llvm.call @malloc(%n) : (i64) -> !llvm.ptr
  llvm.call @kernel(%x, %a) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @kernel(%a, %b) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @kernel(%b, %x) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @kernel(%a, %x) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @kernel(%x, %b) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @kernel(%b, %a) : (!llvm.ptr, !llvm.ptr) -> ()
  %m = llvm.mlir.constant(32 : i64) : i64
  %c = llvm.call @malloc(%m) : (i64) -> !llvm.ptr
  llvm.call @kernel(%c, %x) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @free(%c) : (!llvm.ptr) -> ()
  %d = llvm.call @malloc(%n) : (i64) -> !llvm.ptr
  llvm.call @free(%d) : (!llvm.ptr) -> ()
  llvm.call @free(%a) : (!llvm.ptr) -> ()
  llvm.call @free(%b) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

// A stack buffer never crosses a cut: the function is not split where its
// allocation and its last use lie on both sides; a short function is left
// as it is.

llvm.func @kernel(!llvm.ptr)

// CHECK-LABEL: llvm.func @short(
// CHECK-NOT: llvm.call @short_seg
// CHECK: llvm.return
llvm.func @short(%x: !llvm.ptr) {
  llvm.call @kernel(%x) : (!llvm.ptr) -> ()
  llvm.return
}

// CHECK-LABEL: llvm.func @stack(
// CHECK-NOT: llvm.alloca {{.*}} x f32
// CHECK: llvm.call @stack_seg0
// CHECK: llvm.func internal @stack_seg0(
// CHECK: %[[S:.*]] = llvm.alloca {{.*}} x f32
// CHECK-COUNT-9: llvm.call @kernel(%[[S]])
// CHECK-NEXT: llvm.return
llvm.func @stack(%x: !llvm.ptr) {
  %one = llvm.mlir.constant(1 : i64) : i64
  %s = llvm.alloca %one x f32 : (i64) -> !llvm.ptr
  llvm.call @kernel(%s) : (!llvm.ptr) -> ()
  llvm.call @kernel(%s) : (!llvm.ptr) -> ()
  llvm.call @kernel(%s) : (!llvm.ptr) -> ()
  llvm.call @kernel(%s) : (!llvm.ptr) -> ()
  llvm.call @kernel(%s) : (!llvm.ptr) -> ()
  llvm.call @kernel(%s) : (!llvm.ptr) -> ()
  llvm.call @kernel(%s) : (!llvm.ptr) -> ()
  llvm.call @kernel(%s) : (!llvm.ptr) -> ()
  llvm.call @kernel(%s) : (!llvm.ptr) -> ()
  llvm.call @kernel(%x) : (!llvm.ptr) -> ()
  llvm.call @kernel(%x) : (!llvm.ptr) -> ()
  llvm.call @kernel(%x) : (!llvm.ptr) -> ()
  llvm.return
}
