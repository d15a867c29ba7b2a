// RUN: shardc-opt %s -split-input-file --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
// RUN: shardc-opt %s -split-input-file --garray-propagate --garray-insert-reshards | FileCheck %s --check-prefix=RESHARD
//
// What a user reads when annotations meet: a dot whose operands split the
// contracted dim by different axes makes no partial sum (both are
// gathered), and the reshard of each operand names the other operand's
// split; a whole call result is a cause for its users; an op that reads a
// value twice proposes once; two slots of one op that share a reshard for
// one cause name the second by its place only.
// CHECK lines match the parts of each remark (value, sharding, origin and its location), not its wording.

garray.mesh @mesh ["data" = 2, "model" = 2]
func.func @dot_rivals(
    %a: tensor<8x16xf32> {garray.sharding = #garray.sharding<@mesh, P(None, "data")>},
    %b: tensor<16x4xf32> {garray.sharding = #garray.sharding<@mesh, P("model", None)>}) -> tensor<8x4xf32> {
  // CHECK: remark: %0 (garray.dot_general): P(None, None) <- {{.*}}operand #0 P(None, "data"), operand #1 P("model", None){{.*}}dims it reduces{{.*}}operand #0 by "data", operand #1 by "model"{{.*}}gathered
  // CHECK-NOT: partial result
  // RESHARD-LABEL: func.func @dot_rivals
  // RESHARD: garray.reshard %arg1 {{.*}}reason = "layout for the op's factor rule: the op is not split by \22model\22, which this operand's dim 0 holds; operand #0 splits the same factor (its dim 1) by \22data\22 (operand #1
  // RESHARD: garray.reshard %arg0 {{.*}}reason = "layout for the op's factor rule: the op is not split by \22data\22, which this operand's dim 1 holds; operand #1 splits the same factor (its dim 0) by \22model\22 (operand #0
  %c = garray.dot_general %a, %b, batch = [] x [], contracting = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]
func.func private @h(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e = garray.exp %a : tensor<8xf32>
  return %e : tensor<8xf32>
}
func.func @whole_call_result(
    %x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data")>},
    %y: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("model")>}) -> tensor<8xf32> {
  %u = func.call @h(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %v = func.call @h(%y) : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: remark: %2 (garray.add): P(None) <- {{.*}}whole like %0 (func.call{{.*}}1 op away{{.*}}garray.add ({{.*}}){{.*}}@h{{.*}}whole{{.*}}%0 in @h
  %w = garray.add %u, %v : tensor<8xf32>
  return %w : tensor<8xf32>
}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]
func.func @square(%x: tensor<8x8xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> tensor<8x8xf32> {
  // CHECK: remark: %0 (garray.exp): P("data", None) <- {{.*}}conflicting proposals{{.*}}P("data", None) from garray.exp ({{[^)]*}}), P("model", None) from garray.mul ({{[^)]*}}){{$}}
  %e = garray.exp %x : tensor<8x8xf32>
  // RESHARD-LABEL: func.func @square
  // RESHARD: reason = "layout for the op's factor rule: the op is not split by \22data\22, which this operand's dim 0 holds (operand #0 of garray.mul at {{[^;]*}}); also for operand #1 of garray.mul at {{[^;,]*}}, the same cause"
  %m = garray.mul %e, %e {garray.sharding = #garray.sharding<@mesh, P("model", None)>} : tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}
