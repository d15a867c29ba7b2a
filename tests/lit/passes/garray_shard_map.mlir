// RUN: split-file --leading-lines %s %t
// RUN: shardc-opt %t/ring.mlir --garray-decompose | FileCheck %s --check-prefix=PIN
// RUN: shardc compile %t/ring.mlir --emit=partitioned | FileCheck %s --check-prefix=PART
// RUN: shardc compile %t/ring.mlir --emit=local | FileCheck %s --check-prefix=LOCAL
// RUN: not shardc compile %t/ring.mlir --mesh data=2 2>&1 | FileCheck %s --check-prefix=MESH
// RUN: not shardc compile %t/outside.mlir 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// RUN: not shardc compile %t/autodiff.mlir 2>&1 | FileCheck %s --check-prefix=GRAD
// RUN: shardc report %t/memory.mlir | FileCheck %s --check-prefix=MEMORY

// A shard_map through the pipeline: its boundary is pinned to its shardings
// (garray-decompose), a reshard gives its operand the layout the body takes,
// and global-to-local puts the body, collectives and all, in its place.

//--- ring.mlir
garray.mesh @mesh ["data" = 4]
func.func @main(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>})
    -> (tensor<4xf32>, tensor<8x4xf32>) {
  %e = garray.exp %x : tensor<8x4xf32>
  %s, %r = garray.shard_map @body(%e)
      in [#garray.sharding<@mesh, P("data", None)>]
      out [#garray.sharding<@mesh, P()>, #garray.sharding<@mesh, P("data", None)>]
      : (tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>)
  %t = garray.tanh %r : tensor<8x4xf32>
  return %s, %t : tensor<4xf32>, tensor<8x4xf32>
}
func.func private @body(%b: tensor<2x4xf32>) -> (tensor<4xf32>, tensor<2x4xf32>) {
  %s = garray.reduce <sum> %b, dims = [0] : (tensor<2x4xf32>) -> tensor<4xf32>
  %t = comm.all_reduce <sum> %s groups = [[0, 1, 2, 3]] : tensor<4xf32> -> tensor<4xf32>
  %p = comm.collective_permute %b pairs = [[0, 1], [1, 2], [2, 3], [3, 0]] : tensor<2x4xf32> -> tensor<2x4xf32>
  return %t, %p : tensor<4xf32>, tensor<2x4xf32>
}
// PIN-LABEL: func.func @main
// PIN: %[[E:.*]] = garray.exp
// PIN: %[[IN:.*]] = garray.sharding_constraint %[[E]] : tensor<8x4xf32> to #garray.sharding<@mesh, P("data", None)>
// PIN: %[[M:.*]]:2 = garray.shard_map @body(%[[IN]])
// PIN: %[[S:.*]] = garray.sharding_constraint %[[M]]#0 : tensor<4xf32> to #garray.sharding<@mesh, P()>
// PIN: %[[R:.*]] = garray.sharding_constraint %[[M]]#1 : tensor<8x4xf32> to #garray.sharding<@mesh, P("data", None)>
// PIN: garray.tanh %[[R]]
// The operand moves from columns to rows over "data": one all_to_all.
// PART: garray.all_to_all %{{.*}}, split_dim = 0, concat_dim = 1 on @mesh ["data"]
// PART-SAME: (argument #0 of the shard_map of @body): has P(None, \22data\22), needs P(\22data\22, None)
// PART: garray.shard_map @body
// LOCAL-LABEL: func.func @main(
// LOCAL-SAME: tensor<8x1xf32>) -> (tensor<4xf32>, tensor<2x4xf32>)
// LOCAL: %[[B:.*]] = comm.all_to_all
// LOCAL-SAME: -> tensor<2x4xf32>
// LOCAL: %[[S:.*]] = garray.reduce <sum> %[[B]]
// LOCAL: comm.all_reduce <sum> %[[S]]
// LOCAL: comm.collective_permute %[[B]]
// LOCAL-NOT: shard_map
// LOCAL-NOT: @body
// MESH: error: --mesh data=2 resizes mesh @mesh, but this shard_map's body is written for the blocks and devices of its sizes as written; compile it without --mesh

//--- outside.mlir
garray.mesh @mesh ["data" = 2]
func.func @main(%x: tensor<4xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<4xf32> {
  // OUTSIDE: error: 'comm.all_reduce' is a collective of a local program: a model writes it only in the body of a garray.shard_map
  %t = comm.all_reduce <sum> %x groups = [[0, 1]] : tensor<4xf32> -> tensor<4xf32>
  return %t : tensor<4xf32>
}

//--- autodiff.mlir
garray.mesh @mesh ["data" = 2]
func.func private @body(%b: tensor<2xf32>) -> tensor<f32> {
  %s = garray.reduce <sum> %b, dims = [0] : (tensor<2xf32>) -> tensor<f32>
  %t = comm.all_reduce <sum> %s groups = [[0, 1]] : tensor<f32> -> tensor<f32>
  return %t : tensor<f32>
}
func.func private @loss(%w: tensor<4xf32>) -> tensor<f32> {
  // GRAD: error: garray-autodiff: 'garray.shard_map' has no adjoint
  %l = garray.shard_map @body(%w) in [#garray.sharding<@mesh, P("data")>] out [#garray.sharding<@mesh, P()>] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%w: tensor<4xf32> {garray.sharding = #garray.sharding<@mesh, P()>}) -> (tensor<f32>, tensor<4xf32>) {
  %l, %g = garray.value_and_grad @loss(%w) wrt [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %l, %g : tensor<f32>, tensor<4xf32>
}

//--- memory.mlir
// The memory estimate holds a body's temporaries while the shard_map runs:
// a 64 KiB block temporary on top of the 256 B argument block and result.
garray.mesh @mesh ["data" = 2]
func.func private @body(%b: tensor<64xf32>) -> tensor<f32> {
  %wide = garray.broadcast_in_dim %b, dims = [1] : (tensor<64xf32>) -> tensor<256x64xf32>
  %s = garray.reduce <sum> %wide, dims = [0, 1] : (tensor<256x64xf32>) -> tensor<f32>
  %t = comm.all_reduce <sum> %s groups = [[0, 1]] : tensor<f32> -> tensor<f32>
  return %t : tensor<f32>
}
func.func @main(%x: tensor<128xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<f32> {
  %l = garray.shard_map @body(%x) in [#garray.sharding<@mesh, P("data")>] out [#garray.sharding<@mesh, P()>] : (tensor<128xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
// MEMORY: memory: peak 65{{[0-9]*}} B
// MEMORY: garray.broadcast_in_dim in @body: tensor<256x64xf32> P(None, None), 65536 B (64.00 KiB) per device
