//===- StageContractions.cpp - gpu-stage-contractions ----------------------===//
//
// The staged contraction recipe's block program (GpuPasses.td has it with
// an example): a marked contraction tile on buffers becomes shared-memory
// staging of A and B by K chunks, and either a TM x TN patch of outputs
// per thread (the SIMT cores) or a patch of 16 x 8 tiles per warp (the
// tensor cores, as vector.contract on shared tiles, which gpu-lower-mma
// makes mma.sync in the kernel). How each thread copies its share of the
// operands is StagedOperands.h.
//
// Invariants: no element past an edge is read from global memory or
// stored. On the SIMT cores every output adds its K terms in order, each
// with the op's own body, onto C's value, as the output recipe does; on
// the tensor cores the order within a K step of 16 is the hardware's
// (fixed, so replicas still agree), and the staged zeros past an edge add
// exact zeros.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/BlockProgram.h"
#include "compiler/targets/gpu/GpuPasses.h"
#include "compiler/targets/gpu/StagedOperands.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace shardc {
#define GEN_PASS_DEF_GPUSTAGECONTRACTIONS
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

using shardc::gpu::bytesOf;
using shardc::gpu::Contraction;
using shardc::gpu::kThreads;
using shardc::gpu::kThreadsPerDim;
using shardc::gpu::Staged;
using shardc::gpu::zeroOf;

Value index(OpBuilder &b, Location loc, int64_t v) {
  return shardc::gpu::indexConstant(b, loc, v);
}

/// Bytes each shared row is padded by (the buffers are 16-byte aligned).
constexpr int64_t kRowPadBytes = 16;
/// The static shared memory a block may use.
constexpr int64_t kStaticSharedBytes = 48 * 1024;

/// Warps of a tensor-core block (4 along M, 2 along N: 256 threads; a
/// 128 x 64 tile gives each a 32 x 32 patch, which reads the fewest shared
/// bytes per mma.sync) and the mma.sync shape: m16n8k16 for 16-bit
/// operands, m16n8k8 for TF32.
constexpr int64_t kWarpsM = 4, kWarpsN = 2, kWarpSize = 32;
static_assert(kWarpsM * kWarpsN * kWarpSize == kThreads);
constexpr int64_t kMmaM = 16, kMmaN = 8;
int64_t mmaKFor(Type operand) { return operand.isF32() ? 8 : 16; }

/// The tile sizes a marked op carries: [BM, BN, BK, TM, TN] for the SIMT
/// cores, or [BM, BN, BK] for the tensor cores (TM = TN = 0), whose block
/// tile must hold whole warp tiles of mma.sync steps. A tensor-core mark
/// on an f32 contraction is TF32 (gpu-tile-and-fuse only makes it so).
std::optional<std::pair<SmallVector<int64_t>, bool>> tileSizesOf(linalg::LinalgOp op) {
  if (auto staged = op->getAttrOfType<DenseI64ArrayAttr>(shardc::kGpuStagedAttr);
      staged && staged.size() == 5)
    return std::pair(llvm::to_vector(staged.asArrayRef()), false);
  auto mma = op->getAttrOfType<DenseI64ArrayAttr>(shardc::kGpuMmaAttr);
  if (!mma || mma.size() != 3 || !shardc::gpuTensorCoreContraction(op, /*tf32=*/true) ||
      mma[0] % (kWarpsM * kMmaM) != 0 || mma[1] % (kWarpsN * kMmaN) != 0 ||
      mma[2] % mmaKFor(getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType())) != 0)
    return std::nullopt;
  return std::pair(SmallVector<int64_t>{mma[0], mma[1], mma[2], 0, 0}, true);
}

std::optional<Contraction> readMarked(linalg::LinalgOp op) {
  auto sizes = tileSizesOf(op);
  if (!sizes || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  auto &[params, mma] = *sizes;
  FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 || dims->k.size() != 1)
    return std::nullopt;
  Contraction c{op,
                dims->m[0],
                dims->n[0],
                dims->k[0],
                op.getDpsInputOperand(0),
                op.getDpsInputOperand(1),
                op.getDpsInitOperand(0),
                params[0],
                params[1],
                params[2],
                params[3],
                params[4],
                mma};
  return c;
}

