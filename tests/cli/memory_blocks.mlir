// A function of two blocks: the values made after the branch count too
// (12 MiB; the entry block alone would give 4 MiB).
garray.mesh @mesh ["data" = 2]
func.func @main(
    %x: tensor<8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %w: tensor<1024x1024xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<1024x1024xf32> {garray.name = "o"}) {
  cf.br ^bb1(%w : tensor<1024x1024xf32>)
^bb1(%b: tensor<1024x1024xf32>):
  %e = garray.exp %b : tensor<1024x1024xf32>
  %f = garray.tanh %e : tensor<1024x1024xf32>
  return %f : tensor<1024x1024xf32>
}
