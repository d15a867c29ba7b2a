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
    exactly those copies as linalg.copy, which the linalg-to-loops lowering
    turns into a loop nest (and which tiling/vectorization can handle
    later); contiguous copies are left alone for memcpy.

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

def CpuFuseElementwiseOps : Pass<"cpu-fuse-elementwise-ops"> {
  let summary = "Fuse chains of elementwise linalg.generic ops, in bounded kernels";
  let description = [{
    linalg-fuse-elementwise-ops with one more condition: a producer is folded
    into its consumer only while their bodies together hold at most
    `max-body-ops` ops. Every fusion clones both bodies, so fusing an
    unbounded chain of n ops clones O(n^2) ops (a chain of 8,000
    elementwise ops took about a minute to compile); bounded, the cost is
    linear in n, and a long chain becomes several kernels, each a loop nest
    over up to `max-body-ops` ops, with one intermediate tensor between two
    of them.

    ```mlir
    %a = linalg.generic ... { arith.addf ... }   // 3 body ops each
    %b = linalg.generic ins(%a ...) { arith.mulf ... }
    →
    %b = linalg.generic ... { arith.addf ...; arith.mulf ... }
    ```

    With `fuse-several-uses`, a producer whose result has other uses too
    fuses into an elementwise consumer that reads it through an identity
    map, when every other use comes after that consumer: the fused op
    yields both results, so the producer's result is written where it is
    computed and not read back. `relu(x + b)` with `x + b` kept for the
    backward pass's mask becomes one pass over the activation instead of
    two. Upstream's pattern leaves such a producer alone.

    ```mlir
    %p = linalg.generic ins(%x, %b ...) { arith.addf }
    %r = linalg.generic ins(%p ...) { arith.maximumf }
    ... later uses of %p and %r ...
    →
    %f:2 = linalg.generic ins(%x, %b ...) { arith.addf; arith.maximumf }
    ... later uses of %f#0 and %f#1 ...
    ```

    With `recompute-from-inputs`, an elementwise consumer computes an
    elementwise producer's results itself instead of reading them when
    that reads fewer whole tensors: the producer's inputs that the consumer
    does not read already (as the same values through the same maps) must
    be fewer than the producer's results it reads; broadcast inputs (a
    bias, a row's statistics) are not counted. A backward pass that reads x
    and tanh(x) reads x alone, and the forward kernel no longer writes
    tanh(x) when nothing else reads it; a layer norm's backward that read
    four results of the forward kernel reads its input instead. The
    producer stays for its other uses.

    ```mlir
    %t = linalg.generic ins(%x ...) { math.tanh }       // also used later
    %g = linalg.generic ins(%x, %t, %dy ...) { ... }
    →
    %g = linalg.generic ins(%x, %dy ...) { math.tanh; ... }
    ```
  }];
  let options = [
    Option<"maxFusedBodyOps", "max-body-ops", "unsigned", "128",
           "the most ops (terminators included) a fused body may hold">,
    Option<"fuseSeveralUses", "fuse-several-uses", "bool", "true",
           "also fuse a producer whose result has several uses into its "
           "first consumer, which then writes both results">,
    Option<"recomputeFromInputs", "recompute-from-inputs", "bool", "true",
           "recompute a producer's result in a consumer that reads the "
           "producer's inputs anyway, instead of reading the result">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::affine::AffineDialect",
                           "::mlir::tensor::TensorDialect"];
}