/// A 16 x 16 thread forall at the builder's point; `body` fills it.
void threadForall(OpBuilder &b, Location loc,
                  llvm::function_ref<void(OpBuilder &, Value ty, Value tx)> body) {
  shardc::gpu::threadForall(b, loc, {kThreadsPerDim, kThreadsPerDim},
                            [&](OpBuilder &t, ValueRange ids) { body(t, ids[0], ids[1]); });
}

/// Thread (ty, tx)'s number in its block, ty * 16 + tx.
Value linearThread(OpBuilder &b, Location loc, Value ty, Value tx) {
  return arith::AddIOp::create(b, loc,
                               arith::MulIOp::create(b, loc, ty, index(b, loc, kThreadsPerDim)),
                               tx);
}

using shardc::gpu::loadIf;

class Stager {
public:
  Stager(Contraction c, bool workgroup) : c(c), workgroup(workgroup) {}

  void run(RewriterBase &rw) {
    linalg::LinalgOp op = c.op;
    Location loc = op.getLoc();
    rw.setInsertionPoint(op);
    SmallVector<Range> ranges = op.createLoopRanges(rw, loc);
    auto size = [&](unsigned loop) {
      return getValueOrCreateConstantIndexOp(rw, loc, ranges[loop].size);
    };
    rows = size(c.m);
    cols = size(c.n);
    Value depth = size(c.k);
    // The tensor cores read A's tile by rows of K (ldmatrix), the SIMT
    // threads by columns.
    sharedA = sharedBuffer(rw, c.bm, c.a, /*kRows=*/!c.mma);
    sharedB = sharedBuffer(rw, c.bn, c.b, /*kRows=*/true);
    rw.setInsertionPoint(op);
    readableA = staging.vectorReadable(rw, c.a, c.m);
    readableB = staging.vectorReadable(rw, c.b, c.n);
    Type elemC = cast<MemRefType>(c.c->get().getType()).getElementType();
    if (c.mma) {
      // A warp's accumulators are spread over its lanes, which a thread
      // forall cannot name: C's tile comes in and goes out through the
      // block's shared memory, its rows padded (fewer bank conflicts) when
      // that still fits the 48 KiB of static shared memory a block has.
      auto bytesOfBuffer = [](Value buffer) {
        auto type = cast<MemRefType>(buffer.getType());
        return type.getNumElements() * bytesOf(type.getElementType());
      };
      int64_t pitch = c.bn + padOf(elemC);
      if (bytesOfBuffer(sharedA) + bytesOfBuffer(sharedB) + c.bm * pitch * bytesOf(elemC) >
          kStaticSharedBytes)
        pitch = c.bn;
      accumulators = shardc::gpu::blockBuffer(rw, op, {c.bm, pitch}, elemC, workgroup);
      rw.setInsertionPoint(op);
      copyTile(rw, /*intoShared=*/true);
      if (workgroup) {
        // In a kernel the chunk loop is warp code, so the accumulators
        // stay in the lanes' registers from the first chunk to the last.
        shardc::gpu::warpForall(rw, loc, kWarpsM * kWarpsN,
                                [&](OpBuilder &b, Value warp) { computeMma(b, warp, depth); });
        copyTile(rw, /*intoShared=*/false);
        rw.eraseOp(op);
        return;
      }
    } else {
      accumulators = shardc::gpu::privateBuffer(rw, op, kThreads, c.tm * c.tn, elemC, workgroup);
      rw.setInsertionPoint(op);
      loadPatches(rw);
    }
    auto chunks = scf::ForOp::create(rw, loc, index(rw, loc, 0), depth, index(rw, loc, c.bk));
    rw.setInsertionPointToStart(chunks.getBody());
    Value k0 = chunks.getInductionVar();
    Value kc = arith::MinSIOp::create(rw, loc, index(rw, loc, c.bk),
                                      arith::SubIOp::create(rw, loc, depth, k0));
    threadForall(rw, loc, [&](OpBuilder &b, Value ty, Value tx) {
      Value t = linearThread(b, loc, ty, tx);
      staging.stage(b, t, k0, kc, stagedA());
      staging.stage(b, t, k0, kc, stagedB());
    });
    if (c.mma)
      shardc::gpu::warpForall(rw, loc, kWarpsM * kWarpsN,
                              [&](OpBuilder &b, Value warp) { computeMma(b, warp, Value()); });
    else
      threadForall(rw, loc, [&](OpBuilder &b, Value ty, Value tx) { compute(b, ty, tx, kc); });
    // The accumulators back into C.
    rw.setInsertionPointAfter(chunks);
    if (c.mma)
      copyTile(rw, /*intoShared=*/false);
    else
      storePatches(rw);
    rw.eraseOp(op);
  }

private:
  Contraction c;
  shardc::gpu::OperandStaging staging{c};
  bool workgroup;
  Value rows, cols, sharedA, sharedB, accumulators, readableA, readableB;

