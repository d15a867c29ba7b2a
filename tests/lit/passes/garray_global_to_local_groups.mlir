// RUN: shardc-opt %s -split-input-file --shardc-propagation-phase --shardc-partition-phase --shardc-local-phase | FileCheck %s
// RUN: shardc-opt %s -split-input-file --shardc-propagation-phase --shardc-partition-phase --shardc-local-phase --shardc-lowering-phase "--one-shot-bufferize=bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s --check-prefix=BUF
//
// Sharding groups belong to the global program: global-to-local removes
// them with the shardings, also in a function nothing placed. Kept, they
// reached bufferization on a second public function, where a group on a
// memref argument failed the dialect's check that groups tie tensors.

garray.mesh @mesh ["data" = 2]
func.func @main(%w: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>}) -> tensor<8xf32> {
  %s = garray.neg %w : tensor<8xf32>
  return %s : tensor<8xf32>
}
func.func @eval(%w: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>, garray.sharding_group = 1 : i64},
                %m: tensor<8xf32> {garray.sharding_group = 1 : i64}) -> tensor<8xf32> {
  %s = garray.mul %w, %m {garray.sharding_group = 2 : i64} : tensor<8xf32>
  return %s : tensor<8xf32>
}
// CHECK-LABEL: func.func @eval
// CHECK-NOT: sharding_group
// CHECK: return
// BUF-LABEL: func.func @eval
// BUF-SAME: memref<4xf32>

// -----

// No annotation reaches this function: nothing is placed, and its groups
// go too.
func.func @unplaced(%w: tensor<8xf32> {garray.sharding_group = 1 : i64},
                    %m: tensor<8xf32> {garray.sharding_group = 1 : i64}) -> tensor<8xf32> {
  %s = garray.mul %w, %m {garray.sharding_group = 2 : i64} : tensor<8xf32>
  return %s : tensor<8xf32>
}
// CHECK-LABEL: func.func @unplaced
// CHECK-NOT: sharding_group
// CHECK: return
// BUF-LABEL: func.func @unplaced
// BUF-SAME: memref<8xf32>
