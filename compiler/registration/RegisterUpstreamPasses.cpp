//===- RegisterUpstreamPasses.cpp - Upstream passes shardc pipelines use --===//
//
// Registers, by name, every upstream pass and pipeline that a shardc pipeline
// string mentions (compiler/targets/CpuTarget.cpp), so that shardc-opt can
// replay any step and CpuTarget can parse its own pipeline text.
//
// Compile time: mlir/Conversion/Passes.h and mlir/Dialect/Linalg/Passes.h pull
// in every conversion/transform header (20+ s per TU). Instead we include the
// generated Passes.h.inc files with only the declarations we need
// (GEN_PASS_DECL_<NAME>).
//
//===----------------------------------------------------------------------===//
#include "compiler/registration/RegisterUpstream.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
// createConvertVectorToSCFPass (hand-written constructor, light header).
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
// The enums of ConvertVectorToLLVMPassOptions (vector contract/transpose lowering).
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <mutex>

namespace mlir {
// Conversion passes, one declaration each (the option structs use plain types).
#define GEN_PASS_DECL_ARITHTOLLVMCONVERSIONPASS
#define GEN_PASS_DECL_CONVERTBUFFERIZATIONTOMEMREFPASS
#define GEN_PASS_DECL_CONVERTCONTROLFLOWTOLLVMPASS
#define GEN_PASS_DECL_CONVERTFUNCTOLLVMPASS
#define GEN_PASS_DECL_CONVERTINDEXTOLLVMPASS
#define GEN_PASS_DECL_CONVERTMATHTOFUNCS
#define GEN_PASS_DECL_CONVERTMATHTOLIBMPASS
#define GEN_PASS_DECL_CONVERTMATHTOLLVMPASS
#define GEN_PASS_DECL_CONVERTTOLLVMPASS
#define GEN_PASS_DECL_FINALIZEMEMREFTOLLVMCONVERSIONPASS
#define GEN_PASS_DECL_LOWERAFFINEPASS
#define GEN_PASS_DECL_RECONCILEUNREALIZEDCASTSPASS
#define GEN_PASS_DECL_SCFTOCONTROLFLOWPASS
#define GEN_PASS_DECL_UBTOLLVMCONVERSIONPASS
#define GEN_PASS_DECL_CONVERTVECTORTOLLVMPASS
#include "mlir/Conversion/Passes.h.inc"

// All linalg passes: their declarations only need mlir/Pass/Pass.h, unlike
// mlir/Dialect/Linalg/Passes.h which drags in Linalg/Transforms/Transforms.h.
#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "mlir/Dialect/Linalg/Passes.h.inc"
} // namespace mlir

void shardc::registerUpstreamPasses() {
  // mlir::registerPass writes a global map without a lock; registering once
  // makes this safe to call from any thread, any number of times.
  static std::once_flag once;
  std::call_once(once, [] {
    using namespace mlir;
    // canonicalize, cse, inline, symbol-dce, loop-invariant-code-motion, ...
    registerTransformsPasses();
    // one-shot-bufferize, eliminate-empty-tensors, the deallocation passes
    // and the buffer-deallocation-pipeline.
    bufferization::registerBufferizationPasses();
    bufferization::registerBufferizationPipelines();
    // linalg-generalize-named-ops, linalg-fuse-elementwise-ops,
    // linalg-specialize-generic-ops, convert-linalg-to-loops, ...
    registerLinalgPasses();
    // expand-strided-metadata, fold-memref-alias-ops, expand-realloc, ...
    memref::registerMemRefPasses();
    // arith-expand, ...
    arith::registerArithPasses();
    // math-expand-ops, math-extend-to-supported-types, ...
    math::registerMathPasses();

    // Conversions to the LLVM dialect, one at a time.
    registerPass([] { return createArithToLLVMConversionPass(); });
    registerPass([] { return createConvertBufferizationToMemRefPass(); });
    registerPass([] { return createConvertControlFlowToLLVMPass(); });
    registerPass([] { return createConvertFuncToLLVMPass(); });
    registerPass([] { return createConvertIndexToLLVMPass(); });
    registerPass([] { return createConvertMathToFuncs(); });
    registerPass([] { return createConvertMathToLibmPass(); });
    registerPass([] { return createConvertMathToLLVMPass(); });
    registerPass([] { return createConvertToLLVMPass(); });
    registerPass([] { return createFinalizeMemRefToLLVMConversionPass(); });
    registerPass([] { return createLowerAffinePass(); });
    registerPass([] { return createReconcileUnrealizedCastsPass(); });
    registerPass([] { return createSCFToControlFlowPass(); });
    registerPass([] { return createUBToLLVMConversionPass(); });
    registerPass([] { return createConvertVectorToLLVMPass(); });
    registerPass([] { return createConvertVectorToSCFPass(); });
  });
}
