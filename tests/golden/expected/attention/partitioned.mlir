module {
  garray.mesh @mesh ["data" = 2, "model" = 2]
  func.func @main(%arg0: tensor<2x8x16xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None, None)>}, %arg1: tensor<16x16xf32> {garray.name = "Wq", garray.sharding = #garray.sharding<@mesh, P(None, "model")>}, %arg2: tensor<16x16xf32> {garray.name = "Wk", garray.sharding = #garray.sharding<@mesh, P(None, "model")>}, %arg3: tensor<16x16xf32> {garray.name = "Wv", garray.sharding = #garray.sharding<@mesh, P(None, "model")>}, %arg4: tensor<16x16xf32> {garray.name = "Wo", garray.sharding = #garray.sharding<@mesh, P("model", None)>}) -> (tensor<2x8x16xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data", None, None)>}) {
    %0 = garray.reshape %arg1 {garray.sharding = #garray.sharding<@mesh, P(None, None, "model")>} : (tensor<16x16xf32>) -> tensor<16x1x16xf32>
    %1 = garray.reshape %arg2 {garray.sharding = #garray.sharding<@mesh, P(None, None, "model")>} : (tensor<16x16xf32>) -> tensor<16x1x16xf32>
    %2 = garray.reshape %arg3 {garray.sharding = #garray.sharding<@mesh, P(None, None, "model")>} : (tensor<16x16xf32>) -> tensor<16x1x16xf32>
    %3 = garray.concatenate %0, %1, %2, dim = 1 {garray.sharding = #garray.sharding<@mesh, P(None, None, "model")>} : (tensor<16x1x16xf32>, tensor<16x1x16xf32>, tensor<16x1x16xf32>) -> tensor<16x3x16xf32>
    %4 = garray.dot_general %arg0, %3, batch = [] x [], contracting = [2] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None, None, "model")>} : (tensor<2x8x16xf32>, tensor<16x3x16xf32>) -> tensor<2x8x3x16xf32>
    %5 = garray.slice %4, start = [0, 0, 0, 0], limit = [2, 8, 1, 16], strides = [1, 1, 1, 1] {garray.sharding = #garray.sharding<@mesh, P("data", None, None, "model")>} : (tensor<2x8x3x16xf32>) -> tensor<2x8x1x16xf32>
    %6 = garray.reshape %5 {garray.sharding = #garray.sharding<@mesh, P("data", None, "model")>} : (tensor<2x8x1x16xf32>) -> tensor<2x8x16xf32>
    %7 = garray.slice %4, start = [0, 0, 1, 0], limit = [2, 8, 2, 16], strides = [1, 1, 1, 1] {garray.sharding = #garray.sharding<@mesh, P("data", None, None, "model")>} : (tensor<2x8x3x16xf32>) -> tensor<2x8x1x16xf32>
    %8 = garray.reshape %7 {garray.sharding = #garray.sharding<@mesh, P("data", None, "model")>} : (tensor<2x8x1x16xf32>) -> tensor<2x8x16xf32>
    %9 = garray.slice %4, start = [0, 0, 2, 0], limit = [2, 8, 3, 16], strides = [1, 1, 1, 1] {garray.sharding = #garray.sharding<@mesh, P("data", None, None, "model")>} : (tensor<2x8x3x16xf32>) -> tensor<2x8x1x16xf32>
    %10 = garray.reshape %9 {garray.sharding = #garray.sharding<@mesh, P("data", None, "model")>} : (tensor<2x8x1x16xf32>) -> tensor<2x8x16xf32>
    %11 = garray.dot_general %6, %8, batch = [0] x [0], contracting = [2] x [2] {garray.sharding = #garray.sharding<@mesh, P("data", None, None), unreduced = sum("model")>} : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x8xf32>
    %12 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>} dense<2.500000e-01> : tensor<2x8x8xf32>
    %13 = garray.mul %11, %12 {garray.sharding = #garray.sharding<@mesh, P("data", None, None), unreduced = sum("model")>} : tensor<2x8x8xf32>
    %14 = garray.all_reduce <sum> %13 on @mesh ["model"] {bytes_per_device = 256 : i64, garray.sharding = #garray.sharding<@mesh, P("data", None, None)>, reason = "a pending partial passes through this op only when operands #1 and #2 are pending over the same axes (and no other operand is), and operand #2 is not (operand #1 of garray.select at samples/attention.mlir:46:9: has P(\22data\22, None, None) unreduced=sum(\22model\22), needs P(\22data\22, None, None))"} : tensor<2x8x8xf32>
    %15 = garray.iota dim = 1 {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>} : tensor<2x8x8xi64>
    %16 = garray.iota dim = 2 {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>} : tensor<2x8x8xi64>
    %17 = garray.compare <ge> %15, %16 {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>} : (tensor<2x8x8xi64>, tensor<2x8x8xi64>) -> tensor<2x8x8xi1>
    %18 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>} dense<-1.000000e+09> : tensor<2x8x8xf32>
    %19 = garray.select %17, %14, %18 {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>} : (tensor<2x8x8xi1>, tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %20 = garray.reduce <max> %19, dims = [2] keepdims {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>} : (tensor<2x8x8xf32>) -> tensor<2x8x1xf32>
    %21 = garray.broadcast_in_dim %20, dims = [0, 1, 2] {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>} : (tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
    %22 = garray.sub %19, %21 {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>} : tensor<2x8x8xf32>
    %23 = garray.exp %22 {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>} : tensor<2x8x8xf32>
    %24 = garray.reduce <sum> %23, dims = [2] keepdims {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>} : (tensor<2x8x8xf32>) -> tensor<2x8x1xf32>
    %25 = garray.broadcast_in_dim %24, dims = [0, 1, 2] {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>} : (tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
    %26 = garray.div %23, %25 {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>} : tensor<2x8x8xf32>
    %27 = garray.dot_general %26, %10, batch = [0] x [0], contracting = [2] x [1] {garray.sharding = #garray.sharding<@mesh, P("data", None, "model")>} : (tensor<2x8x8xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    %28 = garray.dot_general %27, %arg4, batch = [] x [], contracting = [2] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None, None), unreduced = sum("model")>} : (tensor<2x8x16xf32>, tensor<16x16xf32>) -> tensor<2x8x16xf32>
    %29 = garray.all_reduce <sum> %28 on @mesh ["model"] {bytes_per_device = 512 : i64, garray.sharding = #garray.sharding<@mesh, P("data", None, None)>, reason = "pending sum over \22model\22 reduced once for its 1 use, since operand #0 of func.return at samples/attention.mlir:63:3 (a function result) needs the whole value"} : tensor<2x8x16xf32>
    return %29 : tensor<2x8x16xf32>
  }
}
exit 0
