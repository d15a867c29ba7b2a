// RUN: shardc-opt %samples/linear_regression_step.mlir \
// RUN:   --shardc-global-phase="mesh=data=4" --shardc-propagation-phase \
// RUN:   --shardc-partition-phase | FileCheck %s
// RUN: shardc-opt %samples/linear_regression_step.mlir \
// RUN:   --shardc-global-phase="mesh=data=4" --shardc-propagation-phase \
// RUN:   --shardc-partition-phase --shardc-local-phase \
// RUN:   | FileCheck %s --check-prefixes=LOCAL,LOCAL4
// RUN: shardc-opt %samples/linear_regression_step.mlir \
// RUN:   --shardc-global-phase="mesh=data=8" --shardc-propagation-phase \
// RUN:   --shardc-partition-phase --shardc-local-phase \
// RUN:   | FileCheck %s --check-prefixes=LOCAL,LOCAL8
//
// End to end on the seed (samples/linear_regression_step.mlir): one step of
// linear regression with X and y split by rows over "data" and w replicated.
// The partitioned program must have exactly two all_reduces, one for the loss
// and one for the gradient, none for w, and divide the loss by the *global*
// row count 8 whatever the number of devices.

// CHECK: garray.mesh @mesh ["data" = 4]
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x2xf32> {{{.*}}garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK-SAME: %[[Y:[^:]+]]: tensor<8xf32> {{{.*}}garray.sharding = #garray.sharding<@mesh, P("data")>}
// CHECK-SAME: %[[W:[^:]+]]: tensor<2xf32> {{{.*}}garray.sharding = #garray.sharding<@mesh, P(None)>}
//
// Residuals and their squares stay split by rows: no communication.
// CHECK: %[[PRED:.*]] = garray.dot_general %[[X]], %[[W]], {{.*}}contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data")>}
// CHECK: %[[R:.*]] = garray.sub %[[PRED]], %[[Y]] {garray.sharding = #garray.sharding<@mesh, P("data")>}
// CHECK: %[[SQ:.*]] = garray.mul %[[R]], %[[R]] {garray.sharding = #garray.sharding<@mesh, P("data")>}
//
// Loss: local partial sums, divided by the global count 8 while still
// pending (division by a replicated value is linear), then one all_reduce.
// CHECK: %[[SUM:.*]] = garray.reduce <sum> %[[SQ]], dims = [0] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>}
// CHECK: %[[N:.*]] = garray.constant {{.*}}dense<8.000000e+00> : tensor<f32>
// CHECK: %[[LOSSP:.*]] = garray.div %[[SUM]], %[[N]] {garray.sharding = #garray.sharding<@mesh, P(), unreduced = sum("data")>}
// CHECK: %[[LOSS:.*]] = garray.all_reduce <sum> %[[LOSSP]] on @mesh ["data"]
//
// Gradient: X^T r contracts the split rows, so it is pending; scaling by the
// replicated 2/N keeps it pending; then one all_reduce.
// CHECK: %[[XTR:.*]] = garray.dot_general %[[X]], %[[R]], {{.*}}contracting = [0] x [0] {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>}
// CHECK: %[[GRADP:.*]] = garray.mul %[[XTR]], %{{.*}} {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>}
// CHECK: %[[GRAD:.*]] = garray.all_reduce <sum> %[[GRADP]] on @mesh ["data"]
//
// w is replicated: the update reads it directly, with no collective.
// CHECK: %[[STEP:.*]] = garray.mul %[[GRAD]], %{{.*}} {garray.sharding = #garray.sharding<@mesh, P(None)>}
// CHECK: %[[WNEXT:.*]] = garray.sub %[[W]], %[[STEP]] {garray.sharding = #garray.sharding<@mesh, P(None)>}
// CHECK: return %[[LOSS]], %[[GRAD]], %[[WNEXT]]
//
// Exactly two all_reduces in the whole module, neither of them over w; no
// reshard, gather or slice is left.
// CHECK-NOT: garray.reshard
// CHECK-NOT: garray.all_gather
// CHECK-NOT: garray.all_slice
// CHECK-NOT: garray.mean

// Counting pass over the same output: the first two all_reduces, then none.
// RUN: shardc-opt %samples/linear_regression_step.mlir \
// RUN:   --shardc-global-phase="mesh=data=4" --shardc-propagation-phase \
// RUN:   --shardc-partition-phase | FileCheck %s --check-prefix=COUNT
// COUNT-NOT: garray.reshard
// COUNT-NOT: garray.all_gather
// COUNT-NOT: garray.all_slice
// COUNT-COUNT-2: garray.all_reduce <sum> %{{[^ ]+}} on @mesh ["data"]
// COUNT-NOT: garray.all_reduce
// COUNT-NOT: garray.reshard
// COUNT-NOT: garray.all_gather
// COUNT-NOT: garray.all_slice

// The local program: X and y are row blocks, w whole; the two all_reduces
// (the loss's and the gradient's, independent) run over every device as one
// combined collective; the denominator is still the global 8.
// LOCAL-NOT: garray.mesh
// LOCAL-LABEL: func.func @main
// LOCAL4-SAME: (%[[X:[^:]+]]: tensor<2x2xf32> {garray.name = "X"}, %[[Y:[^:]+]]: tensor<2xf32> {garray.name = "y"}, %[[W:[^:]+]]: tensor<2xf32> {garray.name = "w"})
// LOCAL8-SAME: (%[[X:[^:]+]]: tensor<1x2xf32> {garray.name = "X"}, %[[Y:[^:]+]]: tensor<1xf32> {garray.name = "y"}, %[[W:[^:]+]]: tensor<2xf32> {garray.name = "w"})
// LOCAL-SAME: -> (tensor<f32> {garray.name = "loss"}, tensor<2xf32> {garray.name = "grad"}, tensor<2xf32> {garray.name = "w_next"})
// LOCAL-NOT: garray.sharding
// LOCAL: garray.constant dense<8.000000e+00> : tensor<f32>
// LOCAL4: %[[SUMS:.*]] = comm.all_reduce <sum> %{{.*}} groups = {{\[}}[0, 1, 2, 3]] {{.*}}: tensor<3xf32> -> tensor<3xf32>
// LOCAL8: %[[SUMS:.*]] = comm.all_reduce <sum> %{{.*}} groups = {{\[}}[0, 1, 2, 3, 4, 5, 6, 7]] {{.*}}: tensor<3xf32> -> tensor<3xf32>
// Each part is sliced out just before its first use: the gradient for the
// update, the loss at the return.
// LOCAL: %[[GRAD:.*]] = garray.slice %[[SUMS]], start = [1], limit = [3], strides = [1]
// LOCAL-NOT: comm.
// LOCAL: %[[WNEXT:.*]] = garray.sub %[[W]], %{{.*}} : tensor<2xf32>
// LOCAL: %[[L:.*]] = garray.slice %[[SUMS]], start = [0], limit = [1], strides = [1]
// LOCAL: %[[LOSS:.*]] = garray.reshape %[[L]] : (tensor<1xf32>) -> tensor<f32>
// LOCAL: return %[[LOSS]], %[[GRAD]], %[[WNEXT]] : tensor<f32>, tensor<2xf32>, tensor<2xf32>
