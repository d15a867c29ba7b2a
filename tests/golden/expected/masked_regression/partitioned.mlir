module {
  garray.mesh @mesh ["data" = 2]
  func.func @main(%arg0: tensor<8x2xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>}, %arg1: tensor<8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data")>}, %arg2: tensor<8xf32> {garray.name = "mask", garray.sharding = #garray.sharding<@mesh, P("data")>}, %arg3: tensor<2xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(None)>}) -> (tensor<f32> {garray.name = "loss", garray.sharding = #garray.sharding<@mesh, P()>}, tensor<2xf32> {garray.name = "grad", garray.sharding = #garray.sharding<@mesh, P(None)>}, tensor<2xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(None)>}) {
    %0 = garray.dot_general %arg0, %arg3, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
    %1 = garray.sub %0, %arg1 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %2 = garray.mul %1, %1 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %3 = garray.mul %2, %arg2 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %4 = garray.reduce <sum> %3, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : (tensor<8xf32>) -> tensor<f32>
    %5 = garray.reduce <sum> %arg2, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : (tensor<8xf32>) -> tensor<f32>
    %6 = garray.all_reduce <sum> %5 on @mesh ["data"] {bytes_per_device = 4 : i64, garray.sharding = #garray.sharding<@mesh, P()>, reason = "pending sum over \22data\22 reduced once for its 2 uses, since operand #1 of garray.div at samples/masked_regression.mlir:20:11 [from garray.mean] [gradient of garray.div] needs the whole value"} : tensor<f32>
    %7 = garray.div %4, %6 {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : tensor<f32>
    %8 = garray.all_reduce <sum> %7 on @mesh ["data"] {bytes_per_device = 4 : i64, garray.sharding = #garray.sharding<@mesh, P()>, reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of func.return at samples/masked_regression.mlir:35:3 (a function result) needs the whole value"} : tensor<f32>
    %9 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<1.000000e+00> : tensor<f32>
    %10 = garray.div %9, %6 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %11 = garray.broadcast_in_dim %10, dims = [] {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<f32>) -> tensor<8xf32>
    %12 = garray.mul %11, %arg2 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %13 = garray.mul %12, %1 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %14 = garray.add %13, %13 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %15 = garray.dot_general %14, %arg0, batch = [] x [], contracting = [0] x [0] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>} : (tensor<8xf32>, tensor<8x2xf32>) -> tensor<2xf32>
    %16 = garray.all_reduce <sum> %15 on @mesh ["data"] {bytes_per_device = 8 : i64, garray.sharding = #garray.sharding<@mesh, P(None)>, reason = "pending sum over \22data\22 reduced once for its 2 uses, since operand #0 of garray.sharding_constraint at samples/masked_regression.mlir:34:13 (the gradient pinned to its parameter's layout by garray.sgd_update (garray-expand-optimizers)) needs the whole value"} : tensor<2xf32>
    %17 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None)>} dense<1.000000e-01> : tensor<2xf32>
    %18 = garray.mul %16, %17 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
    %19 = garray.sub %arg3, %18 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
    return %8, %16, %19 : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  }
}
exit 0
