// The memory estimate counts a callee's temporaries at its call (see
// cli_memory_test.sh for the hand-computed peak).
garray.mesh @mesh ["data" = 4]
func.func private @helper(%a: tensor<8xf32>) -> tensor<8xf32> {
  %big = garray.broadcast_in_dim %a, dims = [0] : (tensor<8xf32>) -> tensor<8x4096xf32>
  %e = garray.exp %big : tensor<8x4096xf32>
  %s = garray.reduce <sum> %e, dims = [1] : (tensor<8x4096xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}
func.func @main(%x: tensor<8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  %r = call @helper(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
