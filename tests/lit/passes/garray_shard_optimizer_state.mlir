// RUN: shardc-opt %s -split-input-file --shardc-propagation-phase \
// RUN:   --garray-shard-optimizer-state=min-elements=1 | FileCheck %s
// RUN: shardc-opt %s -split-input-file --shardc-propagation-phase \
// RUN:   --garray-shard-optimizer-state=min-elements=1 --shardc-partition-phase \
// RUN:   | FileCheck %s --check-prefix=PART
// RUN: shardc-opt %s -split-input-file --shardc-propagation-phase \
// RUN:   --garray-shard-optimizer-state | FileCheck %s --check-prefix=SMALL

// A momentum step on ["data" = 4]: the weight and its moment replicated.
// The moment is used only elementwise, so its update island (the moment's
// decay, the new moment, the new weight) is split over "data" on dim 0,
// and the moment stays split from step to step. The weight, contracted by
// the forward pass, keeps its placement: it is sliced into the island and
// its new value gathered out of it; the pending gradient is
// reduce-scattered into it instead of all-reduced.
garray.mesh @mesh ["data" = 4]

// CHECK-LABEL: func.func @momentum
// CHECK-SAME: %arg1: tensor<8x4xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(None, None)>}
// CHECK-SAME: %arg2: tensor<8x4xf32> {garray.name = "m", garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK-SAME: -> (tensor<8x4xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(None, None)>}, tensor<8x4xf32> {garray.name = "m", garray.sharding = #garray.sharding<@mesh, P("data", None)>})
// CHECK: garray.broadcast_in_dim {{.*}}#garray.sharding<@mesh, P("data", None)>
// CHECK: garray.mul {{.*}}#garray.sharding<@mesh, P("data", None)>
// CHECK: garray.add {{.*}}#garray.sharding<@mesh, P("data", None)>
// CHECK: garray.sub {{.*}}#garray.sharding<@mesh, P("data", None)>
// PART-LABEL: func.func @momentum
// PART-NOT: garray.all_reduce
// PART: garray.reduce_scatter <sum> {{.*}} dim = 0 on @mesh ["data"]
// PART-NOT: garray.all_reduce
// PART: garray.all_gather {{.*}} dim = 0 on @mesh ["data"]
// SMALL-LABEL: func.func @momentum
// SMALL-SAME: %arg2: tensor<8x4xf32> {garray.name = "m", garray.sharding = #garray.sharding<@mesh, P(None, None)>}
// SMALL-SAME: tensor<8x4xf32> {garray.name = "m", garray.sharding = #garray.sharding<@mesh, P(None, None)>})
func.func @momentum(%x: tensor<16x8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                    %w: tensor<8x4xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P()>},
                    %m: tensor<8x4xf32> {garray.name = "m", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<8x4xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P()>},
        tensor<8x4xf32> {garray.name = "m", garray.sharding = #garray.sharding<@mesh, P()>}) {
  %y = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] : (tensor<16x8xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
  %g = garray.dot_general %x, %y, batch = [] x [], contracting = [0] x [0] : (tensor<16x8xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %c = garray.constant dense<0.9> : tensor<f32>
  %cb = garray.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
  %m1 = garray.mul %cb, %m : tensor<8x4xf32>
  %m2 = garray.add %m1, %g : tensor<8x4xf32>
  %w1 = garray.sub %w, %m2 : tensor<8x4xf32>
  return %w1, %m2 : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// On ["data" = 2, "model" = 2] with the weight's columns on "model", the
// moment is replicated over "data" only, which joins dim 0; state already
// split over every axis, and state the forward pass reads (the weight),
// stay as placed.
garray.mesh @mesh ["data" = 2, "model" = 2]

// CHECK-LABEL: func.func @two_axes
// CHECK-SAME: %arg1: tensor<8x4xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(None, "model")>}
// CHECK-SAME: %arg2: tensor<8x4xf32> {garray.name = "m", garray.sharding = #garray.sharding<@mesh, P("data", "model")>}
// CHECK-SAME: %arg3: tensor<8x4xf32> {garray.name = "s", garray.sharding = #garray.sharding<@mesh, P("data", "model")>}
// PART-LABEL: func.func @two_axes
// PART: garray.reduce_scatter <sum> {{.*}} on @mesh ["data"]
func.func @two_axes(%x: tensor<16x8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                    %w: tensor<8x4xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
                    %m: tensor<8x4xf32> {garray.name = "m", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
                    %s: tensor<8x4xf32> {garray.name = "s", garray.sharding = #garray.sharding<@mesh, P("data", "model")>})
    -> (tensor<8x4xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
        tensor<8x4xf32> {garray.name = "m", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
        tensor<8x4xf32> {garray.name = "s", garray.sharding = #garray.sharding<@mesh, P("data", "model")>}) {
  %y = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] : (tensor<16x8xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
  %g = garray.dot_general %x, %y, batch = [] x [], contracting = [0] x [0] : (tensor<16x8xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %m2 = garray.add %m, %g : tensor<8x4xf32>
  %w1 = garray.sub %w, %m2 : tensor<8x4xf32>
  %s2 = garray.mul %s, %s : tensor<8x4xf32>
  return %w1, %m2, %s2 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// The gradient also feeds a global norm (clipping), which needs it whole:
// it is all-reduced anyway, and splitting the update would add the new
// weight's gather on top. The island is left replicated.
garray.mesh @mesh ["data" = 4]

// CHECK-LABEL: func.func @clipped
// CHECK-SAME: %arg2: tensor<8x4xf32> {garray.name = "m", garray.sharding = #garray.sharding<@mesh, P(None, None)>}
// PART-LABEL: func.func @clipped
// PART-NOT: garray.reduce_scatter
// PART-NOT: garray.all_gather
// PART: return
func.func @clipped(%x: tensor<16x8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                   %w: tensor<8x4xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P()>},
                   %m: tensor<8x4xf32> {garray.name = "m", garray.sharding = #garray.sharding<@mesh, P()>})
    -> (tensor<8x4xf32> {garray.name = "w", garray.sharding = #garray.sharding<@mesh, P()>},
        tensor<8x4xf32> {garray.name = "m", garray.sharding = #garray.sharding<@mesh, P()>},
        tensor<f32> {garray.name = "norm", garray.sharding = #garray.sharding<@mesh, P()>}) {
  %y = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0] : (tensor<16x8xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
  %g = garray.dot_general %x, %y, batch = [] x [], contracting = [0] x [0] : (tensor<16x8xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %sq = garray.mul %g, %g : tensor<8x4xf32>
  %n = garray.reduce <sum> %sq, dims = [0, 1] : (tensor<8x4xf32>) -> tensor<f32>
  %m2 = garray.add %m, %g : tensor<8x4xf32>
  %w1 = garray.sub %w, %m2 : tensor<8x4xf32>
  return %w1, %m2, %n : tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>
}
