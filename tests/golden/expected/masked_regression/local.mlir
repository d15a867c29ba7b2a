module {
  func.func @main(%arg0: tensor<4x2xf32> {garray.name = "X"}, %arg1: tensor<4xf32> {garray.name = "y"}, %arg2: tensor<4xf32> {garray.name = "mask"}, %arg3: tensor<2xf32> {garray.name = "w"}) -> (tensor<f32> {garray.name = "loss"}, tensor<2xf32> {garray.name = "grad"}, tensor<2xf32> {garray.name = "w"}) {
    %0 = garray.dot_general %arg0, %arg3, batch = [] x [], contracting = [1] x [0] : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4xf32>
    %1 = garray.sub %0, %arg1 : tensor<4xf32>
    %2 = garray.mul %1, %1 : tensor<4xf32>
    %3 = garray.mul %2, %arg2 : tensor<4xf32>
    %4 = garray.reduce <sum> %3, dims = [0] : (tensor<4xf32>) -> tensor<f32>
    %5 = garray.reduce <sum> %arg2, dims = [0] : (tensor<4xf32>) -> tensor<f32>
    %6 = comm.all_reduce <sum> %5 groups = [[0, 1]] {reason = "pending sum over \22data\22 reduced once for its 2 uses, since operand #1 of garray.div at samples/masked_regression.mlir:20:11 [from garray.mean] [gradient of garray.div] needs the whole value"} : tensor<f32> -> tensor<f32>
    %7 = garray.div %4, %6 : tensor<f32>
    %8 = comm.all_reduce <sum> %7 groups = [[0, 1]] {reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of func.return at samples/masked_regression.mlir:35:3 (a function result) needs the whole value"} : tensor<f32> -> tensor<f32>
    %9 = garray.constant dense<1.000000e+00> : tensor<f32>
    %10 = garray.div %9, %6 : tensor<f32>
    %11 = garray.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %12 = garray.mul %11, %arg2 : tensor<4xf32>
    %13 = garray.mul %12, %1 : tensor<4xf32>
    %14 = garray.add %13, %13 : tensor<4xf32>
    %15 = garray.dot_general %14, %arg0, batch = [] x [], contracting = [0] x [0] : (tensor<4xf32>, tensor<4x2xf32>) -> tensor<2xf32>
    %16 = comm.all_reduce <sum> %15 groups = [[0, 1]] {reason = "pending sum over \22data\22 reduced once for its 2 uses, since operand #0 of garray.sharding_constraint at samples/masked_regression.mlir:34:13 (the gradient pinned to its parameter's layout by garray.sgd_update (garray-expand-optimizers)) needs the whole value"} : tensor<2xf32> -> tensor<2xf32>
    %17 = garray.constant dense<1.000000e-01> : tensor<2xf32>
    %18 = garray.mul %16, %17 : tensor<2xf32>
    %19 = garray.sub %arg3, %18 : tensor<2xf32>
    return %8, %16, %19 : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  }
}
exit 0
