// bench/gpu: a 4096³ bf16 GEMM (f32 sums, rounded once) on one GPU, against
// cuBLAS cublasGemmEx with bf16 operands and f32 compute.
garray.mesh @mesh ["x" = 1]
func.func @main(%a: tensor<4096x4096xbf16> {garray.name = "a"},
                %b: tensor<4096x4096xbf16> {garray.name = "b"})
    -> (tensor<4096x4096xbf16> {garray.name = "c"}) {
  %c = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0]
      : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>
  return %c : tensor<4096x4096xbf16>
}
