module {
  func.func @main(%arg0: tensor<2x2xf32> {garray.name = "X"}, %arg1: tensor<2xf32> {garray.name = "y"}, %arg2: tensor<2xf32> {garray.name = "w"}) -> (tensor<f32> {garray.name = "loss"}, tensor<2xf32> {garray.name = "grad"}, tensor<2xf32> {garray.name = "w"}) {
    %0 = garray.dot_general %arg0, %arg2, batch = [] x [], contracting = [1] x [0] : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = garray.sub %0, %arg1 : tensor<2xf32>
    %2 = garray.mul %1, %1 : tensor<2xf32>
    %3 = garray.reduce <sum> %2, dims = [0] : (tensor<2xf32>) -> tensor<f32>
    %4 = garray.constant dense<8.000000e+00> : tensor<f32>
    %5 = garray.div %3, %4 : tensor<f32>
    %6 = comm.all_reduce <sum> %5 groups = [[0, 1, 2, 3]] {reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of func.return at samples/linear_regression.mlir:35:3 (a function result) needs the whole value"} : tensor<f32> -> tensor<f32>
    %7 = garray.constant dense<1.000000e+00> : tensor<f32>
    %8 = garray.div %7, %4 : tensor<f32>
    %9 = garray.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %10 = garray.mul %9, %1 : tensor<2xf32>
    %11 = garray.add %10, %10 : tensor<2xf32>
    %12 = garray.dot_general %11, %arg0, batch = [] x [], contracting = [0] x [0] : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2xf32>
    %13 = comm.all_reduce <sum> %12 groups = [[0, 1, 2, 3]] {reason = "pending sum over \22data\22 reduced once for its 2 uses, since operand #0 of garray.sharding_constraint at samples/linear_regression.mlir:34:13 (the gradient pinned to its parameter's layout by garray.sgd_update (garray-expand-optimizers)) needs the whole value"} : tensor<2xf32> -> tensor<2xf32>
    %14 = garray.constant dense<1.000000e-01> : tensor<2xf32>
    %15 = garray.mul %13, %14 : tensor<2xf32>
    %16 = garray.sub %arg2, %15 : tensor<2xf32>
    return %6, %13, %16 : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  }
}
exit 0
