// A cross-entropy whose vocabulary dim (16 classes) is sharded on "model":
// logits = x · w, a stable log-softmax shifted by the row maximum under
// stop_gradient (as jax.nn.log_softmax), the mean of the labels' negative
// log-probabilities. The backward pass reuses the forward's reduced maximum
// and sum: it does not differentiate the maximum (whose tie count and
// cotangent would each be reduced across the shards again).
// vocab_cross_entropy_unstopped.mlir (made by the test) is the same model
// without stop_gradient: the same values, more all-reduces.
garray.mesh @mesh ["model" = 2]
func.func private @loss(%w: tensor<4x16xf32>, %x: tensor<8x4xf32>, %onehot: tensor<8x16xf32>)
    -> tensor<f32> {
  %logits = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %mx = garray.reduce <max> %logits, dims = [1] keepdims : (tensor<8x16xf32>) -> tensor<8x1xf32>
  %shift = garray.stop_gradient %mx : tensor<8x1xf32>
  %mxb = garray.broadcast_in_dim %shift, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
  %z = garray.sub %logits, %mxb : tensor<8x16xf32>
  %ez = garray.exp %z : tensor<8x16xf32>
  %se = garray.reduce <sum> %ez, dims = [1] keepdims : (tensor<8x16xf32>) -> tensor<8x1xf32>
  %lse = garray.log %se : tensor<8x1xf32>
  %lseb = garray.broadcast_in_dim %lse, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
  %logp = garray.sub %z, %lseb : tensor<8x16xf32>
  %picked = garray.mul %logp, %onehot : tensor<8x16xf32>
  %rowlp = garray.reduce <sum> %picked, dims = [1] : (tensor<8x16xf32>) -> tensor<8xf32>
  %mean = garray.mean %rowlp, dims = [0] : (tensor<8xf32>) -> tensor<f32>
  %nll = garray.neg %mean : tensor<f32>
  return %nll : tensor<f32>
}
func.func @main(%w: tensor<4x16xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
                %x: tensor<8x4xf32> {garray.name = "x"},
                %onehot: tensor<8x16xf32> {garray.name = "onehot", garray.sharding = #garray.sharding<@mesh, P(None, "model")>})
    -> (tensor<f32> {garray.name = "loss"}, tensor<4x16xf32> {garray.name = "grad"}) {
  %l, %g = garray.value_and_grad @loss(%w, %x, %onehot) wrt [0]
      : (tensor<4x16xf32>, tensor<8x4xf32>, tensor<8x16xf32>) -> (tensor<f32>, tensor<4x16xf32>)
  return %l, %g : tensor<f32>, tensor<4x16xf32>
}
