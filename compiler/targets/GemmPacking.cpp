//===- GemmPacking.cpp - the packing step of the CPU GEMM recipe ----------===//
//
// See GemmPacking.h for the rewrite. Everything here is on static-rank
// buffers inside the block loops that tiling made; sizes of edge blocks are
// dynamic, so every subview takes its sizes from the block's own dims.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/GemmPacking.h"
#include "passes/lowering/ContractionMaps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace shardc::gemm {
namespace {

std::optional<Layout> layoutFromMaps(ArrayRef<AffineMap> maps, MLIRContext *ctx, bool batched) {
  for (bool aT : {false, true})
    for (bool bT : {false, true})
      if (llvm::equal(maps, contractionMaps(ctx, batched, aT, bT)))
        return Layout{aT, bT};
  return std::nullopt;
}

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// A 2-D subview of `source` (offsets and sizes per dim); unit strides.
Value view2d(OpBuilder &b, Location loc, Value source, OpFoldResult row, OpFoldResult col,
             OpFoldResult rows, OpFoldResult cols) {
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  return memref::SubViewOp::create(b, loc, source, ArrayRef<OpFoldResult>{row, col},
                                   ArrayRef<OpFoldResult>{rows, cols}, strides);
}

/// Micro-panel `p` of a packed buffer [np, kc, nr] as a rank-reduced
/// [kb, nr] view.
Value panelView(OpBuilder &b, Location loc, Value panels, Value p, Value kb, int64_t nr) {
  auto type = cast<MemRefType>(panels.getType());
  SmallVector<OpFoldResult> offsets = {p, b.getIndexAttr(0), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), kb, b.getIndexAttr(nr)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      {ShapedType::kDynamic, nr}, type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, viewType, panels, offsets, sizes, strides);
}

/// The 8 x 8 transpose of `rows` (eight 8-vectors) in three rounds of
/// two-source shuffles, each of which x86 does in one instruction per
/// 256-bit register (unpcklps/unpckhps, shufps, vperm2f128): 24 shuffles for
/// 64 values, where building each column from scalars costs a shuffle per
/// value. Returns the columns: result[j][r] = rows[r][j].
SmallVector<Value, 8> transpose8x8(OpBuilder &b, Location loc, ArrayRef<Value> rows) {
  auto shuffle = [&](Value x, Value y, ArrayRef<int64_t> mask) {
    return vector::ShuffleOp::create(b, loc, x, y, mask).getResult();
  };
  // Within each 128-bit half: interleave pairs of rows, ...
  SmallVector<Value, 8> t(8), u(8), cols(8);
  for (int i = 0; i < 8; i += 2) {
    t[i] = shuffle(rows[i], rows[i + 1], {0, 8, 1, 9, 4, 12, 5, 13});
    t[i + 1] = shuffle(rows[i], rows[i + 1], {2, 10, 3, 11, 6, 14, 7, 15});
  }
  // ... then pairs of pairs, so each half holds four rows' values of one
  // column; ...
  for (int i = 0; i < 8; i += 4)
    for (int h = 0; h < 2; ++h) {
      u[i + 2 * h] = shuffle(t[i + h], t[i + 2 + h], {0, 1, 8, 9, 4, 5, 12, 13});
      u[i + 2 * h + 1] = shuffle(t[i + h], t[i + 2 + h], {2, 3, 10, 11, 6, 7, 14, 15});
    }
  // ... and join the halves of rows 0-3 and rows 4-7.
  for (int j = 0; j < 4; ++j) {
    cols[j] = shuffle(u[j], u[4 + j], {0, 1, 2, 3, 8, 9, 10, 11});
    cols[4 + j] = shuffle(u[j], u[4 + j], {4, 5, 6, 7, 12, 13, 14, 15});
  }
  return cols;
}

