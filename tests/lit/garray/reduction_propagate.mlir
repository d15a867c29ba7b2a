// RUN: shardc-opt %s -split-input-file --garray-propagate | FileCheck %s
// RUN: shardc-opt %s -split-input-file --garray-propagate --garray-insert-reshards \
// RUN:   | FileCheck %s --check-prefix=RESHARD
//
// The factor rules of the reductions & indexing ops, seen through
// garray-propagate (what each rule lets flow) and garray-insert-reshards
// (what each rule demands: whole dims, pending partials).

garray.mesh @mesh ["data" = 2, "model" = 2]

// gather ([V,t],[b,c])->([b,c,t]) replicated={V}: index dims and the table's
// trailing dim flow into the result.
// CHECK-LABEL: func.func @gather
// CHECK: garray.gather {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None, "model")>}
// RESHARD-LABEL: func.func @gather
// RESHARD-NOT: garray.reshard
// RESHARD: garray.gather
func.func @gather(%t: tensor<16x8xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
                  %i: tensor<4x2xi64> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<4x2x8xf32> {
  %0 = garray.gather %t[%i] : (tensor<16x8xf32>, tensor<4x2xi64>) -> tensor<4x2x8xf32>
  return %0 : tensor<4x2x8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// The table's row dim V must be whole: its split does not flow, and the table
// is gathered before the lookup.
// CHECK-LABEL: func.func @gather_rows_whole
// CHECK-SAME: %{{[^:]+}}: tensor<4xi64> {garray.sharding = #garray.sharding<@mesh, P(None)>}
// CHECK: garray.gather {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, None)>}
// RESHARD-LABEL: func.func @gather_rows_whole
// RESHARD: %[[T:.*]] = garray.reshard %arg0 : {{.*}} to #garray.sharding<@mesh, P(None, None)> {{.*}}reason = "layout for the op's factor rule{{[^(;]*}}(operand #0 of garray.gather
// RESHARD: garray.gather %[[T]][%arg1]
func.func @gather_rows_whole(%t: tensor<16x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                             %i: tensor<4xi64>) -> tensor<4x8xf32> {
  %0 = garray.gather %t[%i] : (tensor<16x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// scatter_add with a zero base: the index positions are a sum-reduction
// factor. Split over "data", each device adds its rows: the result is a
// pending sum, reduced once for the function result.
// CHECK-LABEL: func.func @scatter_zero_base
// CHECK-SAME: %{{[^:]+}}: tensor<8xi64> {garray.sharding = #garray.sharding<@mesh, P("data")>}
// CHECK: garray.scatter_add {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "model")>}
// RESHARD-LABEL: func.func @scatter_zero_base
// RESHARD: %[[S:.*]] = garray.scatter_add {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "model"), unreduced = sum("data")>}
// RESHARD: garray.reshard %[[S]] : {{.*}} to #garray.sharding<@mesh, P(None, "model")> {{.*}}reason = "pending sum over \22data\22 reduced once
func.func @scatter_zero_base(%i: tensor<8xi64>,
                             %u: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}) -> tensor<16x4xf32> {
  %z = garray.constant dense<0.0> : tensor<16x4xf32>
  %0 = garray.scatter_add %z, %i, %u : (tensor<16x4xf32>, tensor<8xi64>, tensor<8x4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Any other base would be counted once per device by a pending sum: the
// index positions stay whole (garray-decompose splits such ops first).
// CHECK-LABEL: func.func @scatter_base_whole
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>}
// RESHARD-LABEL: func.func @scatter_base_whole
// RESHARD: %[[I:.*]] = garray.reshard %arg1 : {{.*}} to #garray.sharding<@mesh, P(None)>
// RESHARD: garray.scatter_add %arg0, %[[I]], %arg2 {garray.sharding = #garray.sharding<@mesh, P(None, None)>}
func.func @scatter_base_whole(%b: tensor<16x4xf32>,
                              %i: tensor<8xi64> {garray.sharding = #garray.sharding<@mesh, P("data")>},
                              %u: tensor<8x4xf32>) -> tensor<16x4xf32> {
  %0 = garray.scatter_add %b, %i, %u : (tensor<16x4xf32>, tensor<8xi64>, tensor<8x4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// iota: every dim is parallel; it takes its user's layout.
// CHECK-LABEL: func.func @iota
// CHECK: garray.iota dim = 1 {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}
func.func @iota(%x: tensor<8x4xi64> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}) -> tensor<8x4xi64> {
  %i = garray.iota dim = 1 : tensor<8x4xi64>
  %0 = garray.add %i, %x : tensor<8x4xi64>
  return %0 : tensor<8x4xi64>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// argmax's own rule (before decomposition) keeps the reduced dim whole: an
// index is never summed or maxed.
// CHECK-LABEL: func.func @argmax
// CHECK: garray.argmax {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data")>}
// RESHARD-LABEL: func.func @argmax
// RESHARD: %[[X:.*]] = garray.reshard %arg0 : {{.*}} to #garray.sharding<@mesh, P("data", None)>
// RESHARD: garray.argmax %[[X]], dim = 1 {garray.sharding = #garray.sharding<@mesh, P("data")>}
func.func @argmax(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}) -> tensor<8xi64> {
  %0 = garray.argmax %x, dim = 1 : (tensor<8x4xf32>) -> tensor<8xi64>
  return %0 : tensor<8xi64>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// A weighted mean's operands share their factors; undecomposed, the reduced
// dim stays whole (sum(x*w)/sum(w) is not linear in partials).
// CHECK-LABEL: func.func @weighted_mean
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "model")>}
// CHECK: garray.mean {{.*}} {garray.sharding = #garray.sharding<@mesh, P("model")>}
// RESHARD-LABEL: func.func @weighted_mean
// RESHARD: %[[X:.*]] = garray.reshard %arg0 : {{.*}} to #garray.sharding<@mesh, P(None, "model")>
// RESHARD: garray.mean %[[X]], dims = [0] weights %arg1 {garray.sharding = #garray.sharding<@mesh, P("model")>}
func.func @weighted_mean(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
                         %w: tensor<8x4xf32>) -> tensor<4xf32> {
  %0 = garray.mean %x, dims = [0] weights %w : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// compare and select are elementwise; a pending operand is reduced first.
// CHECK-LABEL: func.func @compare_select
// CHECK: garray.compare <lt> {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data")>}
// CHECK: garray.select {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data")>}
// RESHARD-LABEL: func.func @compare_select
// RESHARD: %[[S:.*]] = garray.reduce <sum> {{.*}}unreduced = sum("model")
// RESHARD: %[[R:.*]] = garray.reshard %[[S]] : {{.*}} to #garray.sharding<@mesh, P("data")> {{.*}}reason = "pending sum over \22model\22 reduced once for its 1 use, since operand #0 of garray.compare
// RESHARD: garray.compare <lt> %[[R]]
func.func @compare_select(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>},
                          %b: tensor<8xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %s = garray.reduce <sum> %x, dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
  %m = garray.compare <lt> %s, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %0 = garray.select %m, %b, %c : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Linear in the table: a gather of a pending sum of tables is the pending
// sum of the gathers; one all-reduce, on the (smaller) result.
// RESHARD-LABEL: func.func @gather_pending_table
// RESHARD: %[[T:.*]] = garray.reduce <sum> {{.*}}unreduced = sum("data")
// RESHARD-NOT: garray.reshard %[[T]]
// RESHARD: %[[G:.*]] = garray.gather %[[T]][%arg1] {garray.sharding = #garray.sharding<@mesh, P(None, None), unreduced = sum("data")>}
// RESHARD: garray.reshard %[[G]] : {{.*}} to #garray.sharding<@mesh, P(None, None)>
func.func @gather_pending_table(%x: tensor<2x16x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>},
                                %i: tensor<4xi64>) -> tensor<4x8xf32> {
  %t = garray.reduce <sum> %x, dims = [0] : (tensor<2x16x8xf32>) -> tensor<16x8xf32>
  %0 = garray.gather %t[%i] : (tensor<16x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// With a zero base, linear in the updates: pending updates stay pending.
// RESHARD-LABEL: func.func @scatter_pending_updates
// RESHARD: %[[U:.*]] = garray.reduce <sum> {{.*}}unreduced = sum("data")
// RESHARD-NOT: garray.reshard %[[U]]
// RESHARD: %[[S:.*]] = garray.scatter_add %{{.*}}, %arg0, %[[U]] {garray.sharding = #garray.sharding<@mesh, P(None, None), unreduced = sum("data")>}
// RESHARD: garray.reshard %[[S]] : {{.*}} to #garray.sharding<@mesh, P(None, None)>
func.func @scatter_pending_updates(%i: tensor<4xi64>,
                                   %v: tensor<2x4x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None, None)>}) -> tensor<16x8xf32> {
  %u = garray.reduce <sum> %v, dims = [0] : (tensor<2x4x8xf32>) -> tensor<4x8xf32>
  %z = garray.constant dense<0.0> : tensor<16x8xf32>
  %0 = garray.scatter_add %z, %i, %u : (tensor<16x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// scatter_reduce: a max of partial maxima would need the identity as every
// device's base, so the index positions stay whole; trailing dims shard.
// CHECK-LABEL: func.func @scatter_reduce_whole
// CHECK: garray.scatter_reduce <max> {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "model")>}
// RESHARD-LABEL: func.func @scatter_reduce_whole
// RESHARD: %[[U:.*]] = garray.reshard %arg2 : {{.*}} to #garray.sharding<@mesh, P(None, "model")>
// RESHARD: garray.scatter_reduce <max> %arg0, %{{.*}}, %[[U]] {garray.sharding = #garray.sharding<@mesh, P(None, "model")>}
func.func @scatter_reduce_whole(%b: tensor<16x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
                                %i: tensor<8xi64> {garray.sharding = #garray.sharding<@mesh, P("data")>},
                                %u: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}) -> tensor<16x4xf32> {
  %0 = garray.scatter_reduce <max> %b, %i, %u : (tensor<16x4xf32>, tensor<8xi64>, tensor<8x4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Onto its identity (segment_max's -inf base), the index positions are a
// max-reduction factor: split over "data", each device combines its rows
// and the result is a pending max, reduced once for the function result.
// CHECK-LABEL: func.func @scatter_reduce_identity_base
// CHECK: garray.scatter_reduce <max> {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "model")>}
// RESHARD-LABEL: func.func @scatter_reduce_identity_base
// RESHARD: %[[S:.*]] = garray.scatter_reduce <max> {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "model"), unreduced = max("data")>}
// RESHARD: garray.reshard %[[S]] : {{.*}} to #garray.sharding<@mesh, P(None, "model")>
func.func @scatter_reduce_identity_base(%i: tensor<8xi64>,
                                        %u: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}) -> tensor<16x4xf32> {
  %z = garray.constant dense<0xFF800000> : tensor<16x4xf32>
  %0 = garray.scatter_reduce <max> %z, %i, %u : (tensor<16x4xf32>, tensor<8xi64>, tensor<8x4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// A product onto ones (segment_prod's base) likewise leaves a pending
// product.
// RESHARD-LABEL: func.func @scatter_prod_identity_base
// RESHARD: %[[S:.*]] = garray.scatter_reduce <prod> {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "model"), unreduced = prod("data")>}
// RESHARD: garray.reshard %[[S]] : {{.*}} to #garray.sharding<@mesh, P(None, "model")>
func.func @scatter_prod_identity_base(%i: tensor<8xi64>,
                                      %u: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}) -> tensor<16x4xf32> {
  %one = garray.constant dense<1.0> : tensor<16x4xf32>
  %0 = garray.scatter_reduce <prod> %one, %i, %u : (tensor<16x4xf32>, tensor<8xi64>, tensor<8x4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}
