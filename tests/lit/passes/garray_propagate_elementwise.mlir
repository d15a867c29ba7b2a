// RUN: shardc-opt %s -split-input-file --garray-propagate -verify-diagnostics | FileCheck %s
//
// garray-propagate through the elementwise family. Every elementwise op has
// the rule ([i,j],...,[i,j])->([i,j]): operands and result share one factor
// per dimension, whatever their element types, so a split on any dimension
// reaches every operand and the result, forward and backward.

garray.mesh @mesh ["data" = 2]

// Forward through every unary op, the split on dim 0.
// CHECK-LABEL: func.func @unary_forward
// CHECK-SAME: -> (tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}, tensor<8x4xi32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
// CHECK: garray.abs {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.ceil {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.cos {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.exp {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.floor {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.log {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.logistic {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.neg {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.rsqrt {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.sign {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.sin {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.sqrt {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.tanh {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
// CHECK: garray.not {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
func.func @unary_forward(%x: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                         %i: tensor<8x4xi32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<8x4xf32>, tensor<8x4xi32>) {
  %0 = garray.abs %x : tensor<8x4xf32>
  %1 = garray.ceil %0 : tensor<8x4xf32>
  %2 = garray.cos %1 : tensor<8x4xf32>
  %3 = garray.exp %2 : tensor<8x4xf32>
  %4 = garray.floor %3 : tensor<8x4xf32>
  %5 = garray.log %4 : tensor<8x4xf32>
  %6 = garray.logistic %5 : tensor<8x4xf32>
  %7 = garray.neg %6 : tensor<8x4xf32>
  %8 = garray.rsqrt %7 : tensor<8x4xf32>
  %9 = garray.sign %8 : tensor<8x4xf32>
  %10 = garray.sin %9 : tensor<8x4xf32>
  %11 = garray.sqrt %10 : tensor<8x4xf32>
  %12 = garray.tanh %11 : tensor<8x4xf32>
  %13 = garray.not %i : tensor<8x4xi32>
  return %12, %13 : tensor<8x4xf32>, tensor<8x4xi32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Binary ops, the split on dim 1 of the lhs: the unannotated rhs arguments
// take it too (backward), and so does every result.
// CHECK-LABEL: func.func @binary_both_ways
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xi32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xi32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
// CHECK: garray.pow {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
// CHECK: garray.rem {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
// CHECK: garray.max {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
// CHECK: garray.div {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
// CHECK: garray.and {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
// CHECK: garray.or {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
// CHECK: garray.xor {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
func.func @binary_both_ways(%a: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>},
                            %b: tensor<8x4xf32>,
                            %i: tensor<8x4xi32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>},
                            %j: tensor<8x4xi32>) -> (tensor<8x4xf32>, tensor<8x4xi32>) {
  %0 = garray.pow %a, %b : tensor<8x4xf32>
  %1 = garray.rem %0, %b : tensor<8x4xf32>
  %2 = garray.max %1, %a : tensor<8x4xf32>
  %3 = garray.div %i, %j : tensor<8x4xi32>
  %4 = garray.and %3, %j : tensor<8x4xi32>
  %5 = garray.or %4, %j : tensor<8x4xi32>
  %6 = garray.xor %5, %j : tensor<8x4xi32>
  return %2, %6 : tensor<8x4xf32>, tensor<8x4xi32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// compare, select and convert change element types, not factors: the rows'
// "data" and the columns' "model" pass from the f32 operands to the i1 mask,
// through select, and on to the bf16 result.
// CHECK-LABEL: func.func @compare_select_convert
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}
// CHECK: garray.compare <lt> {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xi1>
// CHECK: garray.select {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", "model")>}
// CHECK: garray.convert {{.*}} lossy {garray.sharding = #garray.sharding<@mesh, P("data", "model")>} : (tensor<8x4xf32>) -> tensor<8x4xbf16>
func.func @compare_select_convert(%a: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                                  %b: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(?, "model")>})
    -> tensor<8x4xbf16> {
  %m = garray.compare <lt> %a, %b : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xi1>
  %s = garray.select %m, %a, %b : (tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %c = garray.convert %s lossy : (tensor<8x4xf32>) -> tensor<8x4xbf16>
  return %c : tensor<8x4xbf16>
}

// -----

garray.mesh @mesh ["data" = 2]

// Backward across element types: a declared result split reaches the i1
// predicate and the i32 branches of select, and the f64 source of convert.
// CHECK-LABEL: func.func @backward_across_types
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xi1> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xf64> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
// CHECK-SAME: %{{[^:]+}}: tensor<8x4xi32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
// CHECK: garray.convert {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "data")>} : (tensor<8x4xf64>) -> tensor<8x4xi32>
// CHECK: garray.select {{.*}} {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}
func.func @backward_across_types(%p: tensor<8x4xi1>, %x: tensor<8x4xf64>, %y: tensor<8x4xi32>)
    -> (tensor<8x4xi32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>}) {
  %c = garray.convert %x lossy : (tensor<8x4xf64>) -> tensor<8x4xi32>
  %s = garray.select %p, %c, %y : (tensor<8x4xi1>, tensor<8x4xi32>, tensor<8x4xi32>) -> tensor<8x4xi32>
  return %s : tensor<8x4xi32>
}

// -----

garray.mesh @mesh ["data" = 2]

// A closed replicated operand does not stop the split (it is sliced later);
// the result keeps the common layout of the operands that have one.
// CHECK-LABEL: func.func @closed_operand
// CHECK: garray.sub {{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>}
func.func @closed_operand(%a: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                          %b: tensor<8x4xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>})
    -> tensor<8x4xf32> {
  %0 = garray.sub %a, %b : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