/// dst[k, r] = src[r, k] into a panel of static width `w` (a full
/// micro-panel). Eight k at a time, each group of eight rows is loaded as
/// eight vectors (each row read in order), transposed in registers
/// (transpose8x8) and stored as eight pieces of panel rows; a last group of
/// fewer rows is padded with copies of its first row and stores only its
/// own lanes. The last kb mod 8 values of each row are gathered one k at a
/// time: one load from each row makes one vector, stored whole. Packing A
/// for NN GEMMs and a transposed B (every NT GEMM: the backward pass's input
/// gradients) gathered every value that way, a shuffle per value. The loop
/// bodies are straight-line vector code, fast without LLVM unrolling
/// anything (the CPU target's LLVM pipeline does not unroll).
void copyTransposedPanel(OpBuilder &b, Location loc, Value src, Value dst, int64_t w) {
  Type from = cast<MemRefType>(src.getType()).getElementType();
  Type to = cast<MemRefType>(dst.getType()).getElementType();
  // A 16-bit source is widened once per vector, not once per element.
  auto widen = [&](Value vec, int64_t n) {
    return from == to ? vec : arith::ExtFOp::create(b, loc, VectorType::get({n}, to), vec);
  };
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value eight = arith::ConstantIndexOp::create(b, loc, 8);
  Value kb = b.createOrFold<memref::DimOp>(loc, dst, 0);
  Value blocked = arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, kb, eight), eight);
  OpBuilder::InsertionGuard guard(b);
  auto blocks = scf::ForOp::create(b, loc, zero, blocked, eight);
  b.setInsertionPointToStart(blocks.getBody());
  Value k = blocks.getInductionVar();
  for (int64_t first = 0; first < w; first += 8) {
    int64_t count = std::min<int64_t>(8, w - first);
    SmallVector<Value> rows;
    for (int64_t r = 0; r < count; ++r) {
      Value row = arith::ConstantIndexOp::create(b, loc, first + r);
      rows.push_back(widen(
          vector::LoadOp::create(b, loc, VectorType::get({8}, from), src, ValueRange{row, k}), 8));
    }
    rows.resize(8, rows.front());
    SmallVector<Value, 8> cols = transpose8x8(b, loc, rows);
    Value column = arith::ConstantIndexOp::create(b, loc, first);
    for (int64_t j = 0; j < 8; ++j) {
      Value piece = cols[j];
      if (count < 8)
        piece = vector::ExtractStridedSliceOp::create(b, loc, piece, ArrayRef<int64_t>{0},
                                                      ArrayRef<int64_t>{count},
                                                      ArrayRef<int64_t>{1});
      Value kj = arith::AddIOp::create(b, loc, k, arith::ConstantIndexOp::create(b, loc, j));
      vector::StoreOp::create(b, loc, piece, dst, ValueRange{kj, column});
    }
  }
  b.setInsertionPointAfter(blocks);
  auto rest = scf::ForOp::create(b, loc, blocked, kb, one);
  b.setInsertionPointToStart(rest.getBody());
  k = rest.getInductionVar();
  SmallVector<Value> elements;
  for (int64_t r = 0; r < w; ++r) {
    Value row = arith::ConstantIndexOp::create(b, loc, r);
    elements.push_back(memref::LoadOp::create(b, loc, src, ValueRange{row, k}));
  }
  Value vec = vector::FromElementsOp::create(b, loc, VectorType::get({w}, from), elements);
  vector::StoreOp::create(b, loc, widen(vec, w), dst, ValueRange{k, zero});
}

/// dst = src, or dst[i, j] = src[j, i] when `transposed`, widening a 16-bit
/// float source into an f32 panel. A full transposed panel (static width)
/// is copied by copyTransposedPanel; the rest (partial panels, at an edge)
/// by a copy or a generic that iterates dst in row-major order (each k
/// gathers one value per row when transposed). Full k-major panels are
/// packed row by row (BlockPacker::pack).
void copyPanelData(OpBuilder &b, Location loc, Value src, Value dst, bool transposed) {
  auto dstType = cast<MemRefType>(dst.getType());
  Type from = cast<MemRefType>(src.getType()).getElementType();
  Type to = dstType.getElementType();
  if (!transposed && from == to) {
    linalg::CopyOp::create(b, loc, src, dst);
    return;
  }
  if (transposed && !dstType.isDynamicDim(1)) {
    copyTransposedPanel(b, loc, src, dst, dstType.getDimSize(1));
    return;
  }
  MLIRContext *ctx = b.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  SmallVector<AffineMap> maps = {transposed ? AffineMap::get(2, 0, {d1, d0}, ctx)
                                            : AffineMap::get(2, 0, {d0, d1}, ctx),
                                 AffineMap::get(2, 0, {d0, d1}, ctx)};
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
  linalg::GenericOp::create(b, loc, ValueRange{src}, ValueRange{dst}, maps, iterators,
                            [&](OpBuilder &nb, Location nloc, ValueRange args) {
                              Value v = args[0];
                              if (from != to)
                                v = arith::ExtFOp::create(nb, nloc, to, v);
                              linalg::YieldOp::create(nb, nloc, v);
                            });
}

/// Cache-line aligned scratch, so each NR-vector of a panel is one aligned
/// load.
IntegerAttr alignment(OpBuilder &b) { return b.getI64IntegerAttr(64); }

void markScratchTile(Value alloc) {
  alloc.getDefiningOp()->setAttr(shardc::gemm::kScratchTileAttr,
                                 UnitAttr::get(alloc.getContext()));
}

