// RUN: split-file --leading-lines %s %t
// RUN: shardc import %t/ok.mlir | FileCheck %s
// RUN: not shardc import %t/bad.mlir 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not shardc import %t/batch_sizes.mlir 2>&1 | FileCheck %s --check-prefix=SIZES
// RUN: not shardc import %t/offsets.mlir 2>&1 | FileCheck %s --check-prefix=OFFSETS
// RUN: not shardc import %t/updates.mlir 2>&1 | FileCheck %s --check-prefix=UPDATES
// RUN: not shardc import %t/result.mlir 2>&1 | FileCheck %s --check-prefix=RESULT
//
// Gathers and scatters that are neither one slice nor rows of dim 0 (see
// compiler/import/GatherRows.h): the indexed dims are moved first and
// flattened into rows of a table; starts that are an iota over the batch
// make batching dims, read as a one-hot sum.

//--- ok.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8x6xf32>, tensor<4x1xi32>, tensor<8xi32>, tensor<5x5xf32>, tensor<3x2xi32>, tensor<3xf32>) -> (tensor<8x4xf32>, tensor<8xf32>, tensor<3xf32>, tensor<5x5xf32>, tensor<8x6xf32>), sym_name = "main"}> ({
  ^bb0(%x: tensor<8x6xf32>, %cols: tensor<4x1xi32>, %labels: tensor<8xi32>, %m: tensor<5x5xf32>, %pairs: tensor<3x2xi32>, %u: tensor<3xf32>):
    // x[:, idx]: rows of x transposed, gathered, transposed back.
    // CHECK: %[[COLS:.*]] = garray.reshape %arg1 : (tensor<4x1xi32>) -> tensor<4xi32>
    // CHECK: %[[XT:.*]] = garray.transpose %arg0, permutation = [1, 0] : (tensor<8x6xf32>) -> tensor<6x8xf32>
    // CHECK: %[[G:.*]] = garray.gather %[[XT]][%[[COLS]]] : (tensor<6x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
    // CHECK: garray.transpose %[[G]], permutation = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %0 = "stablehlo.gather"(%x, %cols) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 8, 1>}> : (tensor<8x6xf32>, tensor<4x1xi32>) -> tensor<8x4xf32>
    %iota = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<8xi32>
    %z = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %zb = "stablehlo.broadcast_in_dim"(%z) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8xi32>
    %neg = "stablehlo.compare"(%iota, %zb) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %n = "stablehlo.constant"() <{value = dense<8> : tensor<i32>}> : () -> tensor<i32>
    %nb = "stablehlo.broadcast_in_dim"(%n) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8xi32>
    %wrapped = "stablehlo.add"(%iota, %nb) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %rowsel = "stablehlo.select"(%neg, %wrapped, %iota) : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %r1 = "stablehlo.broadcast_in_dim"(%rowsel) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xi32>) -> tensor<8x1xi32>
    %l1 = "stablehlo.broadcast_in_dim"(%labels) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xi32>) -> tensor<8x1xi32>
    %idx = "stablehlo.concatenate"(%r1, %l1) <{dimension = 1 : i64}> : (tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x2xi32>
    // logp[jnp.arange(B), labels]: the start along dim 0 is an iota (JAX
    // wraps it as if it could be negative), so dim 0 is a batching dim and
    // the gather a one-hot sum along dim 1 that keeps dim 0 sharded.
    // CHECK: %[[L:.*]] = garray.reshape %{{.*}} : (tensor<8x1xi32>) -> tensor<8xi32>
    // CHECK: %[[LC:.*]] = garray.clamp %{{.*}}, %[[L]], %{{.*}} : tensor<8xi32>
    // CHECK: garray.broadcast_in_dim %[[LC]], dims = [0] : (tensor<8xi32>) -> tensor<8x6xi32>
    // CHECK: garray.select %{{.*}}, %arg0, %{{.*}} : (tensor<8x6xi1>, tensor<8x6xf32>, tensor<8x6xf32>)
    // CHECK: garray.reduce <sum> %{{.*}}, dims = [1] : (tensor<8x6xf32>) -> tensor<8xf32>
    %1 = "stablehlo.gather"(%x, %idx) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<8x6xf32>, tensor<8x2xi32>) -> tensor<8xf32>
    // m[i, j] at pairs of any values: rows i * 5 + j of m flattened, each
    // index clamped into its dim first.
    // CHECK: %[[M:.*]] = garray.reshape %arg3 : (tensor<5x5xf32>) -> tensor<25xf32>
    // CHECK: %[[I:.*]] = garray.clamp %{{.*}} : tensor<3xi32>
    // CHECK: %[[I5:.*]] = garray.mul %[[I]], %{{.*}} : tensor<3xi32>
    // CHECK: %[[J:.*]] = garray.clamp %{{.*}} : tensor<3xi32>
    // CHECK: %[[ROW:.*]] = garray.add %[[I5]], %[[J]] : tensor<3xi32>
    // CHECK: garray.gather %[[M]][%[[ROW]]] : (tensor<25xf32>, tensor<3xi32>) -> tensor<3xf32>
    %2 = "stablehlo.gather"(%m, %pairs) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<5x5xf32>, tensor<3x2xi32>) -> tensor<3xf32>
    // m.at[i, j].add(u): the same rows; a pair outside m adds nothing
    // (StableHLO skips it; garray's scatter_add would clamp it).
    // CHECK-COUNT-2: garray.and %{{.*}}, %{{.*}} : tensor<3xi1>
    // CHECK: %[[FITS:.*]] = garray.and %{{.*}}, %{{.*}} : tensor<3xi1>
    // CHECK: %[[KEPT:.*]] = garray.select %[[FITS]], %arg5, %{{.*}} : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>)
    // CHECK: %[[S:.*]] = garray.scatter_add %{{.*}}, %{{.*}}, %[[KEPT]] : (tensor<25xf32>, tensor<3xi32>, tensor<3xf32>) -> tensor<25xf32>
    // CHECK: garray.reshape %[[S]] : (tensor<25xf32>) -> tensor<5x5xf32>
    %3 = "stablehlo.scatter"(%m, %pairs, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<5x5xf32>, tensor<3x2xi32>, tensor<3xf32>) -> tensor<5x5xf32>
    %ones = "stablehlo.broadcast_in_dim"(%z) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<8xi32>
    %onef = "stablehlo.convert"(%ones) : (tensor<8xi32>) -> tensor<8xf32>
    // zeros.at[jnp.arange(B), labels].set(v): one index per batch row, a
    // select of the one-hot (an out-of-range label matches nothing).
    // CHECK: %[[HOT:.*]] = garray.compare <eq> %{{.*}}, %{{.*}} : (tensor<8x6xi32>, tensor<8x6xi32>) -> tensor<8x6xi1>
    // CHECK: garray.select %[[HOT]], %{{.*}}, %arg0 : (tensor<8x6xi1>, tensor<8x6xf32>, tensor<8x6xf32>)
    // CHECK-NOT: garray.scatter
    %4 = "stablehlo.scatter"(%x, %idx, %onef) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      "stablehlo.return"(%b) : (tensor<f32>) -> ()
    }) : (tensor<8x6xf32>, tensor<8x2xi32>, tensor<8xf32>) -> tensor<8x6xf32>
    "func.return"(%0, %1, %2, %3, %4) : (tensor<8x4xf32>, tensor<8xf32>, tensor<3xf32>, tensor<5x5xf32>, tensor<8x6xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- bad.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<6x13xf32>, tensor<4x2xi32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<6x13xf32>, %i: tensor<4x2xi32>):
    // BAD: bad.mlir:[[@LINE+1]]:10: error: the index dimension numbers must name distinct operand dims in range
    %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [1, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<6x13xf32>, tensor<4x2xi32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- batch_sizes.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<6x13xf32>, tensor<4x1xi32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<6x13xf32>, %i: tensor<4x1xi32>):
    // SIZES: batch_sizes.mlir:[[@LINE+1]]:10: error: the index dimension numbers must name distinct operand dims in range, batching dims of equal sizes in pairs
    %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<6x13xf32>, tensor<4x1xi32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- offsets.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<6x13x5xf32>, tensor<4x1xi32>) -> tensor<4x6x5xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<6x13x5xf32>, %i: tensor<4x1xi32>):
    // OFFSETS: offsets.mlir:[[@LINE+1]]:10: error: the window dims (2) must be increasing positions
    %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 1], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 6, 1, 5>}> : (tensor<6x13x5xf32>, tensor<4x1xi32>) -> tensor<4x6x5xf32>
    "func.return"(%0) : (tensor<4x6x5xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- updates.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<6x13xf32>, tensor<4x2xi32>, tensor<3xf32>) -> tensor<6x13xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<6x13xf32>, %i: tensor<4x2xi32>, %u: tensor<3xf32>):
    // UPDATES: updates.mlir:[[@LINE+1]]:10: error: the scatter's updates 'tensor<3xf32>' do not hold its windows at its indices
    %0 = "stablehlo.scatter"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<6x13xf32>, tensor<4x2xi32>, tensor<3xf32>) -> tensor<6x13xf32>
    "func.return"(%0) : (tensor<6x13xf32>) -> ()
  }) : () -> ()
}) : () -> ()

//--- result.mlir
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<6x13xf32>, tensor<4x2xi32>) -> tensor<4x7xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<6x13xf32>, %i: tensor<4x2xi32>):
    // RESULT: result.mlir:[[@LINE+1]]:10: error: the gather's result type 'tensor<4x7xf32>' is not its operand's windows at its indices ('tensor<4x5xf32>')
    %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 5>}> : (tensor<6x13xf32>, tensor<4x2xi32>) -> tensor<4x7xf32>
    "func.return"(%0) : (tensor<4x7xf32>) -> ()
  }) : () -> ()
}) : () -> ()
