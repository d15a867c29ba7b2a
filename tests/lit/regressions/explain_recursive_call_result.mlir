// RUN: shardc-opt %s --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// A call result is explained through what its callee returns. When the
// callee returns a call of itself, that is said once (not "as @r returns it
// (...): as @r returns it (...): ..."), and the recursive call's own result
// is not explained as returning itself.

garray.mesh @mesh ["a" = 2, "b" = 2]
func.func private @r(%p: tensor<8x8xf32>, %q: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = garray.exp %p : tensor<8x8xf32>
  // CHECK: remark: %1 (func.call): P(None, None) <- no annotation reaches it: replicated
  %c = call @r(%q, %e) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}
func.func @main(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("a", None)>},
                %y: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // CHECK: remark: %0 (func.call): P(None, None) <- as @r returns it (%1 in @r, one sharding per signature): no annotation reaches it: replicated
  %1 = call @r(%x, %y) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
