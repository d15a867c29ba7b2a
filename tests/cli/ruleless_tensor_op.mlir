// An op of another dialect on tensors (arith.addf for garray.add): compile
// names it and the fix, rather than failing in bufferization ("op was not
// bufferized").
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = arith.addf %x, %x : tensor<8xf32>
  return %a : tensor<8xf32>
}
