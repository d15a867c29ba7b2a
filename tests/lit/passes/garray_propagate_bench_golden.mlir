// Golden: the programs of the propagation benchmark (bench/propagation/gen.cc
// at size 16: `ew` elementwise chain, `mm` shared-weight layers, `mlp` layers
// with their own weights), propagated, and run through the benchmark's whole
// pipeline. The expected outputs pin the results byte for byte: the speed-ups
// in propagation, insert-reshards and global-to-local (interned shardings,
// memoized steps and plans, cached rules and local types) must not change
// them.
// Regenerate only for an intended change of results:
//   g++ -std=c++17 -o /tmp/gen bench/propagation/gen.cc && /tmp/gen ew 16 /tmp
//
// RUN: rm -rf %t && split-file %s %t
// RUN: shardc-opt --garray-decompose --garray-propagate %t/ew.mlir | diff - %t/ew.propagated
// RUN: shardc-opt --shardc-global-phase --shardc-propagation-phase --shardc-partition-phase --shardc-local-phase %t/ew.mlir | diff - %t/ew.local
// RUN: shardc-opt --garray-decompose --garray-propagate %t/mm.mlir | diff - %t/mm.propagated
// RUN: shardc-opt --shardc-global-phase --shardc-propagation-phase --shardc-partition-phase --shardc-local-phase %t/mm.mlir | diff - %t/mm.local
// RUN: shardc-opt --garray-decompose --garray-propagate %t/mlp.mlir | diff - %t/mlp.propagated
// RUN: shardc-opt --shardc-global-phase --shardc-propagation-phase --shardc-partition-phase --shardc-local-phase %t/mlp.mlir | diff - %t/mlp.local

