// A GPU recipe case of the device bundle: long reductions with few outputs,
// which gpu-split-reductions turns into partial reductions (full, over rows,
// over columns; sum and max), on values made from iota so that the model
// needs only a scalar input. Sharded so that the partial results are
// reduced across ranks too.
// MESHES: data=1 data=4
// TOLERANCE: 1e-4 1e-4
garray.mesh @mesh ["data" = 4]
func.func @main(%s: tensor<f32> {garray.name = "s", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<f32> {garray.name = "total"}, tensor<64xf32> {garray.name = "colmax"},
        tensor<64xf32> {garray.name = "colsum"}, tensor<8xf32> {garray.name = "rowsum"}) {
  %i = garray.iota dim = 0 : tensor<8192x64xi64>
  %j = garray.iota dim = 1 : tensor<8192x64xi64>
  %fi = garray.convert %i lossy : (tensor<8192x64xi64>) -> tensor<8192x64xf32>
  %fj = garray.convert %j lossy : (tensor<8192x64xi64>) -> tensor<8192x64xf32>
  %sb = garray.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<8192x64xf32>
  %tenth = garray.constant dense<0.1> : tensor<8192x64xf32>
  %a = garray.mul %fi, %sb : tensor<8192x64xf32>
  %b = garray.mul %fj, %tenth : tensor<8192x64xf32>
  %c = garray.add %a, %b : tensor<8192x64xf32>
  %sin = garray.sin %c : tensor<8192x64xf32>
  // In [0, 1]: the sums do not cancel, so the order of a sum (the GPU's
  // partials, the CPU's loop) changes it in the last bits only.
  %x0 = garray.mul %sin, %sin : tensor<8192x64xf32>
  %x = garray.sharding_constraint %x0 : tensor<8192x64xf32> to #garray.sharding<@mesh, P("data", None)>
  %total = garray.reduce <sum> %x, dims = [0, 1] : (tensor<8192x64xf32>) -> tensor<f32>
  %colmax = garray.reduce <max> %x, dims = [0] : (tensor<8192x64xf32>) -> tensor<64xf32>
  %colsum = garray.reduce <sum> %x, dims = [0] : (tensor<8192x64xf32>) -> tensor<64xf32>

  %k = garray.iota dim = 1 : tensor<8x65536xi64>
  %fk = garray.convert %k lossy : (tensor<8x65536xi64>) -> tensor<8x65536xf32>
  %sk = garray.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<8x65536xf32>
  %r = garray.iota dim = 0 : tensor<8x65536xi64>
  %fr = garray.convert %r lossy : (tensor<8x65536xi64>) -> tensor<8x65536xf32>
  %d0 = garray.mul %fk, %sk : tensor<8x65536xf32>
  %d = garray.add %d0, %fr : tensor<8x65536xf32>
  %cos = garray.cos %d : tensor<8x65536xf32>
  %y0 = garray.mul %cos, %cos : tensor<8x65536xf32>
  %y = garray.sharding_constraint %y0 : tensor<8x65536xf32> to #garray.sharding<@mesh, P(None, "data")>
  %rowsum = garray.reduce <sum> %y, dims = [1] : (tensor<8x65536xf32>) -> tensor<8xf32>
  return %total, %colmax, %colsum, %rowsum : tensor<f32>, tensor<64xf32>, tensor<64xf32>, tensor<8xf32>
}
