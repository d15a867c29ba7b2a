// RUN: shardc-opt %s --garray-decompose -verify-diagnostics
//
// PENDING (silent wrong results in garray-decompose).

// The count 70000 does not fit in f16 (max 65504): the constant becomes
// dense<0x7C00> (+inf) and every mean is silently 0. (bf16 rounds 70000 to
// 70144 the same way; f8E4M3FN rounds 100 to 96.) Expected: an error naming
// the count and the element type, or a division that is exact (e.g. in f32).
func.func @count_not_representable(%x: tensor<70000xf16>) -> tensor<f16> {
  // expected-error @+1 {{70000}}
  %0 = garray.mean %x, dims = [0] : (tensor<70000xf16>) -> tensor<f16>
  return %0 : tensor<f16>
}
