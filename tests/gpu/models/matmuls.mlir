// A GPU recipe case of the device bundle: contractions at sizes the samples
// do not reach, f32, bf16 and f16 (summed in f32, rounded once) and
// batched, on values made from iota so that the model needs only a scalar
// input; the rows of A sharded.
// MESHES: data=1 data=2
// TOLERANCE: 1e-2 1e-2
garray.mesh @mesh ["data" = 2]
func.func @main(%s: tensor<f32> {garray.name = "s", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<512x384xf32> {garray.name = "c32"}, tensor<512x384xf32> {garray.name = "cbf16"},
        tensor<512x384xf16> {garray.name = "cf16"}, tensor<4x128x96xf32> {garray.name = "cbatch"}) {
  %ai = garray.iota dim = 0 : tensor<512x256xi64>
  %aj = garray.iota dim = 1 : tensor<512x256xi64>
  %afi = garray.convert %ai lossy : (tensor<512x256xi64>) -> tensor<512x256xf32>
  %afj = garray.convert %aj lossy : (tensor<512x256xi64>) -> tensor<512x256xf32>
  %as = garray.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<512x256xf32>
  %a1 = garray.mul %afi, %as : tensor<512x256xf32>
  %a2 = garray.add %a1, %afj : tensor<512x256xf32>
  %a0 = garray.sin %a2 : tensor<512x256xf32>
  %a = garray.sharding_constraint %a0 : tensor<512x256xf32> to #garray.sharding<@mesh, P("data", None)>
  %bi = garray.iota dim = 0 : tensor<256x384xi64>
  %bj = garray.iota dim = 1 : tensor<256x384xi64>
  %bfi = garray.convert %bi lossy : (tensor<256x384xi64>) -> tensor<256x384xf32>
  %bfj = garray.convert %bj lossy : (tensor<256x384xi64>) -> tensor<256x384xf32>
  %bs = garray.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<256x384xf32>
  %b1 = garray.mul %bfj, %bs : tensor<256x384xf32>
  %b2 = garray.sub %b1, %bfi : tensor<256x384xf32>
  %b = garray.cos %b2 : tensor<256x384xf32>
  %c32 = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0]
      : (tensor<512x256xf32>, tensor<256x384xf32>) -> tensor<512x384xf32>
  %abf = garray.convert %a lossy : (tensor<512x256xf32>) -> tensor<512x256xbf16>
  %bbf = garray.convert %b lossy : (tensor<256x384xf32>) -> tensor<256x384xbf16>
  %cbf = garray.dot_general %abf, %bbf, batch = [] x [], contracting = [1] x [0]
      : (tensor<512x256xbf16>, tensor<256x384xbf16>) -> tensor<512x384xbf16>
  // .npy has no bf16: the result leaves as f32 (exactly).
  %cbf16 = garray.convert %cbf : (tensor<512x384xbf16>) -> tensor<512x384xf32>
  %ah = garray.convert %a lossy : (tensor<512x256xf32>) -> tensor<512x256xf16>
  %bh = garray.convert %b lossy : (tensor<256x384xf32>) -> tensor<256x384xf16>
  %cf16 = garray.dot_general %ah, %bh, batch = [] x [], contracting = [1] x [0]
      : (tensor<512x256xf16>, tensor<256x384xf16>) -> tensor<512x384xf16>
  %q0 = garray.slice %a, start = [0, 0], limit = [512, 64], strides = [1, 1] : (tensor<512x256xf32>) -> tensor<512x64xf32>
  %q = garray.reshape %q0 : (tensor<512x64xf32>) -> tensor<4x128x64xf32>
  %k0 = garray.slice %b, start = [0, 0], limit = [64, 96], strides = [1, 1] : (tensor<256x384xf32>) -> tensor<64x96xf32>
  %k = garray.broadcast_in_dim %k0, dims = [1, 2] : (tensor<64x96xf32>) -> tensor<4x64x96xf32>
  %cbatch = garray.dot_general %q, %k, batch = [0] x [0], contracting = [2] x [1]
      : (tensor<4x128x64xf32>, tensor<4x64x96xf32>) -> tensor<4x128x96xf32>
  return %c32, %cbf16, %cf16, %cbatch : tensor<512x384xf32>, tensor<512x384xf32>, tensor<512x384xf16>, tensor<4x128x96xf32>
}
