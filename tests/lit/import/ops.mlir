// RUN: shardc import %s | FileCheck %s
// RUN: shardc import %s -o %t.mlir && shardc report %t.mlir | FileCheck %s --check-prefix=REPORT

// The importer's op table on JAX's generic form, op by op: each StableHLO op
// becomes the garray op of the same meaning, bridging the differences
// (scalar operands broadcast, unsorted broadcast dims transposed, a reduce
// with a non-identity init combined afterwards).

// CHECK: garray.mesh @mesh ["data" = 2, "model" = 2]
"builtin.module"() <{sym_name = "jit_ops"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2, "model"=2]>, sym_name = "mesh"}> : () -> ()
  // CHECK-LABEL: func.func @main(
  // CHECK-SAME: garray.name = "params.W", garray.sharding = #garray.sharding<@mesh, P(None, "model")>
  // CHECK-SAME: garray.name = "x.0", garray.sharding = #garray.sharding<@mesh, P("data", ?)>
  // CHECK-SAME: garray.name = "ids"
  // The donated argument's result takes its name and, left open by JAX,
  // its sharding: the state keeps one layout from step to step.
  // CHECK-SAME: -> (tensor<8x4xf32> {garray.name = "params.W", garray.sharding = #garray.sharding<@mesh, P(None, "model")>}, tensor<8x4xf32> {garray.name = "result1"}
  "func.func"() <{arg_attrs = [{tf.aliasing_output = 0 : i32, sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                               {mhlo.layout_mode = "default", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {?}]>},
                               {}],
                  function_type = (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xi32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xi32>, tensor<8xf32>, tensor<8x4xf32>, tensor<8xf32>, tensor<4x2x2xf32>),
                  res_attrs = [{jax.result_info = "result[0]['W']"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}],
                  sym_name = "main"}> ({
  ^bb0(%w: tensor<8x4xf32> loc("params['W']"), %x: tensor<8x4xf32> loc("x[0]"), %ids: tensor<8xi32> loc("ids")):
    // CHECK: garray.add
    %0 = "stablehlo.add"(%w, %x) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    // CHECK: garray.exp
    %1 = "stablehlo.exponential"(%0) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    // A scalar predicate is broadcast.
    // CHECK: %[[P:.*]] = garray.broadcast_in_dim %{{.*}}, dims = [] : (tensor<i1>) -> tensor<8x4xi1>
    // CHECK: garray.select %[[P]]
    %t = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %2 = "stablehlo.select"(%t, %1, %0) : (tensor<i1>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    // CHECK: garray.compare <gt>
    %3 = "stablehlo.compare"(%2, %x) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xi1>
    // CHECK: garray.convert %{{.*}} : (tensor<8x4xi1>) -> tensor<8x4xf32>
    %4 = "stablehlo.convert"(%3) : (tensor<8x4xi1>) -> tensor<8x4xf32>
    // Unsorted broadcast dims: transposed first.
    // CHECK: garray.transpose %{{.*}}, permutation = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
    // CHECK: garray.broadcast_in_dim %{{.*}}, dims = [0, 2] : (tensor<4x8xf32>) -> tensor<4x2x8xf32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64: 2, 0>}> : (tensor<8x4xf32>) -> tensor<4x2x8xf32>
    // CHECK: garray.reduce <max> %{{.*}}, dims = [1]
    %ninf = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %6 = "stablehlo.reduce"(%5, %ninf) <{dimensions = array<i64: 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%m) : (tensor<f32>) -> ()
    }) : (tensor<4x2x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    // A sum whose init is 1, not 0: the init is added afterwards.
    // CHECK: %[[S:.*]] = garray.reduce <sum> %{{.*}}, dims = [0] : (tensor<4x8xf32>) -> tensor<8xf32>
    // CHECK: %[[I:.*]] = garray.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<8xf32>
    // CHECK: garray.add %[[S]], %[[I]]
    %one = "stablehlo.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    %7 = "stablehlo.reduce"(%6, %one) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
    // lax.argmax's NaN-aware two-operand reduce.
    // CHECK: garray.argmax %{{.*}}, dim = 1 : (tensor<8x4xf32>) -> tensor<8xi32>
    %iota = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<8x4xi32>
    %zero = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %8:2 = "stablehlo.reduce"(%2, %iota, %ninf, %zero) <{dimensions = array<i64: 1>}> ({
    ^bb0(%av: tensor<f32>, %ai: tensor<i32>, %bv: tensor<f32>, %bi: tensor<i32>):
      %gt = "stablehlo.compare"(%av, %bv) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %nan = "stablehlo.compare"(%av, %av) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %pv = "stablehlo.or"(%gt, %nan) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %eq = "stablehlo.compare"(%av, %bv) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %lt = "stablehlo.compare"(%ai, %bi) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %tie = "stablehlo.and"(%eq, %lt) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %pi = "stablehlo.or"(%pv, %tie) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %rv = "stablehlo.select"(%pv, %av, %bv) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %ri = "stablehlo.select"(%pi, %ai, %bi) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%rv, %ri) : (tensor<f32>, tensor<i32>) -> ()
    }) : (tensor<8x4xf32>, tensor<8x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>)
    // CHECK: garray.dot_general %{{.*}}, %{{.*}}, batch = [0] x [0], contracting = [2] x [2]
    %9 = "stablehlo.dot_general"(%5, %5) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x2x8xf32>, tensor<4x2x8xf32>) -> tensor<4x2x2xf32>
    // Rows of a table (t[ids]) and the add-scatter of their gradient.
    // CHECK: %[[IDS:.*]] = garray.reshape %{{.*}} : (tensor<8x1xi32>) -> tensor<8xi32>
    // CHECK: garray.gather %{{.*}}[%[[IDS]]] : (tensor<8x4xf32>, tensor<8xi32>) -> tensor<8x4xf32>
    %ids2 = "stablehlo.reshape"(%ids) : (tensor<8xi32>) -> tensor<8x1xi32>
    %10 = "stablehlo.gather"(%w, %ids2) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<8x4xf32>, tensor<8x1xi32>) -> tensor<8x4xf32>
    // CHECK: garray.scatter_add
    %11 = "stablehlo.scatter"(%x, %ids2, %10) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<8x4xf32>, tensor<8x1xi32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    // take_along_axis on the last axis: a one-hot sum, the index clamped.
    // CHECK: garray.clamp
    // CHECK: garray.iota dim = 1 : tensor<8x4xi32>
    // CHECK: garray.compare <eq>
    // CHECK: garray.reduce <sum> %{{.*}}, dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
    %12 = "stablehlo.gather"(%11, %ids2) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<8x4xf32>, tensor<8x1xi32>) -> tensor<8xf32>
    // CHECK: garray.sharding_constraint %{{.*}} : tensor<8x4xf32> to #garray.sharding<@mesh, P("data", "model")>
    %13 = "sdy.sharding_constraint"(%2) <{sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}> : (tensor<8x4xf32>) -> tensor<8x4xf32>
    // optimization_barrier is dropped; private functions and calls are kept.
    // CHECK-NOT: optimization_barrier
    // CHECK: call @helper
    %14 = "stablehlo.optimization_barrier"(%13) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %15 = "func.call"(%14) <{callee = @helper}> : (tensor<8x4xf32>) -> tensor<8x4xf32>
    "func.return"(%0, %15, %8#1, %12, %1, %7, %9) : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xi32>, tensor<8xf32>, tensor<8x4xf32>, tensor<8xf32>, tensor<4x2x2xf32>) -> ()
  }) : () -> ()
  // CHECK-LABEL: func.func private @helper
  // CHECK: garray.tanh
  "func.func"() <{function_type = (tensor<8x4xf32>) -> tensor<8x4xf32>, sym_name = "helper", sym_visibility = "private"}> ({
  ^bb0(%a: tensor<8x4xf32>):
    %0 = "stablehlo.tanh"(%a) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    "func.return"(%0) : (tensor<8x4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// REPORT: collectives on mesh ["data"=2, "model"=2]
