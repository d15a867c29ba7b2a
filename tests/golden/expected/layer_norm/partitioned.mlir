module {
  garray.mesh @mesh ["data" = 2, "model" = 2]
  func.func @main(%arg0: tensor<8x16xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", "model")>}, %arg1: tensor<16xf32> {garray.name = "gamma", garray.sharding = #garray.sharding<@mesh, P("model")>}, %arg2: tensor<16xf32> {garray.name = "beta", garray.sharding = #garray.sharding<@mesh, P("model")>}) -> (tensor<8x16xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data", "model")>}, tensor<8xf32> {garray.name = "var", garray.sharding = #garray.sharding<@mesh, P("data")>}) {
    %0 = garray.reduce <sum> %arg0, dims = [1] {garray.sharding = #garray.sharding<@mesh, P("data"), unreduced = sum("model")>} : (tensor<8x16xf32>) -> tensor<8xf32>
    %1 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data")>} dense<1.600000e+01> : tensor<8xf32>
    %2 = garray.div %0, %1 {garray.sharding = #garray.sharding<@mesh, P("data"), unreduced = sum("model")>} : tensor<8xf32>
    %3 = garray.all_reduce <sum> %2 on @mesh ["model"] {bytes_per_device = 16 : i64, garray.sharding = #garray.sharding<@mesh, P("data")>, reason = "a pending partial is reduced first: its axes also split the op's own dims (operand #0 of garray.broadcast_in_dim at samples/layer_norm.mlir:19:11: has P(\22data\22) unreduced=sum(\22model\22), needs P(\22data\22))"} : tensor<8xf32>
    %4 = garray.broadcast_in_dim %3, dims = [0] {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<8xf32>) -> tensor<8x16xf32>
    %5 = garray.sub %arg0, %4 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : tensor<8x16xf32>
    %6 = garray.mul %5, %5 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : tensor<8x16xf32>
    %7 = garray.reduce <sum> %6, dims = [1] {garray.sharding = #garray.sharding<@mesh, P("data"), unreduced = sum("model")>} : (tensor<8x16xf32>) -> tensor<8xf32>
    %8 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data")>} dense<1.600000e+01> : tensor<8xf32>
    %9 = garray.div %7, %8 {garray.sharding = #garray.sharding<@mesh, P("data"), unreduced = sum("model")>} : tensor<8xf32>
    %10 = garray.all_reduce <sum> %9 on @mesh ["model"] {bytes_per_device = 16 : i64, garray.sharding = #garray.sharding<@mesh, P("data")>, reason = "pending sum over \22model\22 reduced once for its 2 uses, since operand #1 of func.return at samples/layer_norm.mlir:32:3 (a function result) needs the whole value"} : tensor<8xf32>
    %11 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data")>} dense<9.99999974E-6> : tensor<8xf32>
    %12 = garray.add %10, %11 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %13 = garray.rsqrt %12 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %14 = garray.broadcast_in_dim %13, dims = [0] {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<8xf32>) -> tensor<8x16xf32>
    %15 = garray.mul %5, %14 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : tensor<8x16xf32>
    %16 = garray.broadcast_in_dim %arg1, dims = [1] {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<16xf32>) -> tensor<8x16xf32>
    %17 = garray.broadcast_in_dim %arg2, dims = [1] {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<16xf32>) -> tensor<8x16xf32>
    %18 = garray.mul %15, %16 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : tensor<8x16xf32>
    %19 = garray.add %18, %17 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : tensor<8x16xf32>
    return %19, %10 : tensor<8x16xf32>, tensor<8xf32>
  }
}
exit 0
