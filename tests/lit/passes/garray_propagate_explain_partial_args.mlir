// RUN: shardc-opt %s --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// Arguments annotated as partial sums (unreduced): explain quotes the
// annotation with its unreduced part, runs them pending from the start as
// insert-reshards does, and names them as the source of the partial sums
// linear ops pass on: their pending axis is not a ghost from "an earlier
// priority round", the quote keeps "unreduced", and the add of two of them
// is not said to reduce dims it does not have.
// CHECK lines match the parts of each remark (value, sharding, origin and its location), not its wording.

garray.mesh @mesh ["a" = 2, "b" = 2]
// CHECK: remark: %arg0 (argument of @f): P(None) unreduced=sum("a") <- {{.*}}argument #0{{.*}}P(None), unreduced = sum("a"){{.*}}:[[@LINE+4]]:14
// CHECK-NOT: earlier priority round
// CHECK: remark: %0 (garray.add): P(None) <- {{.*}}not split{{.*}}partial result over "a"{{.*}}passes on{{.*}}argument #0 (%arg0){{.*}}P(None), unreduced = sum("a"){{.*}}garray.add ({{.*}}){{.*}}argument #1 (%arg1){{.*}}P(None), unreduced = sum("a"){{.*}}garray.add ({{.*}}){{.*}}insert-reshards
// CHECK: remark: %1 (garray.neg): P(None) <- {{.*}}not split{{.*}}partial result over "a"{{.*}}passes on{{.*}}argument #0 (%arg0)
func.func @f(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("a")>},
             %z: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("a")>}) -> tensor<8xf32> {
  %t = garray.add %x, %z : tensor<8xf32>
  %n = garray.neg %t : tensor<8xf32>
  return %n : tensor<8xf32>
}
