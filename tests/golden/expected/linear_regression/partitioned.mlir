module {
  garray.mesh @mesh ["data" = 4]
  func.func @main(%arg0: tensor<8x2xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>}, %arg1: tensor<8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data")>}, %arg2: tensor<2xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(None)>}) -> (tensor<f32> {garray.name = "loss", garray.sharding = #garray.sharding<@mesh, P()>}, tensor<2xf32> {garray.name = "grad", garray.sharding = #garray.sharding<@mesh, P(None)>}, tensor<2xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(None)>}) {
    %0 = garray.dot_general %arg0, %arg2, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
    %1 = garray.sub %0, %arg1 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %2 = garray.mul %1, %1 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %3 = garray.reduce <sum> %2, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : (tensor<8xf32>) -> tensor<f32>
    %4 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<8.000000e+00> : tensor<f32>
    %5 = garray.div %3, %4 {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : tensor<f32>
    %6 = garray.all_reduce <sum> %5 on @mesh ["data"] {bytes_per_device = 6 : i64, garray.sharding = #garray.sharding<@mesh, P()>, reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of func.return at samples/linear_regression.mlir:35:3 (a function result) needs the whole value"} : tensor<f32>
    %7 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<1.000000e+00> : tensor<f32>
    %8 = garray.div %7, %4 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %9 = garray.broadcast_in_dim %8, dims = [] {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<f32>) -> tensor<8xf32>
    %10 = garray.mul %9, %1 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %11 = garray.add %10, %10 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %12 = garray.dot_general %11, %arg0, batch = [] x [], contracting = [0] x [0] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>} : (tensor<8xf32>, tensor<8x2xf32>) -> tensor<2xf32>
    %13 = garray.all_reduce <sum> %12 on @mesh ["data"] {bytes_per_device = 12 : i64, garray.sharding = #garray.sharding<@mesh, P(None)>, reason = "pending sum over \22data\22 reduced once for its 2 uses, since operand #0 of garray.sharding_constraint at samples/linear_regression.mlir:34:13 (the gradient pinned to its parameter's layout by garray.sgd_update (garray-expand-optimizers)) needs the whole value"} : tensor<2xf32>
    %14 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None)>} dense<1.000000e-01> : tensor<2xf32>
    %15 = garray.mul %13, %14 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
    %16 = garray.sub %arg2, %15 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
    return %6, %13, %16 : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  }
}
exit 0
