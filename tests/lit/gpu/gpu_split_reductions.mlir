// RUN: shardc-opt %s -split-input-file --gpu-split-reductions | FileCheck %s
//
// gpu-split-reductions: a long reduction with few outputs becomes P
// partials (innermost, strided over the reduction) and a combining
// reduction, split again while it is long; adjacent reduction dims read as
// one run are collapsed first. Short reductions, reductions with many
// outputs, and keepdims-style maps are left alone.

// A full sum of 2^17 elements: 4096 partials of 32, then 128 of 32, then
// one op adds the 128.
// CHECK-LABEL: func.func @full
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<4096x32xf32> into tensor<131072xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [32, 4096] : tensor<131072xf32> into tensor<32x4096xf32>
// CHECK: %[[P1:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<32x4096xf32>) outs(%{{.*}} : tensor<4096xf32>)
// CHECK: tensor.expand_shape %[[P1]] {{\[}}[0, 1]] output_shape [32, 128] : tensor<4096xf32> into tensor<32x128xf32>
// CHECK: %[[P2:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<32x128xf32>) outs(%{{.*}} : tensor<128xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[P2]] : tensor<128xf32>) outs(%{{.*}} : tensor<f32>)
func.func @full(%a: tensor<4096x32xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<4096x32xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A column max over 4096 rows, 32 columns: 128 partials per column.
// CHECK-LABEL: func.func @columns
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<32x128x32xf32>) outs(%{{.*}} : tensor<128x32xf32>)
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<128x32xf32>) outs(%{{.*}} : tensor<32xf32>)
func.func @columns(%a: tensor<4096x32xf32>, %init: tensor<32xf32>) -> tensor<32xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<4096x32xf32>) outs(%init : tensor<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %o : f32
    linalg.yield %m : f32
  } -> tensor<32xf32>
  return %r : tensor<32xf32>
}

// -----

// Left alone: a short reduction, and one with many outputs.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: tensor.expand_shape
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: linalg.generic
func.func @kept(%a: tensor<64x100xf32>, %b: tensor<8192x300xf32>, %i: tensor<64xf32>,
                %j: tensor<8192xf32>) -> (tensor<64xf32>, tensor<8192xf32>) {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<64x100xf32>) outs(%i : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %q = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%b : tensor<8192x300xf32>) outs(%j : tensor<8192xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  return %r, %q : tensor<64xf32>, tensor<8192xf32>
}
