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
// CHECK: } {mapping = [#gpu.block<y>, #gpu.block<x>], shardc.gpu_recipe = "output"}
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
// CHECK: {mapping = [#gpu.block<y>, #gpu.block<x>], shardc.gpu_recipe = "output"}
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
// CHECK: {mapping = [#gpu.block<linear_dim_3>, #gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>], shardc.gpu_recipe = "output"}
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
// CHECK: {mapping = [#gpu.block<y>, #gpu.block<x>], shardc.gpu_recipe = "output"}
// CHECK: scf.forall (%{{.*}}) = (0) to (4) step (4)
// CHECK: scf.forall (%{{.*}}) in (1)
// CHECK: linalg.reduce ins(%{{.*}} : tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>) dimensions = [1]
// CHECK: {mapping = [#gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<x>], shardc.gpu_recipe = "output"}
// The full reduction: one thread of one block, its loops in order.
// CHECK: scf.forall (%{{.*}}) in (1) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<f32>)
// CHECK-NEXT: scf.forall (%{{.*}}) in (1) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<f32>)
// CHECK-NEXT: linalg.reduce ins(%{{.*}} : tensor<4x8xf32>) {{.*}} dimensions = [0, 1]
// CHECK: tensor.parallel_insert_slice
// CHECK: {mapping = [#gpu.thread<x>]}
// CHECK: tensor.parallel_insert_slice
// CHECK: {mapping = [#gpu.block<x>], shardc.gpu_recipe = "single_thread"}
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

// -----

// A reduction of a reversed operand: the reversed input is the only one
// spanning the reduced loop, so it also stays an input through its dims'
// map (its elements unused) and the loop keeps its range.
// CHECK-LABEL: func.func @reverse_reduced
// CHECK: scf.forall
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<4x?xf32>)
// CHECK: tensor.extract %arg0[
// CHECK: {mapping = [#gpu.thread<x>]}
#rrev = affine_map<(d0, d1) -> (d0, 6 - d1)>
#rout = affine_map<(d0, d1) -> (d1)>
func.func @reverse_reduced(%x: tensor<4x7xf32>, %init: tensor<7xf32>) -> tensor<7xf32> {
  %y = linalg.generic {indexing_maps = [#rrev, #rout], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<4x7xf32>) outs(%init : tensor<7xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<7xf32>
  return %y : tensor<7xf32>
}

// -----

// The staged contraction recipe: M, N and K long enough, so 64 x 64
// blocks (batch loops one at a time, K untiled), each block's op marked
// for gpu-stage-contractions; M and N both of 1024 or more take 128 x 128
// blocks of 8 x 8 per thread. A K of 8 keeps the output recipe.

// CHECK-LABEL: func.func @staged
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (2, 70, 100) step (1, 64, 64)
// CHECK: linalg.batch_matmul {shardc.gpu_staged = array<i64: 64, 64, 32, 4, 4>}
// CHECK-NOT: #gpu.thread
// CHECK: } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>], shardc.gpu_recipe = "gemm"}
func.func @staged(%a: tensor<2x70x40xf32>, %b: tensor<2x40x100xf32>, %c: tensor<2x70x100xf32>) -> tensor<2x70x100xf32> {
  %m = linalg.batch_matmul ins(%a, %b : tensor<2x70x40xf32>, tensor<2x40x100xf32>) outs(%c : tensor<2x70x100xf32>) -> tensor<2x70x100xf32>
  return %m : tensor<2x70x100xf32>
}

// CHECK-LABEL: func.func @staged_wide
// CHECK: step (128, 128)
// CHECK: linalg.matmul {shardc.gpu_staged = array<i64: 128, 128, 16, 8, 8>}
func.func @staged_wide(%a: tensor<1024x16xf32>, %b: tensor<16x1100xf32>, %c: tensor<1024x1100xf32>) -> tensor<1024x1100xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<1024x16xf32>, tensor<16x1100xf32>) outs(%c : tensor<1024x1100xf32>) -> tensor<1024x1100xf32>
  return %m : tensor<1024x1100xf32>
}

// f16 or bf16 operands summed in f32: the tensor-core recipe's 128 x 64
// blocks (64 x 64 below 128 rows), K chunks of 32, marked shardc.gpu_mma.
// Mixed 16-bit operands keep the SIMT recipe.

// CHECK-LABEL: func.func @tensor_cores
// CHECK: step (128, 64)
// CHECK: linalg.matmul {shardc.gpu_mma = array<i64: 128, 64, 32>}
// CHECK: } {mapping = [#gpu.block<y>, #gpu.block<x>], shardc.gpu_recipe = "gemm_mma"}
func.func @tensor_cores(%a: tensor<1024x64xf16>, %b: tensor<64x1100xf16>, %c: tensor<1024x1100xf32>) -> tensor<1024x1100xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<1024x64xf16>, tensor<64x1100xf16>) outs(%c : tensor<1024x1100xf32>) -> tensor<1024x1100xf32>
  return %m : tensor<1024x1100xf32>
}

