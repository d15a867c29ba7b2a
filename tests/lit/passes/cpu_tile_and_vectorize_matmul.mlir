// RUN: shardc-opt %s -split-input-file --cpu-tile-and-vectorize-matmul="vector-bits=256 tile-rows=4 tile-vectors=2 fit-tile=false cache-tiles=32,32,16 m-block-multiple=1" | FileCheck %s
// RUN: shardc-opt %s -split-input-file --cpu-tile-and-vectorize-matmul="vector-bits=256 tile-rows=4 tile-vectors=2 fit-tile=false cache-tiles=32,32,16" | FileCheck %s --check-prefix=BALANCE
// RUN: shardc-opt %s -split-input-file --cpu-tile-and-vectorize-matmul="vector-bits=256 tile-rows=4 tile-vectors=2 fit-tile=false cache-tiles=32,32,16 m-block-multiple=1 unroll-k=4" | FileCheck %s --check-prefix=UNROLL
// RUN: shardc-opt %s -split-input-file --cpu-tile-and-vectorize-matmul="vector-bits=256 tile-rows=4 tile-vectors=2 fit-tile=false cache-tiles=32,4096,512" | FileCheck %s --check-prefix=ONEBLOCK
// RUN: shardc-opt %s -split-input-file --cpu-tile-and-vectorize-matmul="vector-bits=512 tile-rows=8 tile-vectors=2 cache-tiles=192,4096,512" | FileCheck %s --check-prefix=FIT
// RUN: shardc-opt %s -split-input-file --cpu-tile-and-vectorize-matmul="vector-bits=256 tile-rows=4 tile-vectors=2 fit-tile=false cache-tiles=32,32,16 m-block-multiple=1 read-a-in-place=false" | FileCheck %s --check-prefix=PACKED
// RUN: not shardc-opt %s -split-input-file --cpu-tile-and-vectorize-matmul="tile-rows=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADOPT
//
// cpu-tile-and-vectorize-matmul: cache blocks (loops N, K, M); B packed into
// NR-wide micro-panels before the M loop and A into MR-tall ones per block;
// one MR x NR register tile per pair of panels, the accumulator read before
// the K loop and written after it, FMAs in between. With 256-bit vectors an
// f32 tile is 4 x 16 and an f64 tile 4 x 8.

// BADOPT: error: cpu-tile-and-vectorize-matmul: invalid tile options (vector-bits=256, tile-rows=0, tile-vectors=2, unroll-k=1): expected positive sizes