def CpuWidenBooleanTensors : Pass<"cpu-widen-boolean-tensors"> {
  let summary = "Store i1 tensors passed between linalg.generic ops as i8";
  let description = [{
    A mask that elementwise fusion could not fold into its use (it has
    several, or it is the second result of a fused kernel) is materialized
    as a tensor of i1. A byte holds each i1 in memory either way, but LLVM's
    loop vectorizer does not vectorize loads or stores of i1 (an LLVM vector
    of i1 is packed bits), so both the kernel that writes the mask and the
    one that reads it ran scalar. This pass gives such a tensor the i8 type:
    its producer yields the bit zero-extended, each consumer truncates the
    byte back to the bit it used before.

    ```mlir
    %m = linalg.generic ... outs(%e : tensor<4096xi1>) {
      ^bb0(%x: f32, %o: i1):
        %c = arith.cmpf ogt, %x, %zero : f32
        linalg.yield %c : i1
    }
    %y = linalg.generic ins(%m, %g : tensor<4096xi1>, tensor<4096xf32>) ... {
      ^bb0(%b: i1, %v: f32, %o: f32):
        %s = arith.select %b, %v, %zero : f32
    →
    %m = linalg.generic ... outs(%e8 : tensor<4096xi8>) {
      ^bb0(%x: f32, %o: i8):
        %c = arith.cmpf ogt, %x, %zero : f32
        %w = arith.extui %c : i1 to i8
        linalg.yield %w : i8
    }
    %y = linalg.generic ins(%m, %g : tensor<4096xi8>, tensor<4096xf32>) ... {
      ^bb0(%b8: i8, %v: f32, %o: f32):
        %b = arith.trunci %b8 : i8 to i1
        %s = arith.select %b, %v, %zero : f32
    ```

    Only results whose destination is a tensor.empty the body does not read,
    used only as inputs of linalg.generic ops, change: a model's i1 inputs
    and outputs and the buffers collectives see keep their type.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"];
}

def CpuSplitLongReductions : Pass<"cpu-split-long-reductions"> {
  let summary = "Sum long float reductions (to a scalar, or per row) in blocks";
  let description = [{
    A loop that adds n floats one after another into one accumulator
    loses up to n/2 units in the last place of the sum: a mean over a
    [1024, 1024] activation came out 5e-4 away from the double-precision
    value, where XLA's tree-shaped sum was 2e-8 away. The same chain of
    dependent adds also keeps the loop scalar, one element per add latency.

    For a linalg.generic that reduces every dim to a 0-d result by
    `arith.addf` (after fusion, so a squared error's body is included),
    over at least `min-elements` elements, this pass splits the innermost
    reduction dim d of size N into d' (N / r, reducing) and j (r, parallel),
    with r the largest divisor of N not above √(elements) rounded up to a
    power of two (at least 8): r partial sums, each of elements / r terms,
    side by side in a tensor<r>, then one generic adds the r partial sums
    into the original accumulator in index order.

    ```mlir
    %s = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> ()],
                         iterator_types = ["reduction", "reduction"]}
        ins(%x : tensor<1024x1024xf32>) outs(%zero : tensor<f32>) {
      ^bb0(%v: f32, %acc: f32):
        %sq = arith.mulf %v, %v : f32
        %a = arith.addf %acc, %sq : f32
        linalg.yield %a : f32
    }
    →
    %xe = tensor.expand_shape %x [[0], [1, 2]] : tensor<1024x1024xf32> into tensor<1024x1x1024xf32>
    %p = linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d1, d2), (d0, d1, d2) -> (d2)],
                         iterator_types = ["reduction", "reduction", "parallel"]}
        ins(%xe) outs(%zeros : tensor<1024xf32>) { ...the same body... }
    %s = linalg.generic {indexing_maps = [(d0) -> (d0), (d0) -> ()],
                         iterator_types = ["reduction"]}
        ins(%p) outs(%zero : tensor<f32>) { addf }
    ```

    A sum per row (a generic whose innermost loop is the reduction, every
    operand reading that loop as its innermost dim, with parallel loops
    left: layer norm's mean and variance, softmax's denominator) is
    latency-bound the same way: one chain of dependent adds per row, which
    LLVM may not reorder, at 4 cycles an element. Its innermost loop of n
    (n >= 4r) is split into n / r reducing and r parallel iterations, r =
    16 (or 8 when 16 does not divide n): the r partial sums of a row are one
    AVX-512 vector (two AVX2 ones) updated n / r times, then added into the
    row's accumulator in index order. r is the same on every host, so the
    result does not depend on the CPU. A training step with three layer
    norms over [2048, 512] (bench/train/more_models.py `deep`, one rank)
    went from 49-54 to 43-46 ms.

    The order of the sum is fixed by the program, as before: every rank and
    every thread count computes the same value. Reductions of other
    combiners (max, min: exact anyway), of integers, a column's sum (its
    inner loop is parallel and vectorizes as it is), a row read across
    (strided), or a body that reads `linalg.index`, are left alone.
  }];
  let options = [
    Option<"minElements", "min-elements", "int64_t", /*default=*/"4096",
           "Split reductions of at least this many elements">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
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
         (one per use: what CSE merged, so each chain is private again),
         each clone right before its user, so that the buffer it becomes
         is allocated where it is needed, not where CSE kept the original;
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

def CpuGeneralizeNamedOps : Pass<"cpu-generalize-named-ops"> {
  let summary = "Generalize named linalg ops, except matmul and batch_matmul";
  let description = [{
    Upstream `linalg-generalize-named-ops` turns every named op into a
    linalg.generic so that `linalg-fuse-elementwise-ops` can fuse chains of
    them. Applied to contractions it is harmful on the CPU: elementwise
    fusion then folds producers into the contraction (a transpose becomes a
    strided operand again, `x * 2` moves into the innermost loop), and the
    result no longer matches the GEMM recipe of
    `cpu-tile-and-vectorize-matmul`. This pass generalizes every other named
    structured op and leaves linalg.matmul and linalg.batch_matmul named.

    ```mlir
    %0 = linalg.add ins(%a, %b : ...) outs(%e : ...)        → linalg.generic
    %1 = linalg.matmul ins(%0, %c : ...) outs(%acc : ...)   → unchanged
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
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

def CpuTileAndVectorizeMatmul : Pass<"cpu-tile-and-vectorize-matmul"> {
  let summary = "Cache-block, pack, register-tile and vectorize linalg.matmul on buffers";
  let description = [{
    The GEMM recipe of the CPU target, on bufferized IR (before
    convert-linalg-to-parallel-loops), in the GotoBLAS/BLIS scheme. For each
    linalg.matmul with f32 or f64 elements (or bf16/f16 operands into an f32
    accumulator, widened into f32 panels by the packing copies) whose A is
    [M, K] or [K, M] and whose B is [K, N] or [N, K] (linalg.batch_matmul
    first becomes a loop over rank-reduced matmuls):

    1. cache blocking: tile (M, N, K) by `cache-tiles` with the loop order
       N, K, M;
    2. packing (GemmPacking.h): per (N, K) block, before the M loop, B is
       copied into NR-wide micro-panels [kb, NR] by an scf.parallel over
       B's rows (a k-major B is read row by row); per block, A into MR-tall
       micro-panels [kb, MR], k-major. The copies read a transposed operand as
       it lies. Partial panels at the edges are zero-padded. With
       `read-a-in-place`, a row-major A whose values serve at most four
       tiles (B at most four panels wide) is not packed but read where it
       lies, unless its rows of a tile would share L1 sets; its partial last
       panel is still packed;
    3. micro matmuls: for each B panel, for each A panel, an MR x NR tile of
       C += Aqᵀ · Bp (in place, or through a zeroed scratch tile at the
       edges, so edges run the vector kernel too); for each A panel, then
       each B panel, when one packed (N, K) block of B is at most 256 KiB
       (it stays in L2, and C is then written row of tiles by row of
       tiles);
    4. register tiling: tile each micro matmul's K by 1;
    5. vectorize the tiles (vector.contract), fold subviews into the
       transfers, CSE, and hoist the accumulator's transfer_read/write out of
       the K loop, so it lives in registers across K, and unroll the K
       loops of full tiles by `unroll-k` (the summation order is unchanged;
       edge tiles keep one step per iteration, to bound the code size);
    6. lower vector.contract to outer products and those to vector.fma: per K
       step, MR scalar loads of A (broadcast from memory) times tile-vectors
       aligned loads of B.

    ```mlir
    linalg.matmul ins(%A, %B : memref<512x512xf32>, memref<512x512xf32>)
                  outs(%C : memref<512x512xf32>)
    →
    scf.for %n, %k {                      // cache blocks
      pack B[k.., n..] into %bp           // [NC/NR, KC, NR]
      scf.for %m {
        pack A[m.., k..] into %ap         // [MC/MR, KC, MR]
        scf.for %p, %q {
          %acc = vector.transfer_read %C[..] : vector<6x16xf32>
          %r = scf.for %kk iter_args(%a = %acc) { ... vector.fma ... }
          vector.transfer_write %r, %C[..] } } }
    ```
    With `fit-tile`, a matmul whose N would leave much of the register
    tile empty takes a narrower tile with more rows and as many
    accumulators (8 x 2 vectors -> 16 x 1 with AVX-512) when that pads at
    least 5 % fewer products: a convolution's 16 output channels filled
    half of a 32-column tile.
    When M spans several cache blocks, their size is lowered (to a multiple
    of tile-rows) until their count is a multiple of `m-block-multiple`: the
    kernel threads take equal contiguous shares of the blocks, and 1024 rows
    in blocks of 144 (7 full and one of 16) gave one of two threads 576 rows
    and the other 448; in 8 blocks of 128 each gets 512.
    The M block loop is an scf.parallel (each block packs its own A panels),
    as is a batched matmul's batch loop, so cpu-outline-parallel-loops can
    run them on the rank's kernel threads; when M fits one block, the loop
    over the block's full columns of tiles is the scf.parallel instead, each
    column packing its own panel of B just before its tiles use it, and K
    blocks of a k-major B shrink until a panel's rows span at most 64 pages
    (64 rows of a 1024-wide f32 B) when C is at most 256 KiB. A C
    zero-filled right before the matmul (nothing touching memory in
    between) loses its fill: in the first K block a full tile's accumulator
    starts as a zero vector instead of being read from C, and edge tiles do
    not read C in. Other element types and matmuls are left to
    convert-linalg-to-parallel-loops.

    With `fuse-epilogues`, a C that one elementwise linalg.generic reads
    and nothing else (a layer's bias and relu, the backward pass's relu
    mask) is not stored and read back: in the last K block each full tile
    applies the generic's body to its accumulator and stores the generic's
    results, reading its other inputs as (broadcast) vector transfers at
    the tile; the edges of C get the generic restricted to them
    (GemmEpilogue.h):
    ```mlir
    linalg.matmul ins(%A, %B) outs(%C)
    linalg.generic ins(%C, %bias) outs(%H) { max(c + b, 0) }
    →
    %r = scf.for %kk ... (the tile's K loop)
    scf.if %last_k_block {
      %b = vector.transfer_read %bias[%j] ... : vector<8x32xf32>  // broadcast over rows
      vector.transfer_write (max(%r + %b, 0)), %H[%i, %j]
    } else {
      vector.transfer_write %r, %C[%i, %j]
    }
    ... linalg.generic on C's edge rows and columns only
    ```
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"256",
           "Width of one vector register in bits (128 SSE, 256 AVX2, 512 AVX-512)">,
    Option<"tileRows", "tile-rows", "int64_t", /*default=*/"8",
           "Rows (M) of the register tile">,
    Option<"tileVectors", "tile-vectors", "int64_t", /*default=*/"2",
           "Vector registers per row of the register tile (N = this x lanes)">,
    ListOption<"cacheTiles", "cache-tiles", "int64_t",
               "Cache block sizes M,N,K (default 144,4096,256)">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", /*default=*/"true",
           "Compute a C's only, elementwise consumer in its register tiles "
           "(GemmEpilogue.h)">,
    Option<"fitTile", "fit-tile", "bool", /*default=*/"true",
           "Use a narrower register tile with more rows (as many accumulators) "
           "when it pads at least 5 % fewer products at the edges (N = 16 in a "
           "32-column tile)">,
    Option<"unrollK", "unroll-k", "int64_t", /*default=*/"1",
           "Unroll the K loop of each full register tile by this factor "
           "(1: no unrolling)">,
    Option<"mBlockMultiple", "m-block-multiple", "int64_t", /*default=*/"4",
           "When M spans several cache blocks, make their count a multiple of "
           "this, of nearly equal size (at most the M cache block, a multiple "
           "of tile-rows), so 1, 2 or 4 kernel threads get equal shares; 1 "
           "keeps full blocks and a short last one">,
    Option<"readAInPlace", "read-a-in-place", "bool", /*default=*/"true",
           "Read A's full micro-panels where A lies, unpacked: a transposed A "
           "of one M block, or a row-major A when B is at most four panels wide "
           "and A's rows of a tile fall in different L1 sets (GemmPacking.h)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect"];
}


def CpuParallelizeLeadingReductions : Pass<"cpu-parallelize-leading-reductions"> {
  let summary = "Split the parallel dims of reductions whose outer loop reduces, for threads";
  let description = [{
    A linalg.generic on buffers whose outermost loop is a reduction (a
    column sum, out[j] += in[i, j]) lowers to `for i { parallel j }`: the
    parallel loop sits inside a sequential one, each of its runs too small
    for the kernel threads, so the whole reduction ran on the rank's own
    thread (the MLP's bias gradient, a 4096 x 1024 column sum). This pass
    tiles the op's longest parallel loop into 8 chunks (of at least 32
    iterations) as an outermost scf.parallel, which
    cpu-outline-parallel-loops can hand to the kernel threads; each chunk
    keeps the op's loop order over its columns. Every output element is
    summed over the reduction in the same order as before, so results do
    not depend on the number of threads. Ops below `min-work` iterations,
    inside a parallel loop already, or with dynamic shapes are left alone.

    ```mlir
    linalg.generic {iterator_types = ["reduction", "parallel"]}
        ins(%x : memref<4096x1024xf32>) outs(%b : memref<1024xf32>)
    →
    scf.parallel (%c) = (%c0) to (%c1024) step (%c128) {
      linalg.generic {iterator_types = ["reduction", "parallel"]}
          ins(%x[0, %c] [4096, 128] ...) outs(%b[%c] [128] ...)
    }
    ```
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"131072",
           "Leave ops of fewer iterations (loops multiplied out) alone, as "
           "cpu-outline-parallel-loops would">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect"];
}

def CpuOutlineParallelLoops : Pass<"cpu-outline-parallel-loops", "::mlir::ModuleOp"> {
  let summary = "Run large scf.parallel loops on the rank's kernel threads";
  let description = [{
    A rank's kernels use the cores its rank may use (shardrt_parallel_for:
    a thread pool of cores / ranks threads per rank, no OpenMP). Each
    outermost scf.parallel (from convert-linalg-to-parallel-loops, the GEMM
    recipe's M blocks, a batched GEMM's batch) whose estimated work is at
    least `min-work` operations (loops multiplied out; an op on vectors
    counts as many operations as its widest vector has lanes) becomes

      - a function `<fn>_par<i>(begin, end, inputs...)` holding the loop with
        one dimension (the first that runs more than once) cut to the
        iterations [begin, end); constants are cloned in, other values it
        reads are passed (like cpu-outline-loop-nests);
      - a call `<fn>_par<i>_dispatch(count, inputs...)` in its place, to a
        declaration marked `shardc.parallel_body = @<fn>_par<i>`, which
        cpu-build-parallel-dispatch defines after conversion to LLVM.

    The GEMM recipe's loops (marked `shardc.gemm_loop` with the GEMM's
    M * N * K products) also need a GEMM of at least `gemm-min-work`
    products: a small GEMM split over two cores moves its
    operands and result between them, which costs more than the halved
    work saves (an RNN's 32 x 128 x 128 products, 640 dispatches a step,
    ran 10-20 % faster on one thread). A GEMM of at least
    `gemm-own-min-work` products but fewer than `gemm-min-work` goes to the
    rank's own kernel threads only (`shardrt_parallel_for_own`): a worker
    of its own waits spinning for the next loop, another rank is busy as
    often as not. The same RNN's [32, 128] products on two threads of one
    rank took its step from 10.5-11.7 to 8.8-10.2 ms (2 vCPUs, AMD EPYC,
    alternating runs), while its [16, 128] products posted as loops shared
    by two ranks took their step from 5.6-6.6 to 6.7-7.1 ms. Inside a
    GEMM the bar for a loop is a quarter of `min-work`: its packing copies
    miss the cache more than the operations counted say.
    Loops stay on the rank's own thread when they reduce into results, sit
    inside another parallel loop, or call the runtime. A kernel function of
    cpu-outline-loop-nests left holding nothing but its dispatch is inlined
    back into its callers: the chunk function is the unit LLVM compiles. Every iteration runs
    the same code as before and parallel dimensions write disjoint outputs,
    so the values computed do not depend on the number of threads: replicas
    stay bit-identical.

    ```mlir
    scf.parallel (%i) = (%c0) to (%c4096) step (%c1) { ... %a ... }
    →
    %n = arith.ceildivsi ...
    call @main_par0_dispatch(%n, %a)
    func.func private @main_par0(%begin: index, %end: index, %a: memref<...>) {
      scf.parallel (%i) = (%begin') to (%end') step (%c1) { ... } }
    ```
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"131072",
           "Smallest estimated operation count worth a dispatch to the threads">,
    Option<"gemmMinWork", "gemm-min-work", "int64_t", /*default=*/"2097152",
           "Smallest GEMM (M * N * K products, times its batch) whose "
           "loops are worth dispatches">,
    Option<"gemmOwnMinWork", "gemm-own-min-work", "int64_t", /*default=*/"262144",
           "Smallest GEMM whose loops are worth dispatches to the rank's own "
           "kernel threads (not shared with other ranks)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def CpuBuildParallelDispatch : Pass<"cpu-build-parallel-dispatch", "::mlir::ModuleOp"> {
  let summary = "Define the dispatch functions of cpu-outline-parallel-loops, in LLVM";
  let description = [{
    After convert-func-to-llvm each dispatch declaration has plain LLVM
    arguments (memref descriptors expanded). It becomes a function that
    stores them in a stack frame and calls
    `shardrt_parallel_for(count, task, &frame)`, where the new internal
    `task(frame, begin, end)` loads them and calls the chunk function
    (`shardrt_parallel_for_own` for a dispatch marked shardc.parallel_own).
    A chunk function has one task, which all of its dispatches share:
    cpu-merge-identical-functions leaves two dispatches of one merged body
    when only one of them is marked shardc.parallel_own.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CpuOutlineLoopNests : Pass<"cpu-outline-loop-nests", "::mlir::ModuleOp"> {
  let summary = "Move each loop nest of a large function into a function of its own";
  let description = [{
    After bufferization every kernel is a top-level loop nest over memrefs,
    and a function holds one nest per kernel, between runtime calls. LLVM's
    optimizer and code generator cost more than linearly in the size of one
    function (instruction renumbering, dominator-tree updates, live
    intervals): 1,000 kernels separated by collectives took 27 s to compile,
    2,000 took 142 s and 2.5 GB. This pass gives each top-level loop nest of
    a function with more than `min-nests` of them (other than an outlined
    kernel, which is one already; a linalg op on buffers counts as a nest,
    so that the pass can run before loop lowering) a private function of its
    own (marked `shardc.outlined_nest`, which the CPU target turns into
    LLVM's `noinline` so that LLVM's inliner does not undo it), called in
    its place: LLVM then works on many small functions, in time linear in
    their number. Constants the nest uses are cloned into the new function
    (loop bounds stay known to LLVM); every other value it uses becomes an
    argument. Nests that return values are left in place. Functions with
    fewer nests are unchanged: there LLVM is fast and sees the whole body.

    The pass runs before the GEMM recipe (cpu-tile-and-vectorize-matmul)
    too, so that the recipe and every pass after it see each distinct
    kernel once (cpu-merge-identical-functions follows). A linalg.matmul
    therefore takes into its function what the recipe reads around it: the
    elementwise consumer it computes in its tiles (GemmEpilogue.h) and C's
    zero fill, and C's allocation and deallocation when nothing else uses
    C; when C is not private to them, only a fill right before the matmul:

    ```mlir
    %c = memref.alloc() : memref<8x16xf32>
    linalg.fill ins(%zero : f32) outs(%c : memref<8x16xf32>)
    ... (other kernels, which cannot touch %c)
    linalg.matmul ins(%a, %b : ...) outs(%c : memref<8x16xf32>)
    linalg.generic ... ins(%c, %bias : ...) outs(%y : ...)   // bias + relu
    memref.dealloc %c : memref<8x16xf32>
    →
    call @main_nest7(%a, %b, %bias, %y)   // where the generic was
    func.func private @main_nest7(...) {
      %c = memref.alloc() ...; linalg.fill ...; linalg.matmul ...
      linalg.generic ...; memref.dealloc %c ...
    }
    ```

    An outlined function loses what LLVM knew about its memrefs' origins,
    so each memref argument whose memory provably overlaps no other
    argument's (an allocation of the caller against anything else, two
    different globals, an argument the caller itself has as noalias against
    its other arguments) is listed in `shardc.noalias_params`; the CPU target
    marks those LLVM parameters `noalias` (convert-func-to-llvm drops the
    attribute on memref arguments). Nests that call a function or name a
    global get none. cpu-outline-parallel-loops does the same.

    ```mlir
    func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {   // > min-nests nests
      %c0 = arith.constant 0 : index
      ...
      scf.for %i = %c0 to %c4 step %c1 { ... %a ... %b ... }
    →
    func.func private @main_nest3(%a: memref<4xf32>, %b: memref<4xf32>)
        attributes {shardc.outlined_nest} {
      %c0 = arith.constant 0 : index
      ...
      scf.for %i = %c0 to %c4 step %c1 { ... }
      return
    }
    ... call @main_nest3(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
    ```
  }];
  let options = [
    Option<"minNests", "min-nests", "unsigned", "64",
           "outline only in functions with more top-level loop nests than this">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def CpuSplitFreshDeallocs : Pass<"cpu-split-fresh-deallocs"> {
  let summary = "One bufferization.dealloc per fresh allocation, before simplification";
  let description = [{
    Ownership-based deallocation ends a block with one
    `bufferization.dealloc` of every buffer the block owns: an unrolled
    scan's step body ends with one of 1904 buffers. Upstream's
    buffer-deallocation-simplification then asks, for each of them,
    whether it may alias any other, which took 1.7 s of a 12.5 s compile
    and grows with the square of the step's length.

    Buffers that are results of distinct `memref.alloc` ops of this
    function cannot alias one another, nor the function's arguments. When
    a dealloc retains nothing and frees only such allocations (and
    arguments), this pass gives each of them a dealloc of its own, under
    its own condition, which the simplification and lowering that follow
    turn into a plain `memref.dealloc`. Any other dealloc is left to the
    upstream analysis.

    ```mlir
    bufferization.dealloc (%a, %b : memref<8xf32>, memref<4xf32>) if (%true, %c)
    →
    bufferization.dealloc (%a : memref<8xf32>) if (%true)
    bufferization.dealloc (%b : memref<4xf32>) if (%c)
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def CpuFreeAfterLastUse : Pass<"cpu-free-after-last-use"> {
  let summary = "Free each buffer right after its last use, not at its block's end";
  let description = [{
    Ownership-based deallocation frees a buffer where its owner's block
    ends: in a step's body, every intermediate stayed allocated until the
    step returned, so the step's peak memory was the sum of all of them
    (115 buffers of a transformer step, 1904 of an unrolled scan's), and
    no buffer was reused within a step while its memory was still in
    cache. This pass moves each `memref.dealloc` of a buffer allocated in
    the same block up to right after the buffer's last use there: the
    last op of the block that uses it or a view of it (subview, reshape,
    cast), or holds such a use in its regions.

    It moves a deallocation only when every use is one that is done with
    the buffer when it returns: linalg ops, loads, stores, copies, vector
    transfers, and calls of the module's own kernels. A buffer whose
    address goes elsewhere (a runtime call, an asynchronous collective, a
    return, a loop's iteration arguments) keeps its deallocation where it
    is. It runs after the GEMM recipe, which looks for a matmul's
    epilogue among the ops that follow it.

    ```mlir
    %a = memref.alloc() : memref<64xf32>
    linalg.generic ... outs(%a)
    linalg.generic ins(%a) outs(%b)
    call @kernel(%c) ...
    memref.dealloc %a
    →
    %a = memref.alloc() : memref<64xf32>
    linalg.generic ... outs(%a)
    linalg.generic ins(%a) outs(%b)
    memref.dealloc %a
    call @kernel(%c) ...
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def CpuOutlineBodySegments : Pass<"cpu-outline-body-segments", "::mlir::ModuleOp"> {
  let summary = "Split a very long straight-line LLVM function into segment functions";
  let description = [{
    An unrolled scan leaves a step whose body is one block of thousands
    of ops (kernel calls, allocations, frees, collectives) once its loop
    nests are functions of their own. LLVM's instruction selection and
    scheduling take more than linear time in a block's size, and a
    function is the unit its parallel code generation splits by: the
    unrolled scan's 17k-line body took 3.8 s of `llc` alone, on one
    thread, while the kernels' partitions ran beside it.

    This pass runs on the LLVM dialect. It cuts the block of each
    single-block function whose ops (nested ones counted) exceed
    `ops-per-segment` twice over into consecutive ranges of about that
    many ops, each cut where the fewest values cross it, and moves each
    range into an internal no_inline function of one argument: a frame on
    the caller's stack with a slot per value that some range reads from
    outside itself. A range loads what it reads from the frame and stores
    what later ranges read. Ops without memory effects (constants,
    descriptor `insertvalue`/`extractvalue`, address arithmetic) stay put
    and are cloned into each range that reads them instead of passing
    through the frame: an unrolled scan's forward pass leaves hundreds of
    activations for its backward pass, and passing them as arguments and
    results (a memref is five or more words) made LLVM slower than the
    one long function. The ops run in the same order as before. A range
    never ends while a stack buffer it allocates is still used after it.

    ```mlir
    llvm.func @body(%a: !llvm.ptr) {
      %b = llvm.call @malloc(%n)          // ... thousands of ops ...
      llvm.call @k1(%a, %b)
      llvm.call @free(%b)
    →
    llvm.func @body(%a: !llvm.ptr) {
      %f = llvm.alloca %one x !llvm.struct<(ptr, ptr)>
      llvm.store %a, (slot 0 of %f)
      llvm.call @body_seg0(%f)            // %b = malloc; store %b in slot 1
      llvm.call @body_seg1(%f)            // load %a, %b; k1(%a, %b); free(%b)
    ```
  }];
  let options = [
    Option<"opsPerSegment", "ops-per-segment", "int64_t", /*default=*/"1000",
           "Ops (nested ones counted) per segment; a function is split when "
           "it holds more than twice this many">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CpuApproximateMath : Pass<"cpu-approximate-math"> {
  let summary = "exp, expm1, tanh, log and log1p on f32 as polynomials LLVM can vectorize";
  let description = [{
    LLVM has no vector form of `llvm.exp`, `llvm.tanh` or `llvm.log`
    without a vector math library: a vectorized loop calls libm's `expf`,
    `tanhf` or `logf` once per lane. A GELU over a 1024 x 1024 activation
    spent its time in `tanhf`, and a softplus (`log1p(exp(-|x|))`) step in
    `expf` and `log1pf`. This pass rewrites f32 `math.exp`, `math.tanh`,
    `math.log` and `math.log1p` (scalars and vectors; 16-bit floats are
    computed in f32 by then) into MLIR's polynomial approximations
    (populateMathPolynomialApproximationPatterns): plain arithmetic, which
    the loop vectorizer turns into vector code.

    MLIR's log clamps its operand to the smallest normal f32, so log(1e-40)
    would be log(1.18e-38). The pass first scales a subnormal operand by
    2^24, which is exact, and subtracts 24 ln 2 from the logarithm.

    `math.expm1` would otherwise become exp(x) - 1 (convert-math-to-llvm),
    which cancels near 0: 0 for |x| < 6e-8 in f32, 4 % off at 1e-5. f32
    takes MLIR's approximation (exp and log, corrected as below); f64
    takes Kahan's correction with libm's exp and log: u = exp(x), then x
    where u = 1, -1 where u - 1 = -1, and (u - 1) * x / log(u) otherwise.

    Measured against double precision (tests/exec/ElementwiseTest.cpp, the
    `[math]` cases): exp within 2.9e-7 relative over [-104, 89] where the
    result is a normal f32 (about 2.4 ulp; libm's is within 1), flushed to
    zero below that; tanh within 2.6e-7 over [-10, 10]; log within 8.7e-8
    from the smallest subnormal to the largest float; log1p within 1.5e-7
    from just above -1 to the largest float; expm1 within 4 ulp in f32 and
    f64 from 1e-30 to overflow. NaN, infinities, signed zeros
    and the poles (log 0, log1p -1) come out as libm's. Other functions
    (pow, trigonometry) and f64 stay libm calls.

    ```mlir
    %y = math.log %x : f32
    →
    %s = arith.cmpf olt, %x, 1.17549435E-38
    %x2 = arith.select %s, (%x * 2^24), %x
    (frexp by bit operations, a polynomial in arith ops, selects for
     0, negatives and +inf)
    %y = arith.subf %approx, (arith.select %s, 24 ln 2, 0)
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def CpuMinMaxToIntrinsics : Pass<"cpu-min-max-to-intrinsics"> {
  let summary = "Float max and min as LLVM intrinsics, so their reductions vectorize";
  let description = [{
    arith-expand writes `arith.maximumf` (and minimumf, maxnumf, minnumf) as
    compares and selects, the NaN test included. LLVM's loop vectorizer does
    not recognise that as a max reduction, so a row's maximum (a softmax's,
    a cross-entropy's) ran as a scalar chain, one dependent compare and
    select per element. As `llvm.maximum` and its kin the same reduction is
    vectorized; x86 lowers the intrinsics with their NaN semantics (NaN if
    either operand is NaN). The attention softmax of bench/train's larger
    transformer at mesh 4 took 6.0 ms a step per rank (`shardc run
    --profile`), 0.8 ms with the intrinsics. This runs before arith-expand,
    on floats and 1-D vectors of floats; n-D vectors (a register tile's)
    keep arith-expand's form, since the intrinsics take no n-D vectors.

    ```mlir
    %m = arith.maximumf %a, %b : f32
    →
    %m = llvm.intr.maximum(%a, %b) : (f32, f32) -> f32
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CpuRoundToBf16 : Pass<"cpu-round-to-bf16"> {
  let summary = "f32 -> bf16 roundings as integer ops that vectorize";
  let description = [{
    x86-64 without AVX-512 BF16 has no instruction that rounds f32 to bf16,
    so the rounding is integer arithmetic on the f32's bits. Upstream's
    `arith-expand{include-bf16}` chooses the NaN result with a select whose
    arm is the constant bf16 NaN; LLVM moves that select past the truncation
    into the bf16 type, and x86 scalarizes a select of bf16 vectors, lane by
    lane (a bf16 GEMM spent 30 % of its time rounding its f32 sums). This
    pass rewrites `arith.truncf` f32 -> bf16 (scalars and vectors, default
    rounding) first, choosing on the i32 bits between two computed values,
    which LLVM keeps as one vector blend:

    ```mlir
    %r = arith.truncf %x : vector<8xf32> to vector<8xbf16>
    →
    %bits = arith.bitcast %x : vector<8xf32> to vector<8xi32>
    %nan = (|bits| > 0x7f800000)
    %rounded = bits + 0x7fff + ((bits >> 16) & 1)   // nearest, ties to even
    %quiet = bits | 0x00400000                      // NaN: quieted, sign kept
    %r = bitcast(trunci((select %nan, %quiet, %rounded) >> 16))
    ```

    The results are upstream's for every input but NaN, which keeps its
    sign and top payload bits here (as `vcvtneps2bf16` does) instead of
    becoming the positive canonical NaN.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def CpuGeneralizeKernelOffsets : Pass<"cpu-generalize-kernel-offsets", "::mlir::ModuleOp"> {
  let summary = "Give outlined kernels' memref arguments dynamic offsets, so that they merge";
  let description = [{
    A kernel outlined by cpu-outline-loop-nests or cpu-outline-parallel-loops
    takes its memrefs with the types they had at the call: a slice of a
    larger buffer carries its static offset in its type. An unrolled loop
    (a scan over 128 time steps, its backward pass) runs the same kernel on
    128 slices of one buffer, so 128 functions that differ only in that
    offset reach cpu-merge-identical-functions, which cannot merge them, and
    LLVM compiles each. This pass retypes each memref argument of an
    outlined kernel (and of a parallel chunk's dispatch declaration) to the
    same type with a dynamic offset, and casts the operand at each call.
    The offset then travels in the memref descriptor, as every subview's
    does: the code reads the same elements in the same order.

    An argument is left as it is when something inside would not take the
    new type: only loads, stores, vector transfers, linalg ops on buffers,
    and subviews, collapse_shape and expand_shape (whose result types are
    inferred again, with dynamic offsets) may use it.

    ```mlir
    func.func private @f_nest3(%a: memref<32x128xf32, strided<[128, 1], offset: 4096>>)
    call @f_nest3(%s) : (memref<32x128xf32, strided<[128, 1], offset: 4096>>) -> ()
    →
    func.func private @f_nest3(%a: memref<32x128xf32, strided<[128, 1], offset: ?>>)
    %c = memref.cast %s : memref<32x128xf32, strided<[128, 1], offset: 4096>>
                       to memref<32x128xf32, strided<[128, 1], offset: ?>>
    call @f_nest3(%c) : (memref<32x128xf32, strided<[128, 1], offset: ?>>) -> ()
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def CpuMergeIdenticalFunctions : Pass<"cpu-merge-identical-functions", "::mlir::ModuleOp"> {
  let summary = "Keep one copy of private functions that are the same but for their name";
  let description = [{
    A model repeats itself: a training step computes the same product for
    every layer and again in the backward pass, so the outlined kernels of
    cpu-outline-parallel-loops and cpu-outline-loop-nests come in identical
    copies (the bench transformer step: 304 functions, 211 different). LLVM
    would optimize and generate code for each copy; this pass keeps the
    first of each set of private functions that have the same type,
    attributes (but for their name) and body, locations ignored, and points
    every use of the others at it. It repeats until nothing merges, so that
    the dispatch declarations of merged parallel loops (identical once their
    `shardc.parallel_body` names the same function) merge too. What the
    functions compute is unchanged: only their number shrinks.

    ```mlir
    func.func private @f_nest3(%a: memref<8xf32>) { ... }
    func.func private @f_nest7(%a: memref<8xf32>) { ... }   // same body
    call @f_nest7(%x) : (memref<8xf32>) -> ()
    →
    func.func private @f_nest3(%a: memref<8xf32>) { ... }
    call @f_nest3(%x) : (memref<8xf32>) -> ()
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def CpuInstrumentProfile : Pass<"cpu-instrument-profile", "::mlir::ModuleOp"> {
  let summary = "Time every kernel and collective call (shardc --profile)";
  let description = [{
    `shardc run --profile` prints, for each rank, the time spent in each
    kernel and each collective. This pass makes that measurable: every
    call, in a function of the program (not in a kernel), of

      - a kernel: a function cpu-outline-loop-nests made (run with
        `min-nests=0` when profiling, so every loop nest has one) or a
        dispatch of cpu-outline-parallel-loops;
      - a collective of the runtime (shardrt_all_reduce, its _start and
        _done, _all_gather, _reduce_scatter, _all_to_all,
        _collective_permute): an all_reduce_done's time is the
        communication its overlap did not hide

    becomes a *site* k, and the call is bracketed by
    `shardrt_profile_begin(k)` and `shardrt_profile_end(k)`, which add its
    wall time to the calling rank's table (runtime/include/shardrt.h). The
    object names its sites in the public constant `shardc_profile_sites`:
    one line per site, in site order, `kernel <function> <location>` or
    `<collective> <location>` (the call's location as the report writes
    it: `file:line:col`, with what derived it, e.g. `[gradient of ...]`),
    which the host prints beside the times.

    ```mlir
    call @main_nest3(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
    →
    call @shardrt_profile_begin(%c3) : (i64) -> ()
    call @main_nest3(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
    call @shardrt_profile_end(%c3) : (i64) -> ()
    memref.global constant @shardc_profile_sites : memref<Nxi8> = dense<...>
    ```

    Without this pass the object has no probes: profiling costs nothing
    unless asked for.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // SHARDC_COMPILER_TARGETS_CPUPASSES_TD
