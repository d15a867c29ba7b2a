// RUN: shardc compile %s --emit=partitioned | FileCheck %s
// RUN: shardc report %s | FileCheck %s --check-prefix=REPORT
//
// A pending sum stays pending through ops that are linear in it next to all
// zeros (a device holding 0 sums to 0): x + 0, 0 - x, select(p, x, 0),
// pad(x, 0), and through a select whose branches are both pending over the
// same axes (select(p, a, b) summed is select(p, sum a, sum b)). This is the
// shape of a gradient accumulated by an unrolled loop (zeros, then
// acc + g_i, or ys.at[i].set(g_i)): one all-reduce at the end, not one per
// step. A pad with a non-zero value still reduces first.

garray.mesh @mesh ["data" = 2]

// CHECK-LABEL: func.func @accumulate
// CHECK-NOT: garray.all_reduce
// CHECK: garray.pad {{.*}} unreduced = sum("data")
// CHECK-NEXT: garray.select {{.*}} unreduced = sum("data")
// CHECK-NEXT: garray.select {{.*}} unreduced = sum("data")
// CHECK-NEXT: garray.all_reduce <sum> {{.*}} : tensor<6x4xf32>
// CHECK: garray.all_reduce <sum> {{.*}} : tensor<1xf32>
// CHECK-NEXT: garray.pad
// CHECK-NOT: garray.all_reduce
// REPORT: collectives on mesh ["data"=2]: 2
// REPORT: all_reduce  tensor<6x4xf32> over ["data"]
// REPORT: all_reduce  tensor<1xf32>  over ["data"]
func.func @accumulate(%x: tensor<8x4xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                      %m: tensor<6x4xi1> {garray.name = "m"})
    -> (tensor<6x4xf32> {garray.name = "acc"}, tensor<f32> {garray.name = "padded"}) {
  %zeros = garray.constant dense<0.0> : tensor<f32>
  %z4 = garray.broadcast_in_dim %zeros, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
  %z6 = garray.broadcast_in_dim %zeros, dims = [] : (tensor<f32>) -> tensor<6x4xf32>
  // A pending sum over "data" (rows of x are split): [4], broadcast to [4, 4].
  %s = garray.reduce <sum> %x, dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  %g = garray.broadcast_in_dim %s, dims = [1] : (tensor<4xf32>) -> tensor<4x4xf32>
  %a = garray.add %g, %z4 : tensor<4x4xf32>
  %b = garray.sub %z4, %a : tensor<4x4xf32>
  %one = garray.constant dense<1.0> : tensor<f32>
  %p = garray.pad %b, %zeros, low = [1, 0], high = [1, 0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<6x4xf32>
  %c = garray.select %m, %p, %z6 : (tensor<6x4xi1>, tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
  %d = garray.select %m, %c, %p : (tensor<6x4xi1>, tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
  // Padding with 1: each device would add it once, so the sum is reduced
  // before the pad (the second all-reduce of the report, on the scalar).
  %t = garray.reduce <sum> %x, dims = [0, 1] : (tensor<8x4xf32>) -> tensor<f32>
  %t1 = garray.reshape %t : (tensor<f32>) -> tensor<1xf32>
  %q = garray.pad %t1, %one, low = [1], high = [0] : (tensor<1xf32>, tensor<f32>) -> tensor<2xf32>
  %r = garray.reduce <sum> %q, dims = [0] : (tensor<2xf32>) -> tensor<f32>
  return %d, %r : tensor<6x4xf32>, tensor<f32>
}
