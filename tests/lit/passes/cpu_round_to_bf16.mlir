// RUN: shardc-opt %s -split-input-file --cpu-round-to-bf16 | FileCheck %s
//
// cpu-round-to-bf16: f32 -> bf16 roundings become integer code whose NaN
// case is chosen on the i32 bits, between two computed values; the
// result is bf16 only after the truncation.

// CHECK-LABEL: func.func @vector
// CHECK-SAME: (%[[X:.*]]: vector<8xf32>)
// CHECK-DAG: %[[ABS:.*]] = arith.constant dense<2147483647> : vector<8xi32>
// CHECK-DAG: %[[INF:.*]] = arith.constant dense<2139095040> : vector<8xi32>
// CHECK-DAG: %[[SIXTEEN:.*]] = arith.constant dense<16> : vector<8xi32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1> : vector<8xi32>
// CHECK-DAG: %[[BIAS:.*]] = arith.constant dense<32767> : vector<8xi32>
// CHECK-DAG: %[[QUIET:.*]] = arith.constant dense<4194304> : vector<8xi32>
// CHECK: %[[BITS:.*]] = arith.bitcast %[[X]] : vector<8xf32> to vector<8xi32>
// CHECK: %[[MAG:.*]] = arith.andi %[[BITS]], %[[ABS]]
// CHECK: %[[NAN:.*]] = arith.cmpi ugt, %[[MAG]], %[[INF]]
// CHECK: %[[SHIFTED:.*]] = arith.shrui %[[BITS]], %[[SIXTEEN]]
// CHECK: %[[LSB:.*]] = arith.andi %[[SHIFTED]], %[[ONE]]
// CHECK: %[[ADD:.*]] = arith.addi %[[LSB]], %[[BIAS]]
// CHECK: %[[ROUNDED:.*]] = arith.addi %[[BITS]], %[[ADD]]
// CHECK: %[[QUIETED:.*]] = arith.ori %[[BITS]], %[[QUIET]]
// CHECK: %[[CHOSEN:.*]] = arith.select %[[NAN]], %[[QUIETED]], %[[ROUNDED]] : vector<8xi1>, vector<8xi32>
// CHECK: %[[HIGH:.*]] = arith.shrui %[[CHOSEN]], %[[SIXTEEN]]
// CHECK: %[[NARROW:.*]] = arith.trunci %[[HIGH]] : vector<8xi32> to vector<8xi16>
// CHECK: %[[R:.*]] = arith.bitcast %[[NARROW]] : vector<8xi16> to vector<8xbf16>
// CHECK-NOT: arith.truncf
// CHECK: return %[[R]]
func.func @vector(%x: vector<8xf32>) -> vector<8xbf16> {
  %r = arith.truncf %x : vector<8xf32> to vector<8xbf16>
  return %r : vector<8xbf16>
}

// -----

// CHECK-LABEL: func.func @scalar
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
func.func @scalar(%x: f32) -> bf16 {
  %r = arith.truncf %x : f32 to bf16
  return %r : bf16
}

// -----

// Other roundings are left alone: to f16 (x86 has an instruction), from
// f64, and any rounding mode but the default.
// CHECK-LABEL: func.func @others
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.truncf %{{.*}} : f64 to bf16
// CHECK: arith.truncf %{{.*}} toward_zero : f32 to bf16
// CHECK-NOT: arith.bitcast
func.func @others(%x: f32, %y: f64) -> (f16, bf16, bf16) {
  %h = arith.truncf %x : f32 to f16
  %b = arith.truncf %y : f64 to bf16
  %z = arith.truncf %x toward_zero : f32 to bf16
  return %h, %b, %z : f16, bf16, bf16
}