// Sizes that divide the tiles: only full tiles, no linalg.matmul left.
// CHECK-LABEL: func.func @full_tiles
// CHECK-SAME: (%[[A:[^:]+]]: memref<64x32xf32>, %[[B:[^:]+]]: memref<32x64xf32>, %[[C:[^:]+]]: memref<64x64xf32>)
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[BP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x17x16xf32>
// CHECK: scf.for %[[N0:.*]] = %{{.*}} to %{{.*}} step %[[C32]]
// CHECK-NEXT: scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %[[C16]]
// The B panels, before the M loop, shared by the kernel threads: B is read
// row by row as it lies (one k per iteration), each row's NR-wide pieces
// stored into their panels.
// CHECK: scf.parallel (%[[KB:.*]]) = (%{{.*}}) to (%[[C16]]) step
// CHECK: scf.for %[[PB:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[BK:.*]] = vector.load %[[B]][%{{.*}}, %{{.*}}] : memref<32x64xf32>, vector<16xf32>
// CHECK-NEXT: vector.store %[[BK]], %[[BP]][%[[PB]], %[[KB]], %{{.*}}] : memref<2x17x16xf32>, vector<16xf32>
// Each of the recipe's parallel loops carries the GEMM's products
// (64 x 64 x 32), which cpu-outline-parallel-loops weighs.
// CHECK: } {shardc.gemm_loop = 131072 : i64}
// The M blocks are independent (each packs its own A panels): a parallel
// loop.
// CHECK: scf.parallel (%[[M0:.*]]) = (%{{.*}}) to (%{{.*}}) step (%[[C32]])
// CHECK: %[[AP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x16x4xf32>
// The A panels: eight k at a time, the MR rows of A are loaded as vectors
// of 8 (each row read in order), transposed in registers by three rounds of
// shuffles (the 4 rows padded to 8) and stored as 8 rows of the k-major
// panel, MR values each.
// CHECK: scf.for %[[Q:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[C16]] step %c8
// CHECK-COUNT-4: vector.load %[[A]]{{.*}} : memref<64x32xf32>, vector<8xf32>
// CHECK: vector.shuffle
// CHECK: %[[ROW:.*]] = vector.extract_strided_slice {{.*}} to vector<4xf32>
// CHECK-NEXT: vector.store %[[ROW]], %[[AP]][%[[Q]], %[[K]], %{{.*}}] : memref<8x16x4xf32>, vector<4xf32>
// CHECK-COUNT-7: vector.store {{.*}} : memref<8x16x4xf32>, vector<4xf32>
// CHECK: %[[ACC:.*]] = vector.transfer_read %[[C]][%[[I:.*]], %[[J:.*]]], %{{.*}} : memref<64x64xf32>, vector<4x16xf32>
// CHECK-NEXT: %[[RES:.*]] = scf.for %{{.*}} = %{{.*}} to %[[C16]] step %{{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<4x16xf32>)
// CHECK: vector.transfer_read %[[BP]]{{.*}} : memref<2x17x16xf32>, vector<1x16xf32>
// CHECK: memref.load %[[AP]]
// CHECK-COUNT-4: vector.fma {{.*}} : vector<16xf32>
// CHECK: scf.yield %{{.*}} : vector<4x16xf32>
// CHECK: vector.transfer_write %[[RES]], %[[C]][%[[I]], %[[J]]] {{.*}} : vector<4x16xf32>, memref<64x64xf32>
// CHECK: memref.dealloc %[[AP]]
// CHECK: } {shardc.gemm_loop = 131072 : i64}
// CHECK-NOT: linalg.matmul
// CHECK: memref.dealloc %[[BP]]
// CHECK: return
// With unroll-k=4, a full tile's K loop does four K steps per iteration,
// in order.
// UNROLL-LABEL: func.func @full_tiles
// UNROLL: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4 iter_args(%{{.*}}) -> (vector<4x16xf32>)
// UNROLL-COUNT-16: vector.fma {{.*}} : vector<16xf32>
// UNROLL-NOT: vector.fma
// UNROLL: scf.yield
func.func @full_tiles(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
  return
}

// -----

// 33 x 17 x 65 in f64: the partial panels are zero-padded and the edge
// tiles run the same vector kernel in a zeroed scratch tile, copied back;
// nothing is left to scalar loops. The full tiles' kernel comes first,
// then the edge tiles' one.
// With unroll-k=4, K = 17 in blocks of 16 and 1: the full tiles' K loop
// does groups of four steps and then the rest one by one; the edge tiles'
// K loop (through the scratch tile) is not unrolled.
// UNROLL-LABEL: func.func @remainders
// UNROLL: %[[SCRATCH:.*]] = memref.alloc() {alignment = 64 : i64, shardc.gemm_scratch_tile} : memref<4x8xf64>
// UNROLL: %[[MAIN:.*]] = scf.for {{.*}} step %c4 iter_args({{.*}}) -> (vector<4x8xf64>)
// UNROLL-COUNT-16: vector.fma
// UNROLL-NOT: vector.fma
// UNROLL: scf.yield
// UNROLL-NEXT: }
// UNROLL-NEXT: scf.for {{.*}} step %c1 iter_args(%{{.*}} = %[[MAIN]]) -> (vector<4x8xf64>)
// UNROLL: vector.transfer_read %[[SCRATCH]]{{.*}} : memref<4x8xf64>, vector<4x8xf64>
// UNROLL-NEXT: scf.for {{.*}} step %c1 iter_args
// CHECK-LABEL: func.func @remainders
// B's partial last panel (its 17th column): per k, one masked load of the
// row's last column, zero beyond it, stored as a whole NR-wide row.
// CHECK: %[[MASK:.*]] = vector.constant_mask [1] : vector<8xi1>
// CHECK: %[[PIECE:.*]] = vector.maskedload %{{.*}}[%{{.*}}, %c16], %[[MASK]], %{{.*}} : memref<65x17xf64>, vector<8xi1>, vector<8xf64> into vector<8xf64>
// CHECK-NEXT: vector.store %[[PIECE]], %{{.*}}[%c2, %{{.*}}, %c0] : memref<3x17x8xf64>, vector<8xf64>
// CHECK: %[[TILE:.*]] = memref.alloc() {alignment = 64 : i64, shardc.gemm_scratch_tile} : memref<4x8xf64>
// CHECK: vector.transfer_write %{{.*}} : vector<4x8xf64>, memref<33x17xf64>
// CHECK: linalg.fill ins(%{{.*}} : f64) outs(%[[TILE]] : memref<4x8xf64>)
// CHECK: vector.transfer_write %{{.*}}, %[[TILE]]{{.*}} : vector<4x8xf64>, memref<4x8xf64>
// CHECK: linalg.copy ins(%{{.*}} : memref<?x?xf64, strided<[8, 1]>>) outs(%{{.*}} : memref<?x?xf64, strided<[17, 1], offset: ?>>)
// One loop over the edge tiles (the partial column, then the partial row):
// one register kernel for all of them.
// CHECK-NOT: vector.fma
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @remainders(%A: memref<33x65xf64>, %B: memref<65x17xf64>, %C: memref<33x17xf64>) {
  linalg.matmul ins(%A, %B : memref<33x65xf64>, memref<65x17xf64>) outs(%C : memref<33x17xf64>)
  return
}

// -----

// Aᵀ · Bᵀ: both operands are read as they lie by their packing copies (A's
// columns k-major as they are, B's rows transposed into the panel); no
// transpose of a whole operand, and the same register kernel.
// CHECK-LABEL: func.func @transposed_operands
// CHECK-SAME: (%[[A:[^:]+]]: memref<32x64xf32>, %[[B:[^:]+]]: memref<64x32xf32>
// CHECK-COUNT-8: vector.load %[[B]]{{.*}} : memref<64x32xf32>, vector<8xf32>
// CHECK-COUNT-24: vector.shuffle
// CHECK-COUNT-8: vector.store {{.*}} : memref<2x17x16xf32>, vector<8xf32>
// CHECK: vector.load %[[A]][%{{.*}}, %{{.*}}] : memref<32x64xf32>, vector<4xf32>
// CHECK-NEXT: vector.store %{{.*}} : memref<8x16x4xf32>, vector<4xf32>
// CHECK-COUNT-4: vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT: linalg.matmul
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @transposed_operands(%A: memref<32x64xf32>, %B: memref<64x32xf32>, %C: memref<64x64xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%A, %B : memref<32x64xf32>, memref<64x32xf32>) outs(%C : memref<64x64xf32>)
  return
}

