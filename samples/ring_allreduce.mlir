// A ring all-reduce written by hand inside a shard_map, next to the
// collective that does the same. x has 8 rows split over 4 devices; each
// device's body receives its [2, 16] block.
//
// The body passes a block around the ring three times (device d sends to
// d + 1), adding what arrives: afterwards every device holds the sum of the
// four blocks. comm.all_reduce computes that sum in one collective. Each
// device returns its own ring sum (`ring`, P("data", None): four equal
// blocks stacked) and the all-reduced one (`total`, P(): one copy, which
// `shardc run` checks is the same on every device). The ring adds in a
// different order on each device, so `ring`'s blocks may differ in their
// last bits; `total`'s replicas are identical (the runtime reduces in group
// order on every device).
//
//   shardc run samples/ring_allreduce.mlir --in x=X.npy   (X: 8 x 16 f32)
garray.mesh @mesh ["data" = 4]

func.func @main(%x: tensor<8x16xf32> {garray.name = "x",
                                      garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<8x16xf32> {garray.name = "ring"}, tensor<2x16xf32> {garray.name = "total"}) {
  %ring, %total = garray.shard_map @ring_sum(%x)
      in [#garray.sharding<@mesh, P("data", None)>]
      out [#garray.sharding<@mesh, P("data", None)>, #garray.sharding<@mesh, P()>]
      : (tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<2x16xf32>)
  return %ring, %total : tensor<8x16xf32>, tensor<2x16xf32>
}

// One device's program: its block, and collectives over device ids.
func.func private @ring_sum(%b: tensor<2x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>) {
  %r1 = comm.collective_permute %b pairs = [[0, 1], [1, 2], [2, 3], [3, 0]]
      : tensor<2x16xf32> -> tensor<2x16xf32>
  %s1 = garray.add %b, %r1 : tensor<2x16xf32>
  %r2 = comm.collective_permute %r1 pairs = [[0, 1], [1, 2], [2, 3], [3, 0]]
      : tensor<2x16xf32> -> tensor<2x16xf32>
  %s2 = garray.add %s1, %r2 : tensor<2x16xf32>
  %r3 = comm.collective_permute %r2 pairs = [[0, 1], [1, 2], [2, 3], [3, 0]]
      : tensor<2x16xf32> -> tensor<2x16xf32>
  %s3 = garray.add %s2, %r3 : tensor<2x16xf32>
  %total = comm.all_reduce <sum> %b groups = [[0, 1, 2, 3]] : tensor<2x16xf32> -> tensor<2x16xf32>
  return %s3, %total : tensor<2x16xf32>, tensor<2x16xf32>
}
