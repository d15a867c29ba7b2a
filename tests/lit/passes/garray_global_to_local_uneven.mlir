// RUN: shardc-opt %s -split-input-file --garray-global-to-local -verify-diagnostics | FileCheck %s
//
// Uneven shards in garray-global-to-local (passes/local/UnevenShards.h):
// local blocks have the ceil size, and every operand that a sharded
// reduction factor reads is masked first,
//   select(iota(dim) < comm.device_value[valid per device], x, identity),
// with the identity of the op's reduction kind. A full all_gather keeps the
// valid prefix; an all_slice pads to k * ceil(n/k) first.

garray.mesh @mesh ["data" = 4]

// 5 rows over 4 devices: blocks of 2, valid rows 2, 2, 1, 0.
// CHECK-LABEL: func.func @sum_mask
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>) -> tensor<3xf32>
// CHECK: %[[IOTA:.*]] = garray.iota dim = 0 : tensor<2x3xi64>
// CHECK: %[[VALID:.*]] = comm.device_value [2, 2, 1, 0] : tensor<i64>
// CHECK: %[[VB:.*]] = garray.broadcast_in_dim %[[VALID]], dims = [] : (tensor<i64>) -> tensor<2x3xi64>
// CHECK: %[[IN:.*]] = garray.compare <lt> %[[IOTA]], %[[VB]]
// CHECK: %[[ZERO:.*]] = garray.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK: %[[M:.*]] = garray.select %[[IN]], %[[X]], %[[ZERO]]
// CHECK: %[[S:.*]] = garray.reduce <sum> %[[M]], dims = [0] : (tensor<2x3xf32>) -> tensor<3xf32>
// CHECK: comm.all_reduce <sum> %[[S]]
func.func @sum_mask(%x: tensor<5x3xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<3xf32> {
  %s = garray.reduce <sum> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>} : (tensor<5x3xf32>) -> tensor<3xf32>
  %r = garray.all_reduce <sum> %s on @mesh ["data"] {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// Each kind masks with its identity; a reduction over an unsplit dim (or a
// split dim that divides) needs no mask.
// CHECK-LABEL: func.func @identities
// CHECK: garray.constant dense<0xFF800000> : tensor<2x3xf32>
// CHECK: garray.reduce <max>
// CHECK: garray.constant dense<0x7F800000> : tensor<2x3xf32>
// CHECK: garray.reduce <min>
// CHECK: garray.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK: garray.reduce <prod>
// CHECK: garray.constant dense<-2147483648> : tensor<2x3xi32>
// CHECK: garray.reduce <max>
// CHECK: garray.constant dense<2147483647> : tensor<2x3xi32>
// CHECK: garray.reduce <min>
// CHECK: garray.constant dense<false> : tensor<2x3xi1>
// CHECK: garray.reduce <max>
// CHECK-NOT: garray.select
// CHECK: garray.reduce <sum> %{{.*}}, dims = [1]
// CHECK-NOT: garray.select
// CHECK: garray.reduce <sum> %{{.*}}, dims = [0] : (tensor<2x3xf32>) -> tensor<3xf32>
// CHECK: return
func.func @identities(%x: tensor<5x3xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                      %i: tensor<5x3xi32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                      %b: tensor<5x3xi1> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                      %e: tensor<8x3xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi1>, tensor<5xf32>, tensor<3xf32>) {
  %0 = garray.reduce <max> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = max("data")>} : (tensor<5x3xf32>) -> tensor<3xf32>
  %1 = garray.reduce <min> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = min("data")>} : (tensor<5x3xf32>) -> tensor<3xf32>
  %2 = garray.reduce <prod> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = prod("data")>} : (tensor<5x3xf32>) -> tensor<3xf32>
  %3 = garray.reduce <max> %i, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = max("data")>} : (tensor<5x3xi32>) -> tensor<3xi32>
  %4 = garray.reduce <min> %i, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = min("data")>} : (tensor<5x3xi32>) -> tensor<3xi32>
  %5 = garray.reduce <max> %b, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = max("data")>} : (tensor<5x3xi1>) -> tensor<3xi1>
  %6 = garray.reduce <sum> %x, dims = [1] {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<5x3xf32>) -> tensor<5xf32>
  %7 = garray.reduce <sum> %e, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>} : (tensor<8x3xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi1>, tensor<5xf32>, tensor<3xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 3]