Value dim(OpBuilder &b, Location loc, Value buffer, int64_t d) {
  return b.createOrFold<memref::DimOp>(loc, buffer, d);
}

} // namespace

std::optional<Layout> layoutOf(linalg::MatmulOp op) {
  if (!op.hasUserDefinedMaps())
    return Layout{};
  return layoutFromMaps(op.getIndexingMapsArray(), op.getContext(), false);
}

std::optional<Layout> layoutOf(linalg::BatchMatmulOp op) {
  if (!op.hasUserDefinedMaps())
    return Layout{};
  return layoutFromMaps(op.getIndexingMapsArray(), op.getContext(), true);
}

linalg::MatmulOp createMatmul(OpBuilder &b, Location loc, Value a, Value bMat, Value c,
                              Layout layout) {
  auto op = linalg::MatmulOp::create(b, loc, ValueRange{a, bMat}, ValueRange{c});
  if (layout.aTransposed || layout.bTransposed)
    op.setIndexingMapsAttr(b.getAffineMapArrayAttr(
        contractionMaps(b.getContext(), false, layout.aTransposed, layout.bTransposed)));
  return op;
}

bool isScratchTile(Value buffer) {
  Operation *alloc = buffer.getDefiningOp();
  return alloc && isa<memref::AllocOp, memref::AllocaOp>(alloc) &&
         alloc->hasAttr(kScratchTileAttr);
}

Value allocatePanels(RewriterBase &rewriter, linalg::MatmulOp op, int64_t nc, int64_t kc,
                     int64_t nr) {
  Location loc = op.getLoc();
  Type elem = cast<MemRefType>(op.getDpsInits()[0].getType()).getElementType();
  rewriter.setInsertionPoint(op);
  // One spare row per panel: B is packed row by row, each row of B
  // writing one NR-wide piece into every panel, and with panels kc·NR
  // elements apart (16 KiB and more) those pieces all fell in one L1 set
  // (4 KiB aliasing) and evicted each other. A 32x1024x4096 weight
  // gradient as AVX2 code went from 0.85-0.89x of OpenBLAS to 0.94-1.02x
  // with the spare row (bench/kernels, Zen 4); padding A's panels as well
  // measured no better.
  Value panels = memref::AllocOp::create(
      rewriter, loc, MemRefType::get({(nc + nr - 1) / nr, kc + 1, nr}, elem),
      alignment(rewriter));
  rewriter.setInsertionPointAfter(op);
  memref::DeallocOp::create(rewriter, loc, panels);
  return panels;
}

namespace {

/// Builds the packed form of one cache block (GemmPacking.h).
class BlockPacker {
public:
  BlockPacker(RewriterBase &rewriter, Location loc, const Scratch &scratch, int64_t mr,
              int64_t nr, Value firstK, Value directA, bool aTransposed)
      : rw(rewriter), loc(loc), scratch(scratch), mr(mr), nr(nr), firstK(firstK),
        directA(directA), aTransposed(aTransposed) {}

  /// Full and partial micro-panels of an extent.
  struct Split {
    Value full, tail;
  };

  Split split(Value extent, int64_t width) {
    Value w = index(rw, loc, width);
    Value full = arith::DivUIOp::create(rw, loc, extent, w);
    Value tail = arith::SubIOp::create(rw, loc, extent, arith::MulIOp::create(rw, loc, full, w));
    return {full, tail};
  }

