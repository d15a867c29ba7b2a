module {
  func.func @main(%arg0: tensor<1x8x16xf32> {garray.name = "X"}, %arg1: tensor<16x8xf32> {garray.name = "Wq"}, %arg2: tensor<16x8xf32> {garray.name = "Wk"}, %arg3: tensor<16x8xf32> {garray.name = "Wv"}, %arg4: tensor<8x16xf32> {garray.name = "Wo"}) -> (tensor<1x8x16xf32> {garray.name = "y"}) {
    %0 = garray.reshape %arg1 : (tensor<16x8xf32>) -> tensor<16x1x8xf32>
    %1 = garray.reshape %arg2 : (tensor<16x8xf32>) -> tensor<16x1x8xf32>
    %2 = garray.reshape %arg3 : (tensor<16x8xf32>) -> tensor<16x1x8xf32>
    %3 = garray.concatenate %0, %1, %2, dim = 1 : (tensor<16x1x8xf32>, tensor<16x1x8xf32>, tensor<16x1x8xf32>) -> tensor<16x3x8xf32>
    %4 = garray.dot_general %arg0, %3, batch = [] x [], contracting = [2] x [0] : (tensor<1x8x16xf32>, tensor<16x3x8xf32>) -> tensor<1x8x3x8xf32>
    %5 = garray.slice %4, start = [0, 0, 0, 0], limit = [1, 8, 1, 8], strides = [1, 1, 1, 1] : (tensor<1x8x3x8xf32>) -> tensor<1x8x1x8xf32>
    %6 = garray.reshape %5 : (tensor<1x8x1x8xf32>) -> tensor<1x8x8xf32>
    %7 = garray.slice %4, start = [0, 0, 1, 0], limit = [1, 8, 2, 8], strides = [1, 1, 1, 1] : (tensor<1x8x3x8xf32>) -> tensor<1x8x1x8xf32>
    %8 = garray.reshape %7 : (tensor<1x8x1x8xf32>) -> tensor<1x8x8xf32>
    %9 = garray.slice %4, start = [0, 0, 2, 0], limit = [1, 8, 3, 8], strides = [1, 1, 1, 1] : (tensor<1x8x3x8xf32>) -> tensor<1x8x1x8xf32>
    %10 = garray.reshape %9 : (tensor<1x8x1x8xf32>) -> tensor<1x8x8xf32>
    %11 = garray.dot_general %6, %8, batch = [0] x [0], contracting = [2] x [2] : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %12 = garray.constant dense<2.500000e-01> : tensor<1x8x8xf32>
    %13 = garray.mul %11, %12 : tensor<1x8x8xf32>
    %14 = comm.all_reduce <sum> %13 groups = [[0, 1], [2, 3]] {reason = "a pending partial passes through this op only when operands #1 and #2 are pending over the same axes (and no other operand is), and operand #2 is not (operand #1 of garray.select at samples/attention.mlir:46:9: has P(\22data\22, None, None) unreduced=sum(\22model\22), needs P(\22data\22, None, None))"} : tensor<1x8x8xf32> -> tensor<1x8x8xf32>
    %15 = garray.iota dim = 1 : tensor<1x8x8xi64>
    %16 = garray.iota dim = 2 : tensor<1x8x8xi64>
    %17 = garray.compare <ge> %15, %16 : (tensor<1x8x8xi64>, tensor<1x8x8xi64>) -> tensor<1x8x8xi1>
    %18 = garray.constant dense<-1.000000e+09> : tensor<1x8x8xf32>
    %19 = garray.select %17, %14, %18 : (tensor<1x8x8xi1>, tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %20 = garray.reduce <max> %19, dims = [2] keepdims : (tensor<1x8x8xf32>) -> tensor<1x8x1xf32>
    %21 = garray.broadcast_in_dim %20, dims = [0, 1, 2] : (tensor<1x8x1xf32>) -> tensor<1x8x8xf32>
    %22 = garray.sub %19, %21 : tensor<1x8x8xf32>
    %23 = garray.exp %22 : tensor<1x8x8xf32>
    %24 = garray.reduce <sum> %23, dims = [2] keepdims : (tensor<1x8x8xf32>) -> tensor<1x8x1xf32>
    %25 = garray.broadcast_in_dim %24, dims = [0, 1, 2] : (tensor<1x8x1xf32>) -> tensor<1x8x8xf32>
    %26 = garray.div %23, %25 : tensor<1x8x8xf32>
    %27 = garray.dot_general %26, %10, batch = [0] x [0], contracting = [2] x [1] : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %28 = garray.dot_general %27, %arg4, batch = [] x [], contracting = [2] x [0] : (tensor<1x8x8xf32>, tensor<8x16xf32>) -> tensor<1x8x16xf32>
    %29 = comm.all_reduce <sum> %28 groups = [[0, 1], [2, 3]] {reason = "pending sum over \22model\22 reduced once for its 1 use, since operand #0 of func.return at samples/attention.mlir:63:3 (a function result) needs the whole value"} : tensor<1x8x16xf32> -> tensor<1x8x16xf32>
    return %29 : tensor<1x8x16xf32>
  }
}
exit 0