  /// The tensor cores read A's tile by rows of K (ldmatrix), the SIMT
  /// threads by columns.
  Staged stagedA() const { return {c.a, sharedA, c.m, c.bm, rows, /*kRows=*/!c.mma, readableA}; }
  Staged stagedB() const { return {c.b, sharedB, c.n, c.bn, cols, /*kRows=*/true, readableB}; }

  /// Each thread's patch of C into its accumulators (zeros past an edge).
  void loadPatches(OpBuilder &rw) {
    Location loc = c.op.getLoc();
    threadForall(rw, loc, [&](OpBuilder &b, Value ty, Value tx) {
      Patch patch = patchOf(b, ty, tx);
      Type elem = cast<MemRefType>(accumulators.getType()).getElementType();
      Value zero = zeroOf(b, loc, elem);
      for (size_t k = 0; k < patch.inside.size(); ++k)
        memref::StoreOp::create(b, loc,
                                loadIf(b, loc, patch.inside[k], c.c->get(), patch.atC[k], zero),
                                accumulators, slot(b, patch.thread, k));
    });
  }

  /// Each thread's accumulators back into its patch of C (none past an
  /// edge).
  void storePatches(OpBuilder &rw) {
    Location loc = c.op.getLoc();
    threadForall(rw, loc, [&](OpBuilder &b, Value ty, Value tx) {
      Patch patch = patchOf(b, ty, tx);
      for (size_t k = 0; k < patch.inside.size(); ++k)
        scf::IfOp::create(b, loc, patch.inside[k], [&](OpBuilder &t, Location l) {
          memref::StoreOp::create(
              t, l, memref::LoadOp::create(t, l, accumulators, slot(t, patch.thread, k)),
              c.c->get(), patch.atC[k]);
          scf::YieldOp::create(t, l);
        });
    });
  }

  /// Elements a shared row of `elem` is padded by.
  static int64_t padOf(Type elem) { return std::max<int64_t>(1, kRowPadBytes / bytesOf(elem)); }

  /// [BK][tile + pad] elements of `operand` (rows of K), or [tile][BK +
  /// pad], shared by the block.
  Value sharedBuffer(RewriterBase &rw, int64_t tile, OpOperand *operand, bool kRows) {
    Type elem = cast<MemRefType>(operand->get().getType()).getElementType();
    if (kRows)
      return shardc::gpu::blockBuffer(rw, c.op, {c.bk, tile + padOf(elem)}, elem, workgroup);
    return shardc::gpu::blockBuffer(rw, c.op, {tile, c.bk + padOf(elem)}, elem, workgroup);
  }

