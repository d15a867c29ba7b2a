// RUN: shardc-opt %s --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// explain when a source it follows leads back to a value whose chain it is
// building (a cycle that unbounded recursion would never leave): here the
// call ties, the transposes and the constraint give x1, v0 and v3 each
// other axes. Every value gets its remark.
// CHECK-COUNT-12: remark:
garray.mesh @mesh ["a" = 2, "b" = 2]
func.func private @h0(%a: tensor<8x8xf32>) -> (tensor<8x8xf32>) {
  %e = garray.tanh %a {garray.name = "h0.e"} : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}
func.func @main(%x0: tensor<8x8xf32> {garray.name = "x0"}, %x1: tensor<8x8xf32> {garray.name = "x1"}, %x2: tensor<8x8xf32> {garray.name = "x2", garray.sharding = #garray.sharding<@mesh, P(None, "b"?)>}) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %v0 = call @h0(%x1) {garray.name = "v0"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %v1 = garray.transpose %x1, permutation = [1, 0] {garray.name = "v1"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %v2 = garray.transpose %x1, permutation = [1, 0] {garray.name = "v2"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %v3 = call @h0(%x2) {garray.name = "v3"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %v4 = garray.add %v0, %x0 {garray.name = "v4"} : tensor<8x8xf32>
  %v5 = garray.sharding_constraint %v0 : tensor<8x8xf32> to #garray.sharding<@mesh, P(?, ("b", "a"))> {garray.name = "v5"}
  %v6 = garray.neg %v3 {garray.name = "v6"} : tensor<8x8xf32>
  return %v1, %v2, %v4, %v5, %v6 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

