// RUN: shardc-opt %s -split-input-file --garray-lower-to-linalg -verify-diagnostics | FileCheck %s
//
// garray-lower-to-linalg on (local) reductions & indexing ops: gather clamps
// each index then extracts, scatter_add is a loop nest of row updates, iota
// reads linalg.index, compare/select are elementwise generics, reductions on
// i1 are logical. Composites are an error naming garray-decompose.

// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[T:.*]]: tensor<16x8xf32>, %[[I:.*]]: tensor<4xi32>)
// CHECK-DAG: %[[LAST:.*]] = arith.constant 15 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[I]] : tensor<4xi32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: i32, %{{.*}}: f32):
// CHECK: %[[W:.*]] = arith.extsi %[[IN]] : i32 to i64
// CHECK: %[[LO:.*]] = arith.maxsi %[[W]], %[[ZERO]] : i64
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], %[[LAST]] : i64
// CHECK: %[[ROW:.*]] = arith.index_cast %[[HI]] : i64 to index
// CHECK: %[[COL:.*]] = linalg.index 1 : index
// CHECK: %[[V:.*]] = tensor.extract %[[T]][%[[ROW]], %[[COL]]] : tensor<16x8xf32>
// CHECK: linalg.yield %[[V]] : f32
func.func @gather(%t: tensor<16x8xf32>, %i: tensor<4xi32>) -> tensor<4x8xf32> {
  %0 = garray.gather %t[%i] : (tensor<16x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// i1 indices read as 0/1.
// CHECK-LABEL: func.func @gather_bool_index
// CHECK: arith.extui %{{.*}} : i1 to i64
func.func @gather_bool_index(%t: tensor<2xi64>, %i: tensor<3xi1>) -> tensor<3xi64> {
  %0 = garray.gather %t[%i] : (tensor<2xi64>, tensor<3xi1>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// One loop per index dim, carrying the result; each step adds one row into
// its slice in place (the slice is the generic's init).
// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME: (%[[B:.*]]: tensor<16x8xf32>, %[[I:.*]]: tensor<2x2xi64>, %[[U:.*]]: tensor<2x2x8xf32>)
// CHECK: %[[R:.*]] = scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC0:.*]] = %[[B]]) -> (tensor<16x8xf32>)
// CHECK: scf.for %[[Q:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ACC0]]) -> (tensor<16x8xf32>)
// CHECK: %[[IDX:.*]] = tensor.extract %[[I]][%[[P]], %[[Q]]] : tensor<2x2xi64>
// CHECK: %[[LO:.*]] = arith.maxsi %[[IDX]], %{{.*}} : i64
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], %{{.*}} : i64
// CHECK: %[[ROW:.*]] = arith.index_cast %[[HI]] : i64 to index
// CHECK: %[[OLD:.*]] = tensor.extract_slice %[[ACC]][%[[ROW]], 0] [1, 8] [1, 1] : tensor<16x8xf32> to tensor<8xf32>
// CHECK: %[[NEW:.*]] = tensor.extract_slice %[[U]][%[[P]], %[[Q]], 0] [1, 1, 8] [1, 1, 1] : tensor<2x2x8xf32> to tensor<8xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[NEW]] : tensor<8xf32>) outs(%[[OLD]] : tensor<8xf32>)
// CHECK: arith.addf
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[SUM]] into %[[ACC]][%[[ROW]], 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<16x8xf32>
// CHECK: scf.yield %[[INS]] : tensor<16x8xf32>
// CHECK: return %[[R]]
func.func @scatter_add(%b: tensor<16x8xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2x8xf32>) -> tensor<16x8xf32> {
  %0 = garray.scatter_add %b, %i, %u : (tensor<16x8xf32>, tensor<2x2xi64>, tensor<2x2x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// A scalar index into a vector: no loop, one element updated.
// CHECK-LABEL: func.func @scatter_add_scalar
// CHECK-NOT: scf.for
// CHECK: tensor.extract %{{.*}}[] : tensor<i64>
// CHECK: arith.addi
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}] [1] [1] : tensor<i32> into tensor<16xi32>
func.func @scatter_add_scalar(%b: tensor<16xi32>, %i: tensor<i64>, %u: tensor<i32>) -> tensor<16xi32> {
  %0 = garray.scatter_add %b, %i, %u : (tensor<16xi32>, tensor<i64>, tensor<i32>) -> tensor<16xi32>
  return %0 : tensor<16xi32>
}

// -----

// CHECK-LABEL: func.func @iota
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<8x4xi32>)
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[C:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK: linalg.yield %[[C]] : i32
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<8xf32>)
// CHECK: %[[J:.*]] = linalg.index 0 : index
// CHECK: %[[W:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK: %[[F:.*]] = arith.sitofp %[[W]] : i64 to f32
// CHECK: linalg.yield %[[F]] : f32
func.func @iota() -> (tensor<8x4xi32>, tensor<8xf32>) {
  %0 = garray.iota dim = 1 : tensor<8x4xi32>
  %1 = garray.iota dim = 0 : tensor<8xf32>
  return %0, %1 : tensor<8x4xi32>, tensor<8xf32>
}

// -----

// Floats: ordered except ne (unordered: NaN != NaN); ints signed; i1 unsigned.
// CHECK-LABEL: func.func @compare_select
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf une
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi ugt
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
func.func @compare_select(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi32>, %p: tensor<4xi1>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>) {
  %0 = garray.compare <lt> %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = garray.compare <ne> %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = garray.compare <eq> %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %3 = garray.compare <ge> %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %4 = garray.compare <gt> %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %5 = garray.select %0, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>
}

// -----

// On i1, max/sum are or (from false) and min/prod are and (from true), as
// the runtime combines i1 partials; a signed max would rank true below false.
// CHECK-LABEL: func.func @reduce_i1
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK-DAG: %[[FALSE:.*]] = arith.constant false
// CHECK: linalg.fill ins(%[[FALSE]] : i1)
// CHECK: arith.ori
// CHECK: linalg.fill ins(%[[TRUE]] : i1)
// CHECK: arith.andi
// CHECK: linalg.fill ins(%[[FALSE]] : i1)
// CHECK: arith.ori
// CHECK: linalg.fill ins(%[[TRUE]] : i1)
// CHECK: arith.andi
func.func @reduce_i1(%p: tensor<4x2xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = garray.reduce <max> %p, dims = [1] : (tensor<4x2xi1>) -> tensor<4xi1>
  %1 = garray.reduce <min> %p, dims = [1] : (tensor<4x2xi1>) -> tensor<4xi1>
  %2 = garray.reduce <sum> %p, dims = [1] : (tensor<4x2xi1>) -> tensor<4xi1>
  %3 = garray.reduce <prod> %p, dims = [1] : (tensor<4x2xi1>) -> tensor<4xi1>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Composites have no lowering at any type: their counts and indices must be
// fixed on the global program.
func.func @mean(%a: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'garray.mean' is a composite with no direct lowering: run garray-decompose first}}
  %0 = garray.mean %a, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @argmax(%a: tensor<4xf32>) -> tensor<i64> {
  // expected-error @+1 {{'garray.argmax' is a composite with no direct lowering: run garray-decompose first}}
  %0 = garray.argmax %a, dim = 0 : (tensor<4xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @argmin(%a: tensor<4xi32>) -> tensor<i32> {
  // expected-error @+1 {{'garray.argmin' is a composite with no direct lowering: run garray-decompose first}}
  %0 = garray.argmin %a, dim = 0 : (tensor<4xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}
