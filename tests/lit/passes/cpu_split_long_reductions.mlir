// RUN: shardc-opt %s -split-input-file --cpu-split-long-reductions | FileCheck %s
//
// A float sum of many elements into a scalar, or of each row's elements
// into one per row, becomes partial sums side by side and one sum of those
// into the original accumulator.

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> ()>

// 1024 x 1024 elements: 1024 partial sums (√ of the count) over the inner
// dim, which the input is expanded along; the body moves over unchanged.
// CHECK-DAG: #[[IN3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[J:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[ALL:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @sum_of_squares
// CHECK-SAME: (%[[X:.*]]: tensor<1024x1024xf32>, %[[INIT:.*]]: tensor<f32>)
// CHECK: %[[XE:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2]] {{.*}} into tensor<1024x1x1024xf32>
// CHECK: %[[NEGZERO:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: %[[P0:.*]] = linalg.fill ins(%[[NEGZERO]] : f32) outs(%{{.*}} : tensor<1024xf32>)
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[IN3]], #[[J]]], iterator_types = ["reduction", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[XE]] : tensor<1024x1x1024xf32>) outs(%[[P0]] : tensor<1024xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[ALL]], #[[SCALAR]]], iterator_types = ["reduction"]}
// CHECK-SAME: ins(%[[P]] : tensor<1024xf32>) outs(%[[INIT]] : tensor<f32>)
// CHECK: ^bb0(%[[V:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: arith.addf %[[ACC]], %[[V]] : f32
// CHECK: return %[[S]]
func.func @sum_of_squares(%x: tensor<1024x1024xf32>, %init: tensor<f32>) -> tensor<f32> {
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<1024x1024xf32>) outs(%init : tensor<f32>) {
    ^bb0(%v: f32, %acc: f32):
      %sq = arith.mulf %v, %v : f32
      %a = arith.addf %acc, %sq : f32
      linalg.yield %a : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// The inner dim (6) has no divisor from 8 up, so the outer one (6000) is
// split: 250 partial sums (the largest divisor of 6000 up to 256, the power
// of two above √36000), the second input reading only that dim.
// CHECK-LABEL: func.func @outer_dim
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] {{.*}} into tensor<24x250x6xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] {{.*}} into tensor<24x250xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<250xf32>)
func.func @outer_dim(%x: tensor<6000x6xf32>, %w: tensor<6000xf32>, %init: tensor<f32>) -> tensor<f32> {
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                        affine_map<(d0, d1) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x, %w : tensor<6000x6xf32>, tensor<6000xf32>) outs(%init : tensor<f32>) {
    ^bb0(%v: f32, %u: f32, %acc: f32):
      %p = arith.mulf %v, %u : f32
      %a = arith.addf %p, %acc : f32
      linalg.yield %a : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Left alone: too few elements, a maximum (exact in any order), an integer
// sum (exact), a column sum (its inner loop is parallel: vectors already),
// a row sum that reads its rows across (strided), and one whose row (24)
// is too short for 4 terms in each of 8 partial sums.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @left_alone(%small: tensor<64x63xf32>, %x: tensor<1024x1024xf32>,
                      %i: tensor<1024x1024xi32>, %init: tensor<f32>, %iinit: tensor<i32>,
                      %rows: tensor<1024xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<i32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%small : tensor<64x63xf32>) outs(%init : tensor<f32>) {
    ^bb0(%v: f32, %acc: f32):
      %s = arith.addf %acc, %v : f32
      linalg.yield %s : f32
  } -> tensor<f32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<1024x1024xf32>) outs(%init : tensor<f32>) {
    ^bb0(%v: f32, %acc: f32):
      %s = arith.maximumf %acc, %v : f32
      linalg.yield %s : f32
  } -> tensor<f32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%i : tensor<1024x1024xi32>) outs(%iinit : tensor<i32>) {
    ^bb0(%v: i32, %acc: i32):
      %s = arith.addi %acc, %v : i32
      linalg.yield %s : i32
  } -> tensor<i32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<1024x1024xf32>) outs(%rows : tensor<1024xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %s = arith.addf %acc, %v : f32
      linalg.yield %s : f32
  } -> tensor<1024xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1024x1024xf32>) outs(%rows : tensor<1024xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %s = arith.addf %acc, %v : f32
      linalg.yield %s : f32
  } -> tensor<1024xf32>
  %short = tensor.extract_slice %x[0, 0] [1024, 24] [1, 1] : tensor<1024x1024xf32> to tensor<1024x24xf32>
  %u = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%short : tensor<1024x24xf32>) outs(%rows : tensor<1024xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %s = arith.addf %acc, %v : f32
      linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %a, %m, %n, %r, %t, %u : tensor<f32>, tensor<f32>, tensor<i32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}

// -----

// A sum per row (layer norm's mean and variance): the row of 512 becomes 16
// partial sums of 32 terms, one vector wide, then 16 added per row in order.
// CHECK-DAG: #[[RIN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[RP:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[RALL:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[RROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_sums
// CHECK-SAME: (%[[X:.*]]: tensor<2048x512xf32>, %[[MU:.*]]: tensor<2048xf32>, %[[INIT:.*]]: tensor<2048xf32>)
// CHECK: %[[XE:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2]] {{.*}} into tensor<2048x32x16xf32>
// CHECK: %[[P0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2048x16xf32>)
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[RIN]], #[[RROW3:.*]], #[[RP]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[XE]], %[[MU]] : tensor<2048x32x16xf32>, tensor<2048xf32>) outs(%[[P0]] : tensor<2048x16xf32>)
// CHECK: arith.subf
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[RALL]], #[[RROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[P]] : tensor<2048x16xf32>) outs(%[[INIT]] : tensor<2048xf32>)
// CHECK: return %[[S]]
func.func @row_sums(%x: tensor<2048x512xf32>, %mu: tensor<2048xf32>, %init: tensor<2048xf32>) -> tensor<2048xf32> {
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                        affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %mu : tensor<2048x512xf32>, tensor<2048xf32>) outs(%init : tensor<2048xf32>) {
    ^bb0(%v: f32, %m: f32, %acc: f32):
      %d = arith.subf %v, %m : f32
      %sq = arith.mulf %d, %d : f32
      %a = arith.addf %acc, %sq : f32
      linalg.yield %a : f32
  } -> tensor<2048xf32>
  return %s : tensor<2048xf32>
}
