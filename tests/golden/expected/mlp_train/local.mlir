module {
  func.func @main(%arg0: tensor<4x16xf32> {garray.name = "X"}, %arg1: tensor<4xi64> {garray.name = "labels"}, %arg2: tensor<16x16xf32> {garray.name = "W1"}, %arg3: tensor<16xf32> {garray.name = "b1"}, %arg4: tensor<16x4xf32> {garray.name = "W2"}, %arg5: tensor<4xf32> {garray.name = "b2"}, %arg6: tensor<16x16xf32> {garray.name = "mu_W1"}, %arg7: tensor<16xf32> {garray.name = "mu_b1"}, %arg8: tensor<16x4xf32> {garray.name = "mu_W2"}, %arg9: tensor<4xf32> {garray.name = "mu_b2"}, %arg10: tensor<16x16xf32> {garray.name = "nu_W1"}, %arg11: tensor<16xf32> {garray.name = "nu_b1"}, %arg12: tensor<16x4xf32> {garray.name = "nu_W2"}, %arg13: tensor<4xf32> {garray.name = "nu_b2"}, %arg14: tensor<f32> {garray.name = "t"}) -> (tensor<f32> {garray.name = "loss"}, tensor<16x16xf32> {garray.name = "W1"}, tensor<16xf32> {garray.name = "b1"}, tensor<16x4xf32> {garray.name = "W2"}, tensor<4xf32> {garray.name = "b2"}, tensor<16x16xf32> {garray.name = "mu_W1"}, tensor<16xf32> {garray.name = "mu_b1"}, tensor<16x4xf32> {garray.name = "mu_W2"}, tensor<4xf32> {garray.name = "mu_b2"}, tensor<16x16xf32> {garray.name = "nu_W1"}, tensor<16xf32> {garray.name = "nu_b1"}, tensor<16x4xf32> {garray.name = "nu_W2"}, tensor<4xf32> {garray.name = "nu_b2"}, tensor<f32> {garray.name = "t"}) {
    %0 = garray.dot_general %arg0, %arg2, batch = [] x [], contracting = [1] x [0] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %1 = garray.broadcast_in_dim %arg3, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
    %2 = garray.add %0, %1 : tensor<4x16xf32>
    %3 = garray.constant dense<0.000000e+00> : tensor<4x16xf32>
    %4 = garray.max %2, %3 : tensor<4x16xf32>
    %5 = garray.dot_general %4, %arg4, batch = [] x [], contracting = [1] x [0] : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
    %6 = comm.all_reduce <sum> %5 groups = [[0, 1], [2, 3]] {reason = "a pending partial passes through this op only when operands #0 and #1 are pending over the same axes (and no other operand is), and operand #1 is not (operand #0 of garray.add at samples/mlp_train.mlir:33:13: has P(\22data\22, None) unreduced=sum(\22model\22), needs P(\22data\22, None))"} : tensor<4x4xf32> -> tensor<4x4xf32>
    %7 = garray.broadcast_in_dim %arg5, dims = [1] : (tensor<4xf32>) -> tensor<4x4xf32>
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
    %18 = garray.broadcast_in_dim %arg1, dims = [0] : (tensor<4xi64>) -> tensor<4x4xi64>
    %19 = garray.compare <eq> %17, %18 : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %20 = garray.constant dense<0.000000e+00> : tensor<4x4xf32>
    %21 = garray.select %19, %16, %20 : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %22 = garray.reduce <sum> %21, dims = [1] : (tensor<4x4xf32>) -> tensor<4xf32>
    %23 = garray.constant dense<-1> : tensor<4xi64>
    %24 = garray.compare <ne> %arg1, %23 : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %25 = garray.convert %24 : (tensor<4xi1>) -> tensor<4xf32>
    %26 = garray.mul %22, %25 : tensor<4xf32>
    %27 = garray.reduce <sum> %26, dims = [0] : (tensor<4xf32>) -> tensor<f32>
    %28 = garray.reduce <sum> %25, dims = [0] : (tensor<4xf32>) -> tensor<f32>
    %29 = comm.all_reduce <sum> %28 groups = [[0, 2], [1, 3]] {reason = "pending sum over \22data\22 reduced once for its 2 uses, since operand #1 of garray.div at samples/mlp_train.mlir:58:13 [from garray.mean] [gradient of garray.div] needs the whole value"} : tensor<f32> -> tensor<f32>
    %30 = garray.div %27, %29 : tensor<f32>
    %31 = garray.neg %30 : tensor<f32>
    %32 = garray.constant dense<1.000000e+00> : tensor<f32>
    %33 = garray.neg %32 : tensor<f32>
    %34 = garray.div %33, %29 : tensor<f32>
    %35 = garray.broadcast_in_dim %34, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %36 = garray.mul %35, %25 : tensor<4xf32>
    %37 = garray.broadcast_in_dim %36, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
    %38 = garray.select %19, %37, %20 : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %39 = garray.neg %38 : tensor<4x4xf32>
    %40 = garray.reduce <sum> %39, dims = [1] : (tensor<4x4xf32>) -> tensor<4xf32>
    %41 = garray.reshape %40 : (tensor<4xf32>) -> tensor<4x1xf32>
    %42 = garray.div %41, %13 : tensor<4x1xf32>
    %43 = garray.broadcast_in_dim %42, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x4xf32>
    %44 = garray.mul %43, %12 : tensor<4x4xf32>
    %45 = garray.add %38, %44 : tensor<4x4xf32>
    %46 = garray.neg %45 : tensor<4x4xf32>
    %47 = garray.reduce <sum> %46, dims = [1] : (tensor<4x4xf32>) -> tensor<4xf32>
    %48 = garray.reshape %47 : (tensor<4xf32>) -> tensor<4x1xf32>
    %49 = garray.compare <eq> %8, %10 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
    %50 = garray.constant dense<1.000000e+00> : tensor<4x4xf32>
    %51 = garray.select %49, %50, %20 : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %52 = garray.reduce <sum> %51, dims = [1] keepdims : (tensor<4x4xf32>) -> tensor<4x1xf32>
    %53 = garray.div %48, %52 : tensor<4x1xf32>
    %54 = garray.broadcast_in_dim %53, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x4xf32>
    %55 = garray.mul %51, %54 : tensor<4x4xf32>
    %56 = garray.add %45, %55 : tensor<4x4xf32>
    %57 = garray.reduce <sum> %56, dims = [0] : (tensor<4x4xf32>) -> tensor<4xf32>
    %58 = garray.dot_general %56, %arg4, batch = [] x [], contracting = [1] x [1] : (tensor<4x4xf32>, tensor<16x4xf32>) -> tensor<4x16xf32>
    %59 = garray.dot_general %56, %4, batch = [] x [], contracting = [0] x [0] : (tensor<4x4xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    %60 = garray.transpose %59, permutation = [1, 0] : (tensor<4x16xf32>) -> tensor<16x4xf32>
    %61 = garray.compare <eq> %2, %4 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xi1>
    %62 = garray.compare <eq> %3, %4 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xi1>
    %63 = garray.constant dense<5.000000e-01> : tensor<4x16xf32>
    %64 = garray.mul %58, %63 : tensor<4x16xf32>
    %65 = garray.select %62, %64, %58 : (tensor<4x16xi1>, tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    %66 = garray.select %61, %65, %3 : (tensor<4x16xi1>, tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    %67 = garray.reduce <sum> %66, dims = [0] : (tensor<4x16xf32>) -> tensor<16xf32>
    %68 = garray.dot_general %66, %arg0, batch = [] x [], contracting = [0] x [0] : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<16x16xf32>
    %69 = garray.transpose %68, permutation = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %70 = garray.reshape %31 : (tensor<f32>) -> tensor<1xf32>
    %71 = garray.reshape %60 : (tensor<16x4xf32>) -> tensor<64xf32>
    %72 = garray.reshape %69 : (tensor<16x16xf32>) -> tensor<256xf32>
    %73 = garray.concatenate %70, %57, %71, %67, %72, dim = 0 : (tensor<1xf32>, tensor<4xf32>, tensor<64xf32>, tensor<16xf32>, tensor<256xf32>) -> tensor<341xf32>
    %74 = comm.all_reduce <sum> %73 groups = [[0, 2], [1, 3]] {parts = [{bytes = 4 : i64, location = "samples/mlp_train.mlir:59:11", reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of func.return at samples/mlp_train.mlir:110:3 (a function result) needs the whole value", type = tensor<f32>}, {bytes = 16 : i64, location = "samples/mlp_train.mlir:32:10 [gradient of garray.broadcast_in_dim]", reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of garray.sharding_constraint at samples/mlp_train.mlir:105:40 (the gradient pinned to its parameter's layout by garray.adam_update (garray-expand-optimizers)) needs the whole value", type = tensor<4xf32>}, {bytes = 256 : i64, location = "samples/mlp_train.mlir:30:10 [gradient of garray.dot_general]", reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of garray.sharding_constraint at samples/mlp_train.mlir:102:40 (the gradient pinned to its parameter's layout by garray.adam_update (garray-expand-optimizers)) needs the whole value", type = tensor<16x4xf32>}, {bytes = 64 : i64, location = "samples/mlp_train.mlir:24:10 [gradient of garray.broadcast_in_dim]", reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of garray.sharding_constraint at samples/mlp_train.mlir:99:40 (the gradient pinned to its parameter's layout by garray.adam_update (garray-expand-optimizers)) needs the whole value", type = tensor<16xf32>}, {bytes = 1024 : i64, location = "samples/mlp_train.mlir:22:10 [gradient of garray.dot_general]", reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of garray.sharding_constraint at samples/mlp_train.mlir:96:40 (the gradient pinned to its parameter's layout by garray.adam_update (garray-expand-optimizers)) needs the whole value", type = tensor<16x16xf32>}], reason = "combined 5 independent all-reduces"} : tensor<341xf32> -> tensor<341xf32>
    %75 = garray.constant dense<0.899999976> : tensor<16x16xf32>
    %76 = garray.mul %arg6, %75 : tensor<16x16xf32>
    %77 = garray.constant dense<1.000000e-01> : tensor<16x16xf32>
    %78 = garray.slice %74, start = [85], limit = [341], strides = [1] : (tensor<341xf32>) -> tensor<256xf32>
    %79 = garray.reshape %78 : (tensor<256xf32>) -> tensor<16x16xf32>
    %80 = garray.mul %79, %77 : tensor<16x16xf32>
    %81 = garray.add %76, %80 : tensor<16x16xf32>
    %82 = garray.constant dense<9.990000e-01> : tensor<16x16xf32>
    %83 = garray.mul %arg10, %82 : tensor<16x16xf32>
    %84 = garray.mul %79, %79 : tensor<16x16xf32>
    %85 = garray.constant dense<1.000000e-03> : tensor<16x16xf32>
    %86 = garray.mul %84, %85 : tensor<16x16xf32>
    %87 = garray.add %83, %86 : tensor<16x16xf32>
    %88 = garray.constant dense<0.899999976> : tensor<f32>
    %89 = garray.pow %88, %arg14 : tensor<f32>
    %90 = garray.constant dense<1.000000e+00> : tensor<f32>
    %91 = garray.sub %90, %89 : tensor<f32>
    %92 = garray.broadcast_in_dim %91, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %93 = garray.div %81, %92 : tensor<16x16xf32>
    %94 = garray.constant dense<9.990000e-01> : tensor<f32>
    %95 = garray.pow %94, %arg14 : tensor<f32>
    %96 = garray.constant dense<1.000000e+00> : tensor<f32>
    %97 = garray.sub %96, %95 : tensor<f32>
    %98 = garray.broadcast_in_dim %97, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %99 = garray.div %87, %98 : tensor<16x16xf32>
    %100 = garray.sqrt %99 : tensor<16x16xf32>
    %101 = garray.constant dense<9.99999993E-9> : tensor<16x16xf32>
    %102 = garray.add %100, %101 : tensor<16x16xf32>
    %103 = garray.div %93, %102 : tensor<16x16xf32>
    %104 = garray.constant dense<0.00999999977> : tensor<16x16xf32>
    %105 = garray.mul %103, %104 : tensor<16x16xf32>
    %106 = garray.sub %arg2, %105 : tensor<16x16xf32>
    %107 = garray.constant dense<0.899999976> : tensor<16xf32>
    %108 = garray.mul %arg7, %107 : tensor<16xf32>
    %109 = garray.constant dense<1.000000e-01> : tensor<16xf32>
    %110 = garray.slice %74, start = [69], limit = [85], strides = [1] : (tensor<341xf32>) -> tensor<16xf32>
    %111 = garray.mul %110, %109 : tensor<16xf32>
    %112 = garray.add %108, %111 : tensor<16xf32>
    %113 = garray.constant dense<9.990000e-01> : tensor<16xf32>
    %114 = garray.mul %arg11, %113 : tensor<16xf32>
    %115 = garray.mul %110, %110 : tensor<16xf32>
    %116 = garray.constant dense<1.000000e-03> : tensor<16xf32>
    %117 = garray.mul %115, %116 : tensor<16xf32>
    %118 = garray.add %114, %117 : tensor<16xf32>
    %119 = garray.constant dense<0.899999976> : tensor<f32>
    %120 = garray.pow %119, %arg14 : tensor<f32>
    %121 = garray.constant dense<1.000000e+00> : tensor<f32>
    %122 = garray.sub %121, %120 : tensor<f32>
    %123 = garray.broadcast_in_dim %122, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %124 = garray.div %112, %123 : tensor<16xf32>
    %125 = garray.constant dense<9.990000e-01> : tensor<f32>
    %126 = garray.pow %125, %arg14 : tensor<f32>
    %127 = garray.constant dense<1.000000e+00> : tensor<f32>
    %128 = garray.sub %127, %126 : tensor<f32>
    %129 = garray.broadcast_in_dim %128, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %130 = garray.div %118, %129 : tensor<16xf32>
    %131 = garray.sqrt %130 : tensor<16xf32>
    %132 = garray.constant dense<9.99999993E-9> : tensor<16xf32>
    %133 = garray.add %131, %132 : tensor<16xf32>
    %134 = garray.div %124, %133 : tensor<16xf32>
    %135 = garray.constant dense<0.00999999977> : tensor<16xf32>
    %136 = garray.mul %134, %135 : tensor<16xf32>
    %137 = garray.sub %arg3, %136 : tensor<16xf32>
    %138 = garray.constant dense<0.899999976> : tensor<16x4xf32>
    %139 = garray.mul %arg8, %138 : tensor<16x4xf32>
    %140 = garray.constant dense<1.000000e-01> : tensor<16x4xf32>
    %141 = garray.slice %74, start = [5], limit = [69], strides = [1] : (tensor<341xf32>) -> tensor<64xf32>
    %142 = garray.reshape %141 : (tensor<64xf32>) -> tensor<16x4xf32>
    %143 = garray.mul %142, %140 : tensor<16x4xf32>
    %144 = garray.add %139, %143 : tensor<16x4xf32>
    %145 = garray.constant dense<9.990000e-01> : tensor<16x4xf32>
    %146 = garray.mul %arg12, %145 : tensor<16x4xf32>
    %147 = garray.mul %142, %142 : tensor<16x4xf32>
    %148 = garray.constant dense<1.000000e-03> : tensor<16x4xf32>
    %149 = garray.mul %147, %148 : tensor<16x4xf32>
    %150 = garray.add %146, %149 : tensor<16x4xf32>
    %151 = garray.constant dense<0.899999976> : tensor<f32>
    %152 = garray.pow %151, %arg14 : tensor<f32>
    %153 = garray.constant dense<1.000000e+00> : tensor<f32>
    %154 = garray.sub %153, %152 : tensor<f32>
    %155 = garray.broadcast_in_dim %154, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %156 = garray.div %144, %155 : tensor<16x4xf32>
    %157 = garray.constant dense<9.990000e-01> : tensor<f32>
    %158 = garray.pow %157, %arg14 : tensor<f32>
    %159 = garray.constant dense<1.000000e+00> : tensor<f32>
    %160 = garray.sub %159, %158 : tensor<f32>
    %161 = garray.broadcast_in_dim %160, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %162 = garray.div %150, %161 : tensor<16x4xf32>
    %163 = garray.sqrt %162 : tensor<16x4xf32>
    %164 = garray.constant dense<9.99999993E-9> : tensor<16x4xf32>
    %165 = garray.add %163, %164 : tensor<16x4xf32>
    %166 = garray.div %156, %165 : tensor<16x4xf32>
    %167 = garray.constant dense<0.00999999977> : tensor<16x4xf32>
    %168 = garray.mul %166, %167 : tensor<16x4xf32>
    %169 = garray.sub %arg4, %168 : tensor<16x4xf32>
    %170 = garray.constant dense<0.899999976> : tensor<4xf32>
    %171 = garray.mul %arg9, %170 : tensor<4xf32>
    %172 = garray.constant dense<1.000000e-01> : tensor<4xf32>
    %173 = garray.slice %74, start = [1], limit = [5], strides = [1] : (tensor<341xf32>) -> tensor<4xf32>
    %174 = garray.mul %173, %172 : tensor<4xf32>
    %175 = garray.add %171, %174 : tensor<4xf32>
    %176 = garray.constant dense<9.990000e-01> : tensor<4xf32>
    %177 = garray.mul %arg13, %176 : tensor<4xf32>
    %178 = garray.mul %173, %173 : tensor<4xf32>
    %179 = garray.constant dense<1.000000e-03> : tensor<4xf32>
    %180 = garray.mul %178, %179 : tensor<4xf32>
    %181 = garray.add %177, %180 : tensor<4xf32>
    %182 = garray.constant dense<0.899999976> : tensor<f32>
    %183 = garray.pow %182, %arg14 : tensor<f32>
    %184 = garray.constant dense<1.000000e+00> : tensor<f32>
    %185 = garray.sub %184, %183 : tensor<f32>
    %186 = garray.broadcast_in_dim %185, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %187 = garray.div %175, %186 : tensor<4xf32>
    %188 = garray.constant dense<9.990000e-01> : tensor<f32>
    %189 = garray.pow %188, %arg14 : tensor<f32>
    %190 = garray.constant dense<1.000000e+00> : tensor<f32>
    %191 = garray.sub %190, %189 : tensor<f32>
    %192 = garray.broadcast_in_dim %191, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %193 = garray.div %181, %192 : tensor<4xf32>
    %194 = garray.sqrt %193 : tensor<4xf32>
    %195 = garray.constant dense<9.99999993E-9> : tensor<4xf32>
    %196 = garray.add %194, %195 : tensor<4xf32>
    %197 = garray.div %187, %196 : tensor<4xf32>
    %198 = garray.constant dense<0.00999999977> : tensor<4xf32>
    %199 = garray.mul %197, %198 : tensor<4xf32>
    %200 = garray.sub %arg5, %199 : tensor<4xf32>
    %201 = garray.add %arg14, %32 : tensor<f32>
    %202 = garray.slice %74, start = [0], limit = [1], strides = [1] : (tensor<341xf32>) -> tensor<1xf32>
    %203 = garray.reshape %202 : (tensor<1xf32>) -> tensor<f32>
    return %203, %106, %137, %169, %200, %81, %112, %144, %175, %87, %118, %150, %181, %201 : tensor<f32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<f32>
  }
}
exit 0
