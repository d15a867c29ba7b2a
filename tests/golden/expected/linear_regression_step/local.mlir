module {
  func.func @main(%arg0: tensor<2x2xf32> {garray.name = "X"}, %arg1: tensor<2xf32> {garray.name = "y"}, %arg2: tensor<2xf32> {garray.name = "w"}) -> (tensor<f32> {garray.name = "loss"}, tensor<2xf32> {garray.name = "grad"}, tensor<2xf32> {garray.name = "w_next"}) {
    %0 = garray.dot_general %arg0, %arg2, batch = [] x [], contracting = [1] x [0] : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = garray.sub %0, %arg1 : tensor<2xf32>
    %2 = garray.mul %1, %1 : tensor<2xf32>
    %3 = garray.reduce <sum> %2, dims = [0] : (tensor<2xf32>) -> tensor<f32>
    %4 = garray.constant dense<8.000000e+00> : tensor<f32>
    %5 = garray.div %3, %4 : tensor<f32>
    %6 = garray.dot_general %arg0, %1, batch = [] x [], contracting = [0] x [0] : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %7 = garray.constant dense<2.500000e-01> : tensor<2xf32>
    %8 = garray.mul %6, %7 : tensor<2xf32>
    %9 = garray.reshape %5 : (tensor<f32>) -> tensor<1xf32>
    %10 = garray.concatenate %9, %8, dim = 0 : (tensor<1xf32>, tensor<2xf32>) -> tensor<3xf32>
    %11 = comm.all_reduce <sum> %10 groups = [[0, 1, 2, 3]] {parts = [{bytes = 4 : i64, location = "samples/linear_regression_step.mlir:24:11 [from garray.mean]", reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of func.return at samples/linear_regression_step.mlir:35:3 (a function result) needs the whole value", type = tensor<f32>}, {bytes = 8 : i64, location = "samples/linear_regression_step.mlir:30:11", reason = "pending sum over \22data\22 reduced once for its 2 uses, since operand #1 of func.return at samples/linear_regression_step.mlir:35:3 (a function result) needs the whole value", type = tensor<2xf32>}], reason = "combined 2 independent all-reduces"} : tensor<3xf32> -> tensor<3xf32>
    %12 = garray.constant dense<1.000000e-01> : tensor<2xf32>
    %13 = garray.slice %11, start = [1], limit = [3], strides = [1] : (tensor<3xf32>) -> tensor<2xf32>
    %14 = garray.mul %13, %12 : tensor<2xf32>
    %15 = garray.sub %arg2, %14 : tensor<2xf32>
    %16 = garray.slice %11, start = [0], limit = [1], strides = [1] : (tensor<3xf32>) -> tensor<1xf32>
    %17 = garray.reshape %16 : (tensor<1xf32>) -> tensor<f32>
    return %17, %13, %15 : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  }
}
exit 0
