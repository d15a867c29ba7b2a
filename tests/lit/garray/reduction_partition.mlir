// RUN: shardc-opt %s -split-input-file --shardc-global-phase \
// RUN:   --shardc-propagation-phase="split-idle-axes=false" --shardc-partition-phase --shardc-local-phase \
// RUN:   | FileCheck %s
//
// The reductions & indexing ops through the global phases down to the local
// program: which collectives their rules produce, and iota's per-device
// offsets (global-to-local), which keep indices global. Devices are numbered
// row-major: on ["data" = 2, "model" = 2], device = 2 * data + model.

garray.mesh @mesh ["data" = 2, "model" = 2]

// Offsets: dim 0 over "data" (local 4 rows): 0, 0, 4, 4; dim 1 over "model"
// (local 2 columns): 0, 2, 0, 2; dim 1 over ("data", "model"): 0, 1, 2, 3;
// over ("model", "data") the shard order is model-major: 0, 2, 1, 3.
// CHECK-LABEL: func.func @iota_offsets
// CHECK: %[[I0:.*]] = garray.iota dim = 0 : tensor<4x2xi32>
// CHECK: %[[O0:.*]] = comm.device_value [0, 0, 4, 4] : tensor<i32>
// CHECK: %[[B0:.*]] = garray.broadcast_in_dim %[[O0]], dims = [] : (tensor<i32>) -> tensor<4x2xi32>
// CHECK: %[[G0:.*]] = garray.add %[[I0]], %[[B0]] : tensor<4x2xi32>
// CHECK: %[[I1:.*]] = garray.iota dim = 1 : tensor<4x2xi32>
// CHECK: comm.device_value [0, 2, 0, 2] : tensor<i32>
// CHECK: garray.add %[[G0]], %arg0
// CHECK: garray.iota dim = 1 : tensor<8x1xi32>
// CHECK: comm.device_value [0, 1, 2, 3] : tensor<i32>
// CHECK: garray.iota dim = 1 : tensor<8x1xi32>
// CHECK: comm.device_value [0, 2, 1, 3] : tensor<i32>
func.func @iota_offsets(%x: tensor<8x4xi32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
                        %y: tensor<8x4xi32> {garray.sharding = #garray.sharding<@mesh, P(None, ("data", "model"))>},
                        %z: tensor<8x4xi32> {garray.sharding = #garray.sharding<@mesh, P(None, ("model", "data"))>})
    -> (tensor<8x4xi32>, tensor<8x4xi32>, tensor<8x4xi32>, tensor<8x4xi32>) {
  %i0 = garray.iota dim = 0 : tensor<8x4xi32>
  %i1 = garray.iota dim = 1 : tensor<8x4xi32>
  %a = garray.add %i0, %x : tensor<8x4xi32>
  %b = garray.add %i1, %x : tensor<8x4xi32>
  %i2 = garray.iota dim = 1 : tensor<8x4xi32>
  %c = garray.add %i2, %y : tensor<8x4xi32>
  %i3 = garray.iota dim = 1 : tensor<8x4xi32>
  %d = garray.add %i3, %z : tensor<8x4xi32>
  return %a, %b, %c, %d : tensor<8x4xi32>, tensor<8x4xi32>, tensor<8x4xi32>, tensor<8x4xi32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Sharded across the iota's dim only: local indices are global already.
// CHECK-LABEL: func.func @iota_unsplit_dim
// CHECK: %[[I:.*]] = garray.iota dim = 1 : tensor<4x4xf32>
// CHECK-NOT: comm.device_value
// CHECK: garray.add %[[I]], %arg0 : tensor<4x4xf32>
func.func @iota_unsplit_dim(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8x4xf32> {
  %i = garray.iota dim = 1 : tensor<8x4xf32>
  %a = garray.add %i, %x : tensor<8x4xf32>
  return %a : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// argmax over a sharded dim: one max all-reduce of the values, global indices
// (offsets 0, 2, 4, 6), one min all-reduce of the candidates.
// CHECK-LABEL: func.func @argmax_sharded
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>) -> tensor<i64>
// CHECK: %[[M:.*]] = garray.reduce <max> %[[X]], dims = [0] keepdims : (tensor<2xf32>) -> tensor<1xf32>
// CHECK: %[[MR:.*]] = comm.all_reduce <max> %[[M]] groups = {{\[}}[0, 1, 2, 3]]
// CHECK: %[[MB:.*]] = garray.broadcast_in_dim %[[MR]], dims = [0] : (tensor<1xf32>) -> tensor<2xf32>
// CHECK: garray.compare <eq> %[[X]], %[[MB]]
// CHECK: comm.device_value [0, 2, 4, 6] : tensor<i64>
// CHECK: %[[C:.*]] = garray.reduce <min> %{{.*}}, dims = [0] : (tensor<2xi64>) -> tensor<i64>
// CHECK: %[[R:.*]] = comm.all_reduce <min> %[[C]] groups = {{\[}}[0, 1, 2, 3]]
// CHECK-NOT: <sum>
// CHECK: return %[[R]]
func.func @argmax_sharded(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<i64> {
  %0 = garray.argmax %x, dim = 0 : (tensor<8xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

garray.mesh @mesh ["data" = 4]

// A masked mean over a sharded dim: the denominator (sum of the mask) is
// all-reduced before the division, the quotient after it.
// CHECK-LABEL: func.func @masked_mean
// CHECK: %[[XW:.*]] = garray.mul %arg0, %arg1 : tensor<2xf32>
// CHECK: %[[NUM:.*]] = garray.reduce <sum> %[[XW]]
// CHECK: %[[DEN:.*]] = garray.reduce <sum> %arg1
// CHECK: %[[DENR:.*]] = comm.all_reduce <sum> %[[DEN]]
// CHECK: %[[Q:.*]] = garray.div %[[NUM]], %[[DENR]] : tensor<f32>
// CHECK: %[[R:.*]] = comm.all_reduce <sum> %[[Q]]
// CHECK: return %[[R]]
func.func @masked_mean(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>},
                       %valid: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<f32> {
  %0 = garray.mean %x, dims = [0] weights %valid : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

garray.mesh @mesh ["data" = 4]

// scatter_add with its index positions split: each device scatters its rows
// into zeros, one sum all-reduce, then the (replicated) base is added once.
// CHECK-LABEL: func.func @scatter_add_sharded
// CHECK-SAME: (%[[B:.*]]: tensor<16x4xf32>, %[[I:.*]]: tensor<2xi64>, %[[U:.*]]: tensor<2x4xf32>)
// CHECK: %[[Z:.*]] = garray.constant dense<0.000000e+00> : tensor<16x4xf32>
// CHECK: %[[S:.*]] = garray.scatter_add %[[Z]], %[[I]], %[[U]] : (tensor<16x4xf32>, tensor<2xi64>, tensor<2x4xf32>) -> tensor<16x4xf32>
// CHECK: %[[SR:.*]] = comm.all_reduce <sum> %[[S]]
// CHECK: %[[R:.*]] = garray.add %[[B]], %[[SR]] : tensor<16x4xf32>
// CHECK: return %[[R]]
func.func @scatter_add_sharded(%b: tensor<16x4xf32>,
                               %i: tensor<8xi64> {garray.sharding = #garray.sharding<@mesh, P("data")>},
                               %u: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<16x4xf32> {
  %0 = garray.scatter_add %b, %i, %u : (tensor<16x4xf32>, tensor<8xi64>, tensor<8x4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// gather with sharded indices: each device looks up its own rows of the
// whole table; no communication.
// CHECK-LABEL: func.func @gather_sharded_indices
// CHECK-SAME: (%[[T:.*]]: tensor<16x8xf32>, %[[I:.*]]: tensor<1xi32>) -> tensor<1x8xf32>
// CHECK-NOT: comm.
// CHECK: garray.gather %[[T]][%[[I]]] : (tensor<16x8xf32>, tensor<1xi32>) -> tensor<1x8xf32>
func.func @gather_sharded_indices(%t: tensor<16x8xf32>,
                                  %i: tensor<4xi32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<4x8xf32> {
  %0 = garray.gather %t[%i] : (tensor<16x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
