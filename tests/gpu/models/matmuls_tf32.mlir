// A GPU recipe case of the device bundle: the f32 contractions of
// matmuls.mlir compiled with --matmul-precision tf32, so that they run on
// the tensor cores with operands rounded to TF32 (10 mantissa bits). The
// CPU's exact f32 results are the reference: the sums of 256 products of
// values in [-1, 1] may differ from them by a few 2^-11 of their terms.
// MESHES: data=1 data=2
// TOLERANCE: 2e-2 2e-2
// GPU FLAGS: --matmul-precision tf32
garray.mesh @mesh ["data" = 2]
func.func @main(%s: tensor<f32> {garray.name = "s", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<512x384xf32> {garray.name = "c32"}, tensor<4x128x96xf32> {garray.name = "cbatch"}) {
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
  %q0 = garray.slice %a, start = [0, 0], limit = [512, 64], strides = [1, 1] : (tensor<512x256xf32>) -> tensor<512x64xf32>
  %q = garray.reshape %q0 : (tensor<512x64xf32>) -> tensor<4x128x64xf32>
  %k0 = garray.slice %b, start = [0, 0], limit = [64, 96], strides = [1, 1] : (tensor<256x384xf32>) -> tensor<64x96xf32>
  %k = garray.broadcast_in_dim %k0, dims = [1, 2] : (tensor<64x96xf32>) -> tensor<4x64x96xf32>
  %cbatch = garray.dot_general %q, %k, batch = [0] x [0], contracting = [2] x [1]
      : (tensor<4x128x64xf32>, tensor<4x64x96xf32>) -> tensor<4x128x96xf32>
  return %c32, %cbatch : tensor<512x384xf32>, tensor<4x128x96xf32>
}
