// Why values are whole, in the budget error: operands that meet an add in
// different layouts, and an argument no annotation splits
// (tests/cli/cli_memory_test.sh).
garray.mesh @mesh ["data" = 2, "model" = 2]
func.func @main(
    %E: tensor<128x64xf32> {garray.name = "E"},
    %A: tensor<128x64xf32> {garray.name = "A", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %B: tensor<128x64xf32> {garray.name = "B", garray.sharding = #garray.sharding<@mesh, P("model", None)>})
    -> (tensor<128x64xf32> {garray.name = "ab"}, tensor<128x64xf32> {garray.name = "e2"}) {
  %ea = garray.exp %A : tensor<128x64xf32>
  %eb = garray.exp %B : tensor<128x64xf32>
  %ab = garray.add %ea, %eb : tensor<128x64xf32>
  %e2 = garray.neg %E : tensor<128x64xf32>
  return %ab, %e2 : tensor<128x64xf32>, tensor<128x64xf32>
}
