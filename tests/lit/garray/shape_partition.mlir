// RUN: shardc-opt %s -split-input-file --garray-propagate --garray-insert-reshards \
// RUN:   --garray-reshard-to-collectives | FileCheck %s --check-prefix=PART
// RUN: shardc-opt %s -split-input-file --garray-propagate --garray-insert-reshards \
// RUN:   --garray-reshard-to-collectives --garray-global-to-local --garray-verify-local \
// RUN:   | FileCheck %s --check-prefix=LOCAL
//
// Shape ops through partitioning: a dim the rule keeps stays sharded with no
// collective; a sharded dim the rule needs whole is gathered first; linear
// shape ops carry pending sums, pad does not. After global-to-local, a slice
// of a sharded whole dim names its *local* limit (LocalizeOpInterface).

garray.mesh @mesh ["data" = 4]

// PART-LABEL: func.func @slice_whole_dim
// PART-NOT: all_gather
// PART: garray.slice %{{.*}}, start = [0, 1], limit = [8, 7], strides = [1, 2] {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// LOCAL-LABEL: func.func @slice_whole_dim
// LOCAL-SAME: (%[[X:[^:]+]]: tensor<2x8xf32>) -> tensor<2x3xf32>
// LOCAL: garray.slice %[[X]], start = [0, 1], limit = [2, 7], strides = [1, 2] : (tensor<2x8xf32>) -> tensor<2x3xf32>
func.func @slice_whole_dim(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> tensor<8x3xf32> {
  %0 = garray.slice %x, start = [0, 1], limit = [8, 7], strides = [1, 2] : (tensor<8x8xf32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// PART-LABEL: func.func @slice_sliced_dim
// PART: %[[G:.*]] = garray.all_gather %{{.*}}, dim = 1 on @mesh ["data"] {{.*}}reason = "layout for the op's factor rule{{[^(;]*}}(operand #0 of garray.slice
// PART: garray.slice %[[G]]
// LOCAL-LABEL: func.func @slice_sliced_dim
// LOCAL: %[[G:.*]] = comm.all_gather %{{.*}}, dim = 1 groups = {{\[}}[0, 1, 2, 3]] {{.*}} : tensor<8x2xf32> -> tensor<8x8xf32>
// LOCAL: garray.slice %[[G]], start = [0, 1], limit = [8, 7], strides = [1, 2] : (tensor<8x8xf32>) -> tensor<8x3xf32>
func.func @slice_sliced_dim(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>})
    -> tensor<8x3xf32> {
  %0 = garray.slice %x, start = [0, 1], limit = [8, 7], strides = [1, 2] : (tensor<8x8xf32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// A merge keeps the major dim's sharding; a sharded minor dim is gathered.
// PART-LABEL: func.func @reshape_merge
// PART: %[[G:.*]] = garray.all_gather %arg1, dim = 1
// PART: garray.reshape %arg0 {garray.sharding = #garray.sharding<@mesh, P("data")>}
// PART: garray.reshape %[[G]] {garray.sharding = #garray.sharding<@mesh, P(None)>}
// LOCAL-LABEL: func.func @reshape_merge
// LOCAL-SAME: (%[[X:[^:]+]]: tensor<2x4xf32>, %[[Y:[^:]+]]: tensor<8x1xf32>) -> (tensor<8xf32>, tensor<32xf32>)
// LOCAL: garray.reshape %[[X]] : (tensor<2x4xf32>) -> tensor<8xf32>
func.func @reshape_merge(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                         %y: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>})
    -> (tensor<32xf32>, tensor<32xf32>) {
  %0 = garray.reshape %x : (tensor<8x4xf32>) -> tensor<32xf32>
  %1 = garray.reshape %y : (tensor<8x4xf32>) -> tensor<32xf32>
  return %0, %1 : tensor<32xf32>, tensor<32xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// A pending sum (dot over the sharded contracting dim) passes through
// transpose, reverse, reshape, slice and a concatenate of pending operands,
// and is reduced once, before the pad.
// PART-LABEL: func.func @pending
// PART: garray.dot_general {{.*}}unreduced = sum("data")
// PART: garray.transpose {{.*}}unreduced = sum("data")
// PART: garray.reverse {{.*}}unreduced = sum("data")
// PART: garray.reshape {{.*}}unreduced = sum("data")
// PART: garray.slice {{.*}}unreduced = sum("data")
// PART: %[[C:.*]] = garray.concatenate {{.*}}unreduced = sum("data")
// PART: %[[R:.*]] = garray.all_reduce <sum> %[[C]] on @mesh ["data"]
// PART-NOT: all_reduce
// PART: garray.pad %[[R]]
func.func @pending(%a: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>},
                   %b: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                   %v: tensor<f32>) -> tensor<12x8xf32> {
  %h = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %t = garray.transpose %h, permutation = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %r = garray.reverse %t, dims = [1] : tensor<4x8xf32>
  %f = garray.reshape %r : (tensor<4x8xf32>) -> tensor<32xf32>
  %s = garray.slice %f, start = [0], limit = [16], strides = [1] : (tensor<32xf32>) -> tensor<16xf32>
  %g = garray.reshape %s : (tensor<16xf32>) -> tensor<2x8xf32>
  %c = garray.concatenate %g, %g, dim = 0 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
  %p = garray.pad %c, %v, low = [4, 0], high = [4, 0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<12x8xf32>
  return %p : tensor<12x8xf32>
}
