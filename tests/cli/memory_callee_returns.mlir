// A callee whose large value is what it returns: the caller counts it once,
// as the call's result (see cli_memory_test.sh).
garray.mesh @mesh ["data" = 4]
func.func private @wide(%a: tensor<8xf32>) -> tensor<8x4096xf32> {
  %big = garray.broadcast_in_dim %a, dims = [0] : (tensor<8xf32>) -> tensor<8x4096xf32>
  return %big : tensor<8x4096xf32>
}
func.func @main(%x: tensor<8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8x4096xf32> {
  %r = call @wide(%x) : (tensor<8xf32>) -> tensor<8x4096xf32>
  return %r : tensor<8x4096xf32>
}