  /// The tile's outputs between C and the shared accumulators (zeros past
  /// an edge going in, nothing past it coming out): element t, t + 256, ...
  /// of the tile, row by row, so neighbouring threads touch neighbouring
  /// addresses of C.
  void copyTile(OpBuilder &rw, bool intoShared) {
    Location loc = c.op.getLoc();
    threadForall(rw, loc, [&](OpBuilder &b, Value ty, Value tx) {
      Value t = linearThread(b, loc, ty, tx);
      Type elem = cast<MemRefType>(accumulators.getType()).getElementType();
      Value zero = zeroOf(b, loc, elem);
      for (int64_t r = 0; r < c.bm * c.bn / kThreads; ++r) {
        Value e = arith::AddIOp::create(b, loc, index(b, loc, r * kThreads), t);
        Value i = arith::DivUIOp::create(b, loc, e, index(b, loc, c.bn));
        Value j = arith::RemUIOp::create(b, loc, e, index(b, loc, c.bn));
        Value inside = arith::AndIOp::create(
            b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, rows),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j, cols));
        SmallVector<Value> ivs(c.op.getNumLoops(), index(b, loc, 0));
        ivs[c.m] = i;
        ivs[c.n] = j;
        SmallVector<Value> atC = c.at(c.c, ivs);
        if (intoShared) {
          memref::StoreOp::create(b, loc, loadIf(b, loc, inside, c.c->get(), atC, zero),
                                  accumulators, ValueRange{i, j});
          continue;
        }
        scf::IfOp::create(b, loc, inside, [&](OpBuilder &then, Location l) {
          memref::StoreOp::create(then, l,
                                  memref::LoadOp::create(then, l, accumulators, ValueRange{i, j}),
                                  c.c->get(), atC);
          scf::YieldOp::create(then, l);
        });
      }
    });
  }

  /// Warp `warp`'s share of the tile on the tensor cores: its WM x WN
  /// patch (warps 4 x 2 over the tile) as 16 x 8 accumulator tiles, read
  /// once from the shared accumulators, each K step (16 for 16-bit
  /// operands, 8 for TF32) adding A's 16 x K tile times B's K x 8 one
  /// (vector.contract, 16-bit operands extended to f32), written back
  /// once. Every lane runs this alike (gpu-map-foralls), and gpu-lower-mma
  /// turns each contraction into mma.sync and its reads into ldmatrix.
  /// Index math on the warp id is affine.apply: the slice that lowering
  /// converts may hold those, not arith ops. Past kc the staged chunk holds
  /// zeros, so whole K steps add exact zeros.
  ///
  /// Without `depth` this is one chunk, staged before it by a thread
  /// forall (the sequential fork, where warps run one after another).
  /// With it, the warp code is the whole chunk loop over K = `depth`: the
  /// accumulators are its loop-carried values (registers, in each lane),
  /// and each chunk is staged by thread warp * 32 + lane, then a barrier,
  /// the K steps, and a barrier before the next chunk overwrites the tiles.
  void computeMma(OpBuilder &b, Value warp, Value depth) {
    Location loc = c.op.getLoc();
    int64_t wm = c.bm / kWarpsM, wn = c.bn / kWarpsN;
    AffineExpr w = b.getAffineDimExpr(0);
    auto apply = [&](AffineExpr e) -> Value {
      return affine::AffineApplyOp::create(b, loc, AffineMap::get(1, 0, e), ValueRange{warp});
    };
    auto read = [&](OpBuilder &at, Value shared, Value row, Value col, int64_t h,
                    int64_t wd) -> Value {
      Type elem = cast<MemRefType>(shared.getType()).getElementType();
      return vector::TransferReadOp::create(at, loc, VectorType::get({h, wd}, elem), shared,
                                            ValueRange{row, col}, zeroOf(at, loc, elem),
                                            ArrayRef<bool>{true, true});
    };
    auto widen = [&](OpBuilder &at, Value v) -> Value {
      auto type = cast<VectorType>(v.getType());
      if (type.getElementType().isF32())
        return v;
      return arith::ExtFOp::create(at, loc, type.clone(at.getF32Type()), v);
    };
    const int64_t kStep = mmaKFor(cast<MemRefType>(sharedA.getType()).getElementType());
    SmallVector<Value> rowsOf, colsOf;
    for (int64_t i = 0; i < wm / kMmaM; ++i)
      rowsOf.push_back(apply(w.floorDiv(kWarpsN) * wm + i * kMmaM));
    for (int64_t j = 0; j < wn / kMmaN; ++j)
      colsOf.push_back(apply((w % kWarpsN) * wn + j * kMmaN));
    SmallVector<Value> acc;
    for (Value row : rowsOf)
      for (Value col : colsOf)
        acc.push_back(read(b, accumulators, row, col, kMmaM, kMmaN));
    AffineExpr m, n, k;
    bindDims(b.getContext(), m, n, k);
    SmallVector<SmallVector<AffineExpr>> maps = {{m, k}, {k, n}, {m, n}};
    SmallVector<ArrayRef<AffineExpr>> mapRefs(maps.begin(), maps.end());
    SmallVector<vector::IteratorType> iterators = {vector::IteratorType::parallel,
                                                   vector::IteratorType::parallel,
                                                   vector::IteratorType::reduction};
    // One chunk's K steps onto `sums`.
    auto kSteps = [&](OpBuilder &at, SmallVector<Value> &sums) {
      for (int64_t k0 = 0; k0 < c.bk; k0 += kStep) {
        Value kAt = index(at, loc, k0);
        SmallVector<Value> as, bs;
        for (Value row : rowsOf)
          as.push_back(widen(at, read(at, sharedA, row, kAt, kMmaM, kStep)));
        for (Value col : colsOf)
          bs.push_back(widen(at, read(at, sharedB, kAt, col, kStep, kMmaN)));
        for (size_t i = 0; i < rowsOf.size(); ++i)
          for (size_t j = 0; j < colsOf.size(); ++j) {
            Value &sum = sums[i * colsOf.size() + j];
            sum = vector::ContractionOp::create(at, loc, as[i], bs[j], sum, mapRefs, iterators);
          }
      }
    };
    if (!depth) {
      kSteps(b, acc);
    } else {
      acc = chunkLoop(b, warp, depth, acc, kSteps);
    }
    for (size_t i = 0; i < rowsOf.size(); ++i)
      for (size_t j = 0; j < colsOf.size(); ++j)
        vector::TransferWriteOp::create(b, loc, acc[i * colsOf.size() + j], accumulators,
                                        ValueRange{rowsOf[i], colsOf[j]},
                                        ArrayRef<bool>{true, true});
  }

  /// The kernel's chunk loop over K = `depth` in warp `warp`'s code,
  /// carrying the accumulators `acc` (kSteps adds one chunk's K steps onto
  /// them); returns their final values. Thread warp * 32 + lane stages its
  /// share of each chunk, then a barrier, the K steps, and a barrier
  /// before the next chunk overwrites the tiles. When both operands are
  /// read by 16-byte runs, each chunk's runs are fetched one chunk ahead:
  /// the loads of chunk k + 1 are in flight while chunk k's K steps run.
  /// They travel between iterations as i32 scalars: upstream's mma
  /// rewriting drops a whole loop that carries a vector it cannot make a
  /// matrix fragment. Past the end a fetch reads nothing (kc is 0).
  SmallVector<Value> chunkLoop(OpBuilder &b, Value warp, Value depth, ArrayRef<Value> acc,
                               llvm::function_ref<void(OpBuilder &, SmallVector<Value> &)> kSteps) {
    Location loc = c.op.getLoc();
    AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1);
    Value lane = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
    Value t = affine::AffineApplyOp::create(b, loc, AffineMap::get(2, 0, d0 * kWarpSize + d1),
                                            ValueRange{warp, lane});
    // K steps of the chunk at k: min(BK, K - k), and 0 past the end.
    auto chunkSize = [&](OpBuilder &at, Value k) -> Value {
      Value left = affine::AffineMinOp::create(
          at, loc, AffineMap::get(2, 0, {at.getAffineConstantExpr(c.bk), d1 - d0}, at.getContext()),
          ValueRange{k, depth});
      return affine::AffineMaxOp::create(
          at, loc, AffineMap::get(1, 0, {at.getAffineConstantExpr(0), d0}, at.getContext()),
          ValueRange{left});
    };
    const Staged a = stagedA(), bOp = stagedB();
    const bool ahead = staging.byRuns(a) && staging.byRuns(bOp);
    // A 16-byte run as four i32s and back.
    auto fourWords = VectorType::get({4}, b.getI32Type());
    auto pack = [&](OpBuilder &at, ArrayRef<Value> runs, SmallVector<Value> &into) {
      for (Value run : runs) {
        Value words = vector::BitCastOp::create(at, loc, fourWords, run);
        for (int64_t w = 0; w < 4; ++w)
          into.push_back(vector::ExtractOp::create(at, loc, words, w));
      }
    };
    auto unpack = [&](OpBuilder &at, ValueRange words, const Staged &x) {
      auto run = VectorType::get({shardc::gpu::OperandStaging::runWidth(x)},
                                 cast<MemRefType>(x.shared.getType()).getElementType());
      SmallVector<Value> runs;
      for (size_t i = 0; i < words.size(); i += 4)
        runs.push_back(vector::BitCastOp::create(
            at, loc, run, vector::FromElementsOp::create(at, loc, fourWords, words.slice(i, 4))));
      return runs;
    };
    SmallVector<Value> init(acc);
    size_t wordsA = 0;
    if (ahead) {
      Value zero = index(b, loc, 0);
      pack(b, staging.fetch(b, t, zero, chunkSize(b, zero), a), init);
      wordsA = init.size() - acc.size();
      pack(b, staging.fetch(b, t, zero, chunkSize(b, zero), bOp), init);
    }
    auto chunks = scf::ForOp::create(
        b, loc, index(b, loc, 0), depth, index(b, loc, c.bk), init,
        [&](OpBuilder &s, Location l, Value k0, ValueRange carried) {
          SmallVector<Value> next;
          if (ahead) {
            ValueRange words = carried.drop_front(acc.size());
            staging.deposit(s, t, unpack(s, words.take_front(wordsA), a), a);
            staging.deposit(s, t, unpack(s, words.drop_front(wordsA), bOp), bOp);
          } else {
            staging.stage(s, t, k0, chunkSize(s, k0), a);
            staging.stage(s, t, k0, chunkSize(s, k0), bOp);
          }
          gpu::BarrierOp::create(s, l);
          if (ahead) {
            Value k1 = affine::AffineApplyOp::create(
                s, l, AffineMap::get(1, 0, s.getAffineDimExpr(0) + c.bk), ValueRange{k0});
            pack(s, staging.fetch(s, t, k1, chunkSize(s, k1), a), next);
            pack(s, staging.fetch(s, t, k1, chunkSize(s, k1), bOp), next);
          }
          SmallVector<Value> sums(carried.take_front(acc.size()));
          kSteps(s, sums);
          gpu::BarrierOp::create(s, l);
          sums.append(next);
          scf::YieldOp::create(s, l, sums);
        });
    ResultRange sums = chunks.getResults().take_front(acc.size());
    return SmallVector<Value>(sums.begin(), sums.end());
  }

  /// Thread (ty, tx)'s TM x TN patch of the tile: its place in C, which
  /// of it lies inside the tile (an edge tile's patch may not), and where
  /// its first row and column are.
  struct Patch {
    Value thread, row0, col0;
    SmallVector<Value> inside;
    SmallVector<SmallVector<Value>> atC;
  };

  Patch patchOf(OpBuilder &b, Value ty, Value tx) {
    Location loc = c.op.getLoc();
    Patch p;
    p.thread = linearThread(b, loc, ty, tx);
    p.row0 = arith::MulIOp::create(b, loc, ty, index(b, loc, c.tm));
    p.col0 = arith::MulIOp::create(b, loc, tx, index(b, loc, c.tn));
    for (int64_t i = 0; i < c.tm; ++i)
      for (int64_t j = 0; j < c.tn; ++j) {
        Value row = arith::AddIOp::create(b, loc, p.row0, index(b, loc, i));
        Value col = arith::AddIOp::create(b, loc, p.col0, index(b, loc, j));
        p.inside.push_back(arith::AndIOp::create(
            b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, rows),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, cols)));
        SmallVector<Value> ivs(c.op.getNumLoops(), index(b, loc, 0));
        ivs[c.m] = row;
        ivs[c.n] = col;
        p.atC.push_back(c.at(c.c, ivs));
      }
    return p;
  }

  /// Accumulator k of `thread` (privateSlot).
  SmallVector<Value> slot(OpBuilder &b, Value thread, int64_t k) {
    Location loc = c.op.getLoc();
    return {shardc::gpu::privateSlot(b, loc, thread, workgroup), index(b, loc, k)};
  }

  /// Thread (ty, tx)'s patch over one chunk: its accumulators, the
  /// chunk's kc steps of the op's body in K order, its accumulators again.
  void compute(OpBuilder &b, Value ty, Value tx, Value kc) {
    Location loc = c.op.getLoc();
    Value thread = linearThread(b, loc, ty, tx);
    Value row0 = arith::MulIOp::create(b, loc, ty, index(b, loc, c.tm));
    Value col0 = arith::MulIOp::create(b, loc, tx, index(b, loc, c.tn));
    SmallVector<Value> initial;
    for (int64_t k = 0; k < c.tm * c.tn; ++k)
      initial.push_back(memref::LoadOp::create(b, loc, accumulators, slot(b, thread, k)));
    auto steps =
        scf::ForOp::create(b, loc, index(b, loc, 0), kc, index(b, loc, 1), initial,
                           [&](OpBuilder &s, Location l, Value kk, ValueRange acc) {
                             Value va = loadRun(s, sharedA, kk, row0, c.tm);
                             Value vb = loadRun(s, sharedB, kk, col0, c.tn);
                             SmallVector<Value> next;
                             for (int64_t i = 0; i < c.tm; ++i)
                               for (int64_t j = 0; j < c.tn; ++j)
                                 next.push_back(applyBody(
                                     s, vector::ExtractOp::create(s, l, va, i),
                                     vector::ExtractOp::create(s, l, vb, j), acc[i * c.tn + j]));
                             scf::YieldOp::create(s, l, next);
                           });
    for (int64_t k = 0; k < c.tm * c.tn; ++k)
      memref::StoreOp::create(b, loc, steps.getResult(k), accumulators, slot(b, thread, k));
  }

  /// `count` consecutive elements of row `kk` of `shared` from `start`,
  /// as one vector load (aligned: rows and starts are multiples of it).
  Value loadRun(OpBuilder &b, Value shared, Value kk, Value start, int64_t count) {
    Type elem = cast<MemRefType>(shared.getType()).getElementType();
    int64_t align = std::min<int64_t>(kRowPadBytes, count * bytesOf(elem));
    return vector::LoadOp::create(b, c.op.getLoc(), VectorType::get({count}, elem), shared,
                                  ValueRange{kk, start}, /*nontemporal=*/false,
                                  llvm::MaybeAlign(align));
  }

  /// The op's body on one (a, b, acc) triple: its yielded value. Float
  /// ops may contract (a multiply and the add of its product become one
  /// FMA, one rounding), as the CPU target's GEMM kernels do.
  Value applyBody(OpBuilder &b, Value a, Value bv, Value acc) {
    Block *body = c.op.getBlock();
    IRMapping map;
    map.map(body->getArgument(c.a->getOperandNumber()), a);
    map.map(body->getArgument(c.b->getOperandNumber()), bv);
    map.map(body->getArgument(c.c->getOperandNumber()), acc);
    for (Operation &inner : body->without_terminator()) {
      Operation *clone = b.clone(inner, map);
      auto fm = dyn_cast<arith::ArithFastMathInterface>(clone);
      if (!fm || !isa<arith::MulFOp, arith::AddFOp>(clone))
        continue;
      arith::FastMathFlagsAttr flags = fm.getFastMathFlagsAttr();
      clone->setAttr(fm.getFastMathAttrName(),
                     arith::FastMathFlagsAttr::get(
                         b.getContext(), (flags ? flags.getValue() : arith::FastMathFlags::none) |
                                             arith::FastMathFlags::contract));
    }
    return map.lookupOrDefault(body->getTerminator()->getOperand(0));
  }
};

} // namespace

