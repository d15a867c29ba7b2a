// RUN: shardc-opt %s -split-input-file --garray-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
//
// explain names an annotation whose axis lost to a stronger round, where
// it stopped (docs/propagation.md, "Explanations"): the value, the
// annotation with the way it came, and the round that placed what holds
// the place instead.
// CHECK lines match the parts of each remark (value, sharding, origin and its location), not its wording.

garray.mesh @mesh ["data" = 2, "model" = 2]

// y's "model" (p1) reaches exp(y) only after x's "data" (p0) came back
// through the add: exp(y) says both. Values beyond it are not repeated.
func.func @stronger(%x: tensor<8x8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data" p0, None)>},
                    %y: tensor<8x8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("model" p1, None)>}) -> tensor<8x8xf32> {
  %a = garray.exp %x : tensor<8x8xf32>
  %b = garray.exp %y : tensor<8x8xf32>
  %s = garray.add %a, %b : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}
// CHECK-LABEL: remark: %arg0 'x' (argument of @stronger)
// CHECK: remark: %arg1 'y' (argument of @stronger): P("model", None) <- {{.*}}argument 'y'{{.*}}P("model" p1, None){{[^"]*$}}
// CHECK: remark: %0 (garray.exp): P("data", None) <- {{.*}}argument 'x' (%arg0){{.*}}P("data" p0, None){{.*}}garray.exp ({{.*}}){{$}}
// CHECK: :[[@LINE-7]]:8: remark: %1 (garray.exp): P("data", None) <- {{.*}}argument 'x' (%arg0){{.*}}P("data" p0, None){{.*}}garray.exp ({{.*}}), garray.add ({{.*}}){{.*}}"model"{{.*}}dim 0{{.*}}argument 'y' (%arg1){{.*}}P("model" p1, None){{.*}}:[[@LINE-9]]:21{{.*}}garray.exp ({{.*}}:[[@LINE-7]]:8){{.*}}dim 0{{.*}}"data"{{.*}}round p0{{.*}}round p1{{[^"]*$}}
// CHECK: remark: %2 (garray.add): P("data", None) <- {{.*}}argument 'x' (%arg0){{.*}}P("data" p0, None){{.*}}garray.exp ({{.*}}), garray.add ({{.*}}){{$}}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// An axis is used once per value: y's "data" on dim 0 stops where x's
// p0 "data" already splits dim 1. x itself is annotated closed on dim 0:
// its own annotation is the reason there, not a round, and it says nothing
// of y.
func.func @used(%x: tensor<8x8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P(None, "data" p0)>},
                %y: tensor<8x8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<8x8xf32> {
  %s = garray.add %x, %y : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}
// CHECK: remark: %arg0 'x' (argument of @used): P(None, "data") <- {{.*}}argument 'x'{{.*}}P(None, "data" p0){{[^"]*$}}
// CHECK: remark: %0 (garray.add): P(None, "data") <- {{.*}}"data"{{.*}}dim 0{{.*}}argument 'y' (%arg1){{.*}}P("data", None){{.*}}garray.add ({{.*}}){{.*}}"data"{{.*}}dim 1{{.*}}round p0{{.*}}last round{{[^"]*$}}

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Two annotations of one round that disagree: a conflict, said as such;
// no round lost, so no "not ..." clause.
func.func @same_round(%x: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("data" p1)>},
                      %y: tensor<8xf32> {garray.sharding = #garray.sharding<@mesh, P("model" p1)>}) -> tensor<8xf32> {
  %s = garray.add %x, %y : tensor<8xf32>
  return %s : tensor<8xf32>
}
// CHECK-NOT: not "
// CHECK: remark: %0 (garray.add): P(None) <- {{.*}}conflict
// CHECK-NOT: not "

// -----

garray.mesh @mesh ["data" = 2, "model" = 2]

// Through a call: the callee's argument is tied to the call's operand, so
// y's "model" (p2) stops at the callee's argument, which x's "data" (p0)
// reached through the other call; the way names the call.
func.func private @g(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e = garray.exp %a : tensor<8xf32>
  return %e : tensor<8xf32>
}
func.func @calls(%x: tensor<8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data" p0)>},
                 %y: tensor<8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P("model" p2)>}) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = func.call @g(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = func.call @g(%y) : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
// CHECK: remark: %arg0 (argument of @g): P("data") <- {{.*}}argument 'x' (%arg0 in @calls){{.*}}P("data" p0){{.*}}func.call ({{.*}}:[[@LINE-4]]:8){{.*}}"model"{{.*}}dim 0{{.*}}argument 'y' (%arg1 in @calls){{.*}}P("model" p2){{.*}}func.call ({{.*}}:[[@LINE-3]]:8){{.*}}dim 0{{.*}}"data"{{.*}}round p0{{.*}}round p2{{[^"]*$}}
