// RUN: shardc import %s | FileCheck %s --check-prefix=IMPORT
// RUN: shardc run %s | FileCheck %s --check-prefix=VALUES
//
// stablehlo.select_and_scatter (max pooling's gradient) as window taps: the
// spec's sequential selection (the first valid position, then a later one
// whenever select(selected, candidate) fails), each tap's share of the
// source put back by an interior pad, the padding cut, the init added.
// JAX pads max pooling's operand itself, so the padded and the swapped-
// compare forms are checked here, by value.
//
// [1, 3, 3, -2, 5], windows of 3 every 2, padding 1 each side, source
// [10, 20, 30], init 0.5:
//   GE (keep the selected unless a later one is larger): the first of the
//   tied 3s takes both windows that hold them;
//   y < x with the arguments swapped, i.e. selected > candidate: ties move
//   to the later position.
// [-4, -6, -1], windows of 2 every 2, padding 1 before: the first window is
// [pad, -4]; the padding is never selected, so -4 takes source 1.
// Windows that do not overlap (stride >= window) are interleaved rather
// than padded and summed: windows of 2 every 3, source [10, 20], init 0,
// over [1, 5, 2, 0, 3, 4, 9] (the windows stop short of the end) and over
// [7, 5, 2, 6, 6] (the last gap runs past it; the tied 6s: the first).
//
// IMPORT-LABEL: func.func @main
// Which positions of the padded operand are real:
// IMPORT: garray.pad {{.*}} : (tensor<5xi1>, tensor<i1>) -> tensor<7xi1>
// IMPORT: garray.compare <ge> {{.*}} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
// VALUES: result0 = [0.5, 30.5, 0.5, 0.5, 30.5]
// VALUES: result1 = [0.5, 10.5, 20.5, 0.5, 30.5]
// VALUES: result2 = [1, 0, 2]
// VALUES: result3 = [0, 10, 0, 0, 20, 0, 0]
// VALUES: result4 = [10, 0, 0, 20, 0]
"builtin.module"() ({
  "func.func"() <{function_type = () -> (tensor<5xf32>, tensor<5xf32>, tensor<3xf32>, tensor<7xf32>, tensor<5xf32>), sym_name = "main"}> ({
    %a = "stablehlo.constant"() <{value = dense<[1.0, 3.0, 3.0, -2.0, 5.0]> : tensor<5xf32>}> : () -> tensor<5xf32>
    %s = "stablehlo.constant"() <{value = dense<[10.0, 20.0, 30.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %z = "stablehlo.constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %0 = "stablehlo.select_and_scatter"(%a, %s, %z) <{window_dimensions = array<i64: 3>, window_strides = array<i64: 2>, padding = dense<[[1, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %c = "stablehlo.compare"(%x, %y) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %t = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) : (tensor<5xf32>, tensor<3xf32>, tensor<f32>) -> tensor<5xf32>
    %1 = "stablehlo.select_and_scatter"(%a, %s, %z) <{window_dimensions = array<i64: 3>, window_strides = array<i64: 2>, padding = dense<[[1, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %c = "stablehlo.compare"(%y, %x) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %t = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) : (tensor<5xf32>, tensor<3xf32>, tensor<f32>) -> tensor<5xf32>
    %b = "stablehlo.constant"() <{value = dense<[-4.0, -6.0, -1.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %s2 = "stablehlo.constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %z2 = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %2 = "stablehlo.select_and_scatter"(%b, %s2, %z2) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>, padding = dense<[[1, 0]]> : tensor<1x2xi64>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %c = "stablehlo.compare"(%x, %y) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %t = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) : (tensor<3xf32>, tensor<2xf32>, tensor<f32>) -> tensor<3xf32>
    %c7 = "stablehlo.constant"() <{value = dense<[1.0, 5.0, 2.0, 0.0, 3.0, 4.0, 9.0]> : tensor<7xf32>}> : () -> tensor<7xf32>
    %c5 = "stablehlo.constant"() <{value = dense<[7.0, 5.0, 2.0, 6.0, 6.0]> : tensor<5xf32>}> : () -> tensor<5xf32>
    %s3 = "stablehlo.constant"() <{value = dense<[10.0, 20.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %3 = "stablehlo.select_and_scatter"(%c7, %s3, %z2) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 3>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %c = "stablehlo.compare"(%x, %y) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %t = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) : (tensor<7xf32>, tensor<2xf32>, tensor<f32>) -> tensor<7xf32>
    %4 = "stablehlo.select_and_scatter"(%c5, %s3, %z2) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 3>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %c = "stablehlo.compare"(%x, %y) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %t = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) : (tensor<5xf32>, tensor<2xf32>, tensor<f32>) -> tensor<5xf32>
    "func.return"(%0, %1, %2, %3, %4) : (tensor<5xf32>, tensor<5xf32>, tensor<3xf32>, tensor<7xf32>, tensor<5xf32>) -> ()
  }) : () -> ()
}) : () -> ()
