// One explicit step of 2-D heat diffusion on a grid whose rows are split over
// "data", written with the core ops only: each neighbour is a slice of the
// grid padded back to its size with the boundary temperature 0 (Dirichlet),
//
//   u' = u + alpha * (north + south + west + east - 4 u)
//
// garray-recognize-shifts reads each slice+pad as a shift, so the row-sharded
// grid stays sharded: north/south become halo exchanges of one boundary row
// with the neighbouring devices (comm.collective_permute), west/east are
// local. `shardc compile --emit=partitioned` shows two permutes and no
// all_gather; the total heat is one all-reduce.
garray.mesh @mesh ["data" = 4]

func.func @main(%u: tensor<16x8xf32> {garray.name = "u", garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<16x8xf32> {garray.name = "u_next"}, tensor<f32> {garray.name = "heat"}) {
  %zero = garray.constant dense<0.0> : tensor<f32>
  %up = garray.slice %u, start = [0, 0], limit = [15, 8], strides = [1, 1] : (tensor<16x8xf32>) -> tensor<15x8xf32>
  %north = garray.pad %up, %zero, low = [1, 0], high = [0, 0] : (tensor<15x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %down = garray.slice %u, start = [1, 0], limit = [16, 8], strides = [1, 1] : (tensor<16x8xf32>) -> tensor<15x8xf32>
  %south = garray.pad %down, %zero, low = [0, 0], high = [1, 0] : (tensor<15x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %left = garray.slice %u, start = [0, 0], limit = [16, 7], strides = [1, 1] : (tensor<16x8xf32>) -> tensor<16x7xf32>
  %west = garray.pad %left, %zero, low = [0, 1], high = [0, 0] : (tensor<16x7xf32>, tensor<f32>) -> tensor<16x8xf32>
  %right = garray.slice %u, start = [0, 1], limit = [16, 8], strides = [1, 1] : (tensor<16x8xf32>) -> tensor<16x7xf32>
  %east = garray.pad %right, %zero, low = [0, 0], high = [0, 1] : (tensor<16x7xf32>, tensor<f32>) -> tensor<16x8xf32>
  %ns = garray.add %north, %south : tensor<16x8xf32>
  %we = garray.add %west, %east : tensor<16x8xf32>
  %nb = garray.add %ns, %we : tensor<16x8xf32>
  %four = garray.constant dense<4.0> : tensor<16x8xf32>
  %c = garray.mul %four, %u : tensor<16x8xf32>
  %lap = garray.sub %nb, %c : tensor<16x8xf32>
  %alpha = garray.constant dense<0.1> : tensor<16x8xf32>
  %d = garray.mul %alpha, %lap : tensor<16x8xf32>
  %next = garray.add %u, %d : tensor<16x8xf32>
  %heat = garray.reduce <sum> %next, dims = [0, 1] : (tensor<16x8xf32>) -> tensor<f32>
  return %next, %heat : tensor<16x8xf32>, tensor<f32>
}
