// RUN: shardc-opt %s --garray-lower-to-linalg --cpu-generalize-named-ops --cpu-fuse-elementwise-ops | FileCheck %s
//
// A weight gradient contracts a [batch, sequence, d] activation over its
// leading dims: dot_general lowers to a transpose, reshapes to 2-D and a
// named linalg.matmul. cpu-fuse-elementwise-ops must not fold the reshapes
// into the matmul: that would expand it into a 4-loop generic contraction
// with the transpose fused in as a strided read, which the GEMM recipe does
// not tile (it ran as scalar loops, 40x slower).

// CHECK-LABEL: func.func @weight_gradient
// CHECK: linalg.matmul
// CHECK-NOT: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
func.func @weight_gradient(%a: tensor<8x16x64xf32>, %b: tensor<8x16x32xf32>) -> tensor<64x32xf32> {
  %c = garray.dot_general %a, %b, batch = [] x [], contracting = [0, 1] x [0, 1]
      : (tensor<8x16x64xf32>, tensor<8x16x32xf32>) -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
