module {
  garray.mesh @mesh ["data" = 2, "model" = 2]
  func.func @main(%arg0: tensor<8x16xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>}, %arg1: tensor<16x32xf32> {garray.name = "W1", garray.sharding = #garray.sharding<@mesh, P(None, "model")>}, %arg2: tensor<32xf32> {garray.name = "b1", garray.sharding = #garray.sharding<@mesh, P("model")>}, %arg3: tensor<32x4xf32> {garray.name = "W2", garray.sharding = #garray.sharding<@mesh, P("model", None)>}, %arg4: tensor<4xf32> {garray.name = "b2", garray.sharding = #garray.sharding<@mesh, P(None)>}, %arg5: tensor<8xi64> {garray.name = "labels", garray.sharding = #garray.sharding<@mesh, P("data")>}) -> (tensor<f32> {garray.name = "loss", garray.sharding = #garray.sharding<@mesh, P()>}, tensor<8x4xf32> {garray.name = "logits", garray.sharding = #garray.sharding<@mesh, P("data", None)>}) {
    %0 = garray.dot_general %arg0, %arg1, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %1 = garray.broadcast_in_dim %arg2, dims = [1] {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<32xf32>) -> tensor<8x32xf32>
    %2 = garray.add %0, %1 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : tensor<8x32xf32>
    %3 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} dense<0.000000e+00> : tensor<8x32xf32>
    %4 = garray.max %2, %3 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : tensor<8x32xf32>
    %5 = garray.dot_general %4, %arg3, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None), unreduced = sum("model")>} : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
    %6 = garray.all_reduce <sum> %5 on @mesh ["model"] {bytes_per_device = 64 : i64, garray.sharding = #garray.sharding<@mesh, P("data", None)>, reason = "a pending partial passes through this op only when operands #0 and #1 are pending over the same axes (and no other operand is), and operand #1 is not (operand #0 of garray.add at samples/mlp.mlir:43:13: has P(\22data\22, None) unreduced=sum(\22model\22), needs P(\22data\22, None))"} : tensor<8x4xf32>
    %7 = garray.broadcast_in_dim %arg4, dims = [1] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<4xf32>) -> tensor<8x4xf32>
    %8 = garray.add %6, %7 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
    %9 = garray.reduce <max> %8, dims = [1] keepdims {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x4xf32>) -> tensor<8x1xf32>
    %10 = garray.broadcast_in_dim %9, dims = [0, 1] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x1xf32>) -> tensor<8x4xf32>
    %11 = garray.sub %8, %10 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
    %12 = garray.exp %11 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
    %13 = garray.reduce <sum> %12, dims = [1] keepdims {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x4xf32>) -> tensor<8x1xf32>
    %14 = garray.log %13 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x1xf32>
    %15 = garray.broadcast_in_dim %14, dims = [0, 1] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x1xf32>) -> tensor<8x4xf32>
    %16 = garray.sub %11, %15 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
    %17 = garray.iota dim = 1 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xi64>
    %18 = garray.broadcast_in_dim %arg5, dims = [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8xi64>) -> tensor<8x4xi64>
    %19 = garray.compare <eq> %17, %18 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x4xi64>, tensor<8x4xi64>) -> tensor<8x4xi1>
    %20 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data", None)>} dense<0.000000e+00> : tensor<8x4xf32>
    %21 = garray.select %19, %16, %20 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %22 = garray.reduce <sum> %21, dims = [1] {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<8x4xf32>) -> tensor<8xf32>
    %23 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data")>} dense<-1> : tensor<8xi64>
    %24 = garray.compare <ne> %arg5, %23 {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi1>
    %25 = garray.convert %24 {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<8xi1>) -> tensor<8xf32>
    %26 = garray.mul %22, %25 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %27 = garray.reduce <sum> %26, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : (tensor<8xf32>) -> tensor<f32>
    %28 = garray.reduce <sum> %25, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : (tensor<8xf32>) -> tensor<f32>
    %29 = garray.all_reduce <sum> %28 on @mesh ["data"] {bytes_per_device = 4 : i64, garray.sharding = #garray.sharding<@mesh, P()>, reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #1 of garray.div at samples/mlp.mlir:68:13 [from garray.mean] needs the whole value"} : tensor<f32>
    %30 = garray.div %27, %29 {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : tensor<f32>
    %31 = garray.neg %30 {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : tensor<f32>
    %32 = garray.all_reduce <sum> %31 on @mesh ["data"] {bytes_per_device = 4 : i64, garray.sharding = #garray.sharding<@mesh, P()>, reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of func.return at samples/mlp.mlir:70:3 (a function result) needs the whole value"} : tensor<f32>
    return %32, %8 : tensor<f32>, tensor<8x4xf32>
  }
}
exit 0
