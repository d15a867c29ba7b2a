//===- GpuSequentialMode.cpp - run a test binary through the GPU tiling ----===//
//
// Linked (alwayslink) into a copy of an execution test: every model the
// harness compiles then goes through the GPU target's tile phase, with the
// tiles run in index order on the CPU (docs/gpu.md, "The fork"), and is
// checked against the same double-precision references as on the CPU
// target.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"

namespace {
const bool kOn = (shardc_test::gpuSequentialMode() = true);
} // namespace
