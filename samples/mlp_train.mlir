// The MLP of samples/mlp.mlir trained with Adam, on the ["data"=2, "model"=2]
// mesh: one training step per run (`shardc run --steps N` loops it).
//
//   loss(X, labels, W1, b1, W2, b2)  = masked mean cross-entropy (mlp.mlir)
//   loss, dW1, db1, dW2, db2         = value_and_grad(loss) wrt the weights
//   W, mu_W, nu_W                    = adam_update(W, dW, mu_W, nu_W, t)  (each weight)
//   t                                = t + 1
//
// The gradient is the derivative of the *global* loss (garray-autodiff runs
// before partitioning): the masked mean divides by the global number of
// valid labels however they are spread over "data" (label -1 is ignored;
// samples/mlp/labels.npy has one, so the data shards hold unequal counts),
// and the weights' gradients are pending sums over "data" reduced once.
// Adam's moments are sharded like their weights. Every output named like an
// argument (weights, moments, t) feeds back between steps.
garray.mesh @mesh ["data" = 2, "model" = 2]

func.func private @loss_fn(%X: tensor<8x16xf32>, %labels: tensor<8xi64>,
    %W1: tensor<16x32xf32>, %b1: tensor<32xf32>, %W2: tensor<32x4xf32>, %b2: tensor<4xf32>)
    -> tensor<f32> {
  // Layer 1: h = relu(X @ W1 + b1), relu as max with a zero constant.
  %xw1 = garray.dot_general %X, %W1, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %b1b = garray.broadcast_in_dim %b1, dims = [1] : (tensor<32xf32>) -> tensor<8x32xf32>
  %pre = garray.add %xw1, %b1b : tensor<8x32xf32>
  %zero_h = garray.constant dense<0.0> : tensor<8x32xf32>
  %h = garray.max %pre, %zero_h : tensor<8x32xf32>

  // Layer 2: logits = h @ W2 + b2.
  %hw2 = garray.dot_general %h, %W2, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  %b2b = garray.broadcast_in_dim %b2, dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>
  %logits = garray.add %hw2, %b2b : tensor<8x4xf32>

  // Stable log_softmax over the classes (dim 1).
  %mx = garray.reduce <max> %logits, dims = [1] keepdims : (tensor<8x4xf32>) -> tensor<8x1xf32>
  %mxb = garray.broadcast_in_dim %mx, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x4xf32>
  %z = garray.sub %logits, %mxb : tensor<8x4xf32>
  %ez = garray.exp %z : tensor<8x4xf32>
  %se = garray.reduce <sum> %ez, dims = [1] keepdims : (tensor<8x4xf32>) -> tensor<8x1xf32>
  %lse = garray.log %se : tensor<8x1xf32>
  %lseb = garray.broadcast_in_dim %lse, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x4xf32>
  %logp = garray.sub %z, %lseb : tensor<8x4xf32>

  // Each row's label log-probability through a one-hot mask.
  %cls = garray.iota dim = 1 : tensor<8x4xi64>
  %lab = garray.broadcast_in_dim %labels, dims = [0] : (tensor<8xi64>) -> tensor<8x4xi64>
  %onehot = garray.compare <eq> %cls, %lab : (tensor<8x4xi64>, tensor<8x4xi64>) -> tensor<8x4xi1>
  %zero_c = garray.constant dense<0.0> : tensor<8x4xf32>
  %picked = garray.select %onehot, %logp, %zero_c
      : (tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %rowlp = garray.reduce <sum> %picked, dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>

  // Ignore index -1: weight 0; the mean divides by the global valid count.
  %ignore = garray.constant dense<-1> : tensor<8xi64>
  %isvalid = garray.compare <ne> %labels, %ignore : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi1>
  %valid = garray.convert %isvalid : (tensor<8xi1>) -> tensor<8xf32>
  %meanlp = garray.mean %rowlp, dims = [0] weights %valid : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  %loss = garray.neg %meanlp : tensor<f32>
  return %loss : tensor<f32>
}

func.func @main(
    %X: tensor<8x16xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %labels: tensor<8xi64> {garray.name = "labels", garray.sharding = #garray.sharding<@mesh, P("data")>},
    %W1: tensor<16x32xf32> {garray.name = "W1", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
    %b1: tensor<32xf32> {garray.name = "b1", garray.sharding = #garray.sharding<@mesh, P("model")>},
    %W2: tensor<32x4xf32> {garray.name = "W2", garray.sharding = #garray.sharding<@mesh, P("model", None)>},
    %b2: tensor<4xf32> {garray.name = "b2", garray.sharding = #garray.sharding<@mesh, P()>},
    %mu_W1: tensor<16x32xf32> {garray.name = "mu_W1", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
    %mu_b1: tensor<32xf32> {garray.name = "mu_b1", garray.sharding = #garray.sharding<@mesh, P("model")>},
    %mu_W2: tensor<32x4xf32> {garray.name = "mu_W2", garray.sharding = #garray.sharding<@mesh, P("model", None)>},
    %mu_b2: tensor<4xf32> {garray.name = "mu_b2", garray.sharding = #garray.sharding<@mesh, P()>},
    %nu_W1: tensor<16x32xf32> {garray.name = "nu_W1", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
    %nu_b1: tensor<32xf32> {garray.name = "nu_b1", garray.sharding = #garray.sharding<@mesh, P("model")>},
    %nu_W2: tensor<32x4xf32> {garray.name = "nu_W2", garray.sharding = #garray.sharding<@mesh, P("model", None)>},
    %nu_b2: tensor<4xf32> {garray.name = "nu_b2", garray.sharding = #garray.sharding<@mesh, P()>},
    %t: tensor<f32> {garray.name = "t"})
    -> (tensor<f32> {garray.name = "loss"},
        tensor<16x32xf32> {garray.name = "W1"},
        tensor<32xf32> {garray.name = "b1"},
        tensor<32x4xf32> {garray.name = "W2"},
        tensor<4xf32> {garray.name = "b2"},
        tensor<16x32xf32> {garray.name = "mu_W1"},
        tensor<32xf32> {garray.name = "mu_b1"},
        tensor<32x4xf32> {garray.name = "mu_W2"},
        tensor<4xf32> {garray.name = "mu_b2"},
        tensor<16x32xf32> {garray.name = "nu_W1"},
        tensor<32xf32> {garray.name = "nu_b1"},
        tensor<32x4xf32> {garray.name = "nu_W2"},
        tensor<4xf32> {garray.name = "nu_b2"},
        tensor<f32> {garray.name = "t"}) {
  %loss, %dW1, %db1, %dW2, %db2 = garray.value_and_grad @loss_fn(%X, %labels, %W1, %b1, %W2, %b2)
      wrt [2, 3, 4, 5] : (tensor<8x16xf32>, tensor<8xi64>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>)
      -> (tensor<f32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>)
  %W1_next, %mu_W1_next, %nu_W1_next = garray.adam_update %W1, %dW1, %mu_W1, %nu_W1, %t
      {lr = 0.01 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64}
      : tensor<16x32xf32>, tensor<f32>
  %b1_next, %mu_b1_next, %nu_b1_next = garray.adam_update %b1, %db1, %mu_b1, %nu_b1, %t
      {lr = 0.01 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64}
      : tensor<32xf32>, tensor<f32>
  %W2_next, %mu_W2_next, %nu_W2_next = garray.adam_update %W2, %dW2, %mu_W2, %nu_W2, %t
      {lr = 0.01 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64}
      : tensor<32x4xf32>, tensor<f32>
  %b2_next, %mu_b2_next, %nu_b2_next = garray.adam_update %b2, %db2, %mu_b2, %nu_b2, %t
      {lr = 0.01 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64}
      : tensor<4xf32>, tensor<f32>
  %one = garray.constant dense<1.0> : tensor<f32>
  %t_next = garray.add %t, %one : tensor<f32>
  return %loss, %W1_next, %b1_next, %W2_next, %b2_next, %mu_W1_next, %mu_b1_next, %mu_W2_next, %mu_b2_next, %nu_W1_next, %nu_b1_next, %nu_W2_next, %nu_b2_next, %t_next
      : tensor<f32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<f32>
}
