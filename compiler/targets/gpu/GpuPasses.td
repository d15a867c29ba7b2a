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

def GpuSplitReductions : Pass<"gpu-split-reductions"> {
  let summary = "Split long reductions with few outputs into partial reductions";
  let description = [{
    The first step of the GPU target's tile phase, target-independent. A
    reduction with fewer than 8192 outputs whose one reduction dim is at
    least 256 long would leave most of a GPU idle under the output recipe
    (a thread per output, each running the whole reduction), and a full
    reduction would run on one thread. Such an op is split by upstream
    `linalg::splitReduction`: its reduction dim k of length L becomes
    (k_outer, k_inner) with k = k_outer * P + k_inner, k_inner a new
    parallel dim of P partials (innermost, so neighbouring threads read
    neighbouring elements), and a second op combines the P partials into
    the original output. P is the largest power of two that divides L,
    leaves each partial at least 32 elements, and keeps outputs x P at
    most 65536; no split when P would be below 8. The combining op is
    considered again (a full reduction of 131072 elements becomes 4096
    partials, then 128, then one thread adds 128). Several adjacent
    reduction dims that every operand reads as one run are first collapsed
    into one (`linalg::collapseOpIterationDims`).

    Every sum keeps one order, fixed by the shapes: partial p adds elements
    p, p + P, p + 2P, ... in order, and the partials are combined in index
    order. That is not the CPU target's order, so GPU and CPU results of a
    float sum differ in the last bits; replicas still agree exactly.

    ```mlir
    %s = linalg.generic {iterator_types = ["reduction"]}
        ins(%x : tensor<131072xf32>) outs(%init : tensor<f32>) {...addf...}
    →
    %e = tensor.expand_shape %x [[0, 1]] : tensor<131072xf32> into tensor<32x4096xf32>
    %p = linalg.generic {iterator_types = ["reduction", "parallel"]}
        ins(%e) outs(%zeros : tensor<4096xf32>) {...addf...}
    %s = linalg.generic {iterator_types = ["reduction"]}
        ins(%p) outs(%init : tensor<f32>) {...addf...}   // split again
    ```

    Reductions whose combiner is not one operation with a neutral element,
    with several outputs, dynamic shapes, or lengths with no such power of
    two, are left whole.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

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

    The staged contraction recipe, for a contraction with one M, one N and
    one K loop (any batch loops, every operand read through a projected
    permutation, a body that reads no indices, elements of a byte or
    more, static loops) with M and N at least 32 and K at least 16: block
    tiles of 64 x 64 outputs (128 x 128 when M and N are both at least
    1024), batch loops one per block, K untiled, and the tile's op marked
    `shardc.gpu_staged` with its block and thread tiles for
    `gpu-stage-contractions`, which writes the block's threads after
    bufferization (shared-memory staging by K chunks). A contraction of
    f16 or bf16 operands summed in f32 takes the tensor cores instead:
    64 x 64 tiles with K chunks of 32, marked `shardc.gpu_mma`; with the
    `tf32` option (`--matmul-precision=tf32`) so does one of f32 operands
    summed in f32, whose products then keep 10 of the operands' 23
    mantissa bits (mma.sync on TF32). Without it, f32 stays exact on the
    SIMT cores.

    The block-tree recipe, for a reduction with one reduced loop that
    every input reading it reads innermost, one output of a byte or more,
    and a body folding into it through one operation with a neutral
    element: rows of 512 or more a block each (parallel loops tiled by 1,
    a full reduction in one block), rows of 64 to 511 eight to a block
    along the innermost parallel loop; the tile's op marked
    `shardc.gpu_block_tree` with its rows and threads a row for
    `gpu-block-reductions`.

    The transpose recipe, for a copy (one input yielded as it is, every
    loop parallel, an identity output) whose input's innermost dim is
    another loop than the output's, both 8 or longer: blocks of 32 x 32
    over those two loops (one along the others), the tile's op marked
    `shardc.gpu_transpose` for `gpu-stage-transposes`.

    The single-thread recipe, for an op with no parallel loop (a full
    reduction, a rank-0 op) that no block tree takes: one block of one
    thread runs it, its loops in order.

    Before tiling, `tensor.pad` becomes a fill and an insert_slice (upstream
    pad decomposition), so that the fill is tiled rather than made by
    bufferization outside any kernel.

    A `linalg.generic` that reads an input through anything but a
    projected permutation (`reverse` reads column `3 - j`: a tile of its
    result is not a box-shaped slice of that operand, which tiling needs)
    first reads that input with `tensor.extract` in its body, at the map's
    position of the `linalg.index` values; the op is then tiled like an
    elementwise one (tiling offsets the indices) and reads the operand
    whole.

    Other ops are left as they are: ops inside loops (scatter_add's loop
    over its positions, which `gpu-host-loops` makes a kernel after
    bufferization) and ops over no elements.
  }];
  let options = [
    Option<"tf32", "tf32", "bool", "false",
           "f32 contractions summed in f32 take the tensor-core recipe too, on TF32">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
                           "mlir::gpu::GPUDialect", "mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect"];
}

