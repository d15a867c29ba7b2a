// RUN: shardc-opt %s --comm-widen-narrow-reductions | FileCheck %s
//
// 16-bit integer reductions run on 32-bit integers (NCCL has no 16-bit
// integer type); the low 16 bits are the 16-bit result. Other types and
// data movement are left alone.

// CHECK-LABEL: func.func @narrow
func.func @narrow(%x: tensor<4xi16>, %y: tensor<8xi16>, %f: tensor<4xf16>, %b: tensor<4xi8>)
    -> (tensor<4xi16>, tensor<4xi16>, tensor<4xf16>, tensor<4xi8>, tensor<16xi16>) {
  // CHECK: %[[W:.*]] = garray.convert %arg0 : (tensor<4xi16>) -> tensor<4xi32>
  // CHECK: %[[S:.*]] = comm.all_reduce <sum> %[[W]] groups = {{\[\[0, 1\]\]}} : tensor<4xi32> -> tensor<4xi32>
  // CHECK: %[[N:.*]] = garray.convert %[[S]] lossy : (tensor<4xi32>) -> tensor<4xi16>
  %s = comm.all_reduce <sum> %x groups = [[0, 1]] : tensor<4xi16> -> tensor<4xi16>
  // CHECK: %[[W2:.*]] = garray.convert %arg1 : (tensor<8xi16>) -> tensor<8xi32>
  // CHECK: %[[R:.*]] = comm.reduce_scatter <max> %[[W2]], dim = 0 groups = {{\[\[0, 1\]\]}} : tensor<8xi32> -> tensor<4xi32>
  // CHECK: %[[M:.*]] = garray.convert %[[R]] lossy : (tensor<4xi32>) -> tensor<4xi16>
  %m = comm.reduce_scatter <max> %y, dim = 0 groups = [[0, 1]] : tensor<8xi16> -> tensor<4xi16>
  // CHECK: comm.all_reduce <sum> %arg2 {{.*}} : tensor<4xf16> -> tensor<4xf16>
  %h = comm.all_reduce <sum> %f groups = [[0, 1]] : tensor<4xf16> -> tensor<4xf16>
  // CHECK: comm.all_reduce <min> %arg3 {{.*}} : tensor<4xi8> -> tensor<4xi8>
  %i = comm.all_reduce <min> %b groups = [[0, 1]] : tensor<4xi8> -> tensor<4xi8>
  // CHECK: comm.all_gather %arg1, dim = 0 {{.*}} : tensor<8xi16> -> tensor<16xi16>
  %g = comm.all_gather %y, dim = 0 groups = [[0, 1]] : tensor<8xi16> -> tensor<16xi16>
  // CHECK: return %[[N]], %[[M]]
  return %s, %m, %h, %i, %g : tensor<4xi16>, tensor<4xi16>, tensor<4xf16>, tensor<4xi8>, tensor<16xi16>
}
