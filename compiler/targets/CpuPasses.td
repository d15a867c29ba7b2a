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

#endif // SHARDC_COMPILER_TARGETS_CPUPASSES_TD
