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
    %8 = garray.constant dense<1.000000e+00> : tensor<f32>
    %9 = garray.div %8, %6 : tensor<f32>
    %10 = garray.broadcast_in_dim %9, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %11 = garray.mul %10, %arg2 : tensor<4xf32>
    %12 = garray.mul %11, %1 : tensor<4xf32>
    %13 = garray.add %12, %12 : tensor<4xf32>
    %14 = garray.dot_general %13, %arg0, batch = [] x [], contracting = [0] x [0] : (tensor<4xf32>, tensor<4x2xf32>) -> tensor<2xf32>
    %15 = garray.reshape %7 : (tensor<f32>) -> tensor<1xf32>
    %16 = garray.concatenate %15, %14, dim = 0 : (tensor<1xf32>, tensor<2xf32>) -> tensor<3xf32>
    %17 = comm.all_reduce <sum> %16 groups = [[0, 1]] {parts = [{bytes = 4 : i64, location = "samples/masked_regression.mlir:20:11 [from garray.mean]", reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of func.return at samples/masked_regression.mlir:35:3 (a function result) needs the whole value", type = tensor<f32>}, {bytes = 8 : i64, location = "samples/masked_regression.mlir:16:11 [gradient of garray.dot_general]", reason = "pending sum over \22data\22 reduced once for its 2 uses, since operand #0 of garray.sharding_constraint at samples/masked_regression.mlir:34:13 (the gradient pinned to its parameter's layout by garray.sgd_update (garray-expand-optimizers)) needs the whole value", type = tensor<2xf32>}], reason = "combined 2 independent all-reduces"} : tensor<3xf32> -> tensor<3xf32>
    %18 = garray.constant dense<1.000000e-01> : tensor<2xf32>
    %19 = garray.slice %17, start = [1], limit = [3], strides = [1] : (tensor<3xf32>) -> tensor<2xf32>
    %20 = garray.mul %19, %18 : tensor<2xf32>
    %21 = garray.sub %arg3, %20 : tensor<2xf32>
    %22 = garray.slice %17, start = [0], limit = [1], strides = [1] : (tensor<3xf32>) -> tensor<1xf32>
    %23 = garray.reshape %22 : (tensor<1xf32>) -> tensor<f32>
    return %23, %19, %21 : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  }
}
exit 0
