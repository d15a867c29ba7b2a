module {
  garray.mesh @mesh ["data" = 2, "model" = 2]
  func.func @main(%arg0: tensor<8x16xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>}, %arg1: tensor<8xi64> {garray.name = "labels", garray.sharding = #garray.sharding<@mesh, P("data")>}, %arg2: tensor<16x32xf32> {garray.name = "W1", garray.sharding = #garray.sharding<@mesh, P(None, "model")>}, %arg3: tensor<32xf32> {garray.name = "b1", garray.sharding = #garray.sharding<@mesh, P("model")>}, %arg4: tensor<32x4xf32> {garray.name = "W2", garray.sharding = #garray.sharding<@mesh, P("model", None)>}, %arg5: tensor<4xf32> {garray.name = "b2", garray.sharding = #garray.sharding<@mesh, P(None)>}, %arg6: tensor<16x32xf32> {garray.name = "mu_W1", garray.sharding = #garray.sharding<@mesh, P(None, "model")>}, %arg7: tensor<32xf32> {garray.name = "mu_b1", garray.sharding = #garray.sharding<@mesh, P("model")>}, %arg8: tensor<32x4xf32> {garray.name = "mu_W2", garray.sharding = #garray.sharding<@mesh, P("model", None)>}, %arg9: tensor<4xf32> {garray.name = "mu_b2", garray.sharding = #garray.sharding<@mesh, P(None)>}, %arg10: tensor<16x32xf32> {garray.name = "nu_W1", garray.sharding = #garray.sharding<@mesh, P(None, "model")>}, %arg11: tensor<32xf32> {garray.name = "nu_b1", garray.sharding = #garray.sharding<@mesh, P("model")>}, %arg12: tensor<32x4xf32> {garray.name = "nu_W2", garray.sharding = #garray.sharding<@mesh, P("model", None)>}, %arg13: tensor<4xf32> {garray.name = "nu_b2", garray.sharding = #garray.sharding<@mesh, P(None)>}, %arg14: tensor<f32> {garray.name = "t", garray.sharding = #garray.sharding<@mesh, P()>}) -> (tensor<f32> {garray.name = "loss", garray.sharding = #garray.sharding<@mesh, P()>}, tensor<16x32xf32> {garray.name = "W1", garray.sharding = #garray.sharding<@mesh, P(None, "model")>}, tensor<32xf32> {garray.name = "b1", garray.sharding = #garray.sharding<@mesh, P("model")>}, tensor<32x4xf32> {garray.name = "W2", garray.sharding = #garray.sharding<@mesh, P("model", None)>}, tensor<4xf32> {garray.name = "b2", garray.sharding = #garray.sharding<@mesh, P(None)>}, tensor<16x32xf32> {garray.name = "mu_W1", garray.sharding = #garray.sharding<@mesh, P(None, "model")>}, tensor<32xf32> {garray.name = "mu_b1", garray.sharding = #garray.sharding<@mesh, P("model")>}, tensor<32x4xf32> {garray.name = "mu_W2", garray.sharding = #garray.sharding<@mesh, P("model", None)>}, tensor<4xf32> {garray.name = "mu_b2", garray.sharding = #garray.sharding<@mesh, P(None)>}, tensor<16x32xf32> {garray.name = "nu_W1", garray.sharding = #garray.sharding<@mesh, P(None, "model")>}, tensor<32xf32> {garray.name = "nu_b1", garray.sharding = #garray.sharding<@mesh, P("model")>}, tensor<32x4xf32> {garray.name = "nu_W2", garray.sharding = #garray.sharding<@mesh, P("model", None)>}, tensor<4xf32> {garray.name = "nu_b2", garray.sharding = #garray.sharding<@mesh, P(None)>}, tensor<f32> {garray.name = "t", garray.sharding = #garray.sharding<@mesh, P()>}) {
    %0 = garray.dot_general %arg0, %arg2, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %1 = garray.broadcast_in_dim %arg3, dims = [1] {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<32xf32>) -> tensor<8x32xf32>
    %2 = garray.add %0, %1 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : tensor<8x32xf32>
    %3 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} dense<0.000000e+00> : tensor<8x32xf32>
    %4 = garray.max %2, %3 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : tensor<8x32xf32>
    %5 = garray.dot_general %4, %arg4, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None), unreduced = sum("model")>} : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
    %6 = garray.all_reduce <sum> %5 on @mesh ["model"] {bytes_per_device = 64 : i64, garray.sharding = #garray.sharding<@mesh, P("data", None)>, reason = "a pending partial passes through this op only when operands #0 and #1 are pending over the same axes (and no other operand is), and operand #1 is not (operand #0 of garray.add at samples/mlp_train.mlir:33:13: has P(\22data\22, None) unreduced=sum(\22model\22), needs P(\22data\22, None))"} : tensor<8x4xf32>
    %7 = garray.broadcast_in_dim %arg5, dims = [1] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<4xf32>) -> tensor<8x4xf32>
    %8 = garray.add %6, %7 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
    %9 = garray.reduce <max> %8, dims = [1] keepdims {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x4xf32>) -> tensor<8x1xf32>
    %10 = garray.broadcast_in_dim %9, dims = [0, 1] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x1xf32>) -> tensor<8x4xf32>
    %11 = garray.sub %8, %10 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
    %12 = garray.exp %11 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
    %13 = garray.reduce <sum> %12, dims = [1] keepdims {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x4xf32>) -> tensor<8x1xf32>
    %14 = garray.log %13 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x1xf32>
    %15 = garray.broadcast_in_dim %14, dims = [0, 1] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x1xf32>) -> tensor<8x4xf32>
    %16 = garray.sub %11, %15 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
    %17 = garray.iota dim = 1 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xi64>
    %18 = garray.broadcast_in_dim %arg1, dims = [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8xi64>) -> tensor<8x4xi64>
    %19 = garray.compare <eq> %17, %18 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x4xi64>, tensor<8x4xi64>) -> tensor<8x4xi1>
    %20 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data", None)>} dense<0.000000e+00> : tensor<8x4xf32>
    %21 = garray.select %19, %16, %20 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %22 = garray.reduce <sum> %21, dims = [1] {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<8x4xf32>) -> tensor<8xf32>
    %23 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data")>} dense<-1> : tensor<8xi64>
    %24 = garray.compare <ne> %arg1, %23 {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi1>
    %25 = garray.convert %24 {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<8xi1>) -> tensor<8xf32>
    %26 = garray.mul %22, %25 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %27 = garray.reduce <sum> %26, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : (tensor<8xf32>) -> tensor<f32>
    %28 = garray.reduce <sum> %25, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : (tensor<8xf32>) -> tensor<f32>
    %29 = garray.all_reduce <sum> %28 on @mesh ["data"] {bytes_per_device = 4 : i64, garray.sharding = #garray.sharding<@mesh, P()>, reason = "pending sum over \22data\22 reduced once for its 2 uses, since operand #1 of garray.div at samples/mlp_train.mlir:58:13 [from garray.mean] [gradient of garray.div] needs the whole value"} : tensor<f32>
    %30 = garray.div %27, %29 {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : tensor<f32>
    %31 = garray.neg %30 {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : tensor<f32>
    %32 = garray.all_reduce <sum> %31 on @mesh ["data"] {bytes_per_device = 4 : i64, garray.sharding = #garray.sharding<@mesh, P()>, reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of func.return at samples/mlp_train.mlir:110:3 (a function result) needs the whole value"} : tensor<f32>
    %33 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<1.000000e+00> : tensor<f32>
    %34 = garray.neg %33 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %35 = garray.div %34, %29 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %36 = garray.broadcast_in_dim %35, dims = [] {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<f32>) -> tensor<8xf32>
    %37 = garray.mul %36, %25 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<8xf32>
    %38 = garray.broadcast_in_dim %37, dims = [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8xf32>) -> tensor<8x4xf32>
    %39 = garray.select %19, %38, %20 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %40 = garray.neg %39 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
    %41 = garray.reduce <sum> %40, dims = [1] {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<8x4xf32>) -> tensor<8xf32>
    %42 = garray.reshape %41 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8xf32>) -> tensor<8x1xf32>
    %43 = garray.div %42, %13 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x1xf32>
    %44 = garray.broadcast_in_dim %43, dims = [0, 1] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x1xf32>) -> tensor<8x4xf32>
    %45 = garray.mul %44, %12 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
    %46 = garray.add %39, %45 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
    %47 = garray.neg %46 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
    %48 = garray.reduce <sum> %47, dims = [1] {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<8x4xf32>) -> tensor<8xf32>
    %49 = garray.reshape %48 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8xf32>) -> tensor<8x1xf32>
    %50 = garray.compare <eq> %8, %10 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xi1>
    %51 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data", None)>} dense<1.000000e+00> : tensor<8x4xf32>
    %52 = garray.select %50, %51, %20 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %53 = garray.reduce <sum> %52, dims = [1] keepdims {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x4xf32>) -> tensor<8x1xf32>
    %54 = garray.div %49, %53 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x1xf32>
    %55 = garray.broadcast_in_dim %54, dims = [0, 1] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<8x1xf32>) -> tensor<8x4xf32>
    %56 = garray.mul %52, %55 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
    %57 = garray.add %46, %56 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
    %58 = garray.reduce <sum> %57, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>} : (tensor<8x4xf32>) -> tensor<4xf32>
    %59 = garray.all_reduce <sum> %58 on @mesh ["data"] {bytes_per_device = 16 : i64, garray.sharding = #garray.sharding<@mesh, P(None)>, reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of garray.sharding_constraint at samples/mlp_train.mlir:105:40 (the gradient pinned to its parameter's layout by garray.adam_update (garray-expand-optimizers)) needs the whole value"} : tensor<4xf32>
    %60 = garray.dot_general %57, %arg4, batch = [] x [], contracting = [1] x [1] {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<8x4xf32>, tensor<32x4xf32>) -> tensor<8x32xf32>
    %61 = garray.dot_general %57, %4, batch = [] x [], contracting = [0] x [0] {garray.sharding = #garray.sharding<@mesh, P(None, "model"), unreduced = sum("data")>} : (tensor<8x4xf32>, tensor<8x32xf32>) -> tensor<4x32xf32>
    %62 = garray.transpose %61, permutation = [1, 0] {garray.sharding = #garray.sharding<@mesh, P("model", None), unreduced = sum("data")>} : (tensor<4x32xf32>) -> tensor<32x4xf32>
    %63 = garray.all_reduce <sum> %62 on @mesh ["data"] {bytes_per_device = 256 : i64, garray.sharding = #garray.sharding<@mesh, P("model", None)>, reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of garray.sharding_constraint at samples/mlp_train.mlir:102:40 (the gradient pinned to its parameter's layout by garray.adam_update (garray-expand-optimizers)) needs the whole value"} : tensor<32x4xf32>
    %64 = garray.compare <eq> %2, %4 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xi1>
    %65 = garray.compare <eq> %3, %4 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xi1>
    %66 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} dense<5.000000e-01> : tensor<8x32xf32>
    %67 = garray.mul %60, %66 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : tensor<8x32xf32>
    %68 = garray.select %65, %67, %60 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<8x32xi1>, tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %69 = garray.select %64, %68, %3 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<8x32xi1>, tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    %70 = garray.reduce <sum> %69, dims = [0] {garray.sharding = #garray.sharding<@mesh, P("model"), unreduced = sum("data")>} : (tensor<8x32xf32>) -> tensor<32xf32>
    %71 = garray.all_reduce <sum> %70 on @mesh ["data"] {bytes_per_device = 64 : i64, garray.sharding = #garray.sharding<@mesh, P("model")>, reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of garray.sharding_constraint at samples/mlp_train.mlir:99:40 (the gradient pinned to its parameter's layout by garray.adam_update (garray-expand-optimizers)) needs the whole value"} : tensor<32xf32>
    %72 = garray.dot_general %69, %arg0, batch = [] x [], contracting = [0] x [0] {garray.sharding = #garray.sharding<@mesh, P("model", None), unreduced = sum("data")>} : (tensor<8x32xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
    %73 = garray.transpose %72, permutation = [1, 0] {garray.sharding = #garray.sharding<@mesh, P(None, "model"), unreduced = sum("data")>} : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %74 = garray.all_reduce <sum> %73 on @mesh ["data"] {bytes_per_device = 1024 : i64, garray.sharding = #garray.sharding<@mesh, P(None, "model")>, reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of garray.sharding_constraint at samples/mlp_train.mlir:96:40 (the gradient pinned to its parameter's layout by garray.adam_update (garray-expand-optimizers)) needs the whole value"} : tensor<16x32xf32>
    %75 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} dense<0.899999976> : tensor<16x32xf32>
    %76 = garray.mul %arg6, %75 {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<16x32xf32>
    %77 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} dense<1.000000e-01> : tensor<16x32xf32>
    %78 = garray.mul %74, %77 {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<16x32xf32>
    %79 = garray.add %76, %78 {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<16x32xf32>
    %80 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} dense<9.990000e-01> : tensor<16x32xf32>
    %81 = garray.mul %arg10, %80 {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<16x32xf32>
    %82 = garray.mul %74, %74 {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<16x32xf32>
    %83 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} dense<1.000000e-03> : tensor<16x32xf32>
    %84 = garray.mul %82, %83 {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<16x32xf32>
    %85 = garray.add %81, %84 {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<16x32xf32>
    %86 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<0.899999976> : tensor<f32>
    %87 = garray.pow %86, %arg14 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %88 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<1.000000e+00> : tensor<f32>
    %89 = garray.sub %88, %87 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %90 = garray.broadcast_in_dim %89, dims = [] {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : (tensor<f32>) -> tensor<16x32xf32>
    %91 = garray.div %79, %90 {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<16x32xf32>
    %92 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<9.990000e-01> : tensor<f32>
    %93 = garray.pow %92, %arg14 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %94 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<1.000000e+00> : tensor<f32>
    %95 = garray.sub %94, %93 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %96 = garray.broadcast_in_dim %95, dims = [] {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : (tensor<f32>) -> tensor<16x32xf32>
    %97 = garray.div %85, %96 {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<16x32xf32>
    %98 = garray.sqrt %97 {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<16x32xf32>
    %99 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} dense<9.99999993E-9> : tensor<16x32xf32>
    %100 = garray.add %98, %99 {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<16x32xf32>
    %101 = garray.div %91, %100 {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<16x32xf32>
    %102 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} dense<0.00999999977> : tensor<16x32xf32>
    %103 = garray.mul %101, %102 {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<16x32xf32>
    %104 = garray.sub %arg2, %103 {garray.sharding = #garray.sharding<@mesh, P(None, "model")>} : tensor<16x32xf32>
    %105 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("model")>} dense<0.899999976> : tensor<32xf32>
    %106 = garray.mul %arg7, %105 {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<32xf32>
    %107 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("model")>} dense<1.000000e-01> : tensor<32xf32>
    %108 = garray.mul %71, %107 {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<32xf32>
    %109 = garray.add %106, %108 {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<32xf32>
    %110 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("model")>} dense<9.990000e-01> : tensor<32xf32>
    %111 = garray.mul %arg11, %110 {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<32xf32>
    %112 = garray.mul %71, %71 {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<32xf32>
    %113 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("model")>} dense<1.000000e-03> : tensor<32xf32>
    %114 = garray.mul %112, %113 {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<32xf32>
    %115 = garray.add %111, %114 {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<32xf32>
    %116 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<0.899999976> : tensor<f32>
    %117 = garray.pow %116, %arg14 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %118 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<1.000000e+00> : tensor<f32>
    %119 = garray.sub %118, %117 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %120 = garray.broadcast_in_dim %119, dims = [] {garray.sharding = #garray.sharding<@mesh, P("model")>} : (tensor<f32>) -> tensor<32xf32>
    %121 = garray.div %109, %120 {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<32xf32>
    %122 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<9.990000e-01> : tensor<f32>
    %123 = garray.pow %122, %arg14 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %124 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<1.000000e+00> : tensor<f32>
    %125 = garray.sub %124, %123 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %126 = garray.broadcast_in_dim %125, dims = [] {garray.sharding = #garray.sharding<@mesh, P("model")>} : (tensor<f32>) -> tensor<32xf32>
    %127 = garray.div %115, %126 {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<32xf32>
    %128 = garray.sqrt %127 {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<32xf32>
    %129 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("model")>} dense<9.99999993E-9> : tensor<32xf32>
    %130 = garray.add %128, %129 {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<32xf32>
    %131 = garray.div %121, %130 {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<32xf32>
    %132 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("model")>} dense<0.00999999977> : tensor<32xf32>
    %133 = garray.mul %131, %132 {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<32xf32>
    %134 = garray.sub %arg3, %133 {garray.sharding = #garray.sharding<@mesh, P("model")>} : tensor<32xf32>
    %135 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("model", None)>} dense<0.899999976> : tensor<32x4xf32>
    %136 = garray.mul %arg8, %135 {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<32x4xf32>
    %137 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("model", None)>} dense<1.000000e-01> : tensor<32x4xf32>
    %138 = garray.mul %63, %137 {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<32x4xf32>
    %139 = garray.add %136, %138 {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<32x4xf32>
    %140 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("model", None)>} dense<9.990000e-01> : tensor<32x4xf32>
    %141 = garray.mul %arg12, %140 {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<32x4xf32>
    %142 = garray.mul %63, %63 {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<32x4xf32>
    %143 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("model", None)>} dense<1.000000e-03> : tensor<32x4xf32>
    %144 = garray.mul %142, %143 {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<32x4xf32>
    %145 = garray.add %141, %144 {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<32x4xf32>
    %146 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<0.899999976> : tensor<f32>
    %147 = garray.pow %146, %arg14 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %148 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<1.000000e+00> : tensor<f32>
    %149 = garray.sub %148, %147 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %150 = garray.broadcast_in_dim %149, dims = [] {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : (tensor<f32>) -> tensor<32x4xf32>
    %151 = garray.div %139, %150 {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<32x4xf32>
    %152 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<9.990000e-01> : tensor<f32>
    %153 = garray.pow %152, %arg14 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %154 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<1.000000e+00> : tensor<f32>
    %155 = garray.sub %154, %153 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %156 = garray.broadcast_in_dim %155, dims = [] {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : (tensor<f32>) -> tensor<32x4xf32>
    %157 = garray.div %145, %156 {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<32x4xf32>
    %158 = garray.sqrt %157 {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<32x4xf32>
    %159 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("model", None)>} dense<9.99999993E-9> : tensor<32x4xf32>
    %160 = garray.add %158, %159 {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<32x4xf32>
    %161 = garray.div %151, %160 {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<32x4xf32>
    %162 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("model", None)>} dense<0.00999999977> : tensor<32x4xf32>
    %163 = garray.mul %161, %162 {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<32x4xf32>
    %164 = garray.sub %arg4, %163 {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<32x4xf32>
    %165 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None)>} dense<0.899999976> : tensor<4xf32>
    %166 = garray.mul %arg9, %165 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<4xf32>
    %167 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None)>} dense<1.000000e-01> : tensor<4xf32>
    %168 = garray.mul %59, %167 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<4xf32>
    %169 = garray.add %166, %168 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<4xf32>
    %170 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None)>} dense<9.990000e-01> : tensor<4xf32>
    %171 = garray.mul %arg13, %170 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<4xf32>
    %172 = garray.mul %59, %59 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<4xf32>
    %173 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None)>} dense<1.000000e-03> : tensor<4xf32>
    %174 = garray.mul %172, %173 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<4xf32>
    %175 = garray.add %171, %174 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<4xf32>
    %176 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<0.899999976> : tensor<f32>
    %177 = garray.pow %176, %arg14 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %178 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<1.000000e+00> : tensor<f32>
    %179 = garray.sub %178, %177 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %180 = garray.broadcast_in_dim %179, dims = [] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<f32>) -> tensor<4xf32>
    %181 = garray.div %169, %180 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<4xf32>
    %182 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<9.990000e-01> : tensor<f32>
    %183 = garray.pow %182, %arg14 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %184 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<1.000000e+00> : tensor<f32>
    %185 = garray.sub %184, %183 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    %186 = garray.broadcast_in_dim %185, dims = [] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<f32>) -> tensor<4xf32>
    %187 = garray.div %175, %186 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<4xf32>
    %188 = garray.sqrt %187 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<4xf32>
    %189 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None)>} dense<9.99999993E-9> : tensor<4xf32>
    %190 = garray.add %188, %189 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<4xf32>
    %191 = garray.div %181, %190 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<4xf32>
    %192 = garray.constant {garray.sharding = #garray.sharding<@mesh, P(None)>} dense<0.00999999977> : tensor<4xf32>
    %193 = garray.mul %191, %192 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<4xf32>
    %194 = garray.sub %arg5, %193 {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<4xf32>
    %195 = garray.add %arg14, %33 {garray.sharding = #garray.sharding<@mesh, P()>} : tensor<f32>
    return %32, %104, %134, %164, %194, %79, %109, %139, %169, %85, %115, %145, %175, %195 : tensor<f32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<f32>
  }
}
exit 0
