// RUN: shardc-opt %s -split-input-file --cpu-fuse-elementwise-ops="fuse-several-uses=false" | FileCheck %s
// RUN: shardc-opt %s -split-input-file --cpu-fuse-elementwise-ops="fuse-several-uses=false recompute-from-inputs=false" | FileCheck %s --check-prefix=OFF
//
// An elementwise consumer computes an elementwise producer's results
// itself instead of reading them back when that reads fewer whole tensors
// (a backward pass reading x and tanh(x) reads x alone); the producer
// stays for its other uses, or goes when none is left.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @backward_reads_input
// CHECK-SAME: (%[[X:[^:]+]]: tensor<64x128xf32>, %[[DY:[^:]+]]: tensor<64x128xf32>)
// CHECK: %[[T:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<64x128xf32>)
// CHECK: math.tanh
// CHECK: call @use(%[[T]])
// CHECK: %[[G:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[DY]] : tensor<64x128xf32>, tensor<64x128xf32>)
// CHECK: math.tanh
// CHECK: arith.mulf
// CHECK: return %[[G]]
// OFF-LABEL: func.func @backward_reads_input
// OFF: %[[T:.*]] = linalg.generic
// OFF: linalg.generic
// OFF-SAME: ins(%{{.*}}, %[[T]], %{{.*}} :
func.func private @use(tensor<64x128xf32>)
func.func @backward_reads_input(%x: tensor<64x128xf32>, %dy: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %e = tensor.empty() : tensor<64x128xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  call @use(%t) : (tensor<64x128xf32>) -> ()
  %g = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %t, %dy : tensor<64x128xf32>, tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %n = arith.mulf %m, %c : f32
    linalg.yield %n : f32
  } -> tensor<64x128xf32>
  return %g : tensor<64x128xf32>
}

// -----

// Both of the producer's consumers read its inputs (x, and a small
// broadcast bias): each recomputes it, adding the bias to what it reads,
// and the producer, with no use left, is gone.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @producer_gone
// CHECK-SAME: (%[[X:[^:]+]]: tensor<64x128xf32>, %[[B:[^:]+]]: tensor<128xf32>, %[[DY:[^:]+]]: tensor<64x128xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[B]], %[[DY]] :
// CHECK: arith.addf
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[B]] :
// CHECK: arith.addf
// CHECK: math.exp
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @producer_gone(%x: tensor<64x128xf32>, %b: tensor<128xf32>, %dy: tensor<64x128xf32>)
    -> (tensor<64x128xf32>, tensor<64x128xf32>) {
  %e = tensor.empty() : tensor<64x128xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x128xf32>, tensor<128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %r = math.exp %s : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %p, %dy : tensor<64x128xf32>, tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %q: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %q : f32
    %n = arith.mulf %m, %c : f32
    linalg.yield %n : f32
  } -> tensor<64x128xf32>
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %p : tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %q: f32, %o: f32):
    %m = arith.subf %q, %a : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  return %g, %h : tensor<64x128xf32>, tensor<64x128xf32>
}

// -----

// The consumer does not read x: recomputing the producer there would read
// x instead of its result, which saves nothing. Both kernels stay.

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @input_not_shared
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[T]], %{{.*}} :
// CHECK-NOT: math.tanh
// CHECK: return
func.func private @use(tensor<64x128xf32>)
func.func @input_not_shared(%x: tensor<64x128xf32>, %dy: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %e = tensor.empty() : tensor<64x128xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  call @use(%t) : (tensor<64x128xf32>) -> ()
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %dy : tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%b: f32, %c: f32, %o: f32):
    %n = arith.mulf %b, %c : f32
    linalg.yield %n : f32
  } -> tensor<64x128xf32>
  return %g : tensor<64x128xf32>
}

// -----

