module {
  func.func @main(%arg0: tensor<2x2xf32> {garray.name = "X"}, %arg1: tensor<2xf32> {garray.name = "y"}, %arg2: tensor<2xf32> {garray.name = "w"}) -> (tensor<f32> {garray.name = "loss"}, tensor<2xf32> {garray.name = "grad"}, tensor<2xf32> {garray.name = "w"}) {
    %0 = garray.dot_general %arg0, %arg2, batch = [] x [], contracting = [1] x [0] : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = garray.sub %0, %arg1 : tensor<2xf32>
    %2 = garray.mul %1, %1 : tensor<2xf32>
    %3 = garray.reduce <sum> %2, dims = [0] : (tensor<2xf32>) -> tensor<f32>
    %4 = garray.constant dense<8.000000e+00> : tensor<f32>
    %5 = garray.div %3, %4 : tensor<f32>
    %6 = garray.constant dense<1.000000e+00> : tensor<f32>
    %7 = garray.div %6, %4 : tensor<f32>
    %8 = garray.broadcast_in_dim %7, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %9 = garray.mul %8, %1 : tensor<2xf32>
    %10 = garray.add %9, %9 : tensor<2xf32>
    %11 = garray.dot_general %10, %arg0, batch = [] x [], contracting = [0] x [0] : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2xf32>
    %12 = garray.reshape %5 : (tensor<f32>) -> tensor<1xf32>
    %13 = garray.concatenate %12, %11, dim = 0 : (tensor<1xf32>, tensor<2xf32>) -> tensor<3xf32>
    %14 = comm.all_reduce <sum> %13 groups = [[0, 1, 2, 3]] {parts = [{bytes = 4 : i64, location = "samples/linear_regression.mlir:21:11 [from garray.mean]", reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of func.return at samples/linear_regression.mlir:35:3 (a function result) needs the whole value", type = tensor<f32>}, {bytes = 8 : i64, location = "samples/linear_regression.mlir:17:11 [gradient of garray.dot_general]", reason = "pending sum over \22data\22 reduced once for its 2 uses, since operand #0 of garray.sharding_constraint at samples/linear_regression.mlir:34:13 (the gradient pinned to its parameter's layout by garray.sgd_update (garray-expand-optimizers)) needs the whole value", type = tensor<2xf32>}], reason = "combined 2 independent all-reduces"} : tensor<3xf32> -> tensor<3xf32>
    %15 = garray.constant dense<1.000000e-01> : tensor<2xf32>
    %16 = garray.slice %14, start = [1], limit = [3], strides = [1] : (tensor<3xf32>) -> tensor<2xf32>
    %17 = garray.mul %16, %15 : tensor<2xf32>
    %18 = garray.sub %arg2, %17 : tensor<2xf32>
    %19 = garray.slice %14, start = [0], limit = [1], strides = [1] : (tensor<3xf32>) -> tensor<1xf32>
    %20 = garray.reshape %19 : (tensor<1xf32>) -> tensor<f32>
    return %20, %16, %18 : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  }
}
exit 0
