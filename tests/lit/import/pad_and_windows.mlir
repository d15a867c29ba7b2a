// RUN: shardc import %s | FileCheck %s
//
// stablehlo.pad beyond garray.pad: interior padding (each element its own
// row, an edge pad of the row, merged back, the trailing copies cut) and a
// negative edge (a slice); reduce_window as strided slices combined with
// the body's op.

// CHECK-LABEL: func.func @main
// Interior padding of 1 on [4]: [4, 1] -> [4, 2] -> [8] -> [7].
// CHECK: garray.reshape {{.*}} -> tensor<4x1xf32>
// CHECK: garray.pad {{.*}} low = [0, 0], high = [0, 1]
// CHECK: garray.reshape {{.*}} -> tensor<8xf32>
// CHECK: garray.slice {{.*}} start = [0], limit = [7]
// A negative low edge cuts, a positive high one pads.
// CHECK: garray.slice {{.*}} start = [1], limit = [7]
// CHECK: garray.pad {{.*}} low = [0], high = [2]
// reduce_window max of 2, stride 2, over [8]: taps [0:8:2] and [1:8:2].
// CHECK: garray.slice {{.*}} start = [0], limit = [7], strides = [2]
// CHECK: garray.slice {{.*}} start = [1], limit = [8], strides = [2]
// CHECK: garray.max
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<4xf32> loc("a")):
    %z = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %ninf = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %0 = "stablehlo.pad"(%a, %z) <{edge_padding_high = array<i64: 2>, edge_padding_low = array<i64: -1>, interior_padding = array<i64: 1>}> : (tensor<4xf32>, tensor<f32>) -> tensor<8xf32>
    %1 = "stablehlo.reduce_window"(%0, %ninf) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %m = "stablehlo.maximum"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%m) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>, tensor<f32>) -> tensor<4xf32>
    "func.return"(%1) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
