// RUN: shardc-opt %s --garray-lower-to-linalg --cpu-generalize-named-ops --cpu-fuse-elementwise-ops --linalg-specialize-generic-ops --canonicalize --cse | FileCheck %s --check-prefix=FUSED
// RUN: shardc-opt %s --garray-lower-to-linalg --cpu-generalize-named-ops --cpu-fuse-elementwise-ops --linalg-specialize-generic-ops --canonicalize --cse --eliminate-empty-tensors --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --convert-linalg-to-loops | FileCheck %s --check-prefix=LOOPS
// RUN: shardc compile %s --emit=llvm --cpu=x86-64-v3 | FileCheck %s --check-prefix=LLVM
//
// The CPU pipeline's tensor phase (the order of cpuLoweringPipeline():
// cpu-generalize-named-ops, cpu-fuse-elementwise-ops, specialize,
// canonicalize, cse) fuses a chain of six elementwise ops into one
// linalg.generic, so there are no intermediate tensors; after bufferization
// and convert-linalg-to-loops that is one loop nest (2 loops for 2-D) with
// one load per input and one store. With AVX2 (x86-64-v3) LLVM's loop
// vectorizer turns that nest into 8-wide vector code, and nothing is called
// per element.

// FUSED-LABEL: func.func @chain
// FUSED-SAME: (%[[X:[^:]+]]: tensor<64x1000xf32>, %[[Y:[^:]+]]: tensor<64x1000xf32>)
// FUSED-COUNT-1: linalg.generic
// FUSED-NOT: linalg.generic
// FUSED: ins(%[[X]], %[[Y]] : tensor<64x1000xf32>, tensor<64x1000xf32>)
// FUSED: arith.mulf
// FUSED-NEXT: arith.addf
// FUSED-NEXT: arith.subf
// FUSED-NEXT: arith.maximumf
// FUSED-NEXT: math.absf
// FUSED-NEXT: arith.negf
// FUSED-NEXT: linalg.yield

// LOOPS-LABEL: func.func @chain
// LOOPS-COUNT-1: memref.alloc
// LOOPS: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// LOOPS-NEXT: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// LOOPS-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]]
// LOOPS-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]]
// LOOPS-NEXT: arith.mulf
// LOOPS-NEXT: arith.addf
// LOOPS-NEXT: arith.subf
// LOOPS-NEXT: arith.maximumf
// LOOPS-NEXT: math.absf
// LOOPS-NEXT: arith.negf
// LOOPS-NEXT: memref.store
// LOOPS-NOT: scf.for
// LOOPS-NOT: memref.alloc
// LOOPS: return

// The fused loop is large enough for the rank's kernel threads: it lives in
// a chunk function that the entry hands to shardrt_parallel_for, one row
// per iteration, and the chunk is one vectorized loop.
// LLVM-LABEL: define internal {{.*}}void @chain_shardc_body_par0(
// LLVM-DAG: load <8 x float>
// LLVM-DAG: fmul <8 x float>
// LLVM-DAG: fadd <8 x float>
// LLVM-DAG: fsub <8 x float>
// LLVM-DAG: call <8 x float> @llvm.maximum.v8f32
// LLVM-DAG: call <8 x float> @llvm.fabs.v8f32
// LLVM-DAG: fneg <8 x float>
// LLVM-DAG: store <8 x float>
// LLVM-NOT: call {{.*}}@shardrt_
// LLVM-NOT: call {{.*}}@shardrt_buffer_alloc
// LLVM-LABEL: define void @chain_shardc(
// LLVM: call void @shardrt_parallel_for(i64 64, ptr nonnull @chain_shardc_body_par0_task
// LLVM-NOT: call {{.*}}@shardrt_buffer_alloc
func.func @chain(%x: tensor<64x1000xf32>, %y: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %0 = garray.mul %x, %y : tensor<64x1000xf32>
  %1 = garray.add %0, %x : tensor<64x1000xf32>
  %2 = garray.sub %1, %y : tensor<64x1000xf32>
  %3 = garray.max %2, %x : tensor<64x1000xf32>
  %4 = garray.abs %3 : tensor<64x1000xf32>
  %5 = garray.neg %4 : tensor<64x1000xf32>
  return %5 : tensor<64x1000xf32>
}
