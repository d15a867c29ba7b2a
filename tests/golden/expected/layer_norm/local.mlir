module {
  func.func @main(%arg0: tensor<4x8xf32> {garray.name = "x"}, %arg1: tensor<8xf32> {garray.name = "gamma"}, %arg2: tensor<8xf32> {garray.name = "beta"}) -> (tensor<4x8xf32> {garray.name = "y"}, tensor<4xf32> {garray.name = "var"}) {
    %0 = garray.reduce <sum> %arg0, dims = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
    %1 = garray.constant dense<1.600000e+01> : tensor<4xf32>
    %2 = garray.div %0, %1 : tensor<4xf32>
    %3 = comm.all_reduce <sum> %2 groups = [[0, 1], [2, 3]] {reason = "a pending partial is reduced first: its axes also split the op's own dims (operand #0 of garray.broadcast_in_dim at samples/layer_norm.mlir:19:11: has P(\22data\22) unreduced=sum(\22model\22), needs P(\22data\22))"} : tensor<4xf32> -> tensor<4xf32>
    %4 = garray.broadcast_in_dim %3, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
    %5 = garray.sub %arg0, %4 : tensor<4x8xf32>
    %6 = garray.mul %5, %5 : tensor<4x8xf32>
    %7 = garray.reduce <sum> %6, dims = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
    %8 = garray.constant dense<1.600000e+01> : tensor<4xf32>
    %9 = garray.div %7, %8 : tensor<4xf32>
    %10 = comm.all_reduce <sum> %9 groups = [[0, 1], [2, 3]] {reason = "pending sum over \22model\22 reduced once for its 2 uses, since operand #1 of func.return at samples/layer_norm.mlir:32:3 (a function result) needs the whole value"} : tensor<4xf32> -> tensor<4xf32>
    %11 = garray.constant dense<9.99999974E-6> : tensor<4xf32>
    %12 = garray.add %10, %11 : tensor<4xf32>
    %13 = garray.rsqrt %12 : tensor<4xf32>
    %14 = garray.broadcast_in_dim %13, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
    %15 = garray.mul %5, %14 : tensor<4x8xf32>
    %16 = garray.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
    %17 = garray.broadcast_in_dim %arg2, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
    %18 = garray.mul %15, %16 : tensor<4x8xf32>
    %19 = garray.add %18, %17 : tensor<4x8xf32>
    return %19, %10 : tensor<4x8xf32>, tensor<4xf32>
  }
}
exit 0