// -----

// batch_matmul, here with Bᵀ per batch (attention's q · kᵀ): a parallel
// loop over the batch around the same recipe.
// CHECK-LABEL: func.func @batched
// CHECK-SAME: (%[[A:[^:]+]]: memref<3x8x16xf32>, %[[B:[^:]+]]: memref<3x16x16xf32>, %[[C:[^:]+]]: memref<3x8x16xf32>)
// CHECK: scf.parallel (%[[BATCH:.*]]) = 
// CHECK: vector.transfer_read %[[C]][%[[BATCH]], %{{.*}}, %{{.*}}]{{.*}} : memref<3x8x16xf32>, vector<4x16xf32>
// CHECK-COUNT-4: vector.fma
// CHECK: vector.transfer_write %{{.*}}, %[[C]][%[[BATCH]], %{{.*}}, %{{.*}}]
// CHECK-NOT: linalg.batch_matmul
// CHECK-NOT: linalg.matmul
// The batch loop carries the products of all its GEMMs, 3 x 8 x 16 x 16.
// CHECK: } {shardc.gemm_loop = 6144 : i64}
// CHECK-NEXT: return
func.func @batched(%A: memref<3x8x16xf32>, %B: memref<3x16x16xf32>, %C: memref<3x8x16xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                                       affine_map<(b, m, n, k) -> (b, n, k)>,
                                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%A, %B : memref<3x8x16xf32>, memref<3x16x16xf32>) outs(%C : memref<3x8x16xf32>)
  return
}

