// A bf16 argument and result, row-sharded: run reads a bf16 .npy as
// ml_dtypes saves it ('<V2') and writes the result the same way.
garray.mesh @mesh ["data" = 2]
func.func @main(%h: tensor<4x2xbf16> {garray.name = "h", garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<4x2xbf16> {garray.name = "g"}) {
  %s = garray.constant dense<3.0> : tensor<4x2xbf16>
  %g = garray.mul %h, %s : tensor<4x2xbf16>
  return %g : tensor<4x2xbf16>
}