// CHECK-LABEL: func.func @bf16_tensor_cores
// CHECK: linalg.matmul {shardc.gpu_mma = array<i64: 64, 64, 32>}
func.func @bf16_tensor_cores(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// CHECK-LABEL: func.func @mixed_simt
// CHECK: linalg.matmul {shardc.gpu_staged = array<i64: 64, 64, 32, 4, 4>}
func.func @mixed_simt(%a: tensor<64x64xbf16>, %b: tensor<64x64xf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// CHECK-LABEL: func.func @short_k
// CHECK-NOT: shardc.gpu_staged
// CHECK: #gpu.thread<x>
func.func @short_k(%a: tensor<64x8xf32>, %b: tensor<8x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<64x8xf32>, tensor<8x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// The block-tree recipe: a sum over a long innermost dim takes a block per
// row of 256 threads, its tile marked for gpu-block-reductions; a full
// reduction is one block; rows of 64 to 511 go eight to a block, 32
// threads each; a long reduction over the outer dim (read with a stride)
// keeps the output recipe.

// CHECK-LABEL: func.func @block_tree
// CHECK: scf.forall (%{{.*}}) in (6)
// CHECK: linalg.generic
// CHECK-SAME: shardc.gpu_block_tree = array<i64: 1, 256>
// CHECK: {mapping = [#gpu.block<x>], shardc.gpu_recipe = "block_tree"}
// CHECK: scf.forall (%{{.*}}) in (1)
// CHECK: linalg.generic
// CHECK-SAME: shardc.gpu_block_tree = array<i64: 1, 256>
// CHECK: {mapping = [#gpu.block<x>], shardc.gpu_recipe = "block_tree"}
// CHECK: scf.forall (%{{.*}}) = (0) to (20) step (8)
// CHECK: linalg.generic
// CHECK-SAME: shardc.gpu_block_tree = array<i64: 8, 32>
// CHECK: {mapping = [#gpu.block<x>], shardc.gpu_recipe = "block_tree"}
// CHECK-NOT: shardc.gpu_block_tree
// CHECK: #gpu.thread<x>
#bt_in = affine_map<(d0, d1) -> (d0, d1)>
#bt_row = affine_map<(d0, d1) -> (d0)>
#bt_full_in = affine_map<(d0) -> (d0)>
#bt_full_out = affine_map<(d0) -> ()>
#bt_col_in = affine_map<(d0, d1) -> (d1, d0)>
func.func @block_tree(%x: tensor<6x2050xf32>, %s: tensor<6xf32>, %f: tensor<12300xf32>, %t: tensor<f32>,
                      %y: tensor<2050x6xf32>, %z: tensor<20x300xf32>, %s20: tensor<20xf32>)
    -> (tensor<6xf32>, tensor<f32>, tensor<6xf32>, tensor<20xf32>) {
  %r = linalg.generic {indexing_maps = [#bt_in, #bt_row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x2050xf32>) outs(%s : tensor<6xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<6xf32>
  %m = linalg.generic {indexing_maps = [#bt_full_in, #bt_full_out], iterator_types = ["reduction"]}
      ins(%f : tensor<12300xf32>) outs(%t : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.maximumf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<f32>
  %w = linalg.generic {indexing_maps = [#bt_in, #bt_row], iterator_types = ["parallel", "reduction"]}
      ins(%z : tensor<20x300xf32>) outs(%s20 : tensor<20xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.maximumf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<20xf32>
  %c = linalg.generic {indexing_maps = [#bt_col_in, #bt_row], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<2050x6xf32>) outs(%s : tensor<6xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<6xf32>
  return %r, %m, %c, %w : tensor<6xf32>, tensor<f32>, tensor<6xf32>, tensor<20xf32>
}

// -----

// The transpose recipe: a copy whose input's innermost dim is another loop
// than the output's takes 32 x 32 blocks over those two loops, marked for
// gpu-stage-transposes; an 8 x 4 one (a loop under 8) keeps the output
// recipe.

// CHECK-LABEL: func.func @transposes
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (70, 100) step (32, 32)
// CHECK: linalg.transpose
// CHECK-SAME: shardc.gpu_transpose = array<i64: 1, 0>
// CHECK: {mapping = [#gpu.block<y>, #gpu.block<x>], shardc.gpu_recipe = "transpose"}
// CHECK-NOT: shardc.gpu_transpose
// CHECK: #gpu.thread<x>
func.func @transposes(%x: tensor<100x70xf32>, %y: tensor<70x100xf32>, %a: tensor<8x4xf32>, %b: tensor<4x8xf32>)
    -> (tensor<70x100xf32>, tensor<4x8xf32>) {
  %t = linalg.transpose ins(%x : tensor<100x70xf32>) outs(%y : tensor<70x100xf32>) permutation = [1, 0]
  %s = linalg.transpose ins(%a : tensor<8x4xf32>) outs(%b : tensor<4x8xf32>) permutation = [1, 0]
  return %t, %s : tensor<70x100xf32>, tensor<4x8xf32>
}
