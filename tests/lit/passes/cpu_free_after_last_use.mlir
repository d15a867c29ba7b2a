// RUN: shardc-opt %s -split-input-file --cpu-free-after-last-use | FileCheck %s
//
// cpu-free-after-last-use: a deallocation moves up to right after the last
// use of its buffer or of a view of it, unless something other than a
// completed use (a runtime call, a return) sees the buffer.

func.func private @kernel(%a: memref<8xf32>) attributes {llvm.emit_c_interface} {
  return
}

// CHECK-LABEL: func.func @frees_after_last_use(
// CHECK: %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : memref<8xf32>)
// CHECK: %[[V:.*]] = memref.expand_shape %[[A]]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[V]] : memref<2x4xf32>)
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK: call @kernel(%[[B]])
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: call @kernel(%arg0)
// CHECK-NEXT: return
func.func @frees_after_last_use(%x: memref<8xf32>) {
  %c = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  linalg.fill ins(%c : f32) outs(%a : memref<8xf32>)
  %v = memref.expand_shape %a [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  linalg.fill ins(%c : f32) outs(%v : memref<2x4xf32>)
  call @kernel(%b) : (memref<8xf32>) -> ()
  call @kernel(%x) : (memref<8xf32>) -> ()
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  return
}

// -----

func.func private @runtime(%p: index)

// A buffer whose address leaves for the runtime keeps its deallocation; a
// use inside a loop counts at the loop.
// CHECK-LABEL: func.func @address_escapes(
// CHECK: %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[B]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK: call @runtime
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: return
func.func @address_escapes() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %f = arith.constant 2.0 : f32
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %f, %b[%i] : memref<8xf32>
  }
  %p = memref.extract_aligned_pointer_as_index %a : memref<8xf32> -> index
  call @runtime(%p) : (index) -> ()
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  return
}

// -----

// A buffer returned, or freed under a condition, stays as it is.
// CHECK-LABEL: func.func @returned(
// CHECK: memref.copy
// CHECK: scf.if
// CHECK-NEXT: memref.dealloc
// CHECK: return
func.func @returned(%x: memref<8xf32>, %c: i1) -> memref<8xf32> {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  scf.if %c {
    memref.dealloc %a : memref<8xf32>
  }
  return %a : memref<8xf32>
}
