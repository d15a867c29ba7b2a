// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
//
// Parse/print round trip of every garray op and of #garray.sharding in all its
// forms: the printed form must parse back to the same IR.

// CHECK: garray.mesh @mesh ["data" = 4]
garray.mesh @mesh ["data" = 4]
// CHECK: garray.mesh @mesh2d ["data" = 2, "model" = 2]
garray.mesh @mesh2d ["data" = 2, "model" = 2]
// CHECK: garray.mesh @unsized ["data" = ?, "model" = 2]
garray.mesh @unsized ["data" = ?, "model" = 2]
// CHECK: garray.mesh @tagged ["x" = ?] {note = "kept"}
garray.mesh @tagged ["x" = ?] {note = "kept"}

// -----

// CHECK-LABEL: func.func @constant
func.func @constant() -> (tensor<f32>, tensor<2x2xi32>) {
  // CHECK: garray.constant dense<1.250000e-01> : tensor<f32>
  %0 = garray.constant dense<0.125> : tensor<f32>
  // CHECK: garray.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
  %1 = garray.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  return %0, %1 : tensor<f32>, tensor<2x2xi32>
}

// -----

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<8x2xf32>)
func.func @unary(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // CHECK: %[[NEG:.*]] = garray.neg %[[X]] : tensor<8x2xf32>
  %0 = garray.neg %x : tensor<8x2xf32>
  // CHECK: %[[ABS:.*]] = garray.abs %[[NEG]] : tensor<8x2xf32>
  %1 = garray.abs %0 : tensor<8x2xf32>
  // CHECK: %[[EXP:.*]] = garray.exp %[[ABS]] : tensor<8x2xf32>
  %2 = garray.exp %1 : tensor<8x2xf32>
  // CHECK: %[[LOG:.*]] = garray.log %[[EXP]] : tensor<8x2xf32>
  %3 = garray.log %2 : tensor<8x2xf32>
  // CHECK: %[[SQRT:.*]] = garray.sqrt %[[LOG]] : tensor<8x2xf32>
  %4 = garray.sqrt %3 : tensor<8x2xf32>
  // CHECK: %[[TANH:.*]] = garray.tanh %[[SQRT]] : tensor<8x2xf32>
  %5 = garray.tanh %4 : tensor<8x2xf32>
  // CHECK: %[[SG:.*]] = garray.stop_gradient %[[TANH]] : tensor<8x2xf32>
  %6 = garray.stop_gradient %5 : tensor<8x2xf32>
  // CHECK: return %[[SG]]
  return %6 : tensor<8x2xf32>
}

