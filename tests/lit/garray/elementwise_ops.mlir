// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
//
// Parse/print round trip of the elementwise family (GArrayElementwiseOps.td):
// one type when operands and result share it, a function type otherwise;
// both forms parse for every op. (add/sub/.../tanh also appear in ops.mlir.)

// CHECK-LABEL: func.func @unary_float
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>)
func.func @unary_float(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // CHECK: %[[CEIL:.*]] = garray.ceil %[[X]] : tensor<8x4xf32>
  %0 = garray.ceil %x : tensor<8x4xf32>
  // CHECK: %[[COS:.*]] = garray.cos %[[CEIL]] : tensor<8x4xf32>
  %1 = garray.cos %0 : tensor<8x4xf32>
  // CHECK: %[[FLOOR:.*]] = garray.floor %[[COS]] : tensor<8x4xf32>
  %2 = garray.floor %1 : tensor<8x4xf32>
  // CHECK: %[[LOGISTIC:.*]] = garray.logistic %[[FLOOR]] : tensor<8x4xf32>
  %3 = garray.logistic %2 : tensor<8x4xf32>
  // CHECK: %[[RSQRT:.*]] = garray.rsqrt %[[LOGISTIC]] : tensor<8x4xf32>
  %4 = garray.rsqrt %3 : tensor<8x4xf32>
  // CHECK: %[[SIGN:.*]] = garray.sign %[[RSQRT]] : tensor<8x4xf32>
  %5 = garray.sign %4 : tensor<8x4xf32>
  // CHECK: %[[SIN:.*]] = garray.sin %[[SIGN]] : tensor<8x4xf32>
  %6 = garray.sin %5 : tensor<8x4xf32>
  // CHECK: return %[[SIN]]
  return %6 : tensor<8x4xf32>
}

// -----

// CHECK-LABEL: func.func @unary_integer
// CHECK-SAME: (%[[I:.*]]: tensor<4xi32>, %[[P:.*]]: tensor<4xi1>)
func.func @unary_integer(%i: tensor<4xi32>, %p: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xi1>) {
  // CHECK: %[[ABS:.*]] = garray.abs %[[I]] : tensor<4xi32>
  %0 = garray.abs %i : tensor<4xi32>
  // CHECK: %[[SIGN:.*]] = garray.sign %[[ABS]] : tensor<4xi32>
  %1 = garray.sign %0 : tensor<4xi32>
  // CHECK: %[[NOT:.*]] = garray.not %[[SIGN]] : tensor<4xi32>
  %2 = garray.not %1 : tensor<4xi32>
  // CHECK: %[[NOTP:.*]] = garray.not %[[P]] : tensor<4xi1>
  %3 = garray.not %p : tensor<4xi1>
  // CHECK: return %[[NOT]], %[[NOTP]]
  return %2, %3 : tensor<4xi32>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<4xf64>, %[[B:.*]]: tensor<4xf64>, %[[I:.*]]: tensor<4xi64>, %[[P:.*]]: tensor<4xi1>, %[[Q:.*]]: tensor<4xi1>)
func.func @binary(%a: tensor<4xf64>, %b: tensor<4xf64>, %i: tensor<4xi64>, %p: tensor<4xi1>, %q: tensor<4xi1>)
    -> (tensor<4xf64>, tensor<4xi64>, tensor<4xi1>) {
  // CHECK: %[[POW:.*]] = garray.pow %[[A]], %[[B]] : tensor<4xf64>
  %0 = garray.pow %a, %b : tensor<4xf64>
  // CHECK: %[[REM:.*]] = garray.rem %[[POW]], %[[B]] : tensor<4xf64>
  %1 = garray.rem %0, %b : tensor<4xf64>
  // CHECK: %[[IREM:.*]] = garray.rem %[[I]], %[[I]] : tensor<4xi64>
  %2 = garray.rem %i, %i : tensor<4xi64>
  // CHECK: %[[IAND:.*]] = garray.and %[[IREM]], %[[I]] : tensor<4xi64>
  %3 = garray.and %2, %i : tensor<4xi64>
  // CHECK: %[[AND:.*]] = garray.and %[[P]], %[[Q]] : tensor<4xi1>
  %4 = garray.and %p, %q : tensor<4xi1>
  // CHECK: %[[OR:.*]] = garray.or %[[AND]], %[[Q]] : tensor<4xi1>
  %5 = garray.or %4, %q : tensor<4xi1>
  // CHECK: %[[XOR:.*]] = garray.xor %[[OR]], %[[P]] : tensor<4xi1>
  %6 = garray.xor %5, %p : tensor<4xi1>
  // CHECK: %[[MAX:.*]] = garray.max %[[XOR]], %[[P]] : tensor<4xi1>
  %7 = garray.max %6, %p : tensor<4xi1>
  // CHECK: return %[[REM]], %[[IAND]], %[[MAX]]
  return %1, %3, %7 : tensor<4xf64>, tensor<4xi64>, tensor<4xi1>
}