// -----

// bf16 operands into an f32 accumulator: the packing copies widen them into
// f32 panels (A's transposing copy and B's row copy both extend; the
// transposing copy widens each row's vector of 8 values at once), and the
// register tile is the f32 one.
// CHECK-LABEL: func.func @bf16_into_f32
// CHECK-DAG: memref.alloc() {alignment = 64 : i64} : memref<2x17x16xf32>
// CHECK: %[[B16:.*]] = vector.load %{{.*}} : memref<32x64xbf16>, vector<16xbf16>
// CHECK-NEXT: %[[B32:.*]] = arith.extf %[[B16]] : vector<16xbf16> to vector<16xf32>
// CHECK-NEXT: vector.store %[[B32]], %{{.*}} : memref<2x17x16xf32>, vector<16xf32>
// CHECK: %[[ROW16:.*]] = vector.load %{{.*}} : memref<64x32xbf16>, vector<8xbf16>
// CHECK-NEXT: %[[ROW32:.*]] = arith.extf %[[ROW16]] : vector<8xbf16> to vector<8xf32>
// CHECK: vector.shuffle %[[ROW32]]
// CHECK: vector.store {{.*}} : memref<8x16x4xf32>, vector<4xf32>
// CHECK-COUNT-4: vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @bf16_into_f32(%A: memref<64x32xbf16>, %B: memref<32x64xbf16>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x32xbf16>, memref<32x64xbf16>) outs(%C : memref<64x64xf32>)
  return
}

// -----

// Integers (and tensors, and other element types) are left to
// convert-linalg-to-loops.
// CHECK-LABEL: func.func @integers
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: return
func.func @integers(%A: memref<8x8xi32>, %B: memref<8x8xi32>, %C: memref<8x8xi32>) {
  linalg.matmul ins(%A, %B : memref<8x8xi32>, memref<8x8xi32>) outs(%C : memref<8x8xi32>)
  return
}

// -----

// One M block (M = 16 <= the M cache tile, 32): the rank's kernel threads
// share the block's columns of tiles instead (there is no M loop to run in
// parallel). A is packed once for all columns, by a parallel loop over its
// panels. The columns are cut into one group per chunk of the rank's
// parallel loops (shardrt_loop_chunks, its threads), and each group packs
// its own panels of B, row by row, right before its tiles, so no column
// reads panels that another thread packed.
// CHECK-LABEL: func.func @one_m_block
// CHECK-SAME: (%[[A:[^:]+]]: memref<16x32xf32>, %[[B:[^:]+]]: memref<32x64xf32>, %[[C:[^:]+]]: memref<16x64xf32>)
// CHECK: %[[BP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x17x16xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: vector.load %[[B]]
// CHECK: scf.parallel (%[[Q:.*]]) = (%{{.*}}) to (%c4) step
// CHECK: vector.store {{.*}} %{{.*}}[%[[Q]], {{.*}} : memref<8x16x4xf32>, vector<4xf32>
// CHECK: %[[CHUNKS:.*]] = func.call @shardrt_loop_chunks() : () -> i64
// CHECK: %[[N:.*]] = arith.index_cast %[[CHUNKS]]
// CHECK: %[[W0:.*]] = arith.ceildivui %c2, %[[N]]
// CHECK: %[[W:.*]] = arith.maxui %[[W0]], %c1
// CHECK: %[[GROUPS:.*]] = arith.ceildivui %c2, %[[W]]
// CHECK: scf.parallel (%[[G:.*]]) = (%{{.*}}) to (%[[GROUPS]]) step
// CHECK: %[[FIRST:.*]] = arith.muli %[[G]], %[[W]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[FIRST]], %[[W]]
// CHECK: %[[END:.*]] = arith.minui %[[NEXT]], %c2
// CHECK: scf.for %[[KR:[^ ]+]] = %c0 to %c16
// CHECK: scf.for %[[I:[^ ]+]] = %[[FIRST]] to %[[END]]
// CHECK: vector.load %[[B]]
// CHECK-NEXT: vector.store %{{.*}}, %[[BP]][%[[I]], %[[KR]],
// CHECK: scf.for %[[P:[^ ]+]] = %[[FIRST]] to %[[END]]
// CHECK-NOT: vector.load %[[B]]
// CHECK: vector.transfer_read %[[BP]][%[[P]]
// CHECK-COUNT-4: vector.fma {{.*}} : vector<16xf32>
// CHECK: scf.reduce
func.func @one_m_block(%A: memref<16x32xf32>, %B: memref<32x64xf32>, %C: memref<16x64xf32>) {
  linalg.matmul ins(%A, %B : memref<16x32xf32>, memref<32x64xf32>) outs(%C : memref<16x64xf32>)
  return
}