// -----

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi32>)
func.func @binary(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: %[[ADD:.*]] = garray.add %[[A]], %[[B]] : tensor<4xi32>
  %0 = garray.add %a, %b : tensor<4xi32>
  // CHECK: %[[SUB:.*]] = garray.sub %[[ADD]], %[[B]] : tensor<4xi32>
  %1 = garray.sub %0, %b : tensor<4xi32>
  // CHECK: %[[MUL:.*]] = garray.mul %[[SUB]], %[[A]] : tensor<4xi32>
  %2 = garray.mul %1, %a : tensor<4xi32>
  // CHECK: %[[DIV:.*]] = garray.div %[[MUL]], %[[B]] : tensor<4xi32>
  %3 = garray.div %2, %b : tensor<4xi32>
  // CHECK: %[[MAX:.*]] = garray.max %[[DIV]], %[[A]] : tensor<4xi32>
  %4 = garray.max %3, %a : tensor<4xi32>
  // CHECK: %[[MIN:.*]] = garray.min %[[MAX]], %[[B]] : tensor<4xi32>
  %5 = garray.min %4, %b : tensor<4xi32>
  // CHECK: return %[[MIN]]
  return %5 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @broadcast_in_dim
// CHECK-SAME: (%[[W:.*]]: tensor<2xf32>, %[[S:.*]]: tensor<1x2xf32>)
func.func @broadcast_in_dim(%w: tensor<2xf32>, %s: tensor<1x2xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>, tensor<3xf32>) {
  // CHECK: garray.broadcast_in_dim %[[W]], dims = [1] : (tensor<2xf32>) -> tensor<8x2xf32>
  %0 = garray.broadcast_in_dim %w, dims = [1] : (tensor<2xf32>) -> tensor<8x2xf32>
  // CHECK: garray.broadcast_in_dim %[[S]], dims = [0, 1] : (tensor<1x2xf32>) -> tensor<8x2xf32>
  %1 = garray.broadcast_in_dim %s, dims = [0, 1] : (tensor<1x2xf32>) -> tensor<8x2xf32>
  %c = garray.constant dense<1.0> : tensor<f32>
  // CHECK: garray.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<3xf32>
  %2 = garray.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<8x2xf32>, tensor<8x2xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @dot_general
// CHECK-SAME: (%[[X:.*]]: tensor<8x2xf32>, %[[W:.*]]: tensor<2xf32>, %[[B:.*]]: tensor<3x4x5xf32>, %[[C:.*]]: tensor<3x5x6xf32>)
func.func @dot_general(%x: tensor<8x2xf32>, %w: tensor<2xf32>, %b: tensor<3x4x5xf32>, %c: tensor<3x5x6xf32>) -> (tensor<8xf32>, tensor<3x4x6xf32>) {
  // CHECK: garray.dot_general %[[X]], %[[W]], batch = [] x [], contracting = [1] x [0] : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
  %0 = garray.dot_general %x, %w, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>
  // CHECK: garray.dot_general %[[B]], %[[C]], batch = [0] x [0], contracting = [2] x [1] : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>
  %1 = garray.dot_general %b, %c, batch = [0] x [0], contracting = [2] x [1]
      : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>
  return %0, %1 : tensor<8xf32>, tensor<3x4x6xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_and_mean
// CHECK-SAME: (%[[X:.*]]: tensor<8x2xf32>)
func.func @reduce_and_mean(%x: tensor<8x2xf32>) -> (tensor<2xf32>, tensor<8x1xf32>, tensor<f32>, tensor<f32>, tensor<2xf32>, tensor<1x2xf32>) {
  // CHECK: garray.reduce <sum> %[[X]], dims = [0] : (tensor<8x2xf32>) -> tensor<2xf32>
  %0 = garray.reduce <sum> %x, dims = [0] : (tensor<8x2xf32>) -> tensor<2xf32>
  // CHECK: garray.reduce <max> %[[X]], dims = [1] keepdims : (tensor<8x2xf32>) -> tensor<8x1xf32>
  %1 = garray.reduce <max> %x, dims = [1] keepdims : (tensor<8x2xf32>) -> tensor<8x1xf32>
  // CHECK: garray.reduce <min> %[[X]], dims = [0, 1] : (tensor<8x2xf32>) -> tensor<f32>
  %2 = garray.reduce <min> %x, dims = [0, 1] : (tensor<8x2xf32>) -> tensor<f32>
  // CHECK: garray.reduce <prod> %[[X]], dims = [1, 0] : (tensor<8x2xf32>) -> tensor<f32>
  %3 = garray.reduce <prod> %x, dims = [1, 0] : (tensor<8x2xf32>) -> tensor<f32>
  // CHECK: garray.mean %[[X]], dims = [0] : (tensor<8x2xf32>) -> tensor<2xf32>
  %4 = garray.mean %x, dims = [0] : (tensor<8x2xf32>) -> tensor<2xf32>
  // CHECK: garray.mean %[[X]], dims = [0] keepdims : (tensor<8x2xf32>) -> tensor<1x2xf32>
  %5 = garray.mean %x, dims = [0] keepdims : (tensor<8x2xf32>) -> tensor<1x2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<8x1xf32>, tensor<f32>, tensor<f32>, tensor<2xf32>, tensor<1x2xf32>
}

// -----

// Every form of #garray.sharding, on function arguments and results. A missing
// trailing entry is not padded: P() stays P(), P(None) stays P(None).

garray.mesh @mesh ["data" = 2, "model" = ?]

// CHECK-LABEL: func.func @sharding_forms
// CHECK-SAME: garray.sharding = #garray.sharding<@mesh, P()>
// CHECK-SAME: garray.sharding = #garray.sharding<@mesh, P(None)>
// CHECK-SAME: garray.sharding = #garray.sharding<@mesh, P(?, None)>
// CHECK-SAME: garray.sharding = #garray.sharding<@mesh, P("data", None)>
// CHECK-SAME: garray.sharding = #garray.sharding<@mesh, P(("data", "model"))>
// CHECK-SAME: garray.sharding = #garray.sharding<@mesh, P("data"?, ?)>
// CHECK-SAME: garray.sharding = #garray.sharding<@mesh, P(("model", "data")?)>
// CHECK-SAME: garray.sharding = #garray.sharding<@mesh, P(None, "model"), unreduced = sum("data")>
// CHECK-SAME: garray.sharding = #garray.sharding<@mesh, P(), unreduced = max("data", "model")>
// CHECK-SAME: garray.sharding = #garray.sharding<@mesh, P(None), unreduced = min("model")>
// CHECK-SAME: -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = prod("data")>})
func.func @sharding_forms(
    %a: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P()>},
    %b: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>},
    %c: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(?, None)>},
    %d: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
    %e: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(("data", "model"))>},
    %f: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data"?, ?)>},
    %g: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(("model", "data")?)>},
    %h: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "model"), unreduced = sum("data")>},
    %i: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = max("data", "model")>},
    %j: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = min("model")>})
    -> (tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = prod("data")>}) {
  return %a : tensor<8xf32>
}

