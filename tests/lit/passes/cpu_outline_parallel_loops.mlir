// RUN: shardc-opt %s -split-input-file --cpu-outline-parallel-loops="min-work=4096" | FileCheck %s
//
// cpu-outline-parallel-loops: a large outermost scf.parallel becomes a chunk
// function over [begin, end) of one dimension, called through a dispatch
// declaration that names it (cpu-build-parallel-dispatch defines that one).

// CHECK-LABEL: func.func @large(
// CHECK-SAME: %[[A:[^:]+]]: memref<4096xf32>, %[[S:[^:]+]]: f32
// CHECK: %[[N:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : index
// CHECK: call @large_par0_dispatch(%[[N]], %[[S]], %[[A]]) : (index, f32, memref<4096xf32>) -> ()
// CHECK-NOT: scf.parallel
// The one memref is the only memory the chunk reaches: its aligned pointer,
// LLVM parameter 4 (after begin, end, s and the allocated pointer), is
// noalias.
// CHECK: func.func private @large_par0(%[[B:.*]]: index, %[[E:.*]]: index, %[[S2:.*]]: f32, %[[A2:.*]]: memref<4096xf32>) attributes {shardc.noalias_params = array<i64: 4>, shardc.outlined_nest}
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4096:.*]] = arith.constant 4096 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[FIRST:.*]] = arith.addi %[[C0]], %{{.*}} : index
// CHECK: %[[LAST:.*]] = arith.minsi %[[C4096]], %{{.*}} : index
// CHECK: scf.parallel (%{{.*}}) = (%[[FIRST]]) to (%[[LAST]]) step (%[[C1]])
// CHECK: memref.store %[[S2]], %[[A2]]
// CHECK: func.func private @large_par0_dispatch(index, f32, memref<4096xf32>) attributes {shardc.parallel_body = @large_par0}
func.func @large(%a: memref<4096xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i) = (%c0) to (%c4096) step (%c1) {
    memref.store %s, %a[%i] : memref<4096xf32>
    scf.reduce
  }
  return
}

// -----

// Below min-work, reducing into results, or calling the runtime: the loop
// stays where it is.
// CHECK-LABEL: func.func @stays(
// CHECK-COUNT-3: scf.parallel
// CHECK-NOT: _dispatch
// CHECK: return
func.func private @shardrt_rank() -> i64
func.func @stays(%a: memref<4096xf32>, %b: memref<64xf32>, %s: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    memref.store %s, %b[%i] : memref<64xf32>
    scf.reduce
  }
  %sum = scf.parallel (%i) = (%c0) to (%c4096) step (%c1) init (%s) -> f32 {
    %v = memref.load %a[%i] : memref<4096xf32>
    scf.reduce(%v : f32) {
    ^bb0(%x: f32, %y: f32):
      %r = arith.addf %x, %y : f32
      scf.reduce.return %r : f32
    }
  }
  scf.parallel (%i) = (%c0) to (%c4096) step (%c1) {
    %r = func.call @shardrt_rank() : () -> i64
    memref.store %s, %a[%i] : memref<4096xf32>
    scf.reduce
  }
  return %sum : f32
}

// -----

// A nest: only the outermost parallel loop is split, on its first dimension
// that runs more than once (here the second: the first has one iteration).
// CHECK-LABEL: func.func @nest(
// CHECK: call @nest_par0_dispatch
// CHECK: func.func private @nest_par0(
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0{{.*}}, %{{.*}}) to (%c1{{.*}}, %{{.*}})
// CHECK: scf.parallel
// CHECK-NOT: call
// CHECK: func.func private @nest_par0_dispatch
func.func @nest(%a: memref<1x256x64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1, %c256) step (%c1, %c1) {
    scf.parallel (%k) = (%c0) to (%c64) step (%c1) {
      memref.store %s, %a[%i, %j, %k] : memref<1x256x64xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}

// -----

// A vector op counts as many operations as its vector has lanes: 64 rows,
// each a load and a store of 32 floats, is 4096 and more (as two scalar
// ops per row it was 128, and the copy stayed on one thread).
// CHECK-LABEL: func.func @vector_rows(
// CHECK: call @vector_rows_par0_dispatch
// CHECK-NEXT: return
func.func @vector_rows(%src: memref<64x32xf32>, %dst: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = vector.load %src[%i, %c0] : memref<64x32xf32>, vector<32xf32>
    vector.store %v, %dst[%i, %c0] : memref<64x32xf32>, vector<32xf32>
    scf.reduce
  }
  return
}

// -----