// -----

// One M block of a transposed A (a weight gradient, xᵀ·g): A's full
// micro-panels are read where they lie, MR adjacent values of each of its
// rows, as from a panel whose rows are 18 values apart; only its partial
// last panel (rows 16 and 17, zero-padded to 4) is packed, by one thread.
// CHECK-LABEL: func.func @one_m_block_transposed_a
// CHECK-SAME: (%[[A:[^:]+]]: memref<32x18xf32>, %[[B:[^:]+]]: memref<32x64xf32>, %[[C:[^:]+]]: memref<18x64xf32>)
// CHECK: %[[TAIL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x16x4xf32>
// CHECK-NEXT: scf.for
// CHECK: vector.maskedload %[[A]][%{{.*}}, %c16]
// CHECK: scf.parallel
// CHECK: vector.load %[[B]]
// CHECK: scf.for
// CHECK-COUNT-4: memref.load %[[A]]
// CHECK: vector.transfer_write %{{.*}}, %[[C]]
// The partial last row of tiles, from the packed tail.
// CHECK-COUNT-4: memref.load %[[TAIL]]
// CHECK: scf.reduce
func.func @one_m_block_transposed_a(%A: memref<32x18xf32>, %B: memref<32x64xf32>, %C: memref<18x64xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%A, %B : memref<32x18xf32>, memref<32x64xf32>) outs(%C : memref<18x64xf32>)
  return
}

// -----

// One M block and one column of panels: the block is computed on one
// thread, so it packs A and B alone (the other thread's packing would be
// read back from the other core's cache).
// CHECK-LABEL: func.func @one_m_block_one_column
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @one_m_block_one_column(%A: memref<16x32xf32>, %B: memref<32x16xf32>, %C: memref<16x16xf32>) {
  linalg.matmul ins(%A, %B : memref<16x32xf32>, memref<32x16xf32>) outs(%C : memref<16x16xf32>)
  return
}

// -----

// One M block whose rows are not a multiple of MR (6 = 4 + 2) and whose B
// is 2048 wide: the K blocks shrink from 512 to 128, so that B's packed
// block (128 x 2048 floats) is at most 1 MiB; each parallel column also
// computes its tile of the partial last row, in a scratch tile of its own
// (after its group has packed the group's panels of B); no edge loop is
// left after the columns.
// ONEBLOCK-LABEL: func.func @one_m_block_edge_row
// ONEBLOCK-SAME: (%[[A:[^:]+]]: memref<6x256xf32>, %[[B:[^:]+]]: memref<256x2048xf32>, %[[C:[^:]+]]: memref<6x2048xf32>)
// ONEBLOCK: memref.alloc() {alignment = 64 : i64} : memref<128x129x16xf32>
// ONEBLOCK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128
// ONEBLOCK-NOT: vector.load %[[B]]
// ONEBLOCK: %[[TILES:.*]] = memref.alloc() {alignment = 64 : i64} : memref<128x4x16xf32>
// ONEBLOCK: func.call @shardrt_loop_chunks()
// ONEBLOCK: scf.parallel
// ONEBLOCK: vector.load %[[B]]
// ONEBLOCK: scf.for %[[P:[^ ]+]] = 
// ONEBLOCK-NOT: vector.load %[[B]]
// ONEBLOCK: vector.transfer_write %{{.*}}, %[[C]]
// ONEBLOCK: memref.subview %[[C]][4, %{{.*}}] [2, 16]
// ONEBLOCK: vector.transfer_read %[[TILES]][%[[P]], %c0, %c0]
// ONEBLOCK: vector.fma
// ONEBLOCK: vector.transfer_write %{{.*}}, %[[TILES]][%[[P]], %c0, %c0]
// ONEBLOCK: linalg.copy
// ONEBLOCK-NEXT: }
// ONEBLOCK-NEXT: scf.reduce
// ONEBLOCK-NEXT: }
// ONEBLOCK-NEXT: memref.dealloc %[[TILES]]
// ONEBLOCK-NOT: vector.fma
// ONEBLOCK: return
func.func @one_m_block_edge_row(%A: memref<6x256xf32>, %B: memref<256x2048xf32>, %C: memref<6x2048xf32>) {
  linalg.matmul ins(%A, %B : memref<6x256xf32>, memref<256x2048xf32>) outs(%C : memref<6x2048xf32>)
  return
}

