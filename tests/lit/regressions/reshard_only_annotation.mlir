// RUN: shardc-opt %s -split-input-file --garray-propagate | FileCheck %s
// RUN: shardc-opt %s -split-input-file --shardc-global-phase --shardc-propagation-phase --shardc-partition-phase --shardc-local-phase | FileCheck %s --check-prefix=LOCAL
//
// A hand-written garray.reshard is an annotation: a function whose only
// annotation is one is propagated on the reshard's mesh (not left unplaced
// as "no function of this module is annotated"), and global-to-local gives
// the exp after the reshard its local type.

garray.mesh @mesh ["a" = 2]
// CHECK-LABEL: func.func @only_a_reshard
// CHECK-SAME: (%arg0: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>})
// CHECK: garray.exp {{.*}} {garray.sharding = #garray.sharding<@mesh, P("a")>}
// LOCAL-LABEL: func.func @only_a_reshard
// LOCAL-SAME: (%arg0: tensor<8xf32>) -> tensor<4xf32>
// LOCAL: garray.exp {{.*}} : tensor<4xf32>
func.func @only_a_reshard(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = garray.reshard %x : tensor<8xf32> to #garray.sharding<@mesh, P("a")>
  %e = garray.exp %r : tensor<8xf32>
  return %e : tensor<8xf32>
}