// -----

// The reduction kind may also be written as a string; it prints as a keyword.
garray.mesh @mesh ["data" = 2]

// CHECK-LABEL: func.func @sharding_kind_as_string
// CHECK-SAME: #garray.sharding<@mesh, P(), unreduced = max("data")>
func.func @sharding_kind_as_string(
    %a: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(), unreduced = "max"("data")>}) {
  return
}

// -----

// Shardings in an op's attribute dictionary, and the standalone dim and
// reduction attributes.
garray.mesh @mesh ["data" = 2]

// CHECK-LABEL: func.func @sharding_on_ops
func.func @sharding_on_ops() -> tensor<8xf32> {
  // CHECK: garray.constant {dim = #garray.dim<"data"?>, garray.sharding = #garray.sharding<@mesh, P("data")>, kind = #garray.reduction<max>, open = #garray.dim<?>, whole = #garray.dim<None>}
  %0 = garray.constant {garray.sharding = #garray.sharding<@mesh, P("data")>,
                        dim = #garray.dim<"data"?>, open = #garray.dim<?>, whole = #garray.dim<None>,
                        kind = #garray.reduction<max>} dense<1.0> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// CHECK-LABEL: func.func @placement
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>)
func.func @placement(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // CHECK: %[[C:.*]] = garray.sharding_constraint %[[X]] : tensor<8x4xf32> to #garray.sharding<@mesh, P("data"?, ?)>
  %0 = garray.sharding_constraint %x : tensor<8x4xf32> to #garray.sharding<@mesh, P("data"?, ?)>
  // CHECK: %[[R:.*]] = garray.reshard %[[C]] : tensor<8x4xf32> to #garray.sharding<@mesh, P(None, ("model", "data"))>
  %1 = garray.reshard %0 : tensor<8x4xf32> to #garray.sharding<@mesh, P(None, ("model", "data"))>
  // CHECK: %[[U:.*]] = garray.reshard %[[R]] : tensor<8x4xf32> to #garray.sharding<@mesh, P(), unreduced = sum("model")> {reason = "test"}
  %2 = garray.reshard %1 : tensor<8x4xf32> to #garray.sharding<@mesh, P(), unreduced = sum("model")> {reason = "test"}
  // The qualified form parses too when an attribute dictionary follows it.
  // CHECK: garray.sharding_constraint %[[U]] : tensor<8x4xf32> to #garray.sharding<@mesh, P("model")>
  %3 = garray.sharding_constraint %2 : tensor<8x4xf32> to #garray.sharding<@mesh, P("model")> {}
  return %3 : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// CHECK-LABEL: func.func @collectives
// CHECK-SAME: (%[[P:.*]]: tensor<2xf32>, %[[X:.*]]: tensor<8x4xf32>)
func.func @collectives(%p: tensor<2xf32>, %x: tensor<8x4xf32>) -> (tensor<2xf32>, tensor<8x4xf32>) {
  // CHECK: %[[R:.*]] = garray.all_reduce <sum> %[[P]] on @mesh ["data"] : tensor<2xf32>
  %0 = garray.all_reduce <sum> %p on @mesh ["data"] : tensor<2xf32>
  // CHECK: garray.all_reduce <max> %[[R]] on @mesh ["model", "data"] : tensor<2xf32>
  %1 = garray.all_reduce <max> %0 on @mesh ["model", "data"] : tensor<2xf32>
  // CHECK: %[[G:.*]] = garray.all_gather %[[X]], dim = 0 on @mesh ["data"] : tensor<8x4xf32>
  %2 = garray.all_gather %x, dim = 0 on @mesh ["data"] : tensor<8x4xf32>
  // CHECK: garray.all_slice %[[G]], dim = 1 on @mesh ["data", "model"] : tensor<8x4xf32>
  %3 = garray.all_slice %2, dim = 1 on @mesh ["data", "model"] : tensor<8x4xf32>
  return %1, %3 : tensor<2xf32>, tensor<8x4xf32>
}