bool shardc::gpuTensorCoreContraction(linalg::LinalgOp op, bool tf32) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return false;
  auto elemOf = [&](OpOperand *o) { return getElementTypeOrSelf(o->get().getType()); };
  Type a = elemOf(op.getDpsInputOperand(0));
  const bool extended = a.isF16() || a.isBF16();
  if (!(extended || (tf32 && a.isF32())) || elemOf(op.getDpsInputOperand(1)) != a ||
      !elemOf(op.getDpsInitOperand(0)).isF32())
    return false;
  // acc + ext(a) * ext(b) (acc + a * b for f32), in either order of each
  // pair, and nothing else.
  Block *body = op.getBlock();
  if (body->getOperations().size() != (extended ? 5u : 3u))
    return false;
  auto add = body->getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body->getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getRhs() == acc ? add.getLhs() : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  Value argA = body->getArgument(0), argB = body->getArgument(1);
  auto unextended = [&](Value v) -> Value {
    if (!extended)
      return v;
    auto ext = v.getDefiningOp<arith::ExtFOp>();
    return ext ? ext.getIn() : Value();
  };
  Value lhs = unextended(mul.getLhs()), rhs = unextended(mul.getRhs());
  return lhs && rhs && ((lhs == argA && rhs == argB) || (lhs == argB && rhs == argA));
}

namespace {

struct GpuStageContractions : shardc::impl::GpuStageContractionsBase<GpuStageContractions> {
  using Base::Base;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> tiles =
        shardc::gpu::markedTiles(getOperation(), shardc::kGpuStagedAttr);
    llvm::append_range(tiles, shardc::gpu::markedTiles(getOperation(), shardc::kGpuMmaAttr));
    for (linalg::LinalgOp op : tiles) {
      std::optional<Contraction> c = readMarked(op);
      if (!c || !shardc::gpu::isBlockTile(op)) {
        op.emitError() << "gpu-stage-contractions: a marked op must be a bufferized "
                          "contraction tile in a block forall (an internal error of the "
                          "staged recipe)";
        return signalPassFailure();
      }
      Stager(*c, workgroupMemory).run(rewriter);
    }
  }
};

} // namespace
