// Why values are whole, in the budget error: a group member, an annotated
// op result, an unannotated argument (tests/cli/cli_memory_test.sh).
garray.mesh @mesh ["data" = 2, "model" = 2]
func.func @main(
    %p: tensor<64x64xf32> {garray.name = "p", garray.sharding = #garray.sharding<@mesh, P(None, "model")>, garray.sharding_group = 0 : i64},
    %mu: tensor<64x64xf32> {garray.name = "mu", garray.sharding_group = 0 : i64},
    %x: tensor<64x64xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
    %w: tensor<64x64xf32> {garray.name = "w"})
    -> (tensor<64x64xf32> {garray.name = "mu"}, tensor<64x64xf32> {garray.name = "y"}, tensor<64x64xf32> {garray.name = "z"}) {
  %m2 = garray.neg %mu : tensor<64x64xf32>
  %y = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %z = garray.exp %x {garray.sharding = #garray.sharding<@mesh, P(None, None)>} : tensor<64x64xf32>
  return %m2, %y, %z : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}
