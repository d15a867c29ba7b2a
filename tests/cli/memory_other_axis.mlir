// Operands of an add conflict over "data" only; nothing carries "model" (the
// test compiles it with --split-idle-axes=false, so the idle axis stays so).
// The budget error must not blame the conflict for "model", and a copy that
// partitioning made of an argument already whole over "model" says so.
garray.mesh @mesh ["data" = 2, "model" = 2]
func.func @main(
    %x: tensor<64x128xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %y: tensor<64x128xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P(None, "data")>})
    -> (tensor<64x128xf32> {garray.name = "o"}) {
  %s = garray.add %x, %y : tensor<64x128xf32>
  %t = garray.exp %s : tensor<64x128xf32>
  return %t : tensor<64x128xf32>
}