// dot_general's contracting dim (7 over "model" = 3: blocks of 3, valid
// 3, 3, 1) is masked on both operands: the padding of either may be NaN.
// Devices are 3 * data + model.
// CHECK-LABEL: func.func @dot_contracting
// CHECK-SAME: (%[[A:[^:]+]]: tensor<2x3xf32>, %[[B:[^:]+]]: tensor<3x4xf32>)
// CHECK: %[[VA:.*]] = comm.device_value [3, 3, 1, 3, 3, 1] : tensor<i64>
// CHECK: %[[MA:.*]] = garray.select %{{.*}}, %[[A]], %{{.*}} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[VB:.*]] = comm.device_value [3, 3, 1, 3, 3, 1] : tensor<i64>
// CHECK: %[[MB:.*]] = garray.select %{{.*}}, %[[B]], %{{.*}} : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: garray.dot_general %[[MA]], %[[MB]]
func.func @dot_contracting(%a: tensor<3x7xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
                           %b: tensor<7x4xf32> {garray.sharding = #garray.sharding<@mesh, P("model", None)>}) -> tensor<3x4xf32> {
  %d = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None), unreduced = sum("model")>}
      : (tensor<3x7xf32>, tensor<7x4xf32>) -> tensor<3x4xf32>
  return %d : tensor<3x4xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// A full gather concatenates the padded blocks and keeps the valid prefix;