// The same rows as scalar copies of one float each: too little work.
// CHECK-LABEL: func.func @scalar_rows(
// CHECK-NOT: call
// CHECK: scf.parallel
func.func @scalar_rows(%src: memref<64x32xf32>, %dst: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %src[%i, %c0] : memref<64x32xf32>
    memref.store %v, %dst[%i, %c0] : memref<64x32xf32>
    scf.reduce
  }
  return
}

// -----

// A kernel function of cpu-outline-loop-nests whose loop goes to the
// threads is left holding only its dispatch: it is inlined back into its
// callers, and the chunk keeps the kernel's noalias arguments as noalias
// (parameters 3 and 8: the aligned pointers of two rank-1 memrefs, after
// the chunk's begin and end).
// CHECK-LABEL: func.func @caller(
// CHECK-SAME: %[[A:[^:]+]]: memref<4096xf32>, %[[B:[^:]+]]: memref<4096xf32>
// CHECK: call @kernel_par0_dispatch(%{{.*}}, %[[A]], %[[B]])
// CHECK-NOT: call @kernel(
// CHECK-NOT: func.func private @kernel(
// CHECK: func.func private @kernel_par0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: memref<4096xf32>, %{{.*}}: memref<4096xf32>)
// CHECK-SAME: shardc.noalias_params = array<i64: 3, 8>
func.func @caller(%a: memref<4096xf32>, %b: memref<4096xf32>) {
  call @kernel(%a, %b) : (memref<4096xf32>, memref<4096xf32>) -> ()
  return
}
func.func private @kernel(%a: memref<4096xf32>, %b: memref<4096xf32>)
    attributes {shardc.outlined_nest, shardc.noalias_params = array<i64: 1, 6>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i) = (%c0) to (%c4096) step (%c1) {
    %v = memref.load %a[%i] : memref<4096xf32>
    memref.store %v, %b[%i] : memref<4096xf32>
    scf.reduce
  }
  return
}

// -----

// A GEMM recipe's loop also needs a GEMM of gemm-min-work products (the
// default, 2^21) to be shared with other ranks, and of gemm-own-min-work
// (2^18) to go to the rank's own kernel threads: a tiny GEMM's loop stays,
// however much its own body does; a small one's dispatch is marked
// shardc.parallel_own; a large one's is not. The mark is dropped either way.
// CHECK-LABEL: func.func @gemm_loops(
// CHECK: scf.parallel
// CHECK-NOT: shardc.gemm_loop
// CHECK: call @gemm_loops_par0_dispatch
// CHECK-NOT: shardc.gemm_loop
// CHECK: call @gemm_loops_par1_dispatch
// CHECK-NOT: shardc.gemm_loop
// CHECK: func.func private @gemm_loops_par0_dispatch({{.*}}) attributes {shardc.parallel_body = @gemm_loops_par0, shardc.parallel_own}
// CHECK: func.func private @gemm_loops_par1_dispatch({{.*}}) attributes {shardc.parallel_body = @gemm_loops_par1}
func.func @gemm_loops(%a: memref<4096xf32>, %b: memref<4096xf32>, %c: memref<4096xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i) = (%c0) to (%c4096) step (%c1) {
    memref.store %s, %a[%i] : memref<4096xf32>
    scf.reduce
  } {shardc.gemm_loop = 131072 : i64}
  scf.parallel (%i) = (%c0) to (%c4096) step (%c1) {
    memref.store %s, %c[%i] : memref<4096xf32>
    scf.reduce
  } {shardc.gemm_loop = 524288 : i64}
  scf.parallel (%i) = (%c0) to (%c4096) step (%c1) {
    memref.store %s, %b[%i] : memref<4096xf32>
    scf.reduce
  } {shardc.gemm_loop = 2097152 : i64}
  return
}

// -----

// Inside a large GEMM the bar is a quarter of min-work (its packing copies
// cost more than the operations counted): of two loops of the same 2048
// counted operations, under min-work, the GEMM's is outlined and the other
// stays.
// CHECK-LABEL: func.func @gemm_bar(
// CHECK: call @gemm_bar_par0_dispatch
// CHECK: scf.parallel
// CHECK-NOT: call @gemm_bar_par1_dispatch
func.func @gemm_bar(%a: memref<1024xf32>, %b: memref<1024xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
    memref.store %s, %a[%i] : memref<1024xf32>
    scf.reduce
  } {shardc.gemm_loop = 2097152 : i64}
  scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
    memref.store %s, %b[%i] : memref<1024xf32>
    scf.reduce
  }
  return
}
