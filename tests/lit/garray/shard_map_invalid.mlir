// RUN: shardc-opt %s -split-input-file -verify-diagnostics
//
// Labelled constraints of garray.shard_map.

garray.mesh @mesh ["data" = 4]
func.func private @body(%b: tensor<2xf32>) -> tensor<2xf32> {
  return %b : tensor<2xf32>
}
func.func @open(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{shard_map_c1: argument #0 has sharding #garray.sharding<@mesh, P("data"?)>, which has an open dim or a priority}}
  %y = garray.shard_map @body(%x) in [#garray.sharding<@mesh, P("data"?)>] out [#garray.sharding<@mesh, P("data")>] : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----
garray.mesh @mesh ["data" = 4]
func.func private @body(%b: tensor<2xf32>) -> tensor<2xf32> {
  return %b : tensor<2xf32>
}
func.func @count(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{shard_map_c1: 0 in_shardings for 1 arguments}}
  %y = garray.shard_map @body(%x) in [] out [#garray.sharding<@mesh, P("data")>] : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----
garray.mesh @mesh ["data" = 4]
func.func private @body(%b: tensor<2xf32>) -> tensor<2xf32> {
  return %b : tensor<2xf32>
}
func.func @uneven(%x: tensor<6xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{argument #0: dim 0 of size 6 does not divide over the 4 devices of mesh axes "data" (shard_map_c2)}}
  %y = garray.shard_map @body(%x) in [#garray.sharding<@mesh, P("data")>] out [#garray.sharding<@mesh, P("data")>] : (tensor<6xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----
garray.mesh @mesh ["data" = 4]
func.func private @body(%b: tensor<2xf32>) -> tensor<2xf32> {
  return %b : tensor<2xf32>
}
func.func @block_type(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{shard_map_c3: result #0 has the block type 'tensor<8xf32>' on each device, but @body has 'tensor<2xf32>' there}}
  %y = garray.shard_map @body(%x) in [#garray.sharding<@mesh, P("data")>] out [#garray.sharding<@mesh, P()>] : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----
garray.mesh @mesh ["data" = 4]
func.func @body(%b: tensor<2xf32>) -> tensor<2xf32> {
  return %b : tensor<2xf32>
}
func.func @public_body(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{shard_map_c3: no private function @body with a body to run on each device}}
  %y = garray.shard_map @body(%x) in [#garray.sharding<@mesh, P("data")>] out [#garray.sharding<@mesh, P("data")>] : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----
garray.mesh @mesh ["data" = 4]
func.func private @body(%b: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{names device 4, but the mesh of the shard_map that runs it}}
  %p = comm.collective_permute %b pairs = [[0, 4]] : tensor<2xf32> -> tensor<2xf32>
  return %p : tensor<2xf32>
}
func.func @device_range(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = garray.shard_map @body(%x) in [#garray.sharding<@mesh, P("data")>] out [#garray.sharding<@mesh, P("data")>] : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----
garray.mesh @mesh ["data" = 4]
func.func private @body(%b: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{has a table of 2 entries, one per device, but the mesh of the shard_map that runs it has 4 devices}}
  %i = comm.device_value [0, 1] : tensor<f32>
  %s = garray.broadcast_in_dim %i, dims = [] : (tensor<f32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}
func.func @table(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = garray.shard_map @body(%x) in [#garray.sharding<@mesh, P("data")>] out [#garray.sharding<@mesh, P("data")>] : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----
garray.mesh @mesh ["data" = ?]
func.func private @body(%b: tensor<2xf32>) -> tensor<2xf32> {
  return %b : tensor<2xf32>
}
func.func @unsized(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{shard_map_c2: mesh @mesh has a size left to --mesh}}
  %y = garray.shard_map @body(%x) in [#garray.sharding<@mesh, P("data")>] out [#garray.sharding<@mesh, P("data")>] : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----
garray.mesh @mesh ["data" = 4]
func.func private @body(%b: tensor<2xf32>) -> tensor<2xf32> {
  return %b : tensor<2xf32>
}
func.func @called_too(%x: tensor<8xf32>, %b: tensor<2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{shard_map_c3: @body is also used by 'func.call' at}}
  %y = garray.shard_map @body(%x) in [#garray.sharding<@mesh, P("data")>] out [#garray.sharding<@mesh, P("data")>] : (tensor<8xf32>) -> tensor<8xf32>
  %c = func.call @body(%b) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<8xf32>
}

// -----
garray.mesh @mesh ["data" = 4]
func.func private @body(%b: tensor<2xf32>) -> tensor<2xf32> {
  return %b : tensor<2xf32>
}
func.func @bad_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{shard_map_c1: argument #0: sharding_c3: "nope" is not an axis of mesh @mesh}}
  %y = garray.shard_map @body(%x) in [#garray.sharding<@mesh, P("nope")>] out [#garray.sharding<@mesh, P("data")>] : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----
garray.mesh @mesh ["data" = 4]
func.func private @body(%b: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{places a value on a mesh in the body of a shard_map, which is per device}}
  %c = garray.sharding_constraint %b : tensor<2xf32> to #garray.sharding<@mesh, P("data")>
  return %c : tensor<2xf32>
}
func.func @placed_body(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = garray.shard_map @body(%x) in [#garray.sharding<@mesh, P("data")>] out [#garray.sharding<@mesh, P("data")>] : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----
garray.mesh @mesh ["data" = 4]
func.func private @body(%b: tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P()>}) -> tensor<2xf32> {
  return %b : tensor<2xf32>
}
func.func @placed_argument(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{shard_map_c5: argument #0 of @body has a sharding; a shard_map's body takes blocks}}
  %y = garray.shard_map @body(%x) in [#garray.sharding<@mesh, P("data")>] out [#garray.sharding<@mesh, P("data")>] : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
