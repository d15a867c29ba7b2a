// RUN: shardc import %s | FileCheck %s
//
// More positions at a start known only when running than one-hot sums are
// built for (64): the dim is moved to the front and its rows gathered.

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<6x200xf32>, tensor<i32>) -> (tensor<6x100xf32>, tensor<6x200xf32>), sym_name = "main"}> ({
  ^bb0(%x: tensor<6x200xf32>, %i: tensor<i32>):
    %z = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    // A slice of 100 columns: rows clamp(i, 0, 100) + iota of the
    // transposed table.
    // CHECK: %[[S:.*]] = garray.clamp %{{.*}}, %arg1, %{{.*}} : tensor<i32>
    // CHECK: %[[IOTA:.*]] = garray.iota dim = 0 : tensor<100xi32>
    // CHECK: %[[AT:.*]] = garray.add %[[IOTA]], %{{.*}} : tensor<100xi32>
    // CHECK: %[[T:.*]] = garray.transpose %arg0, permutation = [1, 0]
    // CHECK: %[[G:.*]] = garray.gather %[[T]][%[[AT]]] : (tensor<200x6xf32>, tensor<100xi32>) -> tensor<100x6xf32>
    // CHECK: garray.transpose %[[G]], permutation = [1, 0] {{.*}} -> tensor<6x100xf32>
    %0 = "stablehlo.dynamic_slice"(%x, %z, %i) <{slice_sizes = array<i64: 6, 100>}> : (tensor<6x200xf32>, tensor<i32>, tensor<i32>) -> tensor<6x100xf32>
    // 70 columns put at a runtime start: column j takes the update's
    // column clamp(j - start, 0, 69), kept where start <= j < start + 70.
    // CHECK: %[[U:.*]] = garray.slice %arg0, start = [0, 0], limit = [6, 70]
    // CHECK: garray.clamp %{{.*}}, %arg1, %{{.*}} : tensor<i32>
    // CHECK: garray.iota dim = 0 : tensor<200xi32>
    // CHECK: %[[ROWS:.*]] = garray.clamp {{.*}} : tensor<200xi32>
    // CHECK: %[[UT:.*]] = garray.transpose %[[U]], permutation = [1, 0]
    // CHECK: garray.gather %[[UT]][%[[ROWS]]] : (tensor<70x6xf32>, tensor<200xi32>) -> tensor<200x6xf32>
    // CHECK: garray.select
    %u = "stablehlo.slice"(%x) <{start_indices = array<i64: 0, 0>, limit_indices = array<i64: 6, 70>, strides = array<i64: 1, 1>}> : (tensor<6x200xf32>) -> tensor<6x70xf32>
    %1 = "stablehlo.dynamic_update_slice"(%x, %u, %z, %i) : (tensor<6x200xf32>, tensor<6x70xf32>, tensor<i32>, tensor<i32>) -> tensor<6x200xf32>
    "func.return"(%0, %1) : (tensor<6x100xf32>, tensor<6x200xf32>) -> ()
  }) : () -> ()
}) : () -> ()