// -----

// A function type whose types all agree prints as the short form.
// CHECK-LABEL: func.func @function_type_form
// CHECK: garray.add %{{.*}}, %{{.*}} : tensor<4xbf16>
// CHECK: garray.exp %{{.*}} : tensor<4xbf16>
func.func @function_type_form(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = garray.add %a, %a : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  %1 = garray.exp %0 : (tensor<4xbf16>) -> tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @compare
// CHECK-SAME: (%[[A:.*]]: tensor<8x4xf16>, %[[B:.*]]: tensor<8x4xf16>, %[[P:.*]]: tensor<8x4xi1>)
func.func @compare(%a: tensor<8x4xf16>, %b: tensor<8x4xf16>, %p: tensor<8x4xi1>)
    -> (tensor<8x4xi1>, tensor<8x4xi1>, tensor<8x4xi1>, tensor<8x4xi1>, tensor<8x4xi1>, tensor<8x4xi1>, tensor<8x4xi1>) {
  // CHECK: garray.compare <eq> %[[A]], %[[B]] : (tensor<8x4xf16>, tensor<8x4xf16>) -> tensor<8x4xi1>
  %0 = garray.compare <eq> %a, %b : (tensor<8x4xf16>, tensor<8x4xf16>) -> tensor<8x4xi1>
  // CHECK: garray.compare <ne> %[[A]], %[[B]]
  %1 = garray.compare <ne> %a, %b : (tensor<8x4xf16>, tensor<8x4xf16>) -> tensor<8x4xi1>
  // CHECK: garray.compare <lt> %[[A]], %[[B]]
  %2 = garray.compare <lt> %a, %b : (tensor<8x4xf16>, tensor<8x4xf16>) -> tensor<8x4xi1>
  // CHECK: garray.compare <le> %[[A]], %[[B]]
  %3 = garray.compare <le> %a, %b : (tensor<8x4xf16>, tensor<8x4xf16>) -> tensor<8x4xi1>
  // CHECK: garray.compare <gt> %[[A]], %[[B]]
  %4 = garray.compare <gt> %a, %b : (tensor<8x4xf16>, tensor<8x4xf16>) -> tensor<8x4xi1>
  // CHECK: garray.compare <ge> %[[A]], %[[B]]
  %5 = garray.compare <ge> %a, %b : (tensor<8x4xf16>, tensor<8x4xf16>) -> tensor<8x4xi1>
  // Comparing booleans: every type is i1, so the short form is printed.
  // CHECK: garray.compare <lt> %[[P]], %[[P]] : tensor<8x4xi1>
  %6 = garray.compare <lt> %p, %p : (tensor<8x4xi1>, tensor<8x4xi1>) -> tensor<8x4xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<8x4xi1>, tensor<8x4xi1>, tensor<8x4xi1>, tensor<8x4xi1>, tensor<8x4xi1>, tensor<8x4xi1>, tensor<8x4xi1>
}

// -----

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[P:.*]]: tensor<8x4xi1>, %[[A:.*]]: tensor<8x4xi32>, %[[B:.*]]: tensor<8x4xi32>)
func.func @select(%p: tensor<8x4xi1>, %a: tensor<8x4xi32>, %b: tensor<8x4xi32>) -> tensor<8x4xi32> {
  // CHECK: %[[S:.*]] = garray.select %[[P]], %[[A]], %[[B]] : (tensor<8x4xi1>, tensor<8x4xi32>, tensor<8x4xi32>) -> tensor<8x4xi32>
  %0 = garray.select %p, %a, %b : (tensor<8x4xi1>, tensor<8x4xi32>, tensor<8x4xi32>) -> tensor<8x4xi32>
  // CHECK: return %[[S]]
  return %0 : tensor<8x4xi32>
}

// -----

