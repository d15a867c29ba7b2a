// A two-layer MLP forward pass with softmax cross-entropy over integer labels,
// on a 2-D mesh: the batch is split over "data", the hidden units over "model".
//
//   h      = relu(X @ W1 + b1)                    X: 8x16  P("data", None)
//   logits = h @ W2 + b2                          W1: 16x32 P(None, "model"), b1: 32 P("model")
//   logp   = log_softmax(logits, classes)         W2: 32x4  P("model", None), b2: 4 P()
//   loss   = -mean_{i : labels[i] != -1} logp[i, labels[i]]     labels: 8 i64 P("data")
//
// log_softmax is written from the ops and is numerically stable: the row max
// is subtracted before exp (z = logits - max), logp = z - log(sum(exp(z))).
// The label's log-probability is picked with a one-hot mask (iota along the
// class dim == broadcast label). Label -1 is an ignore index: such rows get
// weight 0, and the weighted mean divides by the *global* number of valid
// rows (all-reduced), however they are spread over the data shards.
//
// Both weight matrices stay sharded (no all-gather): h is split over "model"
// by columns, the second product leaves a pending sum over "model" that one
// all-reduce completes; the loss's two batch sums are pending over "data".
// The mesh sizes are defaults; `--mesh data=N,model=M` overrides them.
garray.mesh @mesh ["data" = 2, "model" = 2]

func.func @main(
    %X: tensor<8x16xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %W1: tensor<16x32xf32> {garray.name = "W1", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
    %b1: tensor<32xf32> {garray.name = "b1", garray.sharding = #garray.sharding<@mesh, P("model")>},
    %W2: tensor<32x4xf32> {garray.name = "W2", garray.sharding = #garray.sharding<@mesh, P("model", None)>},
    %b2: tensor<4xf32> {garray.name = "b2", garray.sharding = #garray.sharding<@mesh, P()>},
    %labels: tensor<8xi64> {garray.name = "labels", garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<f32> {garray.name = "loss"},
        tensor<8x4xf32> {garray.name = "logits"}) {
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
  return %loss, %logits : tensor<f32>, tensor<8x4xf32>
}
