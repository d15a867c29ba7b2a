// RUN: shardc-opt %s | shardc-opt | FileCheck %s
//
// FIXED: the syntax GArrayOps.td documents for sharding_constraint,
//   %h2 = garray.sharding_constraint %h : tensor<8x16xf32> to #garray.sharding<@mesh, P("data", "model")>
// does not parse: "error: expected ':'" at the end of the line. The generic
// attribute parser reads `#garray.sharding<...> : tensor<8x16xf32>` as a typed
// attribute and eats the op's `: type`. Only the stripped form `to <@mesh, ...>`
// (what the printer prints) or the qualified form followed by an attribute
// dictionary parse. Same for garray.reshard. Expected: the documented form
// parses (or the documentation shows the form that does).

garray.mesh @mesh ["data" = 2, "model" = 2]

// CHECK-LABEL: func.func @documented_form
// CHECK: garray.sharding_constraint %{{.*}} : tensor<8x16xf32> to #garray.sharding<@mesh, P("data", "model")>
// CHECK: garray.reshard %{{.*}} : tensor<8x16xf32> to #garray.sharding<@mesh, P(None, "model")>
func.func @documented_form(%h: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %h2 = garray.sharding_constraint %h : tensor<8x16xf32> to #garray.sharding<@mesh, P("data", "model")>
  %h3 = garray.reshard %h2 : tensor<8x16xf32> to #garray.sharding<@mesh, P(None, "model")>
  return %h3 : tensor<8x16xf32>
}
