// A masked-loss training step: linear regression where only the examples
// with mask 1 count, the mean dividing by the *global* number of valid
// examples. samples/masked_regression/mask.npy keeps rows 0-4, so on
// data=2 one shard holds 4 valid rows and the other 1, on data=4 the shards
// hold 2, 2, 1 and 0: averaging per-shard means would weight them wrongly
// (and divide by zero on the empty shard). The gradient is the derivative of
// the global masked mean, so both sums stay pending over "data" and the
// division happens once, after they are reduced.
//
//   loss(X, y, mask, w) = sum(mask * (X w - y)^2) / sum(mask)
//   loss, grad          = value_and_grad(loss) wrt w;   w = w - 0.1 grad
garray.mesh @mesh ["data" = 2]

func.func private @loss_fn(%X: tensor<8x2xf32>, %y: tensor<8xf32>, %mask: tensor<8xf32>,
                           %w: tensor<2xf32>) -> tensor<f32> {
  %pred = garray.dot_general %X, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
  %r = garray.sub %pred, %y : tensor<8xf32>
  %sq = garray.mul %r, %r : tensor<8xf32>
  %loss = garray.mean %sq, dims = [0] weights %mask : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @main(
    %X: tensor<8x2xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %y: tensor<8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %mask: tensor<8xf32> {garray.name = "mask", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %w: tensor<2xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<f32> {garray.name = "loss"},
        tensor<2xf32> {garray.name = "grad"},
        tensor<2xf32> {garray.name = "w"}) {
  %loss, %grad = garray.value_and_grad @loss_fn(%X, %y, %mask, %w) wrt [3]
      : (tensor<8x2xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>)
  %w_next = garray.sgd_update %w, %grad {lr = 0.1 : f64} : tensor<2xf32>
  return %loss, %grad, %w_next : tensor<f32>, tensor<2xf32>, tensor<2xf32>
}
