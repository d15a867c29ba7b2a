module {
  garray.mesh @mesh ["data" = 4]
  func.func @main(%arg0: tensor<8x2xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>}, %arg1: tensor<8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data")>}, %arg2: tensor<2xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(None)>}) -> (tensor<f32> {garray.name = "loss", garray.sharding = #garray.sharding<@mesh, P()>}, tensor<2xf32> {garray.name = "grad", garray.sharding = #garray.sharding<@mesh, P(None)>}, tensor<2xf32> {garray.name = "w_next", garray.sharding = #garray.sharding<@mesh, P(None)>}) {
    %0 = garray.dot_general %arg0, %arg2, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
    %1 = garray.sub %0, %arg1 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %2 = garray.mul %1, %1 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %3 = garray.reduce <sum> %2, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : (tensor<8xf32>) -> tensor<f32>
    %4 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<8.000000e+00> : tensor<f32>
    %5 = garray.div %3, %4 {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : tensor<f32>
    %6 = garray.all_reduce <sum> %5 on @mesh ["data"] {bytes_per_device = 6 : i64, garray.sharding = #garray.sharding<@mesh, P()>, reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of func.return at samples/linear_regression_step.mlir:35:3 (a function result) needs the whole value"} : tensor<f32>
    %7 = garray.dot_general %arg0, %1, batch = [] x [], contracting = [0] x [0] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>} : (tensor<8x2xf32>, tensor<8xf32>) -> tensor<2xf32>
    %8 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None)>} dense<2.500000e-01> : tensor<2xf32>
    %9 = garray.mul %7, %8 {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>} : tensor<2xf32>
    %10 = garray.all_reduce <sum> %9 on @mesh ["data"] {bytes_per_device = 12 : i64, garray.sharding = #garray.sharding<@mesh, P(None)>, reason = "pending sum over \22data\22 reduced once for its 2 uses, since operand #1 of func.return at samples/linear_regression_step.mlir:35:3 (a function result) needs the whole value"} : tensor<2xf32>
    %11 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None)>} dense<1.000000e-01> : tensor<2xf32>
    %12 = garray.mul %10, %11 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
    %13 = garray.sub %arg2, %12 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
    return %6, %10, %13 : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  }
}
exit 0
