// RUN: shardc-opt %s -split-input-file --cpu-outline-loop-nests=min-nests=1 | FileCheck %s
// RUN: shardc-opt %s -split-input-file --cpu-outline-loop-nests | FileCheck %s --check-prefix=FEW
//
// cpu-outline-loop-nests: in a function with more than min-nests top-level
// loop nests, each nest moves into a private function of its own, marked for
// LLVM's noinline; constants it uses are cloned in (bounds stay constant),
// other values become arguments. Nests with results stay.

// CHECK-LABEL: func.func @two_kernels
// CHECK-SAME: (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[C:.*]]: memref<4xf32>)
// CHECK: call @two_kernels_nest0(%[[A]], %[[B]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK: call @two_kernels_nest1(%[[B]], %[[C]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NOT: scf.for
// CHECK: return
// CHECK: func.func private @two_kernels_nest0(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) attributes {shardc.outlined_nest}
// CHECK-DAG: arith.constant 0 : index
// CHECK-DAG: arith.constant 4 : index
// CHECK-DAG: arith.constant 1 : index
// CHECK: scf.for
// CHECK: math.tanh
// CHECK: func.func private @two_kernels_nest1(
// CHECK: scf.for
// CHECK: math.exp
// FEW-LABEL: func.func @two_kernels
// FEW-NOT: call
// FEW: scf.for
// FEW: scf.for
func.func @two_kernels(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    %y = math.tanh %x : f32
    memref.store %y, %b[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %b[%i] : memref<4xf32>
    %y = math.exp %x : f32
    memref.store %y, %c[%i] : memref<4xf32>
  }
  return
}

// -----

// A nest that yields a value is left in place.
// CHECK-LABEL: func.func @reduction_result
// CHECK: scf.for {{.*}} iter_args
// CHECK-NOT: call
func.func @reduction_result(%a: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %a[%i] : memref<4xf32>
    %n = arith.addf %acc, %x : f32
    scf.yield %n : f32
  }
  return %s : f32
}

// -----

// noalias: a memref argument is marked when its memory provably overlaps no
// other memref argument's. Two of the caller's own allocations are apart,
// and an allocation is apart from an argument: every aligned pointer (LLVM
// parameters 1, 6 and 11; a rank-1 memref is 5 parameters, aligned second)
// is marked. Two of the caller's arguments may be one buffer: neither is.
// CHECK-LABEL: func.func @apart
// CHECK: func.func private @apart_nest0(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) attributes {shardc.noalias_params = array<i64: 1, 6, 11>, shardc.outlined_nest}
// CHECK: func.func private @apart_nest1(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) attributes {shardc.outlined_nest}
func.func @apart(%a: memref<4xf32>, %b: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() : memref<4xf32>
  %u = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    memref.store %x, %t[%i] : memref<4xf32>
    memref.store %x, %u[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    memref.store %x, %b[%i] : memref<4xf32>
  }
  return
}

// -----

// Two views of one allocation overlap (as far as the pass knows), so neither
// is marked; a third allocation is apart from both. A nest that calls a
// function may reach any memory: nothing is marked.
// CHECK-LABEL: func.func @views
// CHECK: func.func private @views_nest0(%{{.*}}: memref<4xf32, strided<[1]>>, %{{.*}}: memref<4xf32, strided<[1], offset: 4>>, %{{.*}}: memref<4xf32>) attributes {shardc.noalias_params = array<i64: 11>, shardc.outlined_nest}
// CHECK: func.func private @views_nest1(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) attributes {shardc.outlined_nest}
func.func private @opaque()
func.func @views() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %buf = memref.alloc() : memref<8xf32>
  %out = memref.alloc() : memref<4xf32>
  %other = memref.alloc() : memref<4xf32>
  %lo = memref.subview %buf[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %hi = memref.subview %buf[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %lo[%i] : memref<4xf32, strided<[1]>>
    memref.store %x, %hi[%i] : memref<4xf32, strided<[1], offset: 4>>
    memref.store %x, %out[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    func.call @opaque() : () -> ()
    %x = memref.load %out[%i] : memref<4xf32>
    memref.store %x, %other[%i] : memref<4xf32>
  }
  return
}

// -----

// An outlined kernel (a parallel loop's chunk, a nest already outlined) is
// not split again, however many nests it has.
// CHECK-LABEL: func.func private @chunk
// CHECK-SAME: attributes {shardc.outlined_nest}
// CHECK-NOT: call
// CHECK: scf.for
// CHECK: scf.for
// CHECK: return
func.func private @chunk(%a: memref<4xf32>, %b: memref<4xf32>) attributes {shardc.outlined_nest} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    memref.store %x, %b[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %b[%i] : memref<4xf32>
    memref.store %x, %a[%i] : memref<4xf32>
  }
  return
}

