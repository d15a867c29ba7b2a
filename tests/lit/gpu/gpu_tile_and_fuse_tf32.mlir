// RUN: shardc-opt %s --gpu-tile-and-fuse | FileCheck %s --check-prefix=EXACT
// RUN: shardc-opt %s --gpu-tile-and-fuse="tf32=1" | FileCheck %s --check-prefix=TF32
//
// gpu-tile-and-fuse's tf32 option (--matmul-precision=tf32): an f32
// contraction summed in f32 takes the tensor-core recipe (64 x 64 blocks,
// K chunks of 32, marked shardc.gpu_mma), as f16 and bf16 ones always do.
// Without it f32 stays on the SIMT recipe. f64, and f32 bodies that do
// more than add the product, keep the SIMT recipe either way.

// EXACT-LABEL: func.func @f32
// EXACT: linalg.matmul {shardc.gpu_staged = array<i64: 64, 64, 32, 4, 4>}
// TF32-LABEL: func.func @f32
// TF32: step (64, 64)
// TF32: linalg.matmul {shardc.gpu_mma = array<i64: 64, 64, 32>}
// TF32: } {mapping = [#gpu.block<y>, #gpu.block<x>], shardc.gpu_recipe = "gemm_mma"}
func.func @f32(%a: tensor<256x64xf32>, %b: tensor<64x100xf32>, %c: tensor<256x100xf32>) -> tensor<256x100xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x100xf32>) outs(%c : tensor<256x100xf32>) -> tensor<256x100xf32>
  return %m : tensor<256x100xf32>
}

// EXACT-LABEL: func.func @f64
// EXACT: linalg.matmul {shardc.gpu_staged = array<i64: 64, 64, 32, 4, 4>}
// TF32-LABEL: func.func @f64
// TF32: linalg.matmul {shardc.gpu_staged = array<i64: 64, 64, 32, 4, 4>}
func.func @f64(%a: tensor<64x64xf64>, %b: tensor<64x64xf64>, %c: tensor<64x64xf64>) -> tensor<64x64xf64> {
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf64>, tensor<64x64xf64>) outs(%c : tensor<64x64xf64>) -> tensor<64x64xf64>
  return %m : tensor<64x64xf64>
}

// A product scaled before it is added is not what mma.sync computes.
// TF32-LABEL: func.func @scaled
// TF32: linalg.generic
// TF32-SAME: shardc.gpu_staged = array<i64: 64, 64, 32, 4, 4>
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @scaled(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %two = arith.constant 2.0 : f32
  %m = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %two : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}