//--- ew.mlir
garray.mesh @mesh ["data" = 4]
func.func @main(%x: tensor<64x32xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> tensor<64x32xf32> {
  %v0 = garray.add %x, %x : tensor<64x32xf32>
  %v1 = garray.add %v0, %v0 : tensor<64x32xf32>
  %v2 = garray.sub %v1, %v0 : tensor<64x32xf32>
  %v3 = garray.add %v2, %v1 : tensor<64x32xf32>
  %v4 = garray.sub %v3, %v2 : tensor<64x32xf32>
  %v5 = garray.add %v4, %v3 : tensor<64x32xf32>
  %v6 = garray.sub %v5, %v4 : tensor<64x32xf32>
  %v7 = garray.add %v6, %v5 : tensor<64x32xf32>
  %v8 = garray.sub %v7, %v6 : tensor<64x32xf32>
  %v9 = garray.add %v8, %v7 : tensor<64x32xf32>
  %v10 = garray.sub %v9, %v8 : tensor<64x32xf32>
  %v11 = garray.add %v10, %v9 : tensor<64x32xf32>
  %v12 = garray.sub %v11, %v10 : tensor<64x32xf32>
  %v13 = garray.add %v12, %v11 : tensor<64x32xf32>
  %v14 = garray.sub %v13, %v12 : tensor<64x32xf32>
  %v15 = garray.add %v14, %v13 : tensor<64x32xf32>
  return %v15 : tensor<64x32xf32>
}
//--- ew.propagated
module {
  garray.mesh @mesh ["data" = 4]
  func.func @main(%arg0: tensor<64x32xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) -> (tensor<64x32xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) {
    %0 = garray.add %arg0, %arg0 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %1 = garray.add %0, %0 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %2 = garray.sub %1, %0 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %3 = garray.add %2, %1 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %4 = garray.sub %3, %2 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %5 = garray.add %4, %3 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %6 = garray.sub %5, %4 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %7 = garray.add %6, %5 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %8 = garray.sub %7, %6 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %9 = garray.add %8, %7 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %10 = garray.sub %9, %8 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %11 = garray.add %10, %9 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %12 = garray.sub %11, %10 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %13 = garray.add %12, %11 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %14 = garray.sub %13, %12 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %15 = garray.add %14, %13 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    return %15 : tensor<64x32xf32>
  }
}

//--- ew.local
module {
  func.func @main(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
    %0 = garray.add %arg0, %arg0 : tensor<16x32xf32>
    %1 = garray.add %0, %0 : tensor<16x32xf32>
    %2 = garray.sub %1, %0 : tensor<16x32xf32>
    %3 = garray.add %2, %1 : tensor<16x32xf32>
    %4 = garray.sub %3, %2 : tensor<16x32xf32>
    %5 = garray.add %4, %3 : tensor<16x32xf32>
    %6 = garray.sub %5, %4 : tensor<16x32xf32>
    %7 = garray.add %6, %5 : tensor<16x32xf32>
    %8 = garray.sub %7, %6 : tensor<16x32xf32>
    %9 = garray.add %8, %7 : tensor<16x32xf32>
    %10 = garray.sub %9, %8 : tensor<16x32xf32>
    %11 = garray.add %10, %9 : tensor<16x32xf32>
    %12 = garray.sub %11, %10 : tensor<16x32xf32>
    %13 = garray.add %12, %11 : tensor<16x32xf32>
    %14 = garray.sub %13, %12 : tensor<16x32xf32>
    %15 = garray.add %14, %13 : tensor<16x32xf32>
    return %15 : tensor<16x32xf32>
  }
}

//--- mm.mlir
garray.mesh @mesh ["data" = 4]
func.func @main(%h0: tensor<64x32xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}, %w0: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P()>}) -> tensor<64x32xf32> {
  %m0 = garray.dot_general %h0, %w0, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %h1 = garray.add %m0, %h0 : tensor<64x32xf32>
  %m1 = garray.dot_general %h1, %w0, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %h2 = garray.add %m1, %h1 : tensor<64x32xf32>
  %m2 = garray.dot_general %h2, %w0, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %h3 = garray.add %m2, %h2 : tensor<64x32xf32>
  %m3 = garray.dot_general %h3, %w0, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %h4 = garray.add %m3, %h3 : tensor<64x32xf32>
  %m4 = garray.dot_general %h4, %w0, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %h5 = garray.add %m4, %h4 : tensor<64x32xf32>
  %m5 = garray.dot_general %h5, %w0, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %h6 = garray.add %m5, %h5 : tensor<64x32xf32>
  %m6 = garray.dot_general %h6, %w0, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %h7 = garray.add %m6, %h6 : tensor<64x32xf32>
  %m7 = garray.dot_general %h7, %w0, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %h8 = garray.add %m7, %h7 : tensor<64x32xf32>
  return %h8 : tensor<64x32xf32>
}
//--- mm.propagated
module {
  garray.mesh @mesh ["data" = 4]
  func.func @main(%arg0: tensor<64x32xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}, %arg1: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>}) -> (tensor<64x32xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) {
    %0 = garray.dot_general %arg0, %arg1, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %1 = garray.add %0, %arg0 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %2 = garray.dot_general %1, %arg1, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %3 = garray.add %2, %1 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %4 = garray.dot_general %3, %arg1, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %5 = garray.add %4, %3 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %6 = garray.dot_general %5, %arg1, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %7 = garray.add %6, %5 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %8 = garray.dot_general %7, %arg1, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %9 = garray.add %8, %7 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %10 = garray.dot_general %9, %arg1, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %11 = garray.add %10, %9 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %12 = garray.dot_general %11, %arg1, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %13 = garray.add %12, %11 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %14 = garray.dot_general %13, %arg1, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %15 = garray.add %14, %13 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    return %15 : tensor<64x32xf32>
  }
}

//--- mm.local
module {
  func.func @main(%arg0: tensor<16x32xf32>, %arg1: tensor<32x32xf32>) -> tensor<16x32xf32> {
    %0 = garray.dot_general %arg0, %arg1, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %1 = garray.add %0, %arg0 : tensor<16x32xf32>
    %2 = garray.dot_general %1, %arg1, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %3 = garray.add %2, %1 : tensor<16x32xf32>
    %4 = garray.dot_general %3, %arg1, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %5 = garray.add %4, %3 : tensor<16x32xf32>
    %6 = garray.dot_general %5, %arg1, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %7 = garray.add %6, %5 : tensor<16x32xf32>
    %8 = garray.dot_general %7, %arg1, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %9 = garray.add %8, %7 : tensor<16x32xf32>
    %10 = garray.dot_general %9, %arg1, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %11 = garray.add %10, %9 : tensor<16x32xf32>
    %12 = garray.dot_general %11, %arg1, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %13 = garray.add %12, %11 : tensor<16x32xf32>
    %14 = garray.dot_general %13, %arg1, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %15 = garray.add %14, %13 : tensor<16x32xf32>
    return %15 : tensor<16x32xf32>
  }
}

