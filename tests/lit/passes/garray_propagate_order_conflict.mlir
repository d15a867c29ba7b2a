// Conflicts between different ops do not depend on op order
// (docs/propagation.md, "Order independence and idempotence"): %n, used by
// two adds whose other operands are P("model") and P("data"), hears both in
// one wave and keeps their common prefix (nothing), whichever add comes
// first. The defining op's layout holds against a user's (last case).
//
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc-opt %t/first.mlir --garray-propagate | FileCheck %s
// RUN: shardc-opt %t/second.mlir --garray-propagate | FileCheck %s
// RUN: shardc-opt %t/def.mlir --garray-propagate | FileCheck %s --check-prefix=DEF
// CHECK-DAG: garray.name = "n", garray.sharding = #garray.sharding<@mesh, P(None)>
// CHECK-DAG: garray.name = "a", garray.sharding = #garray.sharding<@mesh, P("model")>
// CHECK-DAG: garray.name = "b", garray.sharding = #garray.sharding<@mesh, P("data")>
// DEF: garray.exp {{.*}}garray.sharding = #garray.sharding<@mesh, P(("x", "y"), None)>

//--- first.mlir
garray.mesh @mesh ["data" = 2, "model" = 2]
func.func @f(%n: tensor<8xf32> {garray.name = "n"},
             %y: tensor<8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("model")>},
             %z: tensor<8xf32> {garray.name = "z", garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<8xf32>, tensor<8xf32>) {
  %a = garray.add %n, %y {garray.name = "a"} : tensor<8xf32>
  %b = garray.add %n, %z {garray.name = "b"} : tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

//--- second.mlir
garray.mesh @mesh ["data" = 2, "model" = 2]
func.func @f(%n: tensor<8xf32> {garray.name = "n"},
             %y: tensor<8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("model")>},
             %z: tensor<8xf32> {garray.name = "z", garray.sharding = #garray.sharding<@mesh, P("data")>})
    -> (tensor<8xf32>, tensor<8xf32>) {
  %b = garray.add %n, %z {garray.name = "b"} : tensor<8xf32>
  %a = garray.add %n, %y {garray.name = "a"} : tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

//--- def.mlir
// %e is one op from both the argument and the constraint: it keeps the
// layout exp computes it in, and the constraint permutes it.
garray.mesh @mesh ["x" = 2, "y" = 2]
func.func @f(%X: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P(("x", "y"), None)>}) -> tensor<8x8xf32> {
  %e = garray.exp %X : tensor<8x8xf32>
  %t = garray.sharding_constraint %e : tensor<8x8xf32> to #garray.sharding<@mesh, P(("y", "x"), None)>
  return %t : tensor<8x8xf32>
}
