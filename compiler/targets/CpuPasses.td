//===- CpuPasses.td - passes of the CPU back end -----------*- tablegen -*-===//
//
// Passes the CPU pipeline (CpuTarget.cpp, cpuLoweringPipeline()) needs and
// upstream MLIR does not provide. Each has its own .cpp named after it.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_CPUPASSES_TD
#define SHARDC_COMPILER_TARGETS_CPUPASSES_TD

include "mlir/Pass/PassBase.td"

def CpuLowerStridedCopies : Pass<"cpu-lower-strided-copies"> {
  let summary = "Turn memref.copy between non-contiguous buffers into linalg.copy";
  let description = [{
    finalize-memref-to-llvm lowers a memref.copy to the memcpy intrinsic only
    when both sides are contiguous; otherwise it calls `memrefCopy` from MLIR's
    C runner-utils library, which a shardc object cannot link against. Such
    copies come from bufferizing tensor.insert_slice / extract_slice into
    column blocks (concatenation, all-gather assembly). This pass rewrites
    exactly those copies as linalg.copy, which convert-linalg-to-loops turns
    into a loop nest (and which tiling/vectorization can handle later);
    contiguous copies are left alone for memcpy.

    ```mlir
    memref.copy %x, %sub : memref<2x2xf32> to memref<2x2xf32, strided<[4, 1], offset: 2>>
    →
    linalg.copy ins(%x : memref<2x2xf32>)
                outs(%sub : memref<2x2xf32, strided<[4, 1], offset: 2>>)
    ```
    A non-contiguous copy of unranked memrefs cannot be expressed as
    linalg.copy and is an error naming the op.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def CpuGuardEmptyTensorElimination : Pass<"cpu-guard-empty-tensor-elimination"> {
  let summary = "Keep eliminate-empty-tensors from clobbering a live value";
  let description = [{
    eliminate-empty-tensors replaces the `tensor.empty` at the root of a
    result's destination chain with the output buffer the result is
    materialized into (`materialize_in_destination ... restrict`). If a value
    on that chain has another use, that user now reads a tensor living in
    the output buffer, which the materialization (invisible to One-Shot
    Bufferize once it targets a memref) overwrites: two reductions whose
    `linalg.fill` init CSE merged returned the same numbers. Run right
    before eliminate-empty-tensors, this pass
      1. clones `tensor.empty` / `linalg.fill` results that have several uses
         (one per use: what CSE merged, so each chain is private again);
      2. drops `restrict` from each `materialize_in_destination` into a
         memref whose destination chain still has a value with another use
         (or passes an op it does not know), so the elimination skips it and
         the result is copied into its output instead.

    ```mlir
    %f = linalg.fill ins(%zero) outs(%e)           %f0 = linalg.fill ins(%zero) outs(%e0)
    %a = linalg.generic ... outs(%f)          →    %a = linalg.generic ... outs(%f0)
    %b = linalg.generic ... outs(%f)               %f1 = linalg.fill ins(%zero) outs(%e1)
                                                   %b = linalg.generic ... outs(%f1)
    ```
  }];
}

def CpuSpecializeGenericOps : Pass<"cpu-specialize-generic-ops"> {
  let summary = "linalg-specialize-generic-ops, except for contractions";
  let description = [{
    Gives linalg.generic ops that are really fill/copy/elementwise ops their
    names back (cpu-guard-empty-tensor-elimination matches `linalg.fill`),
    exactly as upstream `linalg-specialize-generic-ops`, but leaves
    contractions (matmul-like generics) as they are. The LLVM 22 pass drops
    the operand transposition of a contraction it turns into
    `linalg.matmul` / `linalg.batch_matmul`: `dot_general` with
    `contracting = [2] x [2]` and `batch = [0] x [0]` (attention's q·kᵀ)
    became a `batch_matmul` with default maps, a verifier error when the
    sizes differ and silently wrong numbers when they happen to agree
    (q·kᵀ on `model=2`, local features 8 = sequence 8). Contractions stay
    generic (correct; nothing downstream matches named matmuls yet).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // SHARDC_COMPILER_TARGETS_CPUPASSES_TD
