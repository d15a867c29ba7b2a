// The max of each row and where it is, over a row sharded on "model": the
// argmax reduces the same maximum again (garray-decompose), which
// garray-share-reductions shares, so the local program all-reduces the max
// once and the first index of it once.
garray.mesh @mesh ["model" = 2]
func.func @main(%x: tensor<3x6xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P(None, "model")>})
    -> (tensor<3xf32> {garray.name = "max"}, tensor<3xi64> {garray.name = "where"}) {
  %m = garray.reduce <max> %x, dims = [1] : (tensor<3x6xf32>) -> tensor<3xf32>
  %i = garray.argmax %x, dim = 1 : (tensor<3x6xf32>) -> tensor<3xi64>
  return %m, %i : tensor<3xf32>, tensor<3xi64>
}