// -----

// C starts at zero (a fill of 0.0 right before): the fill over all of C is
// gone; in the first K block each full tile's accumulator starts as a zero
// vector instead of reading C (nothing writes C's tiles before their K
// loop), and an edge tile does not read C into its scratch tile.
// CHECK-LABEL: func.func @zero_filled
// CHECK-SAME: (%[[A:[^:]+]]: memref<64x32xf32>, %[[B:[^:]+]]: memref<32x40xf32>, %[[C:[^:]+]]: memref<64x40xf32>)
// CHECK-NOT: linalg.fill {{.*}} outs(%[[C]] : memref<64x40xf32>)
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[K0]], %{{.*}} : index
// CHECK: %[[LATER:.*]] = arith.cmpi ne, %[[K0]], %{{.*}} : index
// CHECK-NOT: linalg.fill {{.*}} outs(%{{.*}} : memref<4x16xf32, strided<[40, 1], offset: ?>>)
// CHECK: %[[ACC:.*]] = scf.if %[[FIRST]] -> (vector<4x16xf32>) {
// CHECK-NEXT: scf.yield %[[ZEROS:.*]] : vector<4x16xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[READ:.*]] = vector.transfer_read %[[C]]
// CHECK-NEXT: scf.yield %[[READ]] : vector<4x16xf32>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<4x16xf32>)
// CHECK: scf.if %[[LATER]] {
// CHECK-NEXT: linalg.copy
func.func @zero_filled(%A: memref<64x32xf32>, %B: memref<32x40xf32>, %C: memref<64x40xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%C : memref<64x40xf32>)
  linalg.matmul ins(%A, %B : memref<64x32xf32>, memref<32x40xf32>) outs(%C : memref<64x40xf32>)
  return
}

// -----

// Something that writes memory between the fill and the matmul: the fill
// stays, and no tile is zeroed by the recipe.
// CHECK-LABEL: func.func @fill_not_adjacent
// CHECK: linalg.fill {{.*}} outs(%{{.*}} : memref<64x40xf32>)
// CHECK-NOT: linalg.fill {{.*}} outs(%{{.*}} : memref<4x16xf32, strided<[40, 1], offset: ?>>)
// CHECK: return
func.func @fill_not_adjacent(%A: memref<64x32xf32>, %B: memref<32x40xf32>, %C: memref<64x40xf32>) {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  linalg.fill ins(%z : f32) outs(%C : memref<64x40xf32>)
  memref.store %one, %C[%c0, %c0] : memref<64x40xf32>
  linalg.matmul ins(%A, %B : memref<64x32xf32>, memref<32x40xf32>) outs(%C : memref<64x40xf32>)
  return
}

// -----