// Exact conversions need no marker; lossy ones say `lossy`.
// CHECK-LABEL: func.func @convert
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>, %[[P:.*]]: tensor<4xi1>, %[[H:.*]]: tensor<4xf16>)
func.func @convert(%x: tensor<4xf32>, %i: tensor<4xi32>, %p: tensor<4xi1>, %h: tensor<4xf16>)
    -> (tensor<4xf64>, tensor<4xf64>, tensor<4xi64>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>) {
  // CHECK: garray.convert %[[X]] : (tensor<4xf32>) -> tensor<4xf64>
  %0 = garray.convert %x : (tensor<4xf32>) -> tensor<4xf64>
  // CHECK: garray.convert %[[I]] : (tensor<4xi32>) -> tensor<4xf64>
  %1 = garray.convert %i : (tensor<4xi32>) -> tensor<4xf64>
  // CHECK: garray.convert %[[I]] : (tensor<4xi32>) -> tensor<4xi64>
  %2 = garray.convert %i : (tensor<4xi32>) -> tensor<4xi64>
  // CHECK: garray.convert %[[P]] : (tensor<4xi1>) -> tensor<4xbf16>
  %3 = garray.convert %p : (tensor<4xi1>) -> tensor<4xbf16>
  // CHECK: garray.convert %[[H]] : (tensor<4xf16>) -> tensor<4xf32>
  %4 = garray.convert %h : (tensor<4xf16>) -> tensor<4xf32>
  // CHECK: garray.convert %[[X]] : tensor<4xf32>
  %5 = garray.convert %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: garray.convert %[[X]] lossy : (tensor<4xf32>) -> tensor<4xbf16>
  %6 = garray.convert %x lossy : (tensor<4xf32>) -> tensor<4xbf16>
  // CHECK: garray.convert %[[X]] lossy : (tensor<4xf32>) -> tensor<4xi32>
  %7 = garray.convert %x lossy : (tensor<4xf32>) -> tensor<4xi32>
  // CHECK: garray.convert %[[I]] lossy : (tensor<4xi32>) -> tensor<4xi1>
  %8 = garray.convert %i lossy : (tensor<4xi32>) -> tensor<4xi1>
  // `lossy` is allowed on an exact conversion too.
  // CHECK: garray.convert %[[H]] lossy : (tensor<4xf16>) -> tensor<4xf32>
  %9 = garray.convert %h lossy : (tensor<4xf16>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4xf64>, tensor<4xf64>, tensor<4xi64>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>
}

// -----

// Shardings and other attributes go before the types.
garray.mesh @mesh ["data" = 2]

// CHECK-LABEL: func.func @attributes
// CHECK: garray.compare <lt> %{{.*}}, %{{.*}} {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: garray.convert %{{.*}} lossy {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<4xf32>) -> tensor<4xf16>
func.func @attributes(%a: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xf16>) {
  %0 = garray.compare <lt> %a, %a {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = garray.convert %a lossy {garray.sharding = #garray.sharding<@mesh, P("data")>} : (tensor<4xf32>) -> tensor<4xf16>
  return %0, %1 : tensor<4xi1>, tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @more_unary_and_clamp
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[LO:.*]]: tensor<8x4xf32>, %[[HI:.*]]: tensor<8x4xf32>)
func.func @more_unary_and_clamp(%x: tensor<8x4xf32>, %lo: tensor<8x4xf32>, %hi: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // CHECK: %[[L:.*]] = garray.log1p %[[X]] : tensor<8x4xf32>
  %0 = garray.log1p %x : tensor<8x4xf32>
  // CHECK: %[[E:.*]] = garray.expm1 %[[L]] : tensor<8x4xf32>
  %1 = garray.expm1 %0 : tensor<8x4xf32>
  // CHECK: %[[R:.*]] = garray.round %[[E]] : tensor<8x4xf32>
  %2 = garray.round %1 : tensor<8x4xf32>
  // CHECK: %[[C:.*]] = garray.clamp %[[LO]], %[[R]], %[[HI]] : tensor<8x4xf32>
  %3 = garray.clamp %lo, %2, %hi : tensor<8x4xf32>
  // CHECK: return %[[C]]
  return %3 : tensor<8x4xf32>
}

// -----

// CHECK-LABEL: func.func @bits
// CHECK: garray.shift_left %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK: garray.shift_right_logical %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK: garray.shift_right_arithmetic %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK: garray.bitcast_convert %{{.*}} : (tensor<4xi32>) -> tensor<4xf32>
func.func @bits(%x: tensor<4xi32>, %n: tensor<4xi32>) -> tensor<4xf32> {
  %0 = garray.shift_left %x, %n : tensor<4xi32>
  %1 = garray.shift_right_logical %0, %n : tensor<4xi32>
  %2 = garray.shift_right_arithmetic %1, %n : tensor<4xi32>
  %3 = garray.bitcast_convert %2 : (tensor<4xi32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
