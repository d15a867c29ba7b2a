// RUN: shardc-opt %s -split-input-file --cpu-widen-boolean-tensors | FileCheck %s
//
// A mask passed from one linalg.generic to another is stored as bytes: the
// producer yields the bit zero-extended to i8, the consumer truncates the
// byte back, so LLVM vectorizes both loops.

#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @mask_between_kernels
// CHECK: %[[E8:.*]] = tensor.empty() : tensor<64xi8>
// CHECK: %[[M:.*]]:2 = linalg.generic
// CHECK-SAME: outs(%{{.*}}, %[[E8]] : tensor<64xf32>, tensor<64xi8>)
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: i8):
// CHECK: %[[C:.*]] = arith.cmpf ogt
// CHECK: %[[W:.*]] = arith.extui %[[C]] : i1 to i8
// CHECK: linalg.yield %{{.*}}, %[[W]] : f32, i8
// CHECK: -> (tensor<64xf32>, tensor<64xi8>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[M]]#1, %arg1 : tensor<64xi8>, tensor<64xf32>)
// CHECK: ^bb0(%[[B8:.*]]: i8, %[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[B:.*]] = arith.trunci %[[B8]] : i8 to i1
// CHECK-NEXT: arith.select %[[B]], %[[V]]
func.func @mask_between_kernels(%x: tensor<64xf32>, %g: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %e1 = tensor.empty() : tensor<64xi1>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e, %e1 : tensor<64xf32>, tensor<64xi1>) {
  ^bb0(%a: f32, %o: f32, %ob: i1):
    %m = arith.maximumf %a, %zero : f32
    %c = arith.cmpf ogt, %a, %zero : f32
    linalg.yield %m, %c : f32, i1
  } -> (tensor<64xf32>, tensor<64xi1>)
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%r#1, %g : tensor<64xi1>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%b: i1, %v: f32, %o: f32):
    %s = arith.select %b, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r#0, %y : tensor<64xf32>, tensor<64xf32>
}

// -----

// A mask the function returns keeps its type.

#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @returned_mask
// CHECK-NOT: i8
// CHECK: return %{{.*}} : tensor<64xi1>
func.func @returned_mask(%x: tensor<64xf32>) -> tensor<64xi1> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64xi1>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e1 : tensor<64xi1>) {
  ^bb0(%a: f32, %ob: i1):
    %c = arith.cmpf ogt, %a, %zero : f32
    linalg.yield %c : i1
  } -> tensor<64xi1>
  return %r : tensor<64xi1>
}

// -----

// A reduction into a mask (its body reads the destination) keeps its type.

#id = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>
#scalar = affine_map<() -> ()>

// CHECK-LABEL: func.func @reduced_mask
// CHECK-NOT: i8
func.func @reduced_mask(%x: tensor<64xi1>, %g: tensor<f32>) -> tensor<f32> {
  %true = arith.constant true
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<i1>
  %init = linalg.fill ins(%true : i1) outs(%e : tensor<i1>) -> tensor<i1>
  %all = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction"]}
      ins(%x : tensor<64xi1>) outs(%init : tensor<i1>) {
  ^bb0(%a: i1, %o: i1):
    %c = arith.andi %a, %o : i1
    linalg.yield %c : i1
  } -> tensor<i1>
  %ef = tensor.empty() : tensor<f32>
  %y = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
      ins(%all, %g : tensor<i1>, tensor<f32>) outs(%ef : tensor<f32>) {
  ^bb0(%b: i1, %v: f32, %o: f32):
    %s = arith.select %b, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %y : tensor<f32>
}
