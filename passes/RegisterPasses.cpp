//===- RegisterPasses.cpp - registers every shardc pass by name -----------===//
#include "passes/Passes.h"
#include "passes/Pipelines.h"

#include "dialects/comm/Comm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace shardc {
#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

void registerAllShardcPasses() {
  registerShardcPasses();
  registerPhasePipelines();
}
} // namespace shardc
