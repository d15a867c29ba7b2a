// The memory-estimate test model (see cli_memory_test.sh): w is replicated.
garray.mesh @mesh ["data" = 4]
func.func @main(
    %a: tensor<64x32xf32> {garray.name = "a", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %b: tensor<64x32xf32> {garray.name = "b", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %w: tensor<256x64xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<64x32xf32> {garray.name = "d"}, tensor<256x64xf32> {garray.name = "w2"}) {
  %c = garray.add %a, %b : tensor<64x32xf32>
  %d = garray.mul %c, %c : tensor<64x32xf32>
  %w2 = garray.add %w, %w : tensor<256x64xf32>
  return %d, %w2 : tensor<64x32xf32>, tensor<256x64xf32>
}