  /// Packs `src` into `panels` (micro-panels [k, width]): `kMajor` when the
  /// source's rows are k (B, or a transposed A), so its columns split into
  /// panels; otherwise its rows do. A partial last panel is zero-padded.
  /// With `parallel`, the full panels are packed by an scf.parallel (each
  /// iteration writes its own part of them), for the kernel threads to
  /// share; without `fullPanels`, only the partial last panel is packed
  /// (the caller packs the others with packPanel) into panel `tailAt`
  /// (default: after the full ones).
  ///
  /// A k-major source is read row by row (one k per iteration, all its
  /// full panels' pieces in order): read panel by panel, each panel was a
  /// column strip touching kb rows a row stride apart (4 KiB and more for
  /// a weight gradient's operand), a new page per row, which the hardware
  /// prefetchers do not follow across pages; a GEMM whose B block serves
  /// few rows of A (M = 32) spent as long packing as computing.
  Split pack(Value src, bool kMajor, Value panels, int64_t width, bool parallel = false,
             bool fullPanels = true, Value tailAt = {}) {
    Value kExtent = dim(rw, loc, src, kMajor ? 0 : 1);
    Split s = split(dim(rw, loc, src, kMajor ? 1 : 0), width);
    auto loop = [&](Value count, llvm::function_ref<void(Value)> body) {
      if (parallel)
        parallelLoop(count, body);
      else
        forLoop(count, body);
    };
    if (!tailAt)
      tailAt = s.full;
    // A k-major source's partial last panel is packed in the same pass
    // over its rows, so each row is read once and the threads share it.
    bool rowTails = kMajor && maskedRowCopy(src, panels);
    if (fullPanels && kMajor)
      loop(kExtent, [&](Value k) {
        forLoop(s.full, [&](Value i) { packRowPiece(src, panels, width, k, i); });
        if (rowTails)
          whenNonEmpty(s.tail, [&] { packRowTail(src, panels, width, k, s.full, s.tail, tailAt); });
      });
    else if (fullPanels)
      loop(s.full, [&](Value i) { packPanel(src, kMajor, panels, width, i); });
    whenNonEmpty(s.tail, [&] {
      if (rowTails) {
        if (!fullPanels)
          loop(kExtent,
               [&](Value k) { packRowTail(src, panels, width, k, s.full, s.tail, tailAt); });
        return;
      }
      Value dst = panelView(rw, loc, panels, tailAt, kExtent, width);
      linalg::FillOp::create(rw, loc, zeroOf(dst), dst);
      OpFoldResult zero = rw.getIndexAttr(0);
      copyPanel(src, kMajor, width, s.full, s.tail,
                view2d(rw, loc, dst, zero, zero, kExtent, s.tail));
    });
    return s;
  }

  /// Whether `src`'s rows go into `panels` unchanged, in elements that
  /// AVX2's vmaskmov and AVX-512's masked moves load under a mask in one
  /// instruction: 32 or 64 bits. (A 128-bit SSE target has no masked load
  /// and gets them element by element, as the copy did; 16-bit operands,
  /// which the copy widens, keep the copy.)
  static bool maskedRowCopy(Value src, Value panels) {
    auto from = cast<MemRefType>(src.getType()), to = cast<MemRefType>(panels.getType());
    unsigned bits = from.getElementTypeBitWidth();
    return from.getElementType() == to.getElementType() && (bits == 32 || bits == 64);
  }

  /// The partial last panel's row k: panels[at, k, :] = src[k, i·width ..]
  /// [:count], zero beyond, as one masked vector load and one whole store.
  /// Its element-wise copy after a zero fill of the panel was a fifth of a
  /// 27x16x32768 weight gradient (the 11 rows past A's one full panel of
  /// 16).
  void packRowTail(Value src, Value panels, int64_t width, Value k, Value i, Value count,
                   Value at) {
    Type elem = cast<MemRefType>(src.getType()).getElementType();
    Value column = arith::MulIOp::create(rw, loc, i, index(rw, loc, width));
    Value mask = vector::CreateMaskOp::create(
        rw, loc, VectorType::get({width}, rw.getI1Type()), ValueRange{count});
    auto vectorType = VectorType::get({width}, elem);
    Value zeros = arith::ConstantOp::create(rw, loc, rw.getZeroAttr(vectorType));
    Value piece = vector::MaskedLoadOp::create(rw, loc, vectorType, src, ValueRange{k, column},
                                               mask, zeros);
    vector::StoreOp::create(rw, loc, piece, panels, ValueRange{at, k, index(rw, loc, 0)});
  }

  /// Full panel `i` of `src` into `panels`.
  void packPanel(Value src, bool kMajor, Value panels, int64_t width, Value i) {
    Value kExtent = dim(rw, loc, src, kMajor ? 0 : 1);
    if (kMajor)
      forLoop(kExtent, [&](Value k) { packRowPiece(src, panels, width, k, i); });
    else
      copyPanel(src, kMajor, width, i, index(rw, loc, width),
                panelView(rw, loc, panels, i, kExtent, width));
  }

  /// panels[i, k, :] = src[k, i·width ..][:width], widening a 16-bit source.
  void packRowPiece(Value src, Value panels, int64_t width, Value k, Value i) {
    Type from = cast<MemRefType>(src.getType()).getElementType();
    Type to = cast<MemRefType>(panels.getType()).getElementType();
    Value column = arith::MulIOp::create(rw, loc, i, index(rw, loc, width));
    Value piece =
        vector::LoadOp::create(rw, loc, VectorType::get({width}, from), src, ValueRange{k, column});
    if (from != to)
      piece = arith::ExtFOp::create(rw, loc, VectorType::get({width}, to), piece);
    vector::StoreOp::create(rw, loc, piece, panels, ValueRange{i, k, index(rw, loc, 0)});
  }

