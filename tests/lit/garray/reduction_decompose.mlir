// RUN: shardc-opt %s -split-input-file --garray-decompose | FileCheck %s
//
// garray-decompose on the reductions & indexing composites: weighted means,
// argmax/argmin over global indices, scatter_add with a non-zero base. (The
// plain mean: tests/lit/passes/garray_decompose.mlir.)

// sum(x * w) / sum(w): no constant count, the denominator is a sum too.
// CHECK-LABEL: func.func @weighted_mean
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<8x4xf32>)
// CHECK: %[[XW:.*]] = garray.mul %[[X]], %[[W]] : tensor<8x4xf32>
// CHECK: %[[NUM:.*]] = garray.reduce <sum> %[[XW]], dims = [0] keepdims : (tensor<8x4xf32>) -> tensor<1x4xf32>
// CHECK: %[[DEN:.*]] = garray.reduce <sum> %[[W]], dims = [0] keepdims : (tensor<8x4xf32>) -> tensor<1x4xf32>
// CHECK: %[[M:.*]] = garray.div %[[NUM]], %[[DEN]] : tensor<1x4xf32>
// CHECK: return %[[M]]
// CHECK-NOT: garray.mean
func.func @weighted_mean(%x: tensor<8x4xf32>, %w: tensor<8x4xf32>) -> tensor<1x4xf32> {
  %0 = garray.mean %x, dims = [0] keepdims weights %w : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// argmax over dim 1: the max (keepdims), positions equal to it or NaN pick
// their global index, others INT_MAX; the min of those is the first.
// CHECK-LABEL: func.func @argmax
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>)
// CHECK: %[[M:.*]] = garray.reduce <max> %[[X]], dims = [1] keepdims : (tensor<8x4xf32>) -> tensor<8x1xf32>
// CHECK: %[[MB:.*]] = garray.broadcast_in_dim %[[M]], dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x4xf32>
// CHECK: %[[EQ:.*]] = garray.compare <eq> %[[X]], %[[MB]] : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xi1>
// CHECK: %[[IOTA:.*]] = garray.iota dim = 1 : tensor<8x4xi64>
// CHECK: %[[NONE:.*]] = garray.constant dense<9223372036854775807> : tensor<8x4xi64>
// CHECK: %[[C1:.*]] = garray.select %[[EQ]], %[[IOTA]], %[[NONE]] : (tensor<8x4xi1>, tensor<8x4xi64>, tensor<8x4xi64>) -> tensor<8x4xi64>
// CHECK: %[[NAN:.*]] = garray.compare <ne> %[[X]], %[[X]] : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xi1>
// CHECK: %[[C2:.*]] = garray.select %[[NAN]], %[[IOTA]], %[[C1]] : (tensor<8x4xi1>, tensor<8x4xi64>, tensor<8x4xi64>) -> tensor<8x4xi64>
// CHECK: %[[R:.*]] = garray.reduce <min> %[[C2]], dims = [1] : (tensor<8x4xi64>) -> tensor<8xi64>
// CHECK: return %[[R]]
// CHECK-NOT: garray.argmax
func.func @argmax(%x: tensor<8x4xf32>) -> tensor<8xi64> {
  %0 = garray.argmax %x, dim = 1 : (tensor<8x4xf32>) -> tensor<8xi64>
  return %0 : tensor<8xi64>
}

// -----

// argmin of integers into i32: a min reduction, INT32_MAX, no NaN test.
// CHECK-LABEL: func.func @argmin_ints
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xi64>)
// CHECK: %[[M:.*]] = garray.reduce <min> %[[X]], dims = [0] keepdims : (tensor<8x4xi64>) -> tensor<1x4xi64>
// CHECK: %[[MB:.*]] = garray.broadcast_in_dim %[[M]], dims = [0, 1] : (tensor<1x4xi64>) -> tensor<8x4xi64>
// CHECK: %[[EQ:.*]] = garray.compare <eq> %[[X]], %[[MB]]
// CHECK: %[[IOTA:.*]] = garray.iota dim = 0 : tensor<8x4xi32>
// CHECK: %[[NONE:.*]] = garray.constant dense<2147483647> : tensor<8x4xi32>
// CHECK: %[[C:.*]] = garray.select %[[EQ]], %[[IOTA]], %[[NONE]] : (tensor<8x4xi1>, tensor<8x4xi32>, tensor<8x4xi32>) -> tensor<8x4xi32>
// CHECK-NOT: garray.compare <ne>
// CHECK: %[[R:.*]] = garray.reduce <min> %[[C]], dims = [0] : (tensor<8x4xi32>) -> tensor<4xi32>
// CHECK: return %[[R]]
func.func @argmin_ints(%x: tensor<8x4xi64>) -> tensor<4xi32> {
  %0 = garray.argmin %x, dim = 0 : (tensor<8x4xi64>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A sharding written on the composite moves to the op defining its value.
// CHECK-LABEL: func.func @argmax_keeps_sharding
// CHECK: garray.reduce <min> %{{.*}}, dims = [0] {garray.sharding = #garray.sharding<@mesh, P()>} : (tensor<8xi64>) -> tensor<i64>
func.func @argmax_keeps_sharding(%x: tensor<8xf64>) -> tensor<i64> {
  %0 = garray.argmax %x, dim = 0 {garray.sharding = #garray.sharding<@mesh, P()>} : (tensor<8xf64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// A non-zero base is added once, outside the scatter.
// CHECK-LABEL: func.func @scatter_add_base
// CHECK-SAME: (%[[B:.*]]: tensor<16x4xf32>, %[[I:.*]]: tensor<8xi64>, %[[U:.*]]: tensor<8x4xf32>)
// CHECK: %[[Z:.*]] = garray.constant dense<0.000000e+00> : tensor<16x4xf32>
// CHECK: %[[S:.*]] = garray.scatter_add %[[Z]], %[[I]], %[[U]]
// CHECK: %[[R:.*]] = garray.add %[[B]], %[[S]] : tensor<16x4xf32>
// CHECK: return %[[R]]
func.func @scatter_add_base(%b: tensor<16x4xf32>, %i: tensor<8xi64>, %u: tensor<8x4xf32>) -> tensor<16x4xf32> {
  %0 = garray.scatter_add %b, %i, %u : (tensor<16x4xf32>, tensor<8xi64>, tensor<8x4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

// A zero base (float or integer) is left alone.
// CHECK-LABEL: func.func @scatter_add_zero_base
// CHECK: %[[Z:.*]] = garray.constant dense<0> : tensor<16xi32>
// CHECK-NEXT: %[[S:.*]] = garray.scatter_add %[[Z]], %{{.*}}, %{{.*}}
// CHECK-NEXT: return %[[S]]
func.func @scatter_add_zero_base(%i: tensor<8xi64>, %u: tensor<8xi32>) -> tensor<16xi32> {
  %z = garray.constant dense<0> : tensor<16xi32>
  %0 = garray.scatter_add %z, %i, %u : (tensor<16xi32>, tensor<8xi64>, tensor<8xi32>) -> tensor<16xi32>
  return %0 : tensor<16xi32>
}
