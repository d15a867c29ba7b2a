//===- GpuPasses.td - passes of the GPU (PTX) target -------*- tablegen -*-===//
//
// The GPU target's passes (docs/gpu.md, "Passes to write"), each in its own
// .cpp named after it. Built so far: the tile phase's elementwise recipe and
// the sequential fork that runs tiled programs on the CPU for tests.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_GPU_GPUPASSES_TD
#define SHARDC_COMPILER_TARGETS_GPU_GPUPASSES_TD

include "mlir/Pass/PassBase.td"

def GpuTileAndFuse : Pass<"gpu-tile-and-fuse"> {
  let summary = "Tile each linalg op on tensors into block- and thread-mapped scf.foralls";
  let description = [{
    The GPU target's tile phase, target-independent: its output is plain
    scf, tensor and linalg, whose mapping attributes only say which GPU
    dimension a later pass assigns each forall to. The IR means the same in
    any iteration order, which is what lets `gpu-sequential-forall` run it
    on the CPU to test the tiling.

    One recipe so far, the output recipe, for a linalg op on tensors with at
    least one parallel loop whose operands are all read through projected
    permutations: elementwise ops (fused chains, fill, copy, transpose,
    broadcast), reductions and contractions. Its parallel loops are tiled as
    follows, its reduction loops not at all: a block covers up to 1024
    outputs of the innermost parallel dim (rows of a short one are grouped
    so a block still covers about 1024), one block per such tile of the
    other parallel dims; inside it, a static number of threads (one per row,
    and one per 4 outputs of a full tile's row) each computes a run of
    consecutive outputs of one row: 4 in a full tile (16 bytes of f32), fewer
    or none at the edges. Each thread runs an output's reduction loops whole
    and in order, so a sum is added in the order the CPU target adds it, and
    no float atomics are needed: a deterministic, unhurried first recipe
    for reductions and contractions until theirs (block trees, shared-memory
    tiles, tensor cores) exist. Both foralls have static trip counts: the
    grid and the block shape. Blocks map to `#gpu.block<x, y, z>` (innermost
    dim on x) up to 3 parallel loops and to linear dims above; threads to
    `#gpu.thread<x>` (innermost) and `#gpu.thread<y>` (rows).

    ```mlir
    %r = linalg.generic {...} ins(%a : tensor<3x2000xf32>) outs(%e : tensor<3x2000xf32>)
    →
    %r = scf.forall (%i, %j) = (0, 0) to (3, 2000) step (1, 1024) shared_outs(%o = %e) {
      ... extract_slice of %a and %o: tensor<1x?xf32> ...
      %t = scf.forall (%ti, %tj) in (1, 256) shared_outs(...) {
        linalg.generic {...} ins(... tensor<1x?xf32>) ...
      } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
      scf.forall.in_parallel { tensor.parallel_insert_slice %t into %o[...] }
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    ```

    The single-thread recipe, for an op with no parallel loop (a full
    reduction, a rank-0 op): one block of one thread runs it, its loops in
    order (a block tree comes later).

    Before tiling, `tensor.pad` becomes a fill and an insert_slice (upstream
    pad decomposition), so that the fill is tiled rather than made by
    bufferization outside any kernel.

    Other ops are left as they are: ops inside loops (scatter_add's loop
    over its positions), ops over no elements, and ops that read
    an operand through anything but a projected permutation, zeros allowed
    (`reverse` reads column `3 - j`: a tile of its result is not a
    box-shaped slice of its operand, which tiling needs).
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
                           "mlir::gpu::GPUDialect", "mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect"];
}

def GpuSequentialForall : Pass<"gpu-sequential-forall"> {
  let summary = "Run bufferized scf.foralls as scf.for nests in index order (CPU tests)";
  let description = [{
    The fork of the GPU pipeline that tests the tile phase without a GPU:
    after bufferization, every `scf.forall` (which then has no results)
    becomes a nest of `scf.for` loops over the same bounds in index order,
    and its mapping attribute is dropped. The CPU target's pipeline then
    compiles the tiles as it compiles any loop nest, so a program tiled for
    the GPU runs on the CPU and its results can be compared with the CPU
    target's.

    ```mlir
    scf.forall (%i) = (0) to (8) step (4) { ... } {mapping = [#gpu.block<x>]}
    →
    scf.for %i = %c0 to %c8 step %c4 { ... }
    ```

    A forall that still has results (not bufferized) is an error.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def GpuMapForalls : Pass<"gpu-map-foralls"> {
  let summary = "Turn bufferized block- and thread-mapped scf.foralls into gpu.launch ops";
  let description = [{
    The first step of the kernel phase. Each top-level `scf.forall` mapped
    to `#gpu.block<...>` (static bounds, no results) becomes one
    `gpu.launch`: its block ids are linearized into grid x (fastest mapping
    index first: x, y, z or linear_dim_0, 1, ...) and delinearized into the
    loop's induction variables inside. The `#gpu.thread<x|y>`-mapped foralls
    directly inside it (normalized, static counts, all of one shape) give
    the block's shape, and their induction variables become the thread ids.
    Every thread runs the block's code outside the thread foralls (address
    arithmetic, views), which has no side effects in the tile phase's
    recipes.

    ```mlir
    scf.forall (%i) = (0) to (2000) step (1024) {
      %v = memref.subview %m[%i] ...
      scf.forall (%t) in (256) { ... %t ... } {mapping = [#gpu.thread<x>]}
    } {mapping = [#gpu.block<x>]}
    →
    gpu.launch blocks(%bx, %by, %bz) in (%c2, %c1, %c1)
               threads(%tx, %ty, %tz) in (%c256, %c1, %c1) {
      %i = %bx mod 2 * 1024 ...
      ... %tx ...
      gpu.terminator
    }
    ```
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::arith::ArithDialect"];
}

def GpuSinkViews : Pass<"gpu-sink-views"> {
  let summary = "Recompute inside each gpu.launch the memref views it reads from outside";
  let description = [{
    Kernels take their buffers as bare pointers, which needs dense,
    identity-layout memrefs. A view the host made of a buffer (a slice's
    subview, whose offset may come from a host table read at
    `shardrt_rank()`; a reshape; a cast) and that a launch reads is cloned
    into the launch's start, views of views too, so only the buffer and the
    view's index operands (as scalars) cross into the kernel. Run right
    before `gpu-kernel-outlining`.

    ```mlir
    %v = memref.subview %buf[%off, 0] [1, 3] [1, 1] : memref<4x3xf32> to memref<1x3xf32, strided<[3, 1], offset: ?>>
    gpu.launch ... { ... memref.load %v[...] ... }
    →
    gpu.launch ... {
      %v2 = memref.subview %buf[%off, 0] [1, 3] [1, 1] : ...
      ... memref.load %v2[...] ...
    }
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

#endif // SHARDC_COMPILER_TARGETS_GPU_GPUPASSES_TD
