// Layer normalisation with the feature dimension split over "model" and the
// batch over "data", written from the core ops (no layer-norm primitive):
//
//   mu  = mean(x, dim 1)                 (global count 16, one all-reduce)
//   var = mean((x - mu)^2, dim 1)        (two-pass: exact, no cancellation)
//   y   = (x - mu) * rsqrt(var + eps) * gamma + beta
//
// Outputs the normalised rows and the per-row variance. Each mean is a
// pending sum over "model" reduced once and divided by the global 16, so the
// statistics are the global ones whatever the mesh.
garray.mesh @mesh ["data" = 2, "model" = 2]

func.func @main(
    %x: tensor<8x16xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
    %gamma: tensor<16xf32> {garray.name = "gamma", garray.sharding = #garray.sharding<@mesh, P("model")>},
    %beta: tensor<16xf32> {garray.name = "beta", garray.sharding = #garray.sharding<@mesh, P("model")>})
    -> (tensor<8x16xf32> {garray.name = "y"}, tensor<8xf32> {garray.name = "var"}) {
  %mu = garray.mean %x, dims = [1] : (tensor<8x16xf32>) -> tensor<8xf32>
  %mu_b = garray.broadcast_in_dim %mu, dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
  %d = garray.sub %x, %mu_b : tensor<8x16xf32>
  %d2 = garray.mul %d, %d : tensor<8x16xf32>
  %var = garray.mean %d2, dims = [1] : (tensor<8x16xf32>) -> tensor<8xf32>
  %eps = garray.constant dense<1.0e-5> : tensor<8xf32>
  %ve = garray.add %var, %eps : tensor<8xf32>
  %inv = garray.rsqrt %ve : tensor<8xf32>
  %inv_b = garray.broadcast_in_dim %inv, dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
  %n = garray.mul %d, %inv_b : tensor<8x16xf32>
  %g = garray.broadcast_in_dim %gamma, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
  %b = garray.broadcast_in_dim %beta, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
  %ng = garray.mul %n, %g : tensor<8x16xf32>
  %y = garray.add %ng, %b : tensor<8x16xf32>
  return %y, %var : tensor<8x16xf32>, tensor<8xf32>
}
