// RUN: shardc-opt %s -split-input-file --cpu-generalize-kernel-offsets | FileCheck %s
// RUN: shardc-opt %s -split-input-file --cpu-generalize-kernel-offsets \
// RUN:   --cpu-merge-identical-functions | FileCheck %s --check-prefix=MERGED
//
// cpu-generalize-kernel-offsets: outlined kernels that differ only in the
// static offsets of their memrefs (the steps of an unrolled scan, each on
// its row of one buffer) take them with dynamic offsets, casts at the calls
// and subviews inside retyped, so that cpu-merge-identical-functions keeps
// one. A kernel with no such twin keeps its types.

// CHECK-LABEL: func.func @main
// CHECK: %[[R0:.*]] = memref.subview %{{.*}}[0, 0] [1, 8]
// CHECK: %[[C0:.*]] = memref.cast %[[R0]] : memref<1x8xf32, strided<[8, 1]>> to memref<1x8xf32, strided<[8, 1], offset: ?>>
// CHECK: call @row0(%[[C0]])
// CHECK: %[[R1:.*]] = memref.subview %{{.*}}[1, 0] [1, 8]
// CHECK: %[[C1:.*]] = memref.cast %[[R1]] : memref<1x8xf32, strided<[8, 1], offset: 8>> to memref<1x8xf32, strided<[8, 1], offset: ?>>
// CHECK: call @row1(%[[C1]])
// CHECK: call @alone(%{{.*}}) : (memref<4xf32>) -> ()
// CHECK: func.func private @row0(%{{.*}}: memref<1x8xf32, strided<[8, 1], offset: ?>>)
// CHECK: memref.subview %{{.*}}[0, 2] [1, 4] [1, 1] : memref<1x8xf32, strided<[8, 1], offset: ?>> to memref<4xf32, strided<[1], offset: ?>>
// CHECK: func.func private @row1(%{{.*}}: memref<1x8xf32, strided<[8, 1], offset: ?>>)
// CHECK: func.func private @alone(%{{.*}}: memref<4xf32>)

// MERGED-LABEL: func.func @main
// MERGED: call @row0(
// MERGED: call @row0(
// MERGED-NOT: func.func private @row1
func.func @main(%buf: memref<2x8xf32>, %v: memref<4xf32>) {
  %r0 = memref.subview %buf[0, 0] [1, 8] [1, 1] : memref<2x8xf32> to memref<1x8xf32, strided<[8, 1]>>
  call @row0(%r0) : (memref<1x8xf32, strided<[8, 1]>>) -> ()
  %r1 = memref.subview %buf[1, 0] [1, 8] [1, 1] : memref<2x8xf32> to memref<1x8xf32, strided<[8, 1], offset: 8>>
  call @row1(%r1) : (memref<1x8xf32, strided<[8, 1], offset: 8>>) -> ()
  call @alone(%v) : (memref<4xf32>) -> ()
  return
}
func.func private @row0(%r: memref<1x8xf32, strided<[8, 1]>>) attributes {shardc.outlined_nest} {
  %one = arith.constant 1.0 : f32
  %s = memref.subview %r[0, 2] [1, 4] [1, 1] : memref<1x8xf32, strided<[8, 1]>> to memref<4xf32, strided<[1], offset: 2>>
  linalg.fill ins(%one : f32) outs(%s : memref<4xf32, strided<[1], offset: 2>>)
  return
}
func.func private @row1(%r: memref<1x8xf32, strided<[8, 1], offset: 8>>) attributes {shardc.outlined_nest} {
  %one = arith.constant 1.0 : f32
  %s = memref.subview %r[0, 2] [1, 4] [1, 1] : memref<1x8xf32, strided<[8, 1], offset: 8>> to memref<4xf32, strided<[1], offset: 10>>
  linalg.fill ins(%one : f32) outs(%s : memref<4xf32, strided<[1], offset: 10>>)
  return
}
func.func private @alone(%v: memref<4xf32>) attributes {shardc.outlined_nest} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %v[%c0] : memref<4xf32>
  return
}

// -----

// A use that would not take the new type (here a call) keeps the argument
// as it is; the twin's other arguments are still retyped.
// CHECK-LABEL: func.func @kept
// CHECK: func.func private @k0(%{{.*}}: memref<8xf32, strided<[1], offset: ?>>, %{{.*}}: memref<8xf32>)
// CHECK: func.func private @k1(%{{.*}}: memref<8xf32, strided<[1], offset: ?>>, %{{.*}}: memref<8xf32>)
func.func @kept(%a: memref<16xf32>, %b: memref<8xf32>) {
  %lo = memref.subview %a[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
  %hi = memref.subview %a[8] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: 8>>
  call @k0(%lo, %b) : (memref<8xf32, strided<[1]>>, memref<8xf32>) -> ()
  call @k1(%hi, %b) : (memref<8xf32, strided<[1], offset: 8>>, memref<8xf32>) -> ()
  return
}
func.func private @sink(memref<8xf32>)
func.func private @k0(%x: memref<8xf32, strided<[1]>>, %y: memref<8xf32>) attributes {shardc.outlined_nest} {
  linalg.copy ins(%x : memref<8xf32, strided<[1]>>) outs(%y : memref<8xf32>)
  call @sink(%y) : (memref<8xf32>) -> ()
  return
}
func.func private @k1(%x: memref<8xf32, strided<[1], offset: 8>>, %y: memref<8xf32>) attributes {shardc.outlined_nest} {
  linalg.copy ins(%x : memref<8xf32, strided<[1], offset: 8>>) outs(%y : memref<8xf32>)
  call @sink(%y) : (memref<8xf32>) -> ()
  return
}
