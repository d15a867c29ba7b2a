// RUN: split-file --leading-lines %s %t
// RUN: shardc import %t/scan.mlir | FileCheck %s --implicit-check-not=garray.clamp --implicit-check-not=garray.gather
// RUN: shardc import %t/columns.mlir | FileCheck %s --check-prefix=COLUMNS
// RUN: not shardc import %t/too_big.mlir 2>&1 | FileCheck %s --check-prefix=BIG
//
// What lax.scan and its gradient leave once unrolled: rows read at
// `n - 1 - i` (a reversed scan's index, constant only after folding) and
// rows written one by one into zeros. The reads are static slices, the
// writes one concatenation of the rows, and a row read back from it is
// the row written there; no mask passes over the stacked array. A row
// written into an argument keeps the masked form (a concatenation would
// need that dim whole on every device, wherever the argument is sharded).

//--- scan.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<3x4xf32>, tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<1x4xf32>, tensor<3x4xf32>), sym_name = "main"}> ({
  ^bb0(%xs: tensor<3x4xf32>, %w: tensor<3x4xf32>):
    %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %ys0 = "stablehlo.broadcast_in_dim"(%zero) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x4xf32>
    %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %r:2 = "stablehlo.while"(%c0, %ys0) ({
    ^bb0(%i: tensor<i32>, %ys: tensor<3x4xf32>):
      %n = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
      %lt = "stablehlo.compare"(%i, %n) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%lt) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %ys: tensor<3x4xf32>):
      // t = 3 - i - 1, then wrapped as jnp does a negative index.
      %n = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
      %one = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %a = "stablehlo.subtract"(%n, %i) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %t0 = "stablehlo.subtract"(%a, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %z = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %neg = "stablehlo.compare"(%t0, %z) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %wrapped = "stablehlo.add"(%t0, %n) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %t = "stablehlo.select"(%neg, %wrapped, %t0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      %row = "stablehlo.dynamic_slice"(%xs, %t, %z) <{slice_sizes = array<i64: 1, 4>}> : (tensor<3x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
      %y = "stablehlo.tanh"(%row) : (tensor<1x4xf32>) -> tensor<1x4xf32>
      %ys1 = "stablehlo.dynamic_update_slice"(%ys, %y, %t, %z) : (tensor<3x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<3x4xf32>
      %i1 = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%i1, %ys1) : (tensor<i32>, tensor<3x4xf32>) -> ()
    }) : (tensor<i32>, tensor<3x4xf32>) -> (tensor<i32>, tensor<3x4xf32>)
    %one = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %back = "stablehlo.dynamic_slice"(%r#1, %one, %c0) <{slice_sizes = array<i64: 1, 4>}> : (tensor<3x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %two = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %set = "stablehlo.dynamic_update_slice"(%w, %back, %two, %c0) : (tensor<3x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<3x4xf32>
    "func.return"(%r#1, %back, %set) : (tensor<3x4xf32>, tensor<1x4xf32>, tensor<3x4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// CHECK-LABEL: func.func @main
// Rows 2, 1, 0 of xs, each a static slice.
// CHECK-DAG: %[[X2:.*]] = garray.slice %arg0, start = [2, 0], limit = [3, 4]
// CHECK-DAG: %[[X1:.*]] = garray.slice %arg0, start = [1, 0], limit = [2, 4]
// CHECK-DAG: %[[X0:.*]] = garray.slice %arg0, start = [0, 0], limit = [1, 4]
// CHECK-DAG: %[[Y2:.*]] = garray.tanh %[[X2]]
// CHECK-DAG: %[[Y1:.*]] = garray.tanh %[[X1]]
// CHECK-DAG: %[[Y0:.*]] = garray.tanh %[[X0]]
// The stacked rows: one concatenation of the three rows, in place order.
// CHECK: %[[YS:.*]] = garray.concatenate %[[Y0]], %[[Y1]], %[[Y2]], dim = 0
// The masked form only for the row written into the argument.
// CHECK: %[[SET:.*]] = garray.select
// Row 1 read back is the row written there.
// CHECK: return %[[YS]], %[[Y1]], %[[SET]]

//--- columns.mlir
// A column written into zeros is not a scan's row (dim 1, not 0): masked.
// COLUMNS-NOT: garray.concatenate
// COLUMNS: garray.pad
// COLUMNS: garray.select
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<3x1xf32>) -> tensor<3x4xf32>, sym_name = "main"}> ({
  ^bb0(%u: tensor<3x1xf32>):
    %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %c2 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %z = "stablehlo.broadcast_in_dim"(%zero) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x4xf32>
    %r = "stablehlo.dynamic_update_slice"(%z, %u, %c0, %c2) : (tensor<3x4xf32>, tensor<3x1xf32>, tensor<i32>, tensor<i32>) -> tensor<3x4xf32>
    "func.return"(%r) : (tensor<3x4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- too_big.mlir
// BIG: too_big.mlir:[[@LINE+7]]:{{[0-9]+}}: error: the update's dim 0 has 5 positions, more than the operand's 3
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<5x4xf32>) -> tensor<3x4xf32>, sym_name = "main"}> ({
  ^bb0(%u: tensor<5x4xf32>):
    %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %z = "stablehlo.broadcast_in_dim"(%zero) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3x4xf32>
    %r = "stablehlo.dynamic_update_slice"(%z, %u, %c0, %c0) : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<i32>, tensor<i32>) -> tensor<3x4xf32>
    "func.return"(%r) : (tensor<3x4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