// A producer of two results read only by one consumer (an add of two
// partial gradients) fuses into it: one kernel, no intermediates.

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @one_user_two_results
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0 : tensor<64x128xf32>)
// CHECK: math.tanh
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @one_user_two_results(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %e = tensor.empty() : tensor<64x128xf32>
  %p:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x128xf32>) outs(%e, %e : tensor<64x128xf32>, tensor<64x128xf32>) {
  ^bb0(%a: f32, %o: f32, %o2: f32):
    %r = math.tanh %a : f32
    %s = arith.mulf %r, %a : f32
    linalg.yield %r, %s : f32, f32
  } -> (tensor<64x128xf32>, tensor<64x128xf32>)
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p#0, %p#1 : tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %n = arith.addf %a, %b : f32
    linalg.yield %n : f32
  } -> tensor<64x128xf32>
  return %sum : tensor<64x128xf32>
}

// -----

// The consumer does not read h, but reads two of the producer's results
// (a layer norm's backward reading the centered and the exponentiated
// value): recomputed from h and the row's mean (a broadcast, not counted),
// it reads one whole tensor instead of two. The producer stays for its
// other use and keeps only the result that use reads.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @fewer_tensors_read
// CHECK-SAME: (%[[H:[^:]+]]: tensor<64x128xf32>, %[[MU:[^:]+]]: tensor<64xf32>, %[[DY:[^:]+]]: tensor<64x128xf32>)
// CHECK: %[[P:.*]] = linalg.generic
// CHECK-SAME: ins(%[[H]], %[[MU]] :
// CHECK-SAME: outs(%{{[^:]*}} : tensor<64x128xf32>)
// CHECK: math.exp
// CHECK: call @use(%[[P]])
// CHECK: %[[G:.*]] = linalg.generic
// CHECK-SAME: ins(%[[H]], %[[MU]], %[[DY]] :
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: return %[[G]]
// OFF-LABEL: func.func @fewer_tensors_read
// OFF: %[[P:.*]]:2 = linalg.generic
// OFF: linalg.generic
// OFF-SAME: ins(%[[P]]#0, %[[P]]#1, %{{.*}} :
func.func private @use(tensor<64x128xf32>)
func.func @fewer_tensors_read(%h: tensor<64x128xf32>, %mu: tensor<64xf32>, %dy: tensor<64x128xf32>)
    -> tensor<64x128xf32> {
  %e = tensor.empty() : tensor<64x128xf32>
  %p:2 = linalg.generic {indexing_maps = [#id, #col, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %mu : tensor<64x128xf32>, tensor<64xf32>) outs(%e, %e : tensor<64x128xf32>, tensor<64x128xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32, %o2: f32):
    %c = arith.subf %a, %m : f32
    %x = math.exp %c : f32
    linalg.yield %c, %x : f32, f32
  } -> (tensor<64x128xf32>, tensor<64x128xf32>)
  call @use(%p#1) : (tensor<64x128xf32>) -> ()
  %g = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p#0, %p#1, %dy : tensor<64x128xf32>, tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %n = arith.mulf %m, %c : f32
    linalg.yield %n : f32
  } -> tensor<64x128xf32>
  return %g : tensor<64x128xf32>
}

// -----

// Two results read, but recomputing them would read two whole tensors the
// consumer does not read (x and y): as many as it saves, so the consumer
// reads the results.

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @as_many_tensors_read
// CHECK: %[[P:.*]]:2 = linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]]#0, %[[P]]#1 :
// CHECK-NOT: math.exp
// CHECK: return
func.func private @use(tensor<64x128xf32>)
func.func @as_many_tensors_read(%x: tensor<64x128xf32>, %y: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %e = tensor.empty() : tensor<64x128xf32>
  %p:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<64x128xf32>, tensor<64x128xf32>) outs(%e, %e : tensor<64x128xf32>, tensor<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32, %o2: f32):
    %c = arith.subf %a, %b : f32
    %r = math.exp %c : f32
    linalg.yield %c, %r : f32, f32
  } -> (tensor<64x128xf32>, tensor<64x128xf32>)
  call @use(%p#0) : (tensor<64x128xf32>) -> ()
  call @use(%p#1) : (tensor<64x128xf32>) -> ()
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p#0, %p#1 : tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  return %g : tensor<64x128xf32>
}
