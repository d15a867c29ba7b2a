// RUN: shardc-opt %s -split-input-file --garray-lower-to-linalg | FileCheck %s
//
// garray-lower-to-linalg on the elementwise family: every op is one
// linalg.generic with identity maps (so fusion can merge chains) whose body
// is arith/math only. These cases pin the bodies whose semantics are chosen
// here: no trap and no poison on any input, and i1 ordered false < true.

// CHECK-LABEL: func.func @compare
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4xi1>)
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf une
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf ole
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oge
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi uge, %{{.*}}, %{{.*}} : i1
func.func @compare(%a: tensor<4xf32>, %i: tensor<4xi32>, %p: tensor<4xi1>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = garray.compare <eq> %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = garray.compare <ne> %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = garray.compare <lt> %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %3 = garray.compare <le> %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %4 = garray.compare <gt> %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %5 = garray.compare <ge> %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %6 = garray.compare <lt> %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %7 = garray.compare <ge> %p, %p : tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[P:[^:]+]]: tensor<4xi1>, %[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[P]], %[[A]], %[[B]] : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>)
// CHECK: ^bb0(%[[C:.*]]: i1, %[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.select %[[C]], %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
func.func @select(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = garray.select %p, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x / 0 is -1 and INT_MIN / -1 is INT_MIN (as XLA): the divisor is replaced
// by 1 in both cases, so divsi never traps; rem keeps x when dividing by 0.
// CHECK-LABEL: func.func @int_div_rem
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[M1:.*]] = arith.constant -1 : i32
// CHECK-DAG: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: ^bb0(%[[A:.*]]: i32, %[[B:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[BZ:.*]] = arith.cmpi eq, %[[B]], %[[ZERO]]
// CHECK-NEXT: %[[AMIN:.*]] = arith.cmpi eq, %[[A]], %[[MIN]]
// CHECK-NEXT: %[[BM1:.*]] = arith.cmpi eq, %[[B]], %[[M1]]
// CHECK-NEXT: %[[OV:.*]] = arith.andi %[[AMIN]], %[[BM1]]
// CHECK-NEXT: %[[BAD:.*]] = arith.ori %[[BZ]], %[[OV]]
// CHECK-NEXT: %[[D:.*]] = arith.select %[[BAD]], %[[ONE]], %[[B]]
// CHECK-NEXT: %[[Q:.*]] = arith.divsi %[[A]], %[[D]]
// CHECK-NEXT: %[[R:.*]] = arith.select %[[BZ]], %[[M1]], %[[Q]]
// CHECK-NEXT: linalg.yield %[[R]]
// CHECK: ^bb0(%[[A2:.*]]: i32, %[[B2:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[REM:.*]] = arith.remsi %[[A2]], %{{.*}}
// CHECK-NEXT: %[[R2:.*]] = arith.select %{{.*}}, %[[A2]], %[[REM]]
// CHECK-NEXT: linalg.yield %[[R2]]
func.func @int_div_rem(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = garray.div %a, %b : tensor<4xi32>
  %1 = garray.rem %a, %b : tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// Floats divide and take remainders directly (IEEE: no trap).
// CHECK-LABEL: func.func @float_div_rem_pow
// CHECK: arith.divf
// CHECK: arith.remf
// CHECK: math.powf
func.func @float_div_rem_pow(%a: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = garray.div %a, %a : tensor<4xf64>
  %1 = garray.rem %a, %a : tensor<4xf64>
  %2 = garray.pow %a, %a : tensor<4xf64>
  return %0, %1, %2 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

// -----

// On i1, max is or and min is and (unsigned order); not is xor with true.
// CHECK-LABEL: func.func @bool_ops
// CHECK: arith.maxui %{{.*}}, %{{.*}} : i1
// CHECK: arith.minui %{{.*}}, %{{.*}} : i1
// CHECK: arith.xori %{{.*}}, %true : i1
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : i32
func.func @bool_ops(%p: tensor<4xi1>, %i: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi32>) {
  %0 = garray.max %p, %p : tensor<4xi1>
  %1 = garray.min %p, %p : tensor<4xi1>
  %2 = garray.not %p : tensor<4xi1>
  %3 = garray.max %i, %i : tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi32>
}

// -----

// sign keeps NaN and ±0 (only ordered non-zero values become ±1); on
// integers it is (x > 0) - (x < 0). logistic is 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @sign_logistic
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[NZ:.*]] = arith.cmpf one, %[[X]], %{{.*}} : f32
// CHECK-NEXT: %[[U:.*]] = math.copysign %{{.*}}, %[[X]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.select %[[NZ]], %[[U]], %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: arith.cmpi sgt
// CHECK: arith.cmpi slt
// CHECK: arith.extui
// CHECK: arith.extui
// CHECK: arith.subi
// CHECK: ^bb0(%[[L:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[L]]
// CHECK-NEXT: %[[E:.*]] = math.exp %[[N]]
// CHECK-NEXT: %[[D:.*]] = arith.addf {{.*}}%[[E]]
// CHECK-NEXT: arith.divf %{{.*}}, %[[D]]
func.func @sign_logistic(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) {
  %0 = garray.sign %x : tensor<4xf32>
  %1 = garray.sign %i : tensor<4xi32>
  %2 = garray.logistic %x : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>
}

// -----

// Float to integer saturates and maps NaN to 0, checked in f64 where every
// bound is exact; fptosi only ever sees an in-range value.
// CHECK-LABEL: func.func @convert_float_to_int
// CHECK-DAG: %[[HI:.*]] = arith.constant 0x41E0000000000000 : f64
// CHECK-DAG: %[[LO:.*]] = arith.constant 0xC1E0000000000000 : f64
// CHECK-DAG: %[[IMAX:.*]] = arith.constant 2147483647 : i32
// CHECK-DAG: %[[IMIN:.*]] = arith.constant -2147483648 : i32
// CHECK: ^bb0(%[[X:.*]]: f16, %{{.*}}: i32):
// CHECK-NEXT: %[[D:.*]] = arith.extf %[[X]] : f16 to f64
// CHECK-NEXT: %[[TH:.*]] = arith.cmpf oge, %[[D]], %[[HI]]
// CHECK-NEXT: %[[TL:.*]] = arith.cmpf olt, %[[D]], %[[LO]]
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[D]], %[[D]]
// CHECK-NEXT: %[[O1:.*]] = arith.ori %[[TH]], %[[TL]]
// CHECK-NEXT: %[[O2:.*]] = arith.ori %[[O1]], %[[NAN]]
// CHECK-NEXT: %[[SAFE:.*]] = arith.select %[[O2]], %{{.*}}, %[[D]] : f64
// CHECK-NEXT: %[[I:.*]] = arith.fptosi %[[SAFE]] : f64 to i32
// CHECK-NEXT: %[[S1:.*]] = arith.select %[[TH]], %[[IMAX]], %[[I]]
// CHECK-NEXT: %[[S2:.*]] = arith.select %[[TL]], %[[IMIN]], %[[S1]]
// CHECK-NEXT: linalg.yield %[[S2]]
// To i1: x != 0, with NaN true.
// CHECK: arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i64
func.func @convert_float_to_int(%h: tensor<4xf16>, %x: tensor<4xf32>, %i: tensor<4xi64>)
    -> (tensor<4xi32>, tensor<4xi1>, tensor<4xi1>) {
  %0 = garray.convert %h lossy : (tensor<4xf16>) -> tensor<4xi32>
  %1 = garray.convert %x lossy : (tensor<4xf32>) -> tensor<4xi1>
  %2 = garray.convert %i lossy : (tensor<4xi64>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @convert_plain
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: arith.extui %{{.*}} : i1 to i32
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
// bf16 -> f16 through f32.
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT: arith.truncf %[[W]] : f32 to f16
func.func @convert_plain(%x: tensor<4xf32>, %i: tensor<4xi32>, %p: tensor<4xi1>, %l: tensor<4xi64>, %b: tensor<4xbf16>)
    -> (tensor<4xf64>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi64>, tensor<4xi32>, tensor<4xf16>) {
  %0 = garray.convert %x : (tensor<4xf32>) -> tensor<4xf64>
  %1 = garray.convert %x lossy : (tensor<4xf32>) -> tensor<4xf16>
  %2 = garray.convert %i lossy : (tensor<4xi32>) -> tensor<4xf32>
  %3 = garray.convert %p : (tensor<4xi1>) -> tensor<4xf32>
  %4 = garray.convert %p : (tensor<4xi1>) -> tensor<4xi32>
  %5 = garray.convert %i : (tensor<4xi32>) -> tensor<4xi64>
  %6 = garray.convert %l lossy : (tensor<4xi64>) -> tensor<4xi32>
  %7 = garray.convert %b lossy : (tensor<4xbf16>) -> tensor<4xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf64>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi64>, tensor<4xi32>, tensor<4xf16>
}

// -----

// Into bf16 from f64 (or an integer, through f64): round to odd in f32,
// then round once to bf16, so the result is the single rounding from f64.
// CHECK-LABEL: func.func @convert_to_bf16
// CHECK: ^bb0(%[[X:.*]]: f64, %{{.*}}: bf16):
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[X]] : f64 to f32
// CHECK-NEXT: %[[BACK:.*]] = arith.extf %[[R]] : f32 to f64
// CHECK-NEXT: %[[INEXACT:.*]] = arith.cmpf one, %[[BACK]], %[[X]] : f64
// CHECK-NEXT: %[[AB:.*]] = math.absf %[[BACK]] : f64
// CHECK-NEXT: %[[AX:.*]] = math.absf %[[X]] : f64
// CHECK-NEXT: %[[AWAY:.*]] = arith.cmpf ogt, %[[AB]], %[[AX]] : f64
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %[[R]] : f32 to i32
// CHECK-NEXT: %[[DEC:.*]] = arith.subi %[[BITS]], %{{.*}} : i32
// CHECK-NEXT: %[[TOWARD:.*]] = arith.select %[[AWAY]], %[[DEC]], %[[BITS]] : i32
// CHECK-NEXT: %[[ODD:.*]] = arith.ori %[[TOWARD]], %{{.*}} : i32
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[INEXACT]], %[[ODD]], %[[BITS]] : i32
// CHECK-NEXT: %[[F:.*]] = arith.bitcast %[[SEL]] : i32 to f32
// CHECK-NEXT: %[[B:.*]] = arith.truncf %[[F]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[B]]
// CHECK: arith.sitofp %{{.*}} : i32 to f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// f16 -> bf16: f32 holds f16 exactly, one rounding.
// CHECK: %[[H:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: arith.truncf %[[H]] : f32 to bf16
func.func @convert_to_bf16(%x: tensor<4xf64>, %i: tensor<4xi32>, %h: tensor<4xf16>)
    -> (tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>) {
  %0 = garray.convert %x lossy : (tensor<4xf64>) -> tensor<4xbf16>
  %1 = garray.convert %i lossy : (tensor<4xi32>) -> tensor<4xbf16>
  %2 = garray.convert %h lossy : (tensor<4xf16>) -> tensor<4xbf16>
  return %0, %1, %2 : tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>
}

// -----

// The other unary bodies, one math op each.
// CHECK-LABEL: func.func @math_unary
// CHECK: math.ceil
// CHECK: math.cos
// CHECK: math.floor
// CHECK: math.rsqrt
// CHECK: math.sin
// CHECK: math.absi
func.func @math_unary(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %0 = garray.ceil %x : tensor<4xf32>
  %1 = garray.cos %0 : tensor<4xf32>
  %2 = garray.floor %1 : tensor<4xf32>
  %3 = garray.rsqrt %2 : tensor<4xf32>
  %4 = garray.sin %3 : tensor<4xf32>
  %5 = garray.abs %i : tensor<4xi64>
  return %4, %5 : tensor<4xf32>, tensor<4xi64>
}
