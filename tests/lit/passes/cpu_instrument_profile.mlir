// RUN: shardc-opt %s -split-input-file --cpu-instrument-profile | FileCheck %s
//
// cpu-instrument-profile: each call of a kernel (an outlined nest or a
// parallel dispatch) or of a collective in the program becomes a site,
// bracketed by the runtime's probes; calls inside kernels and of other
// functions are not sites. The object names its sites in
// @shardc_profile_sites, one line each, in site order.

// CHECK-LABEL: func.func @main(
// CHECK: %[[S0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @shardrt_profile_begin(%[[S0]])
// CHECK-NEXT: call @main_nest0(
// CHECK-NEXT: call @shardrt_profile_end(%[[S0]])
// CHECK: %[[S1:.*]] = arith.constant 1 : i64
// CHECK-NEXT: call @shardrt_profile_begin(%[[S1]])
// CHECK-NEXT: call @shardrt_all_reduce(
// CHECK-NEXT: call @shardrt_profile_end(%[[S1]])
// CHECK: %[[S2:.*]] = arith.constant 2 : i64
// CHECK-NEXT: call @shardrt_profile_begin(%[[S2]])
// CHECK-NEXT: call @main_par0_dispatch(
// CHECK-NEXT: call @shardrt_profile_end(%[[S2]])
// CHECK-NEXT: call @helper(
// CHECK-NEXT: return
// CHECK: func.func private @main_nest0(
// CHECK-NOT: shardrt_profile
// CHECK: return
// The names, "kernel main_nest0 a.mlir:3:4\nall_reduce a.mlir:5:6\nkernel
// main_par0 a.mlir:7:8\n" and a NUL (tests/cli/cli_profile_test.sh reads
// such names back through `shardc run --profile`):
// CHECK: memref.global "public" constant @shardc_profile_sites : memref<80xi8> = dense<[107, 101, 114,
func.func private @shardrt_all_reduce(!llvm.ptr, i64, i32, i32, !llvm.ptr, i64, i64) -> i32
func.func private @main_par0_dispatch(index) attributes {shardc.parallel_body = @main_par0}
func.func private @main_par0(%b: index, %e: index) attributes {shardc.outlined_nest} {
  return
}
func.func private @helper(%x: memref<4xf32>) {
  return
}
func.func @main(%x: memref<4xf32>, %p: !llvm.ptr, %g: !llvm.ptr) {
  %n = arith.constant 4 : i64
  %t = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %c8 = arith.constant 8 : index
  call @main_nest0(%x) : (memref<4xf32>) -> () loc("a.mlir":3:4)
  %r = call @shardrt_all_reduce(%p, %n, %t, %t, %g, %one, %one) : (!llvm.ptr, i64, i32, i32, !llvm.ptr, i64, i64) -> i32 loc(fused["a.mlir":5:6, "b.mlir":1:1])
  call @main_par0_dispatch(%c8) : (index) -> () loc("a.mlir":7:8)
  call @helper(%x) : (memref<4xf32>) -> ()
  return
}
func.func private @main_nest0(%x: memref<4xf32>) attributes {shardc.outlined_nest} {
  call @helper(%x) : (memref<4xf32>) -> ()
  return
}

