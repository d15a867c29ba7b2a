//===- GpuTf32Mode.cpp - run a test binary through the TF32 GPU tiling -----===//
//
// As GpuSequentialMode.cpp, with f32 contractions on the tensor-core recipe
// and its TF32 operands (`--matmul-precision=tf32`): the staging rounds
// each operand to 10 mantissa bits, so a test's error bound must allow
// for that rounding (DotGeneralTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"

namespace {
const bool kOn = (shardc_test::gpuSequentialMode() = true, shardc_test::gpuTf32Mode() = true);
} // namespace