  /// The `count` source lines of panel `i` (`width` per panel) into `dst`.
  void copyPanel(Value src, bool kMajor, int64_t width, Value i, Value count, Value dst) {
    Value kExtent = dim(rw, loc, src, kMajor ? 0 : 1);
    Value start = arith::MulIOp::create(rw, loc, i, index(rw, loc, width));
    OpFoldResult zero = rw.getIndexAttr(0);
    if (kMajor)
      copyPanelData(rw, loc, view2d(rw, loc, src, zero, start, kExtent, count), dst, false);
    else
      copyPanelData(rw, loc, view2d(rw, loc, src, start, zero, count, kExtent), dst, true);
  }

  /// C's tile (q, p) += A's panel q · B's panel p, in place.
  linalg::MatmulOp tile(Value c, Value q, Value p, Value k) {
    Value row = arith::MulIOp::create(rw, loc, q, index(rw, loc, mr));
    Value col = arith::MulIOp::create(rw, loc, p, index(rw, loc, nr));
    Value cTile = view2d(rw, loc, c, row, col, rw.getIndexAttr(mr), rw.getIndexAttr(nr));
    // C starts at zero: its tile is zeroed where it is about to be read (in
    // L1), in the first K block only, instead of by a pass over all of C.
    if (firstK)
      ifThen(firstK, [&] { linalg::FillOp::create(rw, loc, zeroOf(c), cTile); });
    return micro(directA ? rowsInPlace(row, k) : packedA(q, k), p, k, cTile);
  }

  /// The same for an edge tile of `rows` x `cols`: computed in the zeroed
  /// full-size scratch tile `tmp` (the padding of the panels is zero) and
  /// copied back, so edges run the vector kernel too.
  linalg::MatmulOp edgeTile(Value c, Value q, Value p, Value k, Value rows, Value cols,
                            Value tmp) {
    Value row = arith::MulIOp::create(rw, loc, q, index(rw, loc, mr));
    Value col = arith::MulIOp::create(rw, loc, p, index(rw, loc, nr));
    OpFoldResult zero = rw.getIndexAttr(0);
    Value cPart = view2d(rw, loc, c, row, col, rows, cols);
    Value tmpPart = view2d(rw, loc, tmp, zero, zero, rows, cols);
    linalg::FillOp::create(rw, loc, zeroOf(c), tmp);
    if (firstK) {
      // C starts at zero: in the first K block there is nothing to read.
      Value later = arith::XOrIOp::create(
          rw, loc, firstK, arith::ConstantOp::create(rw, loc, rw.getBoolAttr(true)));
      ifThen(later, [&] { linalg::CopyOp::create(rw, loc, cPart, tmpPart); });
    } else {
      linalg::CopyOp::create(rw, loc, cPart, tmpPart);
    }
    linalg::MatmulOp op = micro(packedA(q, k), p, k, tmp);
    linalg::CopyOp::create(rw, loc, tmpPart, cPart);
    return op;
  }

  void forLoop(Value count, llvm::function_ref<void(Value)> body) {
    forRange(index(rw, loc, 0), count, body);
  }

  void forRange(Value begin, Value end, llvm::function_ref<void(Value)> body) {
    auto loop = scf::ForOp::create(rw, loc, begin, end, index(rw, loc, 1));
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPointToStart(loop.getBody());
    body(loop.getInductionVar());
  }

  /// The same as an scf.parallel: for iterations that write disjoint tiles.
  void parallelLoop(Value count, llvm::function_ref<void(Value)> body) {
    auto loop = scf::ParallelOp::create(rw, loc, ValueRange{index(rw, loc, 0)}, ValueRange{count},
                                        ValueRange{index(rw, loc, 1)});
    loop->setAttr(kLoopAttr, rw.getUnitAttr());
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(loop.getBody()->getTerminator());
    body(loop.getInductionVars()[0]);
  }

  /// `body` under `condition`.
  void ifThen(Value condition, llvm::function_ref<void()> body) {
    auto guard = scf::IfOp::create(rw, loc, condition, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard insertion(rw);
    rw.setInsertionPointToStart(guard.thenBlock());
    body();
  }

  /// `body` under `size > 0`. Edges are guarded: at a static edge a
  /// zero-size view's offset would be one past the end, which the verifier
  /// refuses.
  void whenNonEmpty(Value size, llvm::function_ref<void()> body) {
    ifThen(arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ugt, size, index(rw, loc, 0)),
           body);
  }

private:
  /// A's packed micro-panel q as [k, mr] (read in place, A has only its
  /// partial last panel packed, as panel 0).
  Value packedA(Value q, Value k) {
    return panelView(rw, loc, scratch.aPanels, directA ? index(rw, loc, 0) : q, k, mr);
  }

