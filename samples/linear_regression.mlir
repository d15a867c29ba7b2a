// The seed's training step written with value_and_grad: the user writes only
// the loss of the *global* program; shardc differentiates it (garray-autodiff,
// before anything is sharded), then partitions the gradient like any other
// value. The gradient of the replicated w over the batch split on "data" is a
// pending sum, all-reduced once.
//
//   loss(X, y, w) = mean((X w - y)^2)          X: 8x2 P("data", None)
//   loss, grad    = value_and_grad(loss)(X, y, w) wrt w
//   w             = w - 0.1 * grad             w: 2   P() (one global parameter)
//
// Results: loss, grad and the updated w (named "w", so `shardc run --steps N`
// feeds it back as the next step's w).
garray.mesh @mesh ["data" = 4]

func.func private @loss_fn(%X: tensor<8x2xf32>, %y: tensor<8xf32>, %w: tensor<2xf32>)
    -> tensor<f32> {
  %pred = garray.dot_general %X, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
  %r = garray.sub %pred, %y : tensor<8xf32>
  %sq = garray.mul %r, %r : tensor<8xf32>
  %loss = garray.mean %sq, dims = [0] : (tensor<8xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @main(
    %X: tensor<8x2xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %y: tensor<8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %w: tensor<2xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<f32> {garray.name = "loss"},
        tensor<2xf32> {garray.name = "grad"},
        tensor<2xf32> {garray.name = "w"}) {
  %loss, %grad = garray.value_and_grad @loss_fn(%X, %y, %w) wrt [2]
      : (tensor<8x2xf32>, tensor<8xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>)
  %w_next = garray.sgd_update %w, %grad {lr = 0.1 : f64} : tensor<2xf32>
  return %loss, %grad, %w_next : tensor<f32>, tensor<2xf32>, tensor<2xf32>
}
