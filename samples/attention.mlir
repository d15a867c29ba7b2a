// One causal self-attention block (single head), forward, on a 2-D mesh: the
// batch is split over "data", the projected features over "model".
//
//   q, k, v = X Wq, X Wk, X Wv                X: 2x8x16 (batch, time, d) P("data", None, None)
//   s       = q kᵀ / sqrt(16)                 Wq, Wk, Wv: 16x16 P(None, "model")
//   s       = where(row >= col, s, -1e9)      (causal mask from two iotas)
//   p       = softmax(s, last dim)            (max-subtracted, numerically stable)
//   y       = (p v) Wo                        Wo: 16x16 P("model", None)
//
// The mask value is the finite -1e9, not -inf: exp(-1e9 - max) underflows
// to exactly 0 in f32, so the result equals the -inf version here (every
// row keeps its diagonal), but a row that were ever fully masked would give
// a uniform distribution instead of (-inf) - (-inf) = NaN.
//
// q, k, v are split over "model" by features; q kᵀ contracts that dim and
// leaves a pending sum over "model" that the mask (a select) reduces; p v and
// the final product keep the split and end in one more pending sum for y.
// The mesh sizes are defaults; `--mesh data=N,model=M` overrides them.
garray.mesh @mesh ["data" = 2, "model" = 2]

func.func @main(
    %X: tensor<2x8x16xf32> {garray.name = "X", garray.sharding = #garray.sharding<@mesh, P("data", None, None)>},
    %Wq: tensor<16x16xf32> {garray.name = "Wq", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
    %Wk: tensor<16x16xf32> {garray.name = "Wk", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
    %Wv: tensor<16x16xf32> {garray.name = "Wv", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
    %Wo: tensor<16x16xf32> {garray.name = "Wo", garray.sharding = #garray.sharding<@mesh, P("model", None)>})
    -> (tensor<2x8x16xf32> {garray.name = "y"}) {
  %q = garray.dot_general %X, %Wq, batch = [] x [], contracting = [2] x [0]
      : (tensor<2x8x16xf32>, tensor<16x16xf32>) -> tensor<2x8x16xf32>
  %k = garray.dot_general %X, %Wk, batch = [] x [], contracting = [2] x [0]
      : (tensor<2x8x16xf32>, tensor<16x16xf32>) -> tensor<2x8x16xf32>
  %v = garray.dot_general %X, %Wv, batch = [] x [], contracting = [2] x [0]
      : (tensor<2x8x16xf32>, tensor<16x16xf32>) -> tensor<2x8x16xf32>

  // Scores q kᵀ per batch element, scaled by 1/sqrt(16).
  %qk = garray.dot_general %q, %k, batch = [0] x [0], contracting = [2] x [2]
      : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x8xf32>
  %scale = garray.constant dense<0.25> : tensor<2x8x8xf32>
  %s = garray.mul %qk, %scale : tensor<2x8x8xf32>

  // Causal mask: query position (dim 1) >= key position (dim 2).
  %row = garray.iota dim = 1 : tensor<2x8x8xi64>
  %col = garray.iota dim = 2 : tensor<2x8x8xi64>
  %causal = garray.compare <ge> %row, %col : (tensor<2x8x8xi64>, tensor<2x8x8xi64>) -> tensor<2x8x8xi1>
  %neg = garray.constant dense<-1.0e+09> : tensor<2x8x8xf32>
  %sm = garray.select %causal, %s, %neg
      : (tensor<2x8x8xi1>, tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>

  // Stable softmax over the keys (dim 2).
  %mx = garray.reduce <max> %sm, dims = [2] keepdims : (tensor<2x8x8xf32>) -> tensor<2x8x1xf32>
  %mxb = garray.broadcast_in_dim %mx, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
  %z = garray.sub %sm, %mxb : tensor<2x8x8xf32>
  %e = garray.exp %z : tensor<2x8x8xf32>
  %den = garray.reduce <sum> %e, dims = [2] keepdims : (tensor<2x8x8xf32>) -> tensor<2x8x1xf32>
  %denb = garray.broadcast_in_dim %den, dims = [0, 1, 2] : (tensor<2x8x1xf32>) -> tensor<2x8x8xf32>
  %p = garray.div %e, %denb : tensor<2x8x8xf32>

  // Weighted values, then the output projection.
  %o = garray.dot_general %p, %v, batch = [0] x [0], contracting = [2] x [1]
      : (tensor<2x8x8xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %y = garray.dot_general %o, %Wo, batch = [] x [], contracting = [2] x [0]
      : (tensor<2x8x16xf32>, tensor<16x16xf32>) -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}
