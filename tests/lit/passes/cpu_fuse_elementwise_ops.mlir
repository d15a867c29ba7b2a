// RUN: shardc-opt %s --garray-lower-to-linalg --cpu-generalize-named-ops --cpu-fuse-elementwise-ops | FileCheck %s --check-prefix=ONE
// RUN: shardc-opt %s --garray-lower-to-linalg --cpu-generalize-named-ops --cpu-fuse-elementwise-ops="max-body-ops=4" | FileCheck %s --check-prefix=BOUNDED
//
// cpu-fuse-elementwise-ops fuses a chain of elementwise ops into one
// linalg.generic, but only while the fused body stays within max-body-ops
// ops (terminator included), so fusing costs time linear in the chain. Each
// op below lowers to a generic of 2 body ops (the op and the yield): with the
// default bound the chain of four is one kernel; with a bound of 4, two
// fuse (3 ops), and a third would make 5.

// ONE-LABEL: func.func @chain
// ONE-COUNT-1: linalg.generic
// ONE-NOT: linalg.generic
// ONE: math.exp
// ONE-NEXT: arith.negf
// ONE-NEXT: math.tanh
// ONE-NEXT: math.absf

// BOUNDED-LABEL: func.func @chain
// BOUNDED: %[[FIRST:.*]] = linalg.generic
// BOUNDED: math.exp
// BOUNDED-NEXT: arith.negf
// BOUNDED-NEXT: linalg.yield
// BOUNDED: linalg.generic {{.*}} ins(%[[FIRST]]
// BOUNDED: math.tanh
// BOUNDED-NEXT: math.absf
// BOUNDED-NEXT: linalg.yield
// BOUNDED-NOT: linalg.generic
func.func @chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = garray.exp %x : tensor<8xf32>
  %1 = garray.neg %0 : tensor<8xf32>
  %2 = garray.tanh %1 : tensor<8xf32>
  %3 = garray.abs %2 : tensor<8xf32>
  return %3 : tensor<8xf32>
}
