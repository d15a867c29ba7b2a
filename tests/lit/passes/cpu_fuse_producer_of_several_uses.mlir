// RUN: shardc-opt %s -split-input-file --cpu-fuse-elementwise-ops | FileCheck %s
//
// An elementwise producer whose result has several uses is fused into the
// first of its elementwise consumers when every other use comes after that
// consumer: one kernel writes both results, and the producer's result is
// not read back (relu(x + b), with x + b kept for the backward pass).

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @kept_for_later
// CHECK: %[[F:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%arg0, %arg1 : tensor<64x32xf32>, tensor<32xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK: call @use(%[[F]]#1)
// CHECK: call @use(%[[F]]#0)
// CHECK-NOT: linalg.generic
func.func private @use(tensor<64x32xf32>)
func.func @kept_for_later(%x: tensor<64x32xf32>, %b: tensor<32xf32>) {
  %e = tensor.empty() : tensor<64x32xf32>
  %zero = arith.constant 0.0 : f32
  %pre = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x32xf32>, tensor<32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<64x32xf32>
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%pre : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>
  call @use(%act) : (tensor<64x32xf32>) -> ()
  call @use(%pre) : (tensor<64x32xf32>) -> ()
  return
}

// -----

// A use of the producer before the consumer: the fused op, where the
// consumer stands, would come after it. Both kernels stay.

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @used_before
// CHECK: linalg.generic
// CHECK: call @use
// CHECK: linalg.generic
func.func private @use(tensor<64x32xf32>)
func.func @used_before(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %pre = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<64x32xf32>
  call @use(%pre) : (tensor<64x32xf32>) -> ()
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%pre : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>
  return %act : tensor<64x32xf32>
}

// -----

// A consumer that reads the producer transposed: fusing would compute the
// producer in the consumer's order and write its result through a
// transposed map; both kernels stay.

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>

// CHECK-LABEL: func.func @transposed_read
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: call @use
func.func private @use(tensor<32x32xf32>)
func.func @transposed_read(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %pre = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  %act = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%pre : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<32x32xf32>
  call @use(%pre) : (tensor<32x32xf32>) -> ()
  return %act : tensor<32x32xf32>
}