def GpuVectorizeThreads : Pass<"gpu-vectorize-threads"> {
  let summary = "A thread's run of 4 elements as vector loads and stores";
  let description = [{
    On buffers, after bufferization, in the GPU target and its sequential
    CPU fork alike. The output recipe gives each thread a run of 4
    consecutive outputs of the innermost dim (16 bytes of f32); a thread's
    elementwise op (every loop parallel, every loop but the innermost of
    extent 1, operands read through projected permutations, byte-or-wider
    elements, a body of elementwise ops) becomes

    ```mlir
    scf.if (%run == 4 and every operand that reads the run starts at an
            address that is a multiple of the run's bytes) {
      %a = vector.load %A[0, 0] {alignment = 16} : memref<1x?xf32, ...>, vector<4xf32>
      %s = memref.load %S[0] ...; %b = vector.broadcast %s  // a broadcast operand
      ... the body's ops on vector<4xf32> ...
      vector.store %r, %OUT[0, 0] {alignment = 16}
    } else {
      linalg.generic ...  // the thread's op as it was
    }
    ```

    so a run becomes one 16-byte load per operand and one store per result
    (`ld.global.v4.f32`). A contraction's thread (the output recipe gives it
    4 consecutive outputs and the whole K) is taken the same way, with one
    reduction loop: `scf.for` over K in order, the 4 outputs carried as a
    vector, A's element broadcast, B's run loaded (its row stride checked
    to keep every run aligned); named ops (matmul, fill) are generalized
    first. A thread at a tile's edge, or a run that is
    not aligned (a view at an odd offset), takes the scalar loop. The
    alignment is checked when the kernel runs (the address of each run:
    the buffer's aligned pointer plus its offset), never assumed. The
    vector path computes each element with the body's own scalar
    operations, so results are the scalar path's bit for bit. Bool (i1)
    operands are not vectorized: an i1 memref holds bytes, an i1 vector
    bits.
  }];
  let dependentDialects = ["mlir::vector::VectorDialect", "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
}

def GpuStageContractions : Pass<"gpu-stage-contractions"> {
  let summary = "A contraction's block tile, staged through shared memory by K chunks";
  let description = [{
    On buffers, after bufferization, in the GPU target and its sequential
    CPU fork alike. `gpu-tile-and-fuse` gives a contraction with one M, one
    N and one K loop (any batch loops, operands read through projected
    permutations in any order: transposed operands included) the staged
    recipe: block tiles of BM x BN outputs, K untiled, the tile's op marked
    `shardc.gpu_staged = array<i64: BM, BN, BK, TM, TN>`. This pass expands
    each marked op into the block's program: 16 x 16 threads, each owning a
    TM x TN patch of the tile (rows ty*TM.., columns tx*TN..), and K in
    chunks of BK:

    ```mlir
    %As = memref.alloca() {alignment = 16} : memref<BK x (BM+pad) x eA, #gpu.address_space<workgroup>>
    %Bs = memref.alloca() {alignment = 16} : memref<BK x (BN+pad) x eB, #gpu.address_space<workgroup>>
    %acc = memref.alloca() : memref<1 x (TM*TN) x eC>   // block code: one per thread
    scf.forall (%ty, %tx) in (16, 16) { %acc[0, ..] = C[patch] }
    scf.for %k0 = 0 to K step BK {
      %kc = min(BK, K - k0)
      scf.forall (%ty, %tx) in (16, 16) {   // staging: each thread copies
        ... A[m, k0 + kk] -> As[kk, m], B[k0 + kk, n] -> Bs[kk, n]   // BM*BK/256 elements
      } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}        // of A and of B
      scf.forall (%ty, %tx) in (16, 16) {   // compute
        %a0 = %acc[0, ..]                   // TM x TN scalars
        %r = scf.for %kk = 0 to %kc iter_args(%a0) {
          %a = vector.load %As[%kk, %ty * TM] : vector<TM x eA>
          %b = vector.load %Bs[%kk, %tx * TN] : vector<TN x eB>
          ... the op's body on (a[i], b[j], acc[i][j]) for each i, j ...
        }
        %acc[0, ..] = %r
      } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    }
    scf.forall (%ty, %tx) in (16, 16) { C[patch] = %acc[0, ..] }
    ```

    `gpu-map-foralls` puts a barrier after each thread forall and makes
    the workgroup buffers attributions of the launch. The accumulators are
    made in the block's code, which every thread runs: each thread has its
    own, indexed by constants only, which LLVM keeps in registers across
    the chunk loop and its barriers (ptxas reports no stack frame). In the
    sequential fork (`workgroup-memory=0`) the buffers are plain stack
    buffers made once at the function's entry, the accumulators a row per
    thread, and the thread foralls run one after the other, which is what
    the barriers guarantee on the GPU.

    A tile marked `shardc.gpu_mma = array<i64: BM, 64, 32>` instead (f16
    or bf16 operands summed in f32; BM is 128, or 64 below 128 rows and for
    TF32) is computed on the tensor cores: A is staged by rows of K (BM x
    (32 + 8)), C's tile comes in and goes out through a shared BM x 64 f32
    tile (rows padded by 16 bytes where that fits the 48 KiB of static
    shared memory) by thread foralls, and the compute is a forall of 8
    warps (`#gpu.warp<x>`, 4 x 2 over the tile: a 32 x 32 patch each at BM
    = 128) whose warp code reads each 16 x 8 accumulator tile once, adds
    for each K step of 16 the product of A's 16 x 16 and B's 16 x 8 shared
    tiles (`vector.contract` of the operands extended to f32), and writes
    it back once; `gpu-lower-mma` makes it `mma.sync` in the kernel. In a
    kernel that warp code is the whole chunk loop, so the accumulators are
    its loop-carried values (registers) from the first chunk to the last:

    ```mlir
    scf.forall (%w) in (8) {                       // mapping = [#gpu.warp<x>]
      %acc0 = vector.transfer_read %C_tile[..]      // 16 x 8 tiles
      %t = affine.apply (w * 32 + lane)             // gpu.lane_id
      %next0 = (thread t's runs of chunk 0, as i32s)
      scf.for %k0 = 0 to K step 32 iter_args(%acc = %acc0, %next = %next0) {
        (store %next into the shared tiles) ; gpu.barrier
        %following = (thread t's runs of chunk k0 + 32, as i32s)
        %acc' = (the chunk's K steps: vector.contract on shared tiles)
        gpu.barrier ; scf.yield %acc', %following
      }
      vector.transfer_write ... %C_tile[..]
    }
    ```

    Each chunk is fetched one chunk ahead, so its loads are in flight while
    the chunk before is computed; the fetched runs travel as i32s, since
    upstream's mma rewriting drops a whole loop that carries a vector it
    cannot make a fragment. In the sequential fork (`workgroup-memory=0`),
    where warps run one after another and no lane exists, each chunk is a
    staging thread forall and a warp forall that reads and writes the
    accumulators through the shared tile instead. Index math in the warp
    code is `affine.apply`, and its arithmetic avoids `arith.addi` and the
    other ops upstream's rewriting takes for matrix ops. The order of a K
    step's 16 products is the hardware's (fixed, so replicas agree), and
    whole K steps past `kc` add the staged zeros. A marked tile of f32
    operands (`gpu-tile-and-fuse`'s `tf32` option) is TF32: each operand
    is rounded to TF32 as it is staged (to nearest, ties away from zero:
    add 2^12 to the bits and clear the low 13; a NaN is quieted instead, so
    that it stays one), K steps are 8 long, and nothing is extended.

    The staging threads walk the operand's innermost dim (coalesced global
    reads) and zero the rows and columns past an edge tile. Where the
    operand's innermost stride is 1 and its tile starts 16-byte aligned
    (checked once per tile at run time), a thread copies 16-byte runs: one
    vector load when the run lies inside, else element by element, and one
    16-byte store when the shared rows run the same way as the operand's
    (else a store per element: the transposing case). Each shared
    row is padded by 16 bytes (fewer bank conflicts on the transposing
    store, rows still 16-byte aligned for the vector loads). Each output
    still adds its K terms in order 0, 1, ..., K - 1 onto C's value: the
    output recipe's order, so results and replicas are unchanged. Edge
    tiles guard C's loads and stores, and
    the chunk loop runs `kc` steps, so no padded element is ever added.
  }];
  let options = [
    Option<"workgroupMemory", "workgroup-memory", "bool", /*default=*/"true",
           "Stage through GPU workgroup (shared) memory; off in the sequential CPU fork">,
  ];
  let dependentDialects = ["mlir::vector::VectorDialect", "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect", "mlir::arith::ArithDialect",
                           "mlir::gpu::GPUDialect"];
}

def GpuBlockReductions : Pass<"gpu-block-reductions"> {
  let summary = "A reduction tile's block as 256 strided partials and a pairwise tree";
  let description = [{
    On buffers, after bufferization, in the GPU target and its sequential
    CPU fork alike. `gpu-tile-and-fuse` gives a reduction with one reduced
    loop, read innermost by every input that reads it, one output of a
    byte or more and a body that folds into it through one operation with
    a neutral element (add, mul, max, min, and, or, ...), the block-tree
    recipe: rows of 512 or more a block each, of 256 threads (a full
    reduction is one block); rows of 64 to 511 eight to a block along the
    innermost parallel loop, 32 threads each. The tile's op is marked
    `shardc.gpu_block_tree = array<i64: R, T>` (R rows, T threads a row).
    This pass writes the block's program:

    ```mlir
    %p = memref.alloca() {alignment = 16} : memref<R x T x f32, #gpu.address_space<workgroup>>
    scf.forall (%row, %t) in (R, T) {   // elements t, t + T, ... in order
      %r = scf.for %j = %t to %L step %T iter_args(%a = %neutral) { ...the body... }
      memref.store %r, %p[%row, %t]
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    scf.forall (%row, %t) in (R, T) {   // then s = T/4, ..., 32
      scf.if %t < T/2 { %p[%row, %t] = combine(%p[%row, %t], %p[%row, %t + T/2]) }
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    ...
    scf.forall (%w) in (R * T / 32) {   // warp code: the row's first warp
      scf.if %w mod (T/32) == 0 {
        %v = vector.transfer_read %p[%w floordiv (T/32), 0] : vector<32xf32>
        %v16 = combine(%v[0:16], %v[16:32])   // ..., down to vector<1xf32>
        %p[%w floordiv (T/32), 0] = %v1[0]
      }
    } {mapping = [#gpu.warp<x>]}
    scf.forall (%row, %t) in (R, T) {
      scf.if %t == 0 { %out[.., row] = combine(%out[.., row], %p[%row, 0]) }
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    ```

    An edge tile's rows past its end read nothing and write nothing.

    The halving pairs element t with t + s, as the array steps do, so the
    tree is the same; in a kernel `gpu-lower-warp-trees` makes those five
    steps warp shuffles (no shared memory, no barriers between them).

    Neighbouring threads read neighbouring elements (coalesced), where the
    output recipe would give each thread a whole row. `gpu-map-foralls`
    puts a barrier after each thread forall. The order of the sum is fixed
    by the shapes (each partial in index order, the tree pairwise), so
    replicas agree bit for bit; it is not the CPU target's order.
  }];
  let options = [
    Option<"workgroupMemory", "workgroup-memory", "bool", /*default=*/"true",
           "Partials in GPU workgroup (shared) memory; off in the sequential CPU fork">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect", "mlir::gpu::GPUDialect",
                           "mlir::vector::VectorDialect", "mlir::affine::AffineDialect"];
}

def GpuStageTransposes : Pass<"gpu-stage-transposes"> {
  let summary = "A transpose tile through a padded workgroup array, both sides coalesced";
  let description = [{
    On buffers, after bufferization, in the GPU target and its sequential
    CPU fork alike. `gpu-tile-and-fuse` gives a copy whose input's
    innermost dim is another loop than the output's (a transpose, and the
    transposing copies dot_general's lowering makes) the transpose recipe:
    blocks of 32 x 32 over those two loops, one along the others, the
    tile's op marked `shardc.gpu_transpose = array<i64: out-loop,
    in-loop>`. This pass writes the block's program, 8 x 32 threads each
    moving 4 elements a phase:

    ```mlir
    %tile = memref.alloca() {alignment = 16} : memref<32x33xf32, #gpu.address_space<workgroup>>
    scf.forall (%ty, %tx) in (8, 32) {   // read: tx along the input's innermost dim
      scf.if (inside) { %tile[ty + 8k, tx] = %in[.. tx (in-loop) .., ty + 8k (out-loop) ..] }
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    scf.forall (%ty, %tx) in (8, 32) {   // write: tx along the output's innermost dim
      scf.if (inside) { %out[.., ty + 8k (in-loop), tx (out-loop)] = %tile[tx, ty + 8k] }
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    ```

    Neighbouring threads read neighbouring input elements and write
    neighbouring output elements, where the output recipe's threads read
    the input with a stride. The array's rows are padded by one element,
    so a warp's column read falls on 32 banks. `gpu-map-foralls` puts a
    barrier after each thread forall.
  }];
  let options = [
    Option<"workgroupMemory", "workgroup-memory", "bool", /*default=*/"true",
           "The tile in GPU workgroup (shared) memory; off in the sequential CPU fork">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect", "mlir::gpu::GPUDialect"];
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
    inside it, directly or in `scf.for` loops (normalized, static counts,
    all of one shape), give the block's shape, and their induction
    variables become the thread ids. Every thread runs the block's code
    outside the thread foralls (address arithmetic, views, the loops around
    thread foralls), which has no side effects in the tile phase's recipes.
    Where a block has several thread foralls, or one in a loop, they talk
    through shared memory, so each is followed by a `gpu.barrier`: that is
    what makes the sequential fork's order (each thread forall whole before
    the next) the GPU's. Workgroup-memory `memref.alloca`s of the block
    become the launch's workgroup attributions (the kernel phase aligns
    them to 16 bytes). A `#gpu.warp<x>`-mapped forall of W warps holds warp
    code (the tensor-core recipe's): every lane of warp w runs its body with
    the induction variable w = (ty * bx + tx) floordiv 32, as affine.apply
    (the mma lowering's slices may hold that, not arith), inside a
    `no_inline` `scf.execute_region` that keeps the warp code apart until
    `gpu-lower-mma`; W x 32 must be the
    block's threads, and a barrier follows it as it follows thread foralls.
    A block forall marked `shardc.gpu_recipe` by the
    pass that made it names its kernel `<function>_<recipe>`
    (`main_gemm`, `main_block_tree`, ...; outlining makes the modules'
    names unique), so PTX, the manifest and profilers say what each
    kernel is.

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
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::arith::ArithDialect",
                           "mlir::affine::AffineDialect", "mlir::scf::SCFDialect"];
}

def GpuSinkViews : Pass<"gpu-sink-views"> {
  let summary = "Recompute inside each gpu.launch the memref views it reads from outside";
  let description = [{
    Kernels take their buffers as bare pointers, which needs dense,
    identity-layout memrefs. A view the host made of a buffer (a slice's
    subview, whose offset may come from a host table read at
    `shardrt_rank()`; a reshape; a cast) and that a launch reads is cloned
    into the launch's start, views of views too, so only the buffer and the
    view's index operands (as scalars) cross into the kernel. Vector
    constants a launch reads (a broadcast of a scalar constant, folded and
    hoisted out by canonicalization) are cloned in the same way. Run right
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

def GpuCopyKernels : Pass<"gpu-copy-kernels"> {
  let summary = "Strided copies and stores outside the tiles become block- and thread-mapped foralls";
  let description = [{
    Bufferization writes some results with copies it adds itself: a slice
    inserted into a larger buffer (concatenation, padding, an all-gather's
    assembly) is a `memref.copy` into a strided subview. On the GPU a copy
    of a strided view needs a kernel (the host code only copies whole dense
    buffers, `shardrt_cuda_copy`), so each `memref.copy` outside a forall
    whose operands are not both dense and statically shaped becomes the
    output recipe's nest on buffers: one thread per element, 256 threads a
    block, element i at the row-major indices of i, and a guard for the last
    block. Runs after bufferization, before `gpu-map-foralls`, and in the
    sequential CPU fork before `gpu-sequential-forall`, so the nest is tested
    on the CPU too. A strided copy out of a constant of the program (a view
    of a `memref.get_global`, in host memory) first copies the whole
    constant into a dense buffer, which the host phase uploads, and reads
    the same view of that buffer. A copy into host memory is left alone
    and refused by the host phase.

    A `memref.store` outside the tiles into a buffer (a rank-0 tensor made
    from a host scalar, such as the offset of a rank's shard read from a
    device table) becomes a one-block, one-thread nest around the store,
    so the scalar reaches the device as a kernel argument.

    ```mlir
    memref.copy %a, %sub : memref<4x3xf32> to memref<4x3xf32, strided<[6, 1], offset: 3>>
    →
    scf.forall (%b) in (1) {
      scf.forall (%t) in (256) {
        %i = %b * 256 + %t
        scf.if %i < 12 { %v = memref.load %a[%i / 3, %i mod 3]
                         memref.store %v, %sub[%i / 3, %i mod 3] }
      } {mapping = [#gpu.thread<x>]}
    } {mapping = [#gpu.block<x>]}
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::gpu::GPUDialect",
                           "mlir::arith::ArithDialect"];
}

def GpuHostLoops : Pass<"gpu-host-loops"> {
  let summary = "Host loops that touch buffers become one-thread kernels";
  let description = [{
    Some ops lower to a sequential loop on the host rather than to a linalg
    op the tile phase takes: `scatter_add` adds its updates position after
    position, in order, so that equal indices always sum in the same
    order. After bufferization such a loop reads and writes buffers, which
    on the GPU only kernels may do. Each outermost `scf.for` outside the
    tiles whose body loads, stores or runs a linalg op on a buffer (and
    calls nothing) is wrapped in a one-block, one-thread nest: the loop runs
    whole, in order, on one GPU thread, which keeps the CPU target's order
    and so its results. Where the loop is column-parallel (scatter_add's
    rows: the only writes are elementwise linalg ops, identity maps, over
    one static domain whose innermost extent D is 2 or more, on views that
    keep their buffers' innermost dim whole, and its loads read buffers
    those ops do not write), column j of every iteration touches column j
    only: the loop then runs on one thread per column (blocks of 256, a
    guard past D), each thread the whole loop, in order, on its column
    (each op tiled to `[.., j]` of size `[.., 1]`), so every column's sums
    are the one-thread loop's. The body's temporary buffers (static shapes) move
    before the loop, one buffer for every iteration, and its copies become
    `linalg.copy` loops, so the kernel allocates and calls nothing. Runs
    after bufferization, before `gpu-copy-kernels` and `gpu-map-foralls`,
    and in the sequential CPU fork before `gpu-sequential-forall`.

    ```mlir
    scf.for %i = %c0 to %n step %c1 { ... memref.load %idx[%i] ... memref.store ... }
    →
    scf.forall (%b) in (1) {
      scf.forall (%t) in (1) {
        scf.for %i = %c0 to %n step %c1 { ... }
      } {mapping = [#gpu.thread<x>]}
    } {mapping = [#gpu.block<x>]}
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::gpu::GPUDialect",
                           "mlir::linalg::LinalgDialect"];
}

def GpuLowerWarpTrees : Pass<"gpu-lower-warp-trees"> {
  let summary = "A block tree's warp code (a halving of 32 partials) to warp shuffles";
  let description = [{
    In each `gpu.module`, after outlining, before NVVM. The block-tree
    recipe of `gpu-block-reductions` leaves the last five steps of a row's
    tree as warp code: a `vector.transfer_read` of 32 partials from
    workgroup memory, halved five times (elements [0, s) combined with
    [s, 2s) by the reduction's one op), the one element left extracted.
    This pass rewrites that chain in the warp code's region to what each
    lane does: read partial `lane`, then for s = 16, ..., 1 combine it with
    the value `gpu.shuffle down` by s brings (lane t + s's), and take lane
    0's result (`gpu.shuffle idx` 0), so every lane holds the total. Lane
    0's combines pair the partials exactly as the halving does, so the
    result is the same in the sequential fork and on the GPU. Elements of
    fewer than 32 bits are shuffled extended to 32 (exactly); 64-bit ones
    as they are (NVVM splits them in two).

    ```mlir
    %v = vector.transfer_read %p[%row, %c0] : memref<8x32xf32, 3>, vector<32xf32>
    %lo = vector.extract_strided_slice %v {offsets = [0], sizes = [16], strides = [1]}
    %hi = vector.extract_strided_slice %v {offsets = [16], sizes = [16], strides = [1]}
    %v16 = arith.addf %lo, %hi : vector<16xf32>
    ... %t = vector.extract %v1[0]
    →
    %x = memref.load %p[%row, %lane]
    %y, %ok = gpu.shuffle down %x, %c16, %c32 : f32
    %x16 = arith.addf %x, %y : f32
    ... %t = gpu.shuffle idx %x1, %c0, %c32 : f32
    ```

    The warp code's `no_inline` region is then inlined, as `gpu-lower-mma`
    does for the tensor cores' (which runs after this pass).
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def GpuLowerMma : Pass<"gpu-lower-mma"> {
  let summary = "A kernel's vector contractions on shared tiles to nvgpu.mma.sync and ldmatrix";
  let description = [{
    In each `gpu.module`, after outlining, before NVVM. The tensor-core
    recipe of `gpu-stage-contractions` leaves warp code: 16 x 16 f16 tiles
    of A and 16 x 8 tiles of B read from workgroup memory
    (`vector.transfer_read`), extended to f32, and a `vector.contract`
    adding their product onto a 16 x 8 f32 tile. This pass folds the
    extensions into the contraction (f16 x f16 into f32) and rewrites each
    such slice with upstream's VectorToGPU (the `nvgpu` path): the
    contraction becomes `nvgpu.mma.sync` m16n8k16, the reads of A and B
    `nvgpu.ldmatrix` (B transposed), the accumulators' reads and writes
    per-lane loads and stores of each lane's fragment. The fragment layouts
    are upstream's, by lane id.

    bf16 has no path upstream (its rewriting deduces PTX types for f16
    only). ldmatrix moves 16-bit elements as bits and mma.sync m16n8k16
    lays out bf16 fragments as f16 ones, so a warp code that reads bf16
    tiles first gets them typed f16 (the same bits: the staging stores
    bitcast, the reads read f16), goes through the same rewriting, and
    each `nvgpu.mma.sync` it yields becomes `nvvm.mma.sync` with bf16
    multiplicands (A's 4 and B's 2 fragment rows as 32-bit registers, C
    and the result 4 f32s in row order).

    An f32 contraction (the TF32 recipe, operands already rounded when
    staged) becomes `nvgpu.mma.sync` m16n8k8, which upstream's
    `populateMmaSyncF32ToTF32Patterns` marks `tf32Enabled`
    (`mma.sync...f32.tf32.tf32.f32`); A's reads are `nvgpu.ldmatrix`
    (32-bit elements moved as pairs of 16-bit ones), B's plain loads.

    ```mlir
    %a = vector.transfer_read %As[%r, %k] ... : memref<64x40xf16, 3>, vector<16x16xf16>
    %b = vector.transfer_read %Bs[%k, %c] ... : memref<32x72xf16, 3>, vector<16x8xf16>
    %d = vector.contract ... (arith.extf %a), (arith.extf %b), %acc
    →
    %a = nvgpu.ldmatrix %As[..] {numTiles = 4, transpose = false} -> vector<4x2xf16>
    %b = nvgpu.ldmatrix %Bs[..] {numTiles = 2, transpose = true} -> vector<2x2xf16>
    %d = nvgpu.mma.sync(%a, %b, %acc) {mmaShape = [16, 8, 16]}
    ```

    The warp code arrives in the `no_inline` `scf.execute_region` that
    `gpu-map-foralls` put it in; only that region is rewritten (upstream's
    rewriting would take the kernel's scalar index arithmetic for matrix
    ops), then inlined. A contraction left over is an error at it: the recipe made something
    the tensor cores cannot take (an internal error).
  }];
  let dependentDialects = ["mlir::nvgpu::NVGPUDialect", "mlir::gpu::GPUDialect",
                           "mlir::scf::SCFDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::vector::VectorDialect", "mlir::memref::MemRefDialect",
                           "mlir::affine::AffineDialect", "mlir::arith::ArithDialect"];
}

def GpuCheckKernels : Pass<"gpu-check-kernels", "mlir::ModuleOp"> {
  let summary = "Refuse kernels that would assemble but be wrong or slow in ways ptxas does not see";
  let description = [{
    The gate before NVVM: every `gpu.func` kernel of every `gpu.module` is
    checked, and each finding is an error at the op (an internal error of
    the recipe that made it, exit 3), never a kernel that runs wrongly:

    - a `memref.alloc` or `memref.alloca` in workgroup (shared) memory:
      MLIR 22 lowers it to a per-thread buffer silently, so threads would
      not share it (workgroup memory must be a kernel attribution);
    - a `memref.alloc` in any other memory space: a `malloc` per thread;
    - a call (`func.call`) in a kernel: kernels call nothing but the
      libdevice functions NVVM lowering itself introduces;
    - a kernel argument that is neither a statically shaped identity-layout
      memref nor an integer, index or float scalar (the bare-pointer
      convention the host's launches use).

    ```mlir
    gpu.func @k() kernel {
      %a = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>   // error
      gpu.return
    }
    ```
  }];
}

def GpuLowerLaunches : Pass<"gpu-lower-launches", "mlir::ModuleOp"> {
  let summary = "Embed each gpu.binary and turn each gpu.launch_func into a shardrt_cuda_launch call";
  let description = [{
    The host side of a launch, in the rank model of shardrt_cuda.h: the
    module image and kernel name are constants of the object, and the
    launch goes on the calling rank's stream through the runtime, which
    loads the image into the rank's device once. Upstream's `gpu-to-llvm`
    is not used: it loads modules in global constructors, before any rank
    has a device, into one context.

    Each `gpu.binary` (one object: a cubin, fatbin or PTX, which gets a
    terminating NUL) becomes an internal constant global `@__shardc_image_<name>`.
    Each launch's arguments are stored into stack slots made at the
    function's entry, in the bare-pointer convention the kernels were
    compiled with (`convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1}`):
    a memref is its aligned pointer, which must be an identity-layout,
    statically shaped buffer (`gpu-sink-views` makes them so); an index is
    an i64; other scalars are stored as they are. A memref read from a
    `memref.get_global` (a constant of the program) lives in host memory,
    so the kernel gets its device copy, `shardrt_cuda_constant`, uploaded
    once per device.

    ```mlir
    gpu.launch_func @k::@k blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%buf : memref<1024xf32>, %n : index)
    →
    %p = memref.extract_aligned_pointer_as_index %buf ...   // to !llvm.ptr
    llvm.store %p, %slot0 ; llvm.store %n64, %slot1 ; params = [%slot0, %slot1]
    %s = func.call @shardrt_cuda_launch(@__shardc_image_k, bytes, "k", 4, 1, 1, 256, 1, 1, 0, params)
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::func::FuncDialect",
                           "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect"];
}

def GpuDeviceMemory : Pass<"gpu-device-memory", "mlir::ModuleOp"> {
  let summary = "Host code's buffers become device memory: malloc, free, memcpy and collectives to shardrt_cuda_*";
  let description = [{
    Runs on the host code once it is in the LLVM dialect. Every buffer a
    GPU artifact's host code allocates holds tensor elements, which only
    kernels touch, so its `malloc` becomes `shardrt_cuda_alloc(bytes,
    site)` (the site: the source location of the value, for out-of-memory
    messages), its `free` `shardrt_cuda_free`, a whole-buffer copy
    (`llvm.intr.memcpy`) `shardrt_cuda_copy`, and each collective of
    shardrt.h its `shardrt_cuda_` twin on device buffers. A strided copy
    (MLIR's `memrefCopy`) and a memset cannot run on device memory from the
    host: each is an error at its op. (Host loads and stores of device
    memory are refused before lowering, where memrefs still say what they
    point to.)
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // SHARDC_COMPILER_TARGETS_GPU_GPUPASSES_TD