  /// A's MR rows from `row` on, where they lie, as the same [k, mr]: a
  /// transposed A's columns as they are (a panel whose rows are A's row
  /// stride apart), a row-major A's rows as a transposed, strided view.
  Value rowsInPlace(Value row, Value k) {
    if (aTransposed)
      return view2d(rw, loc, directA, rw.getIndexAttr(0), row, k, rw.getIndexAttr(mr));
    Value rows = view2d(rw, loc, directA, row, rw.getIndexAttr(0), rw.getIndexAttr(mr), k);
    AffineMap swap = AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, rw.getContext());
    return memref::TransposeOp::create(rw, loc, rows, AffineMapAttr::get(swap));
  }

  linalg::MatmulOp micro(Value aPanel, Value p, Value k, Value cTile) {
    return createMatmul(rw, loc, aPanel, panelView(rw, loc, scratch.panels, p, k, nr), cTile,
                        Layout{true, false});
  }

  Value zeroOf(Value buffer) {
    Type elem = cast<MemRefType>(buffer.getType()).getElementType();
    return arith::ConstantOp::create(rw, loc, rw.getZeroAttr(elem));
  }

  RewriterBase &rw;
  Location loc;
  const Scratch &scratch;
  int64_t mr, nr;
  Value firstK;  // i1, true in the first K block when C starts at zero; or null
  Value directA; // the block's A, when its full panels are read in place; or null
  bool aTransposed;
};

/// shardrt_loop_chunks() as an index (declared in `at`'s module on first
/// use): the chunks the rank's parallel loops are cut into (shardrt.h).
Value loopChunks(OpBuilder &b, Location loc, Operation *at) {
  constexpr llvm::StringLiteral name = "shardrt_loop_chunks";
  auto module = at->getParentOfType<ModuleOp>();
  auto fn = module.lookupSymbol<func::FuncOp>(name);
  if (!fn) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    fn = func::FuncOp::create(b, loc, name, b.getFunctionType({}, {b.getI64Type()}));
    fn.setPrivate();
  }
  Value chunks = func::CallOp::create(b, loc, fn, ValueRange{}).getResult(0);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), chunks);
}

} // namespace

