//===- PartitionedCodegenMode.cpp - run a test binary's objects split -----===//
//
// Linked (alwayslink) into a copy of an execution test: every model the
// harness compiles has its LLVM optimization and code generation split into
// three partitions, compiled on threads and merged into one object with LLD
// (LlvmCodegen.h), even the small test models that would otherwise compile
// whole, and is checked against the same references.
//
//===----------------------------------------------------------------------===//
#include "tests/exec/ExecHarness.h"

namespace {
const bool kOn = (shardc_test::codegenPartitionsMode() = 3, true);
} // namespace
