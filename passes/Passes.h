//===- Passes.h - shardc's passes -------------------------------*- C++ -*-===//
//
// Declarations generated from Passes.td. Heavy dialect headers are not pulled
// in here; registerShardcPasses() lives in its own TU.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_PASSES_H
#define SHARDC_PASSES_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir {
namespace func { class FuncOp; }
namespace comm { class CommDialect; }
namespace linalg { class LinalgDialect; }
namespace arith { class ArithDialect; }
namespace math { class MathDialect; }
namespace tensor { class TensorDialect; }
namespace memref { class MemRefDialect; }
namespace LLVM { class LLVMDialect; }
namespace bufferization { class BufferizationDialect; }
} // namespace mlir

namespace shardc {
#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

void registerAllShardcPasses();
} // namespace shardc

#endif // SHARDC_PASSES_PASSES_H
