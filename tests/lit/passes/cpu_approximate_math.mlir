// RUN: shardc-opt %s -split-input-file --cpu-approximate-math | FileCheck %s
//
// cpu-approximate-math: f32 exp, tanh, log and log1p become arithmetic; a
// log first scales a subnormal operand by 2^24 (the approximation clamps to
// the smallest normal) and takes 24 ln 2 off the result. f64 stays a call.

// CHECK-LABEL: func.func @log_f32(
// CHECK-SAME: %[[X:.*]]: f32
// CHECK-DAG: %[[TINY:.*]] = arith.constant 1.17549435E-38 : f32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 0x4B800000 : f32
// CHECK-DAG: %[[LN:.*]] = arith.constant 16.6355324 : f32
// CHECK: %[[SUB:.*]] = arith.cmpf olt, %[[X]], %[[TINY]] : f32
// CHECK: %[[MUL:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// CHECK: %[[SEL:.*]] = arith.select %[[SUB]], %[[MUL]], %[[X]] : f32
// CHECK-NOT: math.log
// CHECK: %[[CORR:.*]] = arith.select %[[SUB]], %[[LN]], %{{.*}} : f32
// CHECK: arith.subf %{{.*}}, %[[CORR]] : f32
func.func @log_f32(%x: f32) -> f32 {
  %y = math.log %x : f32
  return %y : f32
}

// -----

// CHECK-LABEL: func.func @others_f32(
// CHECK-NOT: math.{{exp|tanh|log}}
// CHECK: return
func.func @others_f32(%x: vector<8xf32>) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>) {
  %e = math.exp %x : vector<8xf32>
  %t = math.tanh %x : vector<8xf32>
  %p = math.log1p %x : vector<8xf32>
  return %e, %t, %p : vector<8xf32>, vector<8xf32>, vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @f64_stays(
// CHECK: math.log %{{.*}} : f64
// CHECK: math.log1p %{{.*}} : f64
func.func @f64_stays(%x: f64) -> (f64, f64) {
  %l = math.log %x : f64
  %p = math.log1p %x : f64
  return %l, %p : f64, f64
}