// -----

// Before loop lowering a kernel is still a linalg op on buffers: it is a
// nest like any loop, so the pass can run there.
// CHECK-LABEL: func.func @linalg_kernels(
// CHECK: call @linalg_kernels_nest0(
// CHECK: call @linalg_kernels_nest1(
// CHECK: func.func private @linalg_kernels_nest0(%{{.*}}: memref<8xf32>)
// CHECK-NEXT: arith.constant 1.0
// CHECK-NEXT: linalg.fill
// CHECK: func.func private @linalg_kernels_nest1(%{{.*}}: memref<8xf32>, %{{.*}}: memref<8xf32>)
// CHECK-NEXT: linalg.copy
func.func @linalg_kernels(%a: memref<8xf32>, %b: memref<8xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%a : memref<8xf32>)
  linalg.copy ins(%a : memref<8xf32>) outs(%b : memref<8xf32>)
  return
}

// -----

// A matmul goes with what the GEMM recipe reads around it: C's allocation,
// its zero fill (here far above, with another kernel between), the
// elementwise consumer the tiles compute (a bias and relu) and C's
// deallocation, as C has no other user. The group becomes one function
// where the consumer was.
// CHECK-LABEL: func.func @gemm_group
// CHECK-SAME: (%[[A:.*]]: memref<8x4xf32>, %[[B:.*]]: memref<4x16xf32>, %[[BIAS:.*]]: memref<16xf32>, %[[Y:.*]]: memref<8x16xf32>, %[[Z:.*]]: memref<8xf32>)
// CHECK: call @gemm_group_nest0(%[[Z]])
// CHECK-NEXT: call @gemm_group_nest1(%[[A]], %[[B]], %[[BIAS]], %[[Y]])
// CHECK-NEXT: return
// CHECK: func.func private @gemm_group_nest1(
// CHECK: %[[C:.*]] = memref.alloc() : memref<8x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[C]] : memref<8x16xf32>)
// CHECK-NEXT: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x4xf32>, memref<4x16xf32>) outs(%[[C]] : memref<8x16xf32>)
// CHECK-NEXT: linalg.generic
// CHECK: arith.maximumf
// CHECK: memref.dealloc %[[C]] : memref<8x16xf32>
// CHECK-NEXT: return
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @gemm_group(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %bias: memref<16xf32>,
                      %y: memref<8x16xf32>, %z: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x16xf32>)
  linalg.fill ins(%zero : f32) outs(%z : memref<8xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<8x16xf32>, memref<16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%x: f32, %bb: f32, %o: f32):
    %s = arith.addf %x, %bb : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<8x16xf32>
  return
}

// -----

// C is the caller's buffer: only a fill right before the matmul goes with
// it; the consumer, which may not be computed in the tiles (it is not C's
// only reader), stays a nest of its own.
// CHECK-LABEL: func.func @gemm_shared_c
// CHECK: call @gemm_shared_c_nest0(
// CHECK-NEXT: call @gemm_shared_c_nest1(
// CHECK-NEXT: return
// CHECK: func.func private @gemm_shared_c_nest0(
// CHECK-NEXT: arith.constant
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: return
// CHECK: func.func private @gemm_shared_c_nest1(
// CHECK: linalg.generic
#same = affine_map<(i, j) -> (i, j)>
func.func @gemm_shared_c(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>,
                         %y: memref<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#same, #same], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  return
}
