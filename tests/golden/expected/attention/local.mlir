module {
  func.func @main(%arg0: tensor<1x8x16xf32> {garray.name = "X"}, %arg1: tensor<16x8xf32> {garray.name = "Wq"}, %arg2: tensor<16x8xf32> {garray.name = "Wk"}, %arg3: tensor<16x8xf32> {garray.name = "Wv"}, %arg4: tensor<8x16xf32> {garray.name = "Wo"}) -> (tensor<1x8x16xf32> {garray.name = "y"}) {
    %0 = garray.dot_general %arg0, %arg1, batch = [] x [], contracting = [2] x [0] : (tensor<1x8x16xf32>, tensor<16x8xf32>) -> tensor<1x8x8xf32>
    %1 = garray.dot_general %arg0, %arg2, batch = [] x [], contracting = [2] x [0] : (tensor<1x8x16xf32>, tensor<16x8xf32>) -> tensor<1x8x8xf32>
    %2 = garray.dot_general %arg0, %arg3, batch = [] x [], contracting = [2] x [0] : (tensor<1x8x16xf32>, tensor<16x8xf32>) -> tensor<1x8x8xf32>
    %3 = garray.dot_general %0, %1, batch = [0] x [0], contracting = [2] x [2] : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %4 = garray.constant dense<2.500000e-01> : tensor<1x8x8xf32>
    %5 = garray.mul %3, %4 : tensor<1x8x8xf32>
    %6 = comm.all_reduce <sum> %5 groups = [[0, 1], [2, 3]] {reason = "a pending partial passes through this op only when operands #1 and #2 are pending over the same axes (and no other operand is), and operand #2 is not (operand #1 of garray.select at samples/attention.mlir:46:9: has P(\22data\22, None, None) unreduced=sum(\22model\22), needs P(\22data\22, None, None))"} : tensor<1x8x8xf32> -> tensor<1x8x8xf32>
    %7 = garray.iota dim = 1 : tensor<1x8x8xi64>
    %8 = garray.iota dim = 2 : tensor<1x8x8xi64>
    %9 = garray.compare <ge> %7, %8 : (tensor<1x8x8xi64>, tensor<1x8x8xi64>) -> tensor<1x8x8xi1>
    %10 = garray.constant dense<-1.000000e+09> : tensor<1x8x8xf32>
    %11 = garray.select %9, %6, %10 : (tensor<1x8x8xi1>, tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %12 = garray.reduce <max> %11, dims = [2] keepdims : (tensor<1x8x8xf32>) -> tensor<1x8x1xf32>
    %13 = garray.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<1x8x1xf32>) -> tensor<1x8x8xf32>
    %14 = garray.sub %11, %13 : tensor<1x8x8xf32>
    %15 = garray.exp %14 : tensor<1x8x8xf32>
    %16 = garray.reduce <sum> %15, dims = [2] keepdims : (tensor<1x8x8xf32>) -> tensor<1x8x1xf32>
    %17 = garray.broadcast_in_dim %16, dims = [0, 1, 2] : (tensor<1x8x1xf32>) -> tensor<1x8x8xf32>
    %18 = garray.div %15, %17 : tensor<1x8x8xf32>
    %19 = garray.dot_general %18, %2, batch = [0] x [0], contracting = [2] x [1] : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %20 = garray.dot_general %19, %arg4, batch = [] x [], contracting = [2] x [0] : (tensor<1x8x8xf32>, tensor<8x16xf32>) -> tensor<1x8x16xf32>
    %21 = comm.all_reduce <sum> %20 groups = [[0, 1], [2, 3]] {reason = "pending sum over \22model\22 reduced once for its 1 use, since operand #0 of func.return at samples/attention.mlir:63:3 (a function result) needs the whole value"} : tensor<1x8x16xf32> -> tensor<1x8x16xf32>
    return %21 : tensor<1x8x16xf32>
  }
}
exit 0