//--- mlp.mlir
garray.mesh @mesh ["data" = 4]
func.func @main(%h0: tensor<64x32xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}, %w0: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P()>}, %w1: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P()>}, %w2: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P()>}, %w3: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P()>}, %w4: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P()>}, %w5: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P()>}, %w6: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P()>}, %w7: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P()>}) -> tensor<64x32xf32> {
  %a0 = garray.dot_general %h0, %w0, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %q0 = garray.sub %a0, %h0 : tensor<64x32xf32>
  %m0 = garray.dot_general %q0, %w1, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %h1 = garray.add %m0, %h0 : tensor<64x32xf32>
  %a1 = garray.dot_general %h1, %w2, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %q1 = garray.sub %a1, %h1 : tensor<64x32xf32>
  %m1 = garray.dot_general %q1, %w3, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %h2 = garray.add %m1, %h1 : tensor<64x32xf32>
  %a2 = garray.dot_general %h2, %w4, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %q2 = garray.sub %a2, %h2 : tensor<64x32xf32>
  %m2 = garray.dot_general %q2, %w5, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %h3 = garray.add %m2, %h2 : tensor<64x32xf32>
  %a3 = garray.dot_general %h3, %w6, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %q3 = garray.sub %a3, %h3 : tensor<64x32xf32>
  %m3 = garray.dot_general %q3, %w7, batch = [] x [], contracting = [1] x [0] : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
  %h4 = garray.add %m3, %h3 : tensor<64x32xf32>
  return %h4 : tensor<64x32xf32>
}
//--- mlp.propagated
module {
  garray.mesh @mesh ["data" = 4]
  func.func @main(%arg0: tensor<64x32xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}, %arg1: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>}, %arg2: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>}, %arg3: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>}, %arg4: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>}, %arg5: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>}, %arg6: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>}, %arg7: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>}, %arg8: tensor<32x32xf32> {garray.sharding = #garray.sharding<@mesh, P(None, None)>}) -> (tensor<64x32xf32> {garray.sharding = #garray.sharding<@mesh, P("data", None)>}) {
    %0 = garray.dot_general %arg0, %arg1, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %1 = garray.sub %0, %arg0 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %2 = garray.dot_general %1, %arg2, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %3 = garray.add %2, %arg0 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %4 = garray.dot_general %3, %arg3, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %5 = garray.sub %4, %3 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %6 = garray.dot_general %5, %arg4, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %7 = garray.add %6, %3 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %8 = garray.dot_general %7, %arg5, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %9 = garray.sub %8, %7 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %10 = garray.dot_general %9, %arg6, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %11 = garray.add %10, %7 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %12 = garray.dot_general %11, %arg7, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %13 = garray.sub %12, %11 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    %14 = garray.dot_general %13, %arg8, batch = [] x [], contracting = [1] x [0] {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : (tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %15 = garray.add %14, %11 {garray.sharding = #garray.sharding<@mesh, P("data", None)>} : tensor<64x32xf32>
    return %15 : tensor<64x32xf32>
  }
}

//--- mlp.local
module {
  func.func @main(%arg0: tensor<16x32xf32>, %arg1: tensor<32x32xf32>, %arg2: tensor<32x32xf32>, %arg3: tensor<32x32xf32>, %arg4: tensor<32x32xf32>, %arg5: tensor<32x32xf32>, %arg6: tensor<32x32xf32>, %arg7: tensor<32x32xf32>, %arg8: tensor<32x32xf32>) -> tensor<16x32xf32> {
    %0 = garray.dot_general %arg0, %arg1, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %1 = garray.sub %0, %arg0 : tensor<16x32xf32>
    %2 = garray.dot_general %1, %arg2, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %3 = garray.add %2, %arg0 : tensor<16x32xf32>
    %4 = garray.dot_general %3, %arg3, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %5 = garray.sub %4, %3 : tensor<16x32xf32>
    %6 = garray.dot_general %5, %arg4, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %7 = garray.add %6, %3 : tensor<16x32xf32>
    %8 = garray.dot_general %7, %arg5, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %9 = garray.sub %8, %7 : tensor<16x32xf32>
    %10 = garray.dot_general %9, %arg6, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %11 = garray.add %10, %7 : tensor<16x32xf32>
    %12 = garray.dot_general %11, %arg7, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %13 = garray.sub %12, %11 : tensor<16x32xf32>
    %14 = garray.dot_general %13, %arg8, batch = [] x [], contracting = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %15 = garray.add %14, %11 : tensor<16x32xf32>
    return %15 : tensor<16x32xf32>
  }
}

