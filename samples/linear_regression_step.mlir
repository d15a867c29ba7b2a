// The seed: one step of linear regression, written against global arrays.
//
//   r      = X @ w - y                 X: 8x2 rows split over "data"
//   loss   = mean(r^2)                 y: 8   split over "data"
//   grad   = (2/N) X^T r,  N = 8        w: 2   replicated (one global parameter)
//   w_next = w - 0.1 * grad
//
// shardc derives each device's program: local partial sums, one all-reduce for
// the loss and one for the gradient, and a single division by the global 8.
// The mesh size is a default; `--mesh data=N` compiles for N devices.
garray.mesh @mesh ["data" = 4]

func.func @main(
    %X: tensor<8x2xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %y: tensor<8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %w: tensor<2xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<f32> {garray.name = "loss"},
        tensor<2xf32> {garray.name = "grad"},
        tensor<2xf32> {garray.name = "w_next"}) {
  %pred = garray.dot_general %X, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
  %r = garray.sub %pred, %y : tensor<8xf32>
  %sq = garray.mul %r, %r : tensor<8xf32>
  %loss = garray.mean %sq, dims = [0] : (tensor<8xf32>) -> tensor<f32>

  // grad = (2/N) X^T r: contract the batch dimension of X with r.
  %xtr = garray.dot_general %X, %r, batch = [] x [], contracting = [0] x [0]
      : (tensor<8x2xf32>, tensor<8xf32>) -> tensor<2xf32>
  %two_over_n = garray.constant dense<0.25> : tensor<2xf32>
  %grad = garray.mul %xtr, %two_over_n : tensor<2xf32>

  %lr = garray.constant dense<0.1> : tensor<2xf32>
  %step = garray.mul %grad, %lr : tensor<2xf32>
  %w_next = garray.sub %w, %step : tensor<2xf32>
  return %loss, %grad, %w_next : tensor<f32>, tensor<2xf32>, tensor<2xf32>
}
