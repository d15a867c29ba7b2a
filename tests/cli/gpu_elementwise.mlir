// A model of elementwise ops only (the GPU target's kernels checked in
// detail): a GELU-like chain on a row-sharded activation, a bf16 scale, and a
// comparison with a select, on uneven shards (10 rows over 4 devices).
garray.mesh @mesh ["data" = 4]
func.func @main(%x: tensor<10x3000xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                %h: tensor<10x40xbf16> {garray.name = "h", garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<10x3000xf32> {garray.name = "y"}, tensor<10x40xbf16> {garray.name = "g"}) {
  %c = garray.constant dense<0.5> : tensor<10x3000xf32>
  %t = garray.tanh %x : tensor<10x3000xf32>
  %a = garray.add %t, %c : tensor<10x3000xf32>
  %y0 = garray.mul %a, %x : tensor<10x3000xf32>
  %pos = garray.compare <gt> %x, %c : (tensor<10x3000xf32>, tensor<10x3000xf32>) -> tensor<10x3000xi1>
  %y = garray.select %pos, %y0, %x : (tensor<10x3000xi1>, tensor<10x3000xf32>, tensor<10x3000xf32>) -> tensor<10x3000xf32>
  %s = garray.constant dense<3.0> : tensor<10x40xbf16>
  %g = garray.mul %h, %s : tensor<10x40xbf16>
  return %y, %g : tensor<10x3000xf32>, tensor<10x40xbf16>
}
