// bench/gpu: a 4096³ f32 GEMM on one GPU (exact f32, as the default
// --matmul-precision), against cuBLAS SGEMM without TF32.
garray.mesh @mesh ["x" = 1]
func.func @main(%a: tensor<4096x4096xf32> {garray.name = "a"},
                %b: tensor<4096x4096xf32> {garray.name = "b"})
    -> (tensor<4096x4096xf32> {garray.name = "c"}) {
  %c = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0]
      : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %c : tensor<4096x4096xf32>
}