FailureOr<SmallVector<linalg::MatmulOp>> packBlock(RewriterBase &rewriter, linalg::MatmulOp block,
                                                   Operation *mLoop, Layout layout,
                                                   Value bPanels, int64_t mc, int64_t kc,
                                                   int64_t mr, int64_t nr, bool parallelColumns,
                                                   bool rowsOuter, Value firstK, bool directA) {
  Location loc = block.getLoc();
  Value a = block.getDpsInputs()[0], b = block.getDpsInputs()[1], c = block.getDpsInits()[0];
  Type elem = cast<MemRefType>(c.getType()).getElementType();
  // Column edges compute in scratch tiles from packed panels of A, which
  // directA does not make.
  int64_t bWidth = cast<MemRefType>(b.getType()).getDimSize(layout.bTransposed ? 0 : 1);
  if (directA && ((!layout.aTransposed && parallelColumns) || ShapedType::isDynamic(bWidth) ||
                  bWidth % nr != 0 || cast<MemRefType>(a.getType()).getElementType() != elem))
    return block.emitError("packBlock: A can be read in place only in C's type, with no column "
                           "edges, and row-major only with columns that are not parallel");
  // A's panels and the edge tile belong to the block, so that blocks can run
  // on different threads (cpu-outline-parallel-loops); B's are shared.
  Scratch scratch;
  scratch.panels = bPanels;
  rewriter.setInsertionPoint(block);
  // Read in place, A's full panels need no scratch: only its partial last
  // panel is packed, as panel 0.
  int64_t aPanelCount = directA ? 1 : (mc + mr - 1) / mr;
  scratch.aPanels = memref::AllocOp::create(
      rewriter, loc, MemRefType::get({aPanelCount, kc, mr}, elem), alignment(rewriter));
  scratch.cTile =
      memref::AllocOp::create(rewriter, loc, MemRefType::get({mr, nr}, elem), alignment(rewriter));
  markScratchTile(scratch.cTile);
  rewriter.setInsertionPointAfter(block);
  memref::DeallocOp::create(rewriter, loc, scratch.aPanels);
  memref::DeallocOp::create(rewriter, loc, scratch.cTile);
  BlockPacker packer(rewriter, loc, scratch, mr, nr, firstK, directA ? a : Value(),
                     layout.aTransposed);

  // B's micro-panels, once per (N, K) block: before the M loop when B's
  // block does not depend on it.
  bool hoist = mLoop && !mLoop->isAncestor(b.getParentRegion()->getParentOp());
  rewriter.setInsertionPoint(hoist ? mLoop : block.getOperation());
  // The kernel threads share the packing, as they share the M blocks that
  // follow: packed by one thread, a weight gradient's B (K = 4096, eight 2
  // MiB blocks) kept the other thread idle for a tenth of the GEMM.
  // With parallel columns, the threads pack the panels of the columns they
  // compute, so that no column reads panels another core packed (from that
  // core's cache, every K block). A transposed B's panel is NR whole rows,
  // read in order: each column packs its own. A k-major B's panel is a
  // column strip, one cache line from each of kb rows, whose reads the
  // hardware prefetchers follow badly: the columns are cut into one group
  // per chunk of the rank's parallel loops (shardrt_loop_chunks: its
  // threads), and each group packs its panels row by row, its part of each
  // row in one run, before its tiles. On one thread that is one group,
  // which packs whole rows of B in order before the tiles, as B was packed
  // for all threads before: cut into four groups on one thread, logits dW
  // (32x1024x4096) fell from 0.91-0.95x of OpenBLAS to 0.80-0.85x, each
  // group's part of a 4 KiB row opening a page for a few lines. On two
  // threads, with Aᵀ read in place too, a 64x128x4096 weight gradient went
  // from 0.93-0.98x (packed by rows, read by both threads) to 1.13-1.23x,
  // logits dW from 0.86-0.89x to 0.89-0.90x (bench/kernels, Zen 4, AVX2
  // code). Here only the partial last panel is packed for columns that
  // pack their own.
  // (One column is one group: it packs its panel itself, with no loop
  // around it to dispatch.)
  bool oneColumn = !ShapedType::isDynamic(bWidth) && bWidth / nr < 2;
  bool groupsPack = parallelColumns && !layout.bTransposed && !oneColumn;
  packer.pack(b, /*kMajor=*/!layout.bTransposed, scratch.panels, nr,
              /*parallel=*/hoist && !parallelColumns,
              /*fullPanels=*/!parallelColumns);

  // A's micro-panels, per block. The block's loops recompute B's split here
  // rather than use values from the packing site.
  // With parallel columns, the block is the only one (the M loop runs
  // once) and its A is packed once for all columns: by the kernel threads
  // too. Packed by one thread, a weight gradient's Aᵀ (64x128x4096) kept
  // the other idle for a fifth of the GEMM. Read in place (a transposed A
  // of one block, directA), only its partial last panel is packed, by one
  // thread: a few rows.
  // A's packing is shared only when the threads then share the tiles too:
  // a block of one column (a 27x16x32768 weight gradient) computes on one
  // thread, which would read back what the other had packed from the
  // other core's cache (0.6 -> 1.0 ms).
  bool sharedColumns = parallelColumns && !ShapedType::isDynamic(bWidth) && !oneColumn;
  rewriter.setInsertionPoint(block);
  BlockPacker::Split rows =
      packer.pack(a, /*kMajor=*/layout.aTransposed, scratch.aPanels, mr,
                  /*parallel=*/sharedColumns && !directA,
                  /*fullPanels=*/!directA, directA ? index(rewriter, loc, 0) : Value());
  BlockPacker::Split cols = packer.split(dim(rewriter, loc, b, layout.bTransposed ? 0 : 1), nr);
  Value k = dim(rewriter, loc, a, layout.aTransposed ? 0 : 1);

  SmallVector<linalg::MatmulOp> micros;
  // Full tiles. B's micro-panel stays in L1 while A's (the packed block, in
  // L2) stream past; consecutive tiles of C lie on the same NR columns. Each
  // column of panels writes its own tiles of C, so when the M loop runs
  // once (a short M) the columns are a parallel loop, for the rank's
  // kernel threads to share.
  auto columns = [&](Value p) {
    packer.forLoop(rows.full, [&](Value q) { micros.push_back(packer.tile(c, q, p, k)); });
  };
  // A parallel column packs its panel of a transposed B and uses it at
  // once, from L1. The column also computes its tile of the MR-partial
  // last row (M = 32 with MR = 6) in a scratch tile of its own: left to the
  // edge loop below, those tiles ran on one thread, a sixth of such a
  // GEMM's products.
  Value columnTiles;
  auto parallelColumn = [&](Value p) {
    if (!groupsPack)
      packer.packPanel(b, !layout.bTransposed, scratch.panels, nr, p);
    columns(p);
    packer.whenNonEmpty(rows.tail, [&] {
      Value tmp = panelView(rewriter, loc, columnTiles, p, index(rewriter, loc, mr), nr);
      micros.push_back(
          packer.edgeTile(c, rows.full, p, k, rows.tail, index(rewriter, loc, nr), tmp));
    });
  };
  // With a small packed B (a small K) the rows go outermost instead: B's
  // panels all stay in L2, and each row of tiles writes MR whole rows of C
  // in order rather than one NR-wide piece of each of the block's rows per
  // column (4096x1024x32 with AVX-512: 3.4 -> 1.8 ms).
  if (parallelColumns) {
    columnTiles = memref::AllocOp::create(
        rewriter, loc, MemRefType::get({ShapedType::kDynamic, mr, nr}, elem), ValueRange{cols.full},
        alignment(rewriter));
    markScratchTile(columnTiles);
    if (groupsPack) {
      // Group g: columns [g·w, min((g + 1)·w, full)), w = ceil(full /
      // chunks), at least 1 (no full columns: no groups).
      Value width = arith::MaxUIOp::create(
          rewriter, loc,
          arith::CeilDivUIOp::create(rewriter, loc, cols.full, loopChunks(rewriter, loc, block)),
          index(rewriter, loc, 1));
      Value groups = arith::CeilDivUIOp::create(rewriter, loc, cols.full, width);
      packer.parallelLoop(groups, [&](Value g) {
        Value first = arith::MulIOp::create(rewriter, loc, g, width);
        Value last = arith::MinUIOp::create(
            rewriter, loc, arith::AddIOp::create(rewriter, loc, first, width), cols.full);
        packer.forLoop(dim(rewriter, loc, b, 0), [&](Value kr) {
          packer.forRange(first, last,
                          [&](Value p) { packer.packRowPiece(b, scratch.panels, nr, kr, p); });
        });
        packer.forRange(first, last, parallelColumn);
      });
    } else {
      packer.parallelLoop(cols.full, parallelColumn);
    }
    memref::DeallocOp::create(rewriter, loc, columnTiles);
  } else if (rowsOuter)
    packer.forLoop(rows.full, [&](Value q) {
      packer.forLoop(cols.full, [&](Value p) { micros.push_back(packer.tile(c, q, p, k)); });
    });
  else
    packer.forLoop(cols.full, columns);
  // Edge tiles, in one loop so that one register kernel serves them all
  // (LLVM's time grows with every copy of it): first the last, NR-partial
  // column of panels (tiles (q, np), MR x tail), then the last, MR-partial
  // row of A through the corner (tiles (nq, p), tail x min(NR, rest)).
  auto ifNonEmpty = [&](Value size, Value count) {
    Value nonEmpty = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ugt, size,
                                           index(rewriter, loc, 0));
    return arith::SelectOp::create(rewriter, loc, nonEmpty, count, index(rewriter, loc, 0));
  };
  Value nb = dim(rewriter, loc, b, layout.bTransposed ? 0 : 1);
  Value colEdges = ifNonEmpty(cols.tail, rows.full);
  // The last row's tiles from `firstRowEdge` on (the parallel columns did
  // the ones before).
  Value firstRowEdge = parallelColumns ? cols.full : index(rewriter, loc, 0);
  Value rowEdges = ifNonEmpty(
      rows.tail,
      arith::SubIOp::create(rewriter, loc,
                            arith::CeilDivUIOp::create(rewriter, loc, nb, index(rewriter, loc, nr)),
                            firstRowEdge));
  Value edges = arith::AddIOp::create(rewriter, loc, colEdges, rowEdges);
  packer.forLoop(edges, [&](Value t) {
    Value inColumn =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, t, colEdges);
    auto pick = [&](Value ifColumn, Value ifRow) {
      return arith::SelectOp::create(rewriter, loc, inColumn, ifColumn, ifRow).getResult();
    };
    Value p = pick(cols.full,
                   arith::AddIOp::create(rewriter, loc, firstRowEdge,
                                         arith::SubIOp::create(rewriter, loc, t, colEdges)));
    Value start = arith::MulIOp::create(rewriter, loc, p, index(rewriter, loc, nr));
    Value rest = arith::MinUIOp::create(rewriter, loc, index(rewriter, loc, nr),
                                        arith::SubIOp::create(rewriter, loc, nb, start));
    micros.push_back(packer.edgeTile(c, pick(t, rows.full), p, k,
                                     pick(index(rewriter, loc, mr), rows.tail), rest,
                                     scratch.cTile));
  });
  rewriter.eraseOp(block);
  return micros;
}

} // namespace shardc::gemm
