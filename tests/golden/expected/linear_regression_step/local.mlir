module {
  func.func @main(%arg0: tensor<2x2xf32> {garray.name = "X"}, %arg1: tensor<2xf32> {garray.name = "y"}, %arg2: tensor<2xf32> {garray.name = "w"}) -> (tensor<f32> {garray.name = "loss"}, tensor<2xf32> {garray.name = "grad"}, tensor<2xf32> {garray.name = "w_next"}) {
    %0 = garray.dot_general %arg0, %arg2, batch = [] x [], contracting = [1] x [0] : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = garray.sub %0, %arg1 : tensor<2xf32>
    %2 = garray.mul %1, %1 : tensor<2xf32>
    %3 = garray.reduce <sum> %2, dims = [0] : (tensor<2xf32>) -> tensor<f32>
    %4 = garray.constant dense<8.000000e+00> : tensor<f32>
    %5 = garray.div %3, %4 : tensor<f32>
    %6 = comm.all_reduce <sum> %5 groups = [[0, 1, 2, 3]] {reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of func.return at samples/linear_regression_step.mlir:35:3 (a function result) needs the whole value"} : tensor<f32> -> tensor<f32>
    %7 = garray.dot_general %arg0, %1, batch = [] x [], contracting = [0] x [0] : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %8 = garray.constant dense<2.500000e-01> : tensor<2xf32>
    %9 = garray.mul %7, %8 : tensor<2xf32>
    %10 = comm.all_reduce <sum> %9 groups = [[0, 1, 2, 3]] {reason = "pending sum over \22data\22 reduced once for its 2 uses, since operand #1 of func.return at samples/linear_regression_step.mlir:35:3 (a function result) needs the whole value"} : tensor<2xf32> -> tensor<2xf32>
    %11 = garray.constant dense<1.000000e-01> : tensor<2xf32>
    %12 = garray.mul %10, %11 : tensor<2xf32>
    %13 = garray.sub %arg2, %12 : tensor<2xf32>
    return %6, %10, %13 : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  }
}
exit 0
