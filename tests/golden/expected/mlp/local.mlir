module {
  func.func @main(%arg0: tensor<4x16xf32> {garray.name = "X"}, %arg1: tensor<16x16xf32> {garray.name = "W1"}, %arg2: tensor<16xf32> {garray.name = "b1"}, %arg3: tensor<16x4xf32> {garray.name = "W2"}, %arg4: tensor<4xf32> {garray.name = "b2"}, %arg5: tensor<4xi64> {garray.name = "labels"}) -> (tensor<f32> {garray.name = "loss"}, tensor<4x4xf32> {garray.name = "logits"}) {
    %0 = garray.dot_general %arg0, %arg1, batch = [] x [], contracting = [1] x [0] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %1 = garray.broadcast_in_dim %arg2, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
    %2 = garray.add %0, %1 : tensor<4x16xf32>
    %3 = garray.constant dense<0.000000e+00> : tensor<4x16xf32>
    %4 = garray.max %2, %3 : tensor<4x16xf32>
    %5 = garray.dot_general %4, %arg3, batch = [] x [], contracting = [1] x [0] : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
    %6 = comm.all_reduce <sum> %5 groups = [[0, 1], [2, 3]] {reason = "a pending partial passes through this op only when operands #0 and #1 are pending over the same axes (and no other operand is), and operand #1 is not (operand #0 of garray.add at samples/mlp.mlir:43:13: has P(\22data\22, None) unreduced=sum(\22model\22), needs P(\22data\22, None))"} : tensor<4x4xf32> -> tensor<4x4xf32>
    %7 = garray.broadcast_in_dim %arg4, dims = [1] : (tensor<4xf32>) -> tensor<4x4xf32>
    %8 = garray.add %6, %7 : tensor<4x4xf32>
    %9 = garray.reduce <max> %8, dims = [1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
    %10 = garray.broadcast_in_dim %9, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x4xf32>
    %11 = garray.sub %8, %10 : tensor<4x4xf32>
    %12 = garray.exp %11 : tensor<4x4xf32>
    %13 = garray.reduce <sum> %12, dims = [1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
    %14 = garray.log %13 : tensor<4x1xf32>
    %15 = garray.broadcast_in_dim %14, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x4xf32>
    %16 = garray.sub %11, %15 : tensor<4x4xf32>
    %17 = garray.iota dim = 1 : tensor<4x4xi64>
    %18 = garray.broadcast_in_dim %arg5, dims = [0] : (tensor<4xi64>) -> tensor<4x4xi64>
    %19 = garray.compare <eq> %17, %18 : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %20 = garray.constant dense<0.000000e+00> : tensor<4x4xf32>
    %21 = garray.select %19, %16, %20 : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %22 = garray.reduce <sum> %21, dims = [1] : (tensor<4x4xf32>) -> tensor<4xf32>
    %23 = garray.constant dense<-1> : tensor<4xi64>
    %24 = garray.compare <ne> %arg5, %23 : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %25 = garray.convert %24 : (tensor<4xi1>) -> tensor<4xf32>
    %26 = garray.mul %22, %25 : tensor<4xf32>
    %27 = garray.reduce <sum> %26, dims = [0] : (tensor<4xf32>) -> tensor<f32>
    %28 = garray.reduce <sum> %25, dims = [0] : (tensor<4xf32>) -> tensor<f32>
    %29 = comm.all_reduce <sum> %28 groups = [[0, 2], [1, 3]] {reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #1 of garray.div at samples/mlp.mlir:68:13 [from garray.mean] needs the whole value"} : tensor<f32> -> tensor<f32>
    %30 = garray.div %27, %29 : tensor<f32>
    %31 = garray.neg %30 : tensor<f32>
    %32 = comm.all_reduce <sum> %31 groups = [[0, 2], [1, 3]] {reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of func.return at samples/mlp.mlir:70:3 (a function result) needs the whole value"} : tensor<f32> -> tensor<f32>
    return %32, %8 : tensor<f32>, tensor<4x4xf32>
  }
}
exit 0
