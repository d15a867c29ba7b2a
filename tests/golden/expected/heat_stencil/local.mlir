module {
  func.func @main(%arg0: tensor<4x8xf32> {garray.name = "u"}) -> (tensor<4x8xf32> {garray.name = "u_next"}, tensor<f32> {garray.name = "heat"}) {
    %0 = garray.constant dense<0.000000e+00> : tensor<f32>
    %1 = garray.slice %arg0, start = [3, 0], limit = [4, 8], strides = [1, 1] : (tensor<4x8xf32>) -> tensor<1x8xf32>
    %2 = comm.collective_permute %1 pairs = [[0, 1], [1, 2], [2, 3]] {reason = "halo exchange: a shift by 1 along dim 0 makes each device read 1 element(s) of dim 0 from the previous shard"} : tensor<1x8xf32> -> tensor<1x8xf32>
    %3 = garray.slice %arg0, start = [0, 0], limit = [3, 8], strides = [1, 1] : (tensor<4x8xf32>) -> tensor<3x8xf32>
    %4 = garray.concatenate %2, %3, dim = 0 : (tensor<1x8xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %5 = garray.iota dim = 0 : tensor<4x8xi64>
    %6 = comm.device_value [1, -3, -7, -11] : tensor<i64>
    %7 = garray.broadcast_in_dim %6, dims = [] : (tensor<i64>) -> tensor<4x8xi64>
    %8 = garray.compare <ge> %5, %7 : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
    %9 = garray.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %10 = garray.select %8, %4, %9 : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %11 = garray.slice %arg0, start = [1, 0], limit = [4, 8], strides = [1, 1] : (tensor<4x8xf32>) -> tensor<3x8xf32>
    %12 = garray.slice %arg0, start = [0, 0], limit = [1, 8], strides = [1, 1] : (tensor<4x8xf32>) -> tensor<1x8xf32>
    %13 = comm.collective_permute %12 pairs = [[1, 0], [2, 1], [3, 2]] {reason = "halo exchange: a shift by -1 along dim 0 makes each device read 1 element(s) of dim 0 from the next shard"} : tensor<1x8xf32> -> tensor<1x8xf32>
    %14 = garray.concatenate %11, %13, dim = 0 : (tensor<3x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
    %15 = garray.iota dim = 0 : tensor<4x8xi64>
    %16 = comm.device_value [15, 11, 7, 3] : tensor<i64>
    %17 = garray.broadcast_in_dim %16, dims = [] : (tensor<i64>) -> tensor<4x8xi64>
    %18 = garray.compare <lt> %15, %17 : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
    %19 = garray.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %20 = garray.select %18, %14, %19 : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %21 = garray.shift %arg0, %0, dim = 1, offset = 1 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %22 = garray.shift %arg0, %0, dim = 1, offset = -1 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %23 = garray.add %10, %20 : tensor<4x8xf32>
    %24 = garray.add %21, %22 : tensor<4x8xf32>
    %25 = garray.add %23, %24 : tensor<4x8xf32>
    %26 = garray.constant dense<4.000000e+00> : tensor<4x8xf32>
    %27 = garray.mul %26, %arg0 : tensor<4x8xf32>
    %28 = garray.sub %25, %27 : tensor<4x8xf32>
    %29 = garray.constant dense<1.000000e-01> : tensor<4x8xf32>
    %30 = garray.mul %29, %28 : tensor<4x8xf32>
    %31 = garray.add %arg0, %30 : tensor<4x8xf32>
    %32 = garray.reduce <sum> %31, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
    %33 = comm.all_reduce <sum> %32 groups = [[0, 1, 2, 3]] {reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #1 of func.return at samples/heat_stencil.mlir:35:3 (a function result) needs the whole value"} : tensor<f32> -> tensor<f32>
    return %31, %33 : tensor<4x8xf32>, tensor<f32>
  }
}
exit 0
