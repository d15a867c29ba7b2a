// RUN: shardc-opt %s -split-input-file --cpu-merge-identical-functions | FileCheck %s
//
// cpu-merge-identical-functions: private functions with the same type,
// attributes and body (locations aside) become the first of them; every
// call names it. Functions that differ in any op, constant or type stay;
// declarations of the runtime are never merged, dispatch declarations are
// once they name the same parallel body.

// CHECK-LABEL: func.func @main
// CHECK: call @k0(%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT: call @k0(%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT: call @k2(%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT: call @k3(%{{.*}}) : (memref<8xf32>) -> ()
// CHECK: func.func private @k0(
// CHECK-NOT: func.func private @k1(
// CHECK: func.func private @k2(
// CHECK: func.func private @k3(
func.func @main(%a: memref<8xf32>) {
  call @k0(%a) : (memref<8xf32>) -> ()
  call @k1(%a) : (memref<8xf32>) -> ()
  call @k2(%a) : (memref<8xf32>) -> ()
  call @k3(%a) : (memref<8xf32>) -> ()
  return
}
// k1 is k0 at another location.
func.func private @k0(%a: memref<8xf32>) attributes {shardc.outlined_nest} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    %w = math.tanh %v : f32
    memref.store %w, %a[%i] : memref<8xf32>
  }
  return
}
func.func private @k1(%a: memref<8xf32>) attributes {shardc.outlined_nest} {
  %c0 = arith.constant 0 : index loc("elsewhere.py":3:4)
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    %w = math.tanh %v : f32 loc("elsewhere.py":5:6)
    memref.store %w, %a[%i] : memref<8xf32>
  }
  return
}
// A different op.
func.func private @k2(%a: memref<8xf32>) attributes {shardc.outlined_nest} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    %w = math.exp %v : f32
    memref.store %w, %a[%i] : memref<8xf32>
  }
  return
}
// A different constant (the loop bound).
func.func private @k3(%a: memref<8xf32>) attributes {shardc.outlined_nest} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 4 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    %w = math.tanh %v : f32
    memref.store %w, %a[%i] : memref<8xf32>
  }
  return
}

// -----

// The same values used in another order are another function.
// CHECK-LABEL: func.func @operand_order
// CHECK: call @s0(
// CHECK-NEXT: call @s1(
func.func @operand_order(%a: memref<8xf32>, %b: memref<8xf32>) {
  call @s0(%a, %b) : (memref<8xf32>, memref<8xf32>) -> ()
  call @s1(%a, %b) : (memref<8xf32>, memref<8xf32>) -> ()
  return
}
func.func private @s0(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<8xf32>
  %y = memref.load %b[%c0] : memref<8xf32>
  %d = arith.subf %x, %y : f32
  memref.store %d, %a[%c0] : memref<8xf32>
  return
}
func.func private @s1(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<8xf32>
  %y = memref.load %b[%c0] : memref<8xf32>
  %d = arith.subf %y, %x : f32
  memref.store %d, %a[%c0] : memref<8xf32>
  return
}

// -----

// Two chunk functions of parallel loops that are the same merge; then
// their dispatch declarations name the same body, and merge too. The
// runtime's declarations, alike in type, stay apart.
// CHECK-LABEL: func.func @dispatches
// CHECK: call @f_par0_dispatch(
// CHECK-NEXT: call @f_par0_dispatch(
// CHECK-NEXT: call @shardrt_a(
// CHECK-NEXT: call @shardrt_b(
// CHECK-DAG: func.func private @f_par0_dispatch(index, memref<8xf32>) attributes {shardc.parallel_body = @f_par0}
// CHECK-DAG: func.func private @shardrt_a(i64)
// CHECK-DAG: func.func private @shardrt_b(i64)
// CHECK-NOT: @f_par1
func.func @dispatches(%a: memref<8xf32>, %n: index, %i: i64) {
  call @f_par0_dispatch(%n, %a) : (index, memref<8xf32>) -> ()
  call @f_par1_dispatch(%n, %a) : (index, memref<8xf32>) -> ()
  call @shardrt_a(%i) : (i64) -> ()
  call @shardrt_b(%i) : (i64) -> ()
  return
}
func.func private @f_par0_dispatch(index, memref<8xf32>) attributes {shardc.parallel_body = @f_par0}
func.func private @f_par1_dispatch(index, memref<8xf32>) attributes {shardc.parallel_body = @f_par1}
func.func private @shardrt_a(i64)
func.func private @shardrt_b(i64)
func.func private @f_par0(%begin: index, %end: index, %a: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %begin to %end step %c1 {
    memref.store %z, %a[%i] : memref<8xf32>
  }
  return
}
func.func private @f_par1(%begin: index, %end: index, %a: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %begin to %end step %c1 {
    memref.store %z, %a[%i] : memref<8xf32>
  }
  return
}