// a slice of a whole dim pads it to 4 * 2 first.
// CHECK-LABEL: func.func @gather_slice
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2xf32>) -> (tensor<5xf32>, tensor<2xf32>)
// CHECK: %[[G:.*]] = comm.all_gather %[[X]], dim = 0 groups = {{\[}}[0, 1, 2, 3]] : tensor<2xf32> -> tensor<8xf32>
// CHECK: %[[V:.*]] = garray.slice %[[G]], start = [0], limit = [5], strides = [1] : (tensor<8xf32>) -> tensor<5xf32>
// CHECK: %[[Z:.*]] = garray.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[P:.*]] = garray.pad %[[V]], %[[Z]], low = [0], high = [3] : (tensor<5xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK: %[[S:.*]] = comm.all_slice %[[P]], dim = 0 groups = {{\[}}[0, 1, 2, 3]] : tensor<8xf32> -> tensor<2xf32>
// CHECK: return %[[V]], %[[S]]
func.func @gather_slice(%x: tensor<5xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> (tensor<5xf32>, tensor<5xf32>) {
  %g = garray.all_gather %x, dim = 0 on @mesh ["data"] {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<5xf32>
  %s = garray.all_slice %g, dim = 0 on @mesh ["data"] {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<5xf32>
  return %g, %s : tensor<5xf32>, tensor<5xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// An iota along an uneven dim adds its shard's start (device * ceil(5/4)).
// CHECK-LABEL: func.func @iota_offsets
// CHECK: %[[I:.*]] = garray.iota dim = 0 : tensor<2xi64>
// CHECK: %[[OFF:.*]] = comm.device_value [0, 2, 4, 6] : tensor<i64>
// CHECK: %[[OB:.*]] = garray.broadcast_in_dim %[[OFF]]
// CHECK: %[[G:.*]] = garray.add %[[I]], %[[OB]] : tensor<2xi64>
// CHECK: return %[[G]]
func.func @iota_offsets() -> (tensor<5xi64> {garray.sharding = #garray.sharding<@mesh, P("data")>}) {
  %i = garray.iota dim = 0 {garray.sharding = #garray.sharding<@mesh, P("data")>} : tensor<5xi64>
  return %i : tensor<5xi64>
}

// -----

garray.mesh @mesh ["data" = 2]

func.func @reshape_uneven(%x: tensor<5x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<20xf32> {
  // expected-error @+1 {{garray.reshape: dim 0 of operand #0 has size 5, split unevenly over mesh axes ("data") of size 2 (shards 3,2 under the ceil layout), and this op merges or splits it with other dims (rule ([i,j])->([i j])), so the padded blocks would not line up; make the size divisible by 2, or replicate the dim before this op}}
  %r = garray.reshape %x {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<5x4xf32>) -> tensor<20xf32>
  return %r : tensor<20xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// 5 over ("data", "model") is blocks of 2; over "data" alone blocks of 3:
// two blocks of 2 do not make one of 3, so the dim goes through its whole
// form (gather over both axes, keep [0, 5), pad to 6, slice over "data"),
// and back (a slice of 3 into blocks of 2 over "model" would not nest
// either). Devices are 2 * data + model.
// CHECK-LABEL: func.func @no_nesting
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2xf32>) -> tensor<2xf32>
// CHECK: %[[G:.*]] = comm.all_gather %[[X]], dim = 0 groups = {{\[}}[0, 1, 2, 3]] {reason = "r"} : tensor<2xf32> -> tensor<8xf32>
// CHECK: %[[V:.*]] = garray.slice %[[G]], start = [0], limit = [5], strides = [1] : (tensor<8xf32>) -> tensor<5xf32>
// CHECK: %[[P:.*]] = garray.pad %[[V]], %{{.*}}, low = [0], high = [1] : (tensor<5xf32>, tensor<f32>) -> tensor<6xf32>
// CHECK: %[[D:.*]] = comm.all_slice %[[P]], dim = 0 groups = {{\[}}[0, 2], [1, 3]] : tensor<6xf32> -> tensor<3xf32>
// CHECK: %[[G2:.*]] = comm.all_gather %[[D]], dim = 0 groups = {{\[}}[0, 2], [1, 3]] : tensor<3xf32> -> tensor<6xf32>
// CHECK: %[[V2:.*]] = garray.slice %[[G2]], start = [0], limit = [5], strides = [1] : (tensor<6xf32>) -> tensor<5xf32>
// CHECK: %[[P2:.*]] = garray.pad %[[V2]], %{{.*}}, low = [0], high = [3] : (tensor<5xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK: %[[B:.*]] = comm.all_slice %[[P2]], dim = 0 groups = {{\[}}[0, 1, 2, 3]] : tensor<8xf32> -> tensor<2xf32>
// CHECK: return %[[B]]
func.func @no_nesting(%x: tensor<5xf32> {garray.sharding = #garray.sharding<@mesh, P(("data", "model"))>}) -> tensor<5xf32> {
  %g = garray.all_gather %x, dim = 0 on @mesh ["model"] {garray.sharding = #garray.sharding<@mesh, P("data")>, reason = "r"} : tensor<5xf32>
  %s = garray.all_slice %g, dim = 0 on @mesh ["model"] {garray.sharding = #garray.sharding<@mesh, P(("data", "model"))>} : tensor<5xf32>
  return %s : tensor<5xf32>
}

// -----

garray.mesh @mesh ["data" = 4]

// A sharded constant is materialised whole, padded to 4 * 2 and sliced.
// CHECK-LABEL: func.func @constant_block
// CHECK: %[[C:.*]] = garray.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<5xf32>
// CHECK: %[[P:.*]] = garray.pad %[[C]], %{{.*}}, low = [0], high = [3] : (tensor<5xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK: %[[B:.*]] = comm.all_slice %[[P]], dim = 0 groups = {{\[}}[0, 1, 2, 3]] : tensor<8xf32> -> tensor<2xf32>
// CHECK: return %[[B]]
func.func @constant_block() -> (tensor<5xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) {
  %c = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data")>} dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  return %c : tensor<5xf32>
}