// A C allocated here whose zero fill lies further up, with other kernels in
// between that cannot touch it (they never use it): the fill is gone and
// each full tile's accumulator starts as a zero vector in the first K
// block, as with a C that is an argument (a C allocated in the function is
// not a scratch tile: an intermediate result's GEMM gets the same register
// kernel as an output's). With unroll-k=4 its K loop is unrolled.
// CHECK-LABEL: func.func @distant_fill
// CHECK: %[[C:.*]] = memref.alloc() : memref<64x40xf32>
// CHECK-NOT: linalg.fill {{.*}} outs(%[[C]] : memref<64x40xf32>)
// CHECK: linalg.fill {{.*}} outs(%{{.*}} : memref<8x8xf32>)
// CHECK-NOT: linalg.fill {{.*}} outs(%{{.*}} : memref<4x16xf32, strided<[40, 1], offset: ?>>)
// CHECK: %[[ACC:.*]] = scf.if %{{.*}} -> (vector<4x16xf32>) {
// CHECK-NEXT: scf.yield %{{.*}} : vector<4x16xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: vector.transfer_read %[[C]]
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<4x16xf32>)
// UNROLL-LABEL: func.func @distant_fill
// UNROLL: %[[C:.*]] = memref.alloc() : memref<64x40xf32>
// UNROLL: scf.for {{.*}} step %c4 iter_args({{.*}}) -> (vector<4x16xf32>)
// UNROLL-COUNT-16: vector.fma
// UNROLL: vector.transfer_write %{{.*}}, %[[C]]
func.func @distant_fill(%A: memref<64x32xf32>, %B: memref<32x40xf32>, %D: memref<8x8xf32>) -> memref<64x40xf32> {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %C = memref.alloc() : memref<64x40xf32>
  linalg.fill ins(%z : f32) outs(%C : memref<64x40xf32>)
  linalg.fill ins(%one : f32) outs(%D : memref<8x8xf32>)
  linalg.matmul ins(%A, %B : memref<64x32xf32>, memref<32x40xf32>) outs(%C : memref<64x40xf32>)
  return %C : memref<64x40xf32>
}

// -----

// The same, but C is read between the fill and the matmul: the fill stays.
// CHECK-LABEL: func.func @distant_fill_used
// CHECK: %[[C:.*]] = memref.alloc() : memref<64x40xf32>
// CHECK: linalg.fill {{.*}} outs(%[[C]] : memref<64x40xf32>)
// CHECK-NOT: linalg.fill {{.*}} outs(%{{.*}} : memref<4x16xf32, strided<[40, 1], offset: ?>>)
// CHECK: return
func.func @distant_fill_used(%A: memref<64x32xf32>, %B: memref<32x40xf32>, %D: memref<64x40xf32>) -> memref<64x40xf32> {
  %z = arith.constant 0.0 : f32
  %C = memref.alloc() : memref<64x40xf32>
  linalg.fill ins(%z : f32) outs(%C : memref<64x40xf32>)
  linalg.copy ins(%C : memref<64x40xf32>) outs(%D : memref<64x40xf32>)
  linalg.matmul ins(%A, %B : memref<64x32xf32>, memref<32x40xf32>) outs(%C : memref<64x40xf32>)
  return %C : memref<64x40xf32>
}

// -----

// C is used through a view: the fill stays (a view could alias it).
// CHECK-LABEL: func.func @distant_fill_viewed
// CHECK: linalg.fill {{.*}} outs(%{{.*}} : memref<64x40xf32>)
// CHECK-NOT: linalg.fill {{.*}} outs(%{{.*}} : memref<4x16xf32, strided<[40, 1], offset: ?>>)
// CHECK: return
func.func @distant_fill_viewed(%A: memref<64x32xf32>, %B: memref<32x40xf32>, %D: memref<8x8xf32>) -> memref<8x40xf32, strided<[40, 1]>> {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %C = memref.alloc() : memref<64x40xf32>
  %V = memref.subview %C[0, 0] [8, 40] [1, 1] : memref<64x40xf32> to memref<8x40xf32, strided<[40, 1]>>
  linalg.fill ins(%z : f32) outs(%C : memref<64x40xf32>)
  linalg.fill ins(%one : f32) outs(%D : memref<8x8xf32>)
  linalg.matmul ins(%A, %B : memref<64x32xf32>, memref<32x40xf32>) outs(%C : memref<64x40xf32>)
  return %V : memref<8x40xf32, strided<[40, 1]>>
}

// -----

