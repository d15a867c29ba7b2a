module {
  garray.mesh @mesh ["data" = 4]
  func.func @main(%arg0: tensor<16x8xf32> {garray.name = "u", garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> (tensor<16x8xf32> {garray.name = "u_next", garray.sharding = #garray.sharding<@mesh, P("data", None)>}, tensor<f32> {garray.name = "heat", garray.sharding = #garray.sharding<@mesh, P()>}) {
    %0 = garray.constant {garray.sharding = #garray.sharding<@mesh, P()>} dense<0.000000e+00> : tensor<f32>
    %1 = garray.shift %arg0, %0, dim = 0, offset = 1 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
    %2 = garray.shift %arg0, %0, dim = 0, offset = -1 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
    %3 = garray.shift %arg0, %0, dim = 1, offset = 1 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
    %4 = garray.shift %arg0, %0, dim = 1, offset = -1 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
    %5 = garray.add %1, %2 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<16x8xf32>
    %6 = garray.add %3, %4 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<16x8xf32>
    %7 = garray.add %5, %6 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<16x8xf32>
    %8 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data", None)>} dense<4.000000e+00> : tensor<16x8xf32>
    %9 = garray.mul %8, %arg0 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<16x8xf32>
    %10 = garray.sub %7, %9 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<16x8xf32>
    %11 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data", None)>} dense<1.000000e-01> : tensor<16x8xf32>
    %12 = garray.mul %11, %10 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<16x8xf32>
    %13 = garray.add %arg0, %12 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<16x8xf32>
    %14 = garray.reduce <sum> %13, dims = [0, 1] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>} : (tensor<16x8xf32>) -> tensor<f32>
    %15 = garray.all_reduce <sum> %14 on @mesh ["data"] {bytes_per_device = 6 : i64, garray.sharding = #garray.sharding<@mesh, P()>, reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #1 of func.return at samples/heat_stencil.mlir:35:3 (a function result) needs the whole value"} : tensor<f32>
    return %13, %15 : tensor<16x8xf32>, tensor<f32>
  }
}
exit 0
