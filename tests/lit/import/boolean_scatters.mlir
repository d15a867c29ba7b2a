// RUN: shardc import %s | FileCheck %s
// RUN: shardc import %s -o %t.mlir && shardc report %t.mlir | FileCheck %s --check-prefix=REPORT

// Max- and min-scatters of booleans (jax.ops.segment_max of a mask,
// `.at[ids].min(flags)`): an OR, or an AND, of each row's updates into the
// base. The updates become i8 (false -128, true 127) and are scattered
// onto the reduction's identity, so that a scatter over a sharded index
// dim stays partial and one all-reduce of a byte per element completes it;
// the rows are then compared with 0 and ORed, or ANDed, into the base.

// CHECK-LABEL: func.func public @main(
"builtin.module"() <{sym_name = "jit_flags"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["data"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                               {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}],
                  function_type = (tensor<12x3xi1>, tensor<12xi32>) -> (tensor<5x3xi1>, tensor<5x3xi1>),
                  sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%on: tensor<12x3xi1>, %seg: tensor<12xi32>):
    %f = "stablehlo.constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
    %none = "stablehlo.broadcast_in_dim"(%f) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<5x3xi1>
    %t = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %all = "stablehlo.broadcast_in_dim"(%t) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<5x3xi1>
    %ids = "stablehlo.broadcast_in_dim"(%seg) <{broadcast_dimensions = array<i64: 0>}> : (tensor<12xi32>) -> tensor<12x1xi32>
    // Out-of-range rows are left out: false for the OR.
    // CHECK: %[[KEEP:.*]] = garray.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<12x3xi1>
    // CHECK: %[[BYTES:.*]] = garray.select %[[KEEP]], %{{.*}}, %{{.*}} : (tensor<12x3xi1>, tensor<12x3xi8>, tensor<12x3xi8>) -> tensor<12x3xi8>
    // CHECK: %[[ID:.*]] = garray.constant dense<-128> : tensor<i8>
    // CHECK: %[[BASE:.*]] = garray.broadcast_in_dim %[[ID]]
    // CHECK: %[[ANY:.*]] = garray.scatter_reduce <max> %[[BASE]], %{{.*}}, %[[BYTES]] : (tensor<5x3xi8>, tensor<12xi32>, tensor<12x3xi8>) -> tensor<5x3xi8>
    // CHECK: %[[HIT:.*]] = garray.compare <gt> %[[ANY]], %{{.*}} : (tensor<5x3xi8>, tensor<5x3xi8>) -> tensor<5x3xi1>
    // CHECK: garray.or %{{.*}}, %[[HIT]] : tensor<5x3xi1>
    %any = "stablehlo.scatter"(%none, %ids, %on) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<i1>, %b: tensor<i1>):
      %m = "stablehlo.or"(%a, %b) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%m) : (tensor<i1>) -> ()
    }) : (tensor<5x3xi1>, tensor<12x1xi32>, tensor<12x3xi1>) -> tensor<5x3xi1>
    // The AND: left-out rows are true, the identity 127.
    // CHECK: garray.constant dense<127> : tensor<i8>
    // CHECK: garray.scatter_reduce <min>
    // CHECK: garray.and %{{.*}}, %{{.*}} : tensor<5x3xi1>
    %every = "stablehlo.scatter"(%all, %ids, %on) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<i1>, %b: tensor<i1>):
      %m = "stablehlo.minimum"(%a, %b) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%m) : (tensor<i1>) -> ()
    }) : (tensor<5x3xi1>, tensor<12x1xi32>, tensor<12x3xi1>) -> tensor<5x3xi1>
    "func.return"(%any, %every) : (tensor<5x3xi1>, tensor<5x3xi1>) -> ()
  }) : () -> ()
}) : () -> ()

// The segments' index dim is split over "data": each scatter is completed
// by one all-reduce of bytes, as XLA moves the booleans.
// REPORT: collectives on mesh ["data"=2]: 2
// REPORT: all_reduce  tensor<5x3xi8> over ["data"] group 2        15 B/device
// REPORT: all_reduce  tensor<5x3xi8> over ["data"] group 2        15 B/device
// REPORT: total 30 B/device per step
