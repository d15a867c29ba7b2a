// RUN: shardc-opt %s --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// A hand-written reshard is an op the user wrote to a layout, not an
// annotation of a result: explain says it is "written to" that layout.
// CHECK lines match the parts of each remark (value, sharding, origin and its location), not its wording.

garray.mesh @mesh ["data" = 2]
// CHECK: remark: %0 (garray.reshard): P("data") <- {{.*}}garray.reshard{{.*}}written to{{.*}}P("data"){{.*}}reshard.mlir:[[@LINE+3]]:8
// CHECK: remark: %1 (garray.exp): P("data") <- {{.*}}garray.reshard (%0){{.*}}written to{{.*}}P("data"){{.*}}reshard.mlir:[[@LINE+2]]:8{{.*}}garray.exp
func.func @written_reshard(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = garray.reshard %x : tensor<8xf32> to #garray.sharding<@mesh, P("data")>
  %e = garray.exp %r : tensor<8xf32>
  return %e : tensor<8xf32>
}
