// RUN: shardc-opt %s | shardc-opt | FileCheck %s
//
// The syntax GArrayOps.td documents for sharding_constraint and reshard,
//   %h2 = garray.sharding_constraint %h : tensor<8x16xf32> to #garray.sharding<@mesh, P("data", "model")>
// parses and round-trips. (The generic attribute parser would read
// `#garray.sharding<...> : tensor<8x16xf32>` as a typed attribute and eat the
// op's `: type`, failing with "expected ':'" at the end of the line.)

garray.mesh @mesh ["data" = 2, "model" = 2]

// CHECK-LABEL: func.func @documented_form
// CHECK: garray.sharding_constraint %{{.*}} : tensor<8x16xf32> to #garray.sharding<@mesh, P("data", "model")>
// CHECK: garray.reshard %{{.*}} : tensor<8x16xf32> to #garray.sharding<@mesh, P(None, "model")>
func.func @documented_form(%h: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %h2 = garray.sharding_constraint %h : tensor<8x16xf32> to #garray.sharding<@mesh, P("data", "model")>
  %h3 = garray.reshard %h2 : tensor<8x16xf32> to #garray.sharding<@mesh, P(None, "model")>
  return %h3 : tensor<8x16xf32>
}
