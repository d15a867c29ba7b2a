// RUN: shardc-opt %s --mlir-print-op-generic | FileCheck %s
// RUN: shardc-opt %s --mlir-print-op-generic | shardc-opt | FileCheck %s --check-prefix=CUSTOM
//
// Ops with no inherent attribute carry an optional, never-set
// `property_storage` only so that MLIR gives them property storage
// (GArrayOps.td): nothing of it shows in either form, discardable
// attributes stay where they are, and the generic form reads back.

garray.mesh @mesh ["data" = 2]

// CHECK-LABEL: "func.func"
func.func @f(%x: tensor<8x4xf32>, %m: tensor<8x4xi1>, %t: tensor<16x4xf32>,
             %i: tensor<8xi64>) -> tensor<16x4xf32> {
  // CHECK: "garray.add"(%{{.*}}, %{{.*}}) {garray.sharding = #garray.sharding<@mesh, P("data", None)>} :
  %a = garray.add %x, %x {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
  // CHECK: "garray.exp"(%{{.*}}) : (tensor<8x4xf32>)
  %e = garray.exp %a : tensor<8x4xf32>
  // CHECK: "garray.clamp"(%{{.*}}, %{{.*}}, %{{.*}}) :
  %c = garray.clamp %x, %e, %x : tensor<8x4xf32>
  // CHECK: "garray.select"(%{{.*}}, %{{.*}}, %{{.*}}) :
  %s = garray.select %m, %c, %x : (tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  // CHECK: "garray.reshape"(%{{.*}}) :
  %r = garray.reshape %s : (tensor<8x4xf32>) -> tensor<32xf32>
  // CHECK: "garray.gather"(%{{.*}}, %{{.*}}) :
  %g = garray.gather %t[%i] : (tensor<16x4xf32>, tensor<8xi64>) -> tensor<8x4xf32>
  // CHECK: "garray.scatter_add"(%{{.*}}, %{{.*}}, %{{.*}}) :
  %u = garray.scatter_add %t, %i, %g : (tensor<16x4xf32>, tensor<8xi64>, tensor<8x4xf32>) -> tensor<16x4xf32>
  // CHECK-NOT: property_storage
  return %u : tensor<16x4xf32>
}

// CUSTOM: garray.add %{{.*}}, %{{.*}} {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<8x4xf32>
// CUSTOM-NOT: property_storage