// M spans 3 blocks of 32: by default (m-block-multiple=4) they become 4 of
// 24 rows, so 2 or 4 kernel threads get equal shares.
// BALANCE-LABEL: func.func @balanced_blocks
// BALANCE: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%c24)
func.func @balanced_blocks(%A: memref<96x32xf32>, %B: memref<32x32xf32>, %C: memref<96x32xf32>) {
  linalg.matmul ins(%A, %B : memref<96x32xf32>, memref<32x32xf32>) outs(%C : memref<96x32xf32>)
  return
}

// -----

// 16 columns (a convolution's 16 output channels) in the default 8 x 32
// AVX-512 tile would pad half of every tile: with fit-tile the tile is 16
// rows of one vector, as many accumulators, and N has no edge. 64 columns
// keep the default: no narrower tile pads less.
// FIT-LABEL: func.func @sixteen_columns
// FIT: vector.transfer_read {{.*}} : memref<4096x16xf32>, vector<16x16xf32>
// FIT-NOT: vector<8x32xf32>
// FIT-LABEL: func.func @sixty_four_columns
// FIT: vector<8x32xf32>
func.func @sixteen_columns(%A: memref<4096x27xf32>, %B: memref<27x16xf32>, %C: memref<4096x16xf32>) {
  linalg.matmul ins(%A, %B : memref<4096x27xf32>, memref<27x16xf32>) outs(%C : memref<4096x16xf32>)
  return
}
func.func @sixty_four_columns(%A: memref<64x27xf32>, %B: memref<27x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x27xf32>, memref<27x64xf32>) outs(%C : memref<64x64xf32>)
  return
}

// -----

// B one panel wide (N = NR = 16): each value of A serves one tile, so A's
// full panels are not packed. Each tile reads its 4 rows of A where they
// lie (rows 160 bytes apart, in different L1 sets), through a transposed
// view, one broadcast load per row and K step. Only the partial last row of
// tiles (66 = 16 x 4 + 2) is packed, into the block's one panel, and its
// edge tile reads that.
// With read-a-in-place=false, A is packed.
// PACKED-LABEL: func.func @a_in_place
// PACKED: memref.alloc() {alignment = 64 : i64} : memref<8x16x4xf32>
// PACKED: vector.shuffle
// PACKED-NOT: memref.transpose
// PACKED: return
// CHECK-LABEL: func.func @a_in_place
// CHECK-SAME: (%[[A:[^:]+]]: memref<66x40xf32>
// CHECK-NOT: vector.from_elements
// CHECK: %[[AP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x16x4xf32>
// CHECK-NOT: vector.from_elements
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<?x?xf32, strided<[40, 1], offset: ?>>) outs(%{{.*}} : memref<?x?xf32, strided<[4, 1]>>)
// CHECK: %[[ROWS:.*]] = memref.subview %[[A]][%{{.*}}, %{{.*}}] [4, %{{.*}}] [1, 1]
// CHECK-NEXT: %[[AT:.*]] = memref.transpose %[[ROWS]] (d0, d1) -> (d1, d0) : memref<4x?xf32, strided<[40, 1], offset: ?>> to memref<?x4xf32, strided<[1, 40], offset: ?>>
// CHECK: scf.for {{.*}} iter_args
// CHECK-COUNT-4: memref.load %[[AT]]
// CHECK: scf.yield
// CHECK: memref.load %[[AP]][%c0,
// CHECK-NOT: vector.from_elements
// CHECK: return
func.func @a_in_place(%A: memref<66x40xf32>, %B: memref<40x16xf32>, %C: memref<66x16xf32>) {
  linalg.matmul ins(%A, %B : memref<66x40xf32>, memref<40x16xf32>) outs(%C : memref<66x16xf32>)
  return
}

// -----

// The same with A's rows 4 KiB apart: a tile's 4 rows would fall in one L1
// set, so A is packed as usual.
// CHECK-LABEL: func.func @a_rows_share_l1_sets
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<8x16x4xf32>
// CHECK: vector.shuffle
// CHECK-NOT: memref.transpose
// CHECK: return
func.func @a_rows_share_l1_sets(%A: memref<64x1024xf32>, %B: memref<1024x16xf32>, %C: memref<64x16xf32>) {
  linalg.matmul ins(%A, %B : memref<64x1024xf32>, memref<1024x16xf32>) outs(%C : memref<64x16xf32>)
  return
}
