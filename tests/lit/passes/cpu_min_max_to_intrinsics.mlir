// RUN: shardc-opt %s --cpu-min-max-to-intrinsics | FileCheck %s
//
// cpu-min-max-to-intrinsics: float max and min, scalar or vector, become
// LLVM's intrinsics (which a max reduction's loop vectorizes), not the
// compare-and-select chain arith-expand would write. Integer max stays,
// and so do n-D vectors (a register tile's), which the intrinsics do not
// take.

// CHECK-LABEL: func.func @row_max
// CHECK: scf.for
// CHECK: %[[M:.*]] = llvm.intr.maximum(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK-NEXT: scf.yield %[[M]]
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.cmpf
func.func @row_max(%x: memref<256xf32>, %init: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %r = scf.for %i = %c0 to %c256 step %c1 iter_args(%acc = %init) -> (f32) {
    %v = memref.load %x[%i] : memref<256xf32>
    %m = arith.maximumf %acc, %v : f32
    scf.yield %m : f32
  }
  return %r : f32
}

// CHECK-LABEL: func.func @kinds
// CHECK: llvm.intr.minimum(%{{.*}}, %{{.*}}) : (vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// CHECK: llvm.intr.maxnum(%{{.*}}, %{{.*}}) : (f64, f64) -> f64
// CHECK: llvm.intr.minnum(%{{.*}}, %{{.*}}) : (f16, f16) -> f16
// CHECK: arith.maxsi
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<4x8xf32>
func.func @kinds(%a: vector<8xf32>, %a2: vector<8xf32>, %b: f64, %b2: f64, %c: f16, %c2: f16,
                 %d: i32, %d2: i32, %t: vector<4x8xf32>, %t2: vector<4x8xf32>)
    -> (vector<8xf32>, f64, f16, i32, vector<4x8xf32>) {
  %0 = arith.minimumf %a, %a2 : vector<8xf32>
  %1 = arith.maxnumf %b, %b2 : f64
  %2 = arith.minnumf %c, %c2 : f16
  %3 = arith.maxsi %d, %d2 : i32
  %4 = arith.maximumf %t, %t2 : vector<4x8xf32>
  return %0, %1, %2, %3, %4 : vector<8xf32>, f64, f16, i32, vector<4x8xf32>
}
