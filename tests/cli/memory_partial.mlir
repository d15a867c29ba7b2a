// A partial sum next to a whole value at an elementwise op is no layout
// conflict: the budget error must not say so (tests/cli/cli_memory_test.sh).
garray.mesh @mesh ["data" = 2, "model" = 2]
func.func @main(
    %X: tensor<128x64xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
    %W: tensor<64x64xf32> {garray.name = "W", garray.sharding = #garray.sharding<@mesh, P("model", None)>},
    %B: tensor<128x64xf32> {garray.name = "B", garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<128x64xf32> {garray.name = "out"}) {
  %h = garray.dot_general %X, %W, batch = [] x [], contracting = [1] x [0] : (tensor<128x64xf32>, tensor<64x64xf32>) -> tensor<128x64xf32>
  %e = garray.exp %B : tensor<128x64xf32>
  %s = garray.max %h, %e : tensor<128x64xf32>
  %t = garray.tanh %s : tensor<128x64xf32>
  return %t : tensor<128x64xf32>
}
