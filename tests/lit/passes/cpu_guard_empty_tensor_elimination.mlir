// RUN: shardc-opt %s -split-input-file --cpu-guard-empty-tensor-elimination | FileCheck %s
// RUN: shardc-opt %s -split-input-file --cpu-guard-empty-tensor-elimination \
// RUN:   --eliminate-empty-tensors --one-shot-bufferize | FileCheck %s --check-prefix=BUF
//
// cpu-guard-empty-tensor-elimination: before eliminate-empty-tensors puts a
// destination chain into its output buffer, every value on the chain must be
// private to it. Without this pass, each case below bufferizes so that one
// output receives the other's value (two reductions from one CSE'd fill gave
// two copies of the first sum).

// A fill shared by two reductions is cloned (with its empty) right before
// each of them: each chain is private, both results stay eligible for
// in-place writes, and each buffer is made where it is used.
// CHECK-LABEL: func.func @shared_fill
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<2xf32>
// CHECK-NEXT: %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<2xf32>)
// CHECK-NEXT: %[[A:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x4xf32>) outs(%[[F0]] : tensor<2xf32>)
// CHECK: } -> tensor<2xf32>
// CHECK-NEXT: %[[E1:.*]] = tensor.empty() : tensor<2xf32>
// CHECK-NEXT: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<2xf32>)
// CHECK-NEXT: %[[B:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<2x4xf32>) outs(%[[F1]] : tensor<2xf32>)
// CHECK: bufferization.materialize_in_destination %[[A]] in restrict writable %arg2
// CHECK: bufferization.materialize_in_destination %[[B]] in restrict writable %arg3
// BUF-LABEL: func.func @shared_fill
// BUF-NOT: memref.alloc
// BUF: linalg.fill ins(%{{.*}} : f32) outs(%arg2 : memref<2xf32>)
// BUF: linalg.generic {{.*}} ins(%{{.*}}) outs(%arg2 : memref<2xf32>)
// BUF: linalg.fill ins(%{{.*}} : f32) outs(%arg3 : memref<2xf32>)
// BUF: linalg.generic {{.*}} ins(%{{.*}}) outs(%arg3 : memref<2xf32>)
// BUF-NOT: memref.alloc
// BUF: return
func.func @shared_fill(%x: tensor<2x4xf32>, %p: tensor<2x4xf32>, %m: memref<2xf32>, %r: memref<2xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x4xf32>) outs(%f : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%p : tensor<2x4xf32>) outs(%f : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  bufferization.materialize_in_destination %a in restrict writable %m : (tensor<2xf32>, memref<2xf32>) -> ()
  bufferization.materialize_in_destination %b in restrict writable %r : (tensor<2xf32>, memref<2xf32>) -> ()
  return
}
// -----

// One value returned twice: it may not live in either output buffer.
// CHECK-LABEL: func.func @returned_twice
// CHECK: bufferization.materialize_in_destination %[[A:.*]] in writable %arg1
// CHECK: bufferization.materialize_in_destination %[[A]] in writable %arg2
func.func @returned_twice(%x: tensor<2xf32>, %m: memref<2xf32>, %r: memref<2xf32>) {
  %e = tensor.empty() : tensor<2xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<2xf32>) outs(%e : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  bufferization.materialize_in_destination %a in restrict writable %m : (tensor<2xf32>, memref<2xf32>) -> ()
  bufferization.materialize_in_destination %a in restrict writable %r : (tensor<2xf32>, memref<2xf32>) -> ()
  return
}
// -----

// %a is the destination of %b and also a result: it must not be computed in
// %b's output buffer (which %b then overwrites).
// CHECK-LABEL: func.func @live_init
// CHECK: bufferization.materialize_in_destination %{{.*}} in writable %arg1
// CHECK: bufferization.materialize_in_destination %{{.*}} in writable %arg2
// BUF-LABEL: func.func @live_init
// BUF: %[[A:.*]] = memref.alloc()
// BUF: linalg.generic {{.*}} outs(%[[A]] : memref<2xf32>)
// BUF: %[[B:.*]] = memref.alloc()
// BUF: memref.copy %[[A]], %[[B]]
// BUF: linalg.generic {{.*}} outs(%[[B]] : memref<2xf32>)
// BUF: memref.copy %[[B]], %arg1
// BUF: memref.copy %[[A]], %arg2
func.func @live_init(%x: tensor<2xf32>, %m: memref<2xf32>, %r: memref<2xf32>) {
  %e = tensor.empty() : tensor<2xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<2xf32>) outs(%e : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<2xf32>) outs(%a : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  bufferization.materialize_in_destination %b in restrict writable %m : (tensor<2xf32>, memref<2xf32>) -> ()
  bufferization.materialize_in_destination %a in restrict writable %r : (tensor<2xf32>, memref<2xf32>) -> ()
  return
}
