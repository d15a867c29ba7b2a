// RUN: shardc-opt %s -split-input-file --garray-insert-reshards | FileCheck %s
//
// garray-insert-reshards: how pending (unreduced) values pass through the
// elementwise family (each op's PendingFlow in FactorRules.cpp). Only ops
// linear in the pending operand keep it pending; every other op reads the
// reduced value, from one reshard right after the definition.

garray.mesh @mesh ["data" = 2]

// A float quotient of a pending sum stays pending; an integer one does not:
// truncating division is not linear ((4 + 4) / 5 = 1, but 4/5 + 4/5 = 0).
// CHECK-LABEL: func.func @div_float_vs_int
// CHECK: %[[F:.*]] = garray.reduce <sum> {{.*}} : (tensor<8x2xf32>) -> tensor<2xf32>
// CHECK-NOT: garray.reshard %[[F]]
// CHECK: %[[FD:.*]] = garray.div %[[F]], %{{.*}} {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = sum("data")>}
// CHECK: %[[I:.*]] = garray.reduce <sum> {{.*}} : (tensor<8x2xi32>) -> tensor<2xi32>
// CHECK-NEXT: %[[IR:.*]] = garray.reshard %[[I]] : {{.*}} to #garray.sharding<@mesh, P(None)>
// CHECK-SAME: reason = "pending sum over \22data\22 reduced once for its 1 use, since operand #0 of garray.div at {{.*}}.mlir:[[@LINE+11]]:9 needs the whole value"
// CHECK: garray.div %[[IR]], %{{.*}} {garray.sharding = #garray.sharding<@mesh, P(None)>}
func.func @div_float_vs_int(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                            %c: tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>},
                            %i: tensor<8x2xi32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                            %k: tensor<2xi32> {garray.sharding = #garray.sharding<@mesh, P(None)>})
    -> (tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>},
        tensor<2xi32> {garray.sharding = #garray.sharding<@mesh, P(None)>}) {
  %f = garray.reduce <sum> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<8x2xf32>) -> tensor<2xf32>
  %fd = garray.div %f, %c {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  %s = garray.reduce <sum> %i, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<8x2xi32>) -> tensor<2xi32>
  %id = garray.div %s, %k {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xi32>
  return %fd, %id : tensor<2xf32>, tensor<2xi32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Two pending maxima give a pending maximum; two pending minima a pending
// minimum (max/min are associative, NaN included).
// CHECK-LABEL: func.func @max_min_stay_pending
// CHECK-NOT: garray.reshard
// CHECK: %[[M:.*]] = garray.max %{{.*}}, %{{.*}} {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = max("data")>}
// CHECK-NEXT: garray.reshard %[[M]] : {{.*}} to #garray.sharding<@mesh, P(None)>
// CHECK-NOT: garray.reshard
// CHECK: %[[N:.*]] = garray.min %{{.*}}, %{{.*}} {garray.sharding = #garray.sharding<@mesh, P(None), unreduced = min("data")>}
// CHECK-NEXT: garray.reshard %[[N]] : {{.*}} to #garray.sharding<@mesh, P(None)>
func.func @max_min_stay_pending(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>},
        tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>}) {
  %a = garray.reduce <max> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<8x2xf32>) -> tensor<2xf32>
  %b = garray.reduce <max> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<8x2xf32>) -> tensor<2xf32>
  %m = garray.max %a, %b {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  %c = garray.reduce <min> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<8x2xf32>) -> tensor<2xf32>
  %d = garray.reduce <min> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<8x2xf32>) -> tensor<2xf32>
  %n = garray.min %c, %d {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  return %m, %n : tensor<2xf32>, tensor<2xf32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Not linear in a pending sum: compare, select, convert, sign, rem, pow, abs
// and the logical ops each read the reduced value (one reshard per value,
// shared by all of them).
// CHECK-LABEL: func.func @nonlinear_read_reduced
// CHECK: %[[S:.*]] = garray.reduce <sum> {{.*}}unreduced = sum("data")>}
// CHECK-NEXT: %[[R:.*]] = garray.reshard %[[S]] : {{.*}} to #garray.sharding<@mesh, P(None)>
// CHECK-NOT: garray.reshard
// CHECK: garray.compare <gt> %[[R]], %[[R]]
// CHECK: garray.select %{{.*}}, %[[R]], %[[R]]
// CHECK: garray.convert %[[R]] lossy
// CHECK: garray.sign %[[R]]
// CHECK: garray.rem %[[R]], %[[R]]
// CHECK: garray.pow %[[R]], %[[R]]
// CHECK: garray.abs %[[R]]
// CHECK: %[[I:.*]] = garray.reduce <sum> {{.*}}unreduced = sum("data")>}
// CHECK-NEXT: %[[IR:.*]] = garray.reshard %[[I]] : {{.*}} to #garray.sharding<@mesh, P(None)>
// CHECK-NOT: garray.reshard
// CHECK: garray.and %[[IR]], %[[IR]]
// CHECK: garray.not %[[IR]]
func.func @nonlinear_read_reduced(%x: tensor<8x2xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                                  %i: tensor<8x2xi32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>})
    -> (tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>},
        tensor<2xf16> {garray.sharding = #garray.sharding<@mesh, P(None)>},
        tensor<2xf32> {garray.sharding = #garray.sharding<@mesh, P(None)>},
        tensor<2xi32> {garray.sharding = #garray.sharding<@mesh, P(None)>},
        tensor<2xi32> {garray.sharding = #garray.sharding<@mesh, P(None)>}) {
  %s = garray.reduce <sum> %x, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<8x2xf32>) -> tensor<2xf32>
  %m = garray.compare <gt> %s, %s {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %sel = garray.select %m, %s, %s {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %h = garray.convert %s lossy {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<2xf32>) -> tensor<2xf16>
  %g = garray.sign %s {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  %r = garray.rem %s, %s {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  %p = garray.pow %s, %s {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  %a = garray.abs %s {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xf32>
  %t = garray.reduce <sum> %i, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<8x2xi32>) -> tensor<2xi32>
  %and = garray.and %t, %t {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xi32>
  %not = garray.not %t {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xi32>
  return %sel, %h, %a, %and, %not : tensor<2xf32>, tensor<2xf16>, tensor<2xf32>, tensor<2xi32>, tensor<2xi32>
}

// -----

garray.mesh @mesh ["data" = 2]

// Integer sums are linear (two's complement wraps consistently): an i32
// pending sum stays pending through add, neg and mul by a reduced value.
// CHECK-LABEL: func.func @int_linear_ops
// CHECK-NOT: garray.reshard
// CHECK: garray.neg {{.*}}unreduced = sum("data")>}
// CHECK-NOT: garray.reshard
// CHECK: garray.mul {{.*}}unreduced = sum("data")>}
// CHECK-NOT: garray.reshard
// CHECK: garray.add {{.*}}unreduced = sum("data")>}
// CHECK: garray.reshard
// CHECK: return
func.func @int_linear_ops(%i: tensor<8x2xi32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                          %k: tensor<2xi32> {garray.sharding = #garray.sharding<@mesh, P(None)>})
    -> (tensor<2xi32> {garray.sharding = #garray.sharding<@mesh, P(None)>}) {
  %s = garray.reduce <sum> %i, dims = [0] {garray.sharding = #garray.sharding<@mesh, P(None)>} : (tensor<8x2xi32>) -> tensor<2xi32>
  %n = garray.neg %s {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xi32>
  %m = garray.mul %n, %k {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xi32>
  %a = garray.add %m, %s {garray.sharding = #garray.sharding<@mesh, P(None)>} : tensor<2xi32>
  return %a : tensor<2xi32>
}
