// RUN: shardc-opt %s -split-input-file --gpu-tile-and-fuse | FileCheck %s
//
// gpu-tile-and-fuse, output recipe: blocks of up to 1024 elements of
// the innermost dim (short rows grouped); a static count of threads per
// block (one per row, one per 4 elements of a full row tile), each with a
// run of consecutive elements; blocks on #gpu.block (x innermost), threads
// on #gpu.thread<y, x>.
// Other ops are left alone.

// A long row: one block per 1024-column tile of each row.
// CHECK-LABEL: func.func @rows
// CHECK: %[[R:.*]] = scf.forall (%[[I:.*]], %[[J:.*]]) = (0, 0) to (3, 2000) step (1, 1024) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<3x2000xf32>)
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (1, 256) shared_outs
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x?xf32>)
// CHECK: arith.mulf
// CHECK: } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: } {mapping = [#gpu.block<y>, #gpu.block<x>]}
// CHECK: return %[[R]]
func.func @rows(%a: tensor<3x2000xf32>) -> tensor<3x2000xf32> {
  %e = tensor.empty() : tensor<3x2000xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<3x2000xf32>) outs(%e : tensor<3x2000xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<3x2000xf32>
  return %r : tensor<3x2000xf32>
}

// -----

// Short rows (30 columns) are grouped: 1024 / 32 = 32 rows per block.
// CHECK-LABEL: func.func @short_rows
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (100, 30) step (32, 30)
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (32, 8) shared_outs
// CHECK: linalg.fill
// CHECK: {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<y>, #gpu.block<x>]}
func.func @short_rows() -> tensor<100x30xf32> {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<100x30xf32>
  %r = linalg.fill ins(%c : f32) outs(%e : tensor<100x30xf32>) -> tensor<100x30xf32>
  return %r : tensor<100x30xf32>
}

// -----

// Rank 4: blocks on linear dims (linear_dim_0 innermost), one block per
// tile of the two outer dims.
// CHECK-LABEL: func.func @rank4
// CHECK: scf.forall {{.*}} step (1, 1, 8, 128)
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (8, 32) shared_outs
// CHECK: {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<linear_dim_3>, #gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
func.func @rank4(%a: tensor<2x3x16x128xf32>) -> tensor<2x3x16x128xf32> {
  %e = tensor.empty() : tensor<2x3x16x128xf32>
  %r = linalg.copy ins(%a : tensor<2x3x16x128xf32>) outs(%e : tensor<2x3x16x128xf32>) -> tensor<2x3x16x128xf32>
  return %r : tensor<2x3x16x128xf32>
}

// -----

// A contraction and a row reduction: their parallel loops are tiled, their
// reduction loops not (each thread runs them whole, in order). A full
// reduction (no parallel loop) runs on a single thread.
// CHECK-LABEL: func.func @reductions
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (4, 2) step (4, 2)
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (4, 1)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1x8xf32>, tensor<8x2xf32>) outs(%{{.*}} : tensor<1x2xf32>)
// CHECK: {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<y>, #gpu.block<x>]}
// CHECK: scf.forall (%{{.*}}) = (0) to (4) step (4)
// CHECK: scf.forall (%{{.*}}) in (1)
// CHECK: linalg.reduce ins(%{{.*}} : tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>) dimensions = [1]
// CHECK: {mapping = [#gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<x>]}
// The full reduction: one thread of one block, its loops in order.
// CHECK: scf.forall (%{{.*}}) in (1) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<f32>)
// CHECK-NEXT: scf.forall (%{{.*}}) in (1) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<f32>)
// CHECK-NEXT: linalg.reduce ins(%{{.*}} : tensor<4x8xf32>) {{.*}} dimensions = [0, 1]
// CHECK: tensor.parallel_insert_slice
// CHECK: {mapping = [#gpu.thread<x>]}
// CHECK: tensor.parallel_insert_slice
// CHECK: {mapping = [#gpu.block<x>]}
func.func @reductions(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>, %rows: tensor<4xf32>, %s: tensor<f32>)
    -> (tensor<4x2xf32>, tensor<4xf32>, tensor<f32>) {
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  %r = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%rows : tensor<4xf32>) dimensions = [1]
    (%x: f32, %y: f32) {
      %t = arith.addf %x, %y : f32
      linalg.yield %t : f32
    }
  %t = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%s : tensor<f32>) dimensions = [0, 1]
    (%x: f32, %y: f32) {
      %u = arith.addf %x, %y : f32
      linalg.yield %u : f32
    }
  return %m, %r, %t : tensor<4x2xf32>, tensor<4xf32>, tensor<f32>
}

// -----

// Not tiled: an op over no elements.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.forall
// CHECK: return
func.func @left_alone(%z: tensor<5x0xf32>) -> tensor<5x0xf32> {
  %ez = tensor.empty() : tensor<5x0xf32>
  %c = linalg.copy ins(%z : tensor<5x0xf32>) outs(%ez : tensor<5x0xf32>) -> tensor<5x0xf32>
  return %c : tensor<5x0xf32>
}

// -----

// A read through a map that is not a projected permutation (reverse's
// 7 - j): the operand is read element by element in the body, and the op
// tiles like an elementwise one.
// CHECK-LABEL: func.func @reverse
// CHECK: scf.forall
// CHECK: linalg.generic
// CHECK-SAME: outs(
// CHECK-NOT: ins(
// CHECK: linalg.index 0
// CHECK: tensor.extract %arg0[
// CHECK: {mapping = [#gpu.thread<x>]}
#rev = affine_map<(d0) -> (7 - d0)>
#id = affine_map<(d0) -> (d0)>
func.func @reverse(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}
