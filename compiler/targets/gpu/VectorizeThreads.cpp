//===- VectorizeThreads.cpp - gpu-vectorize-threads ------------------------===//
//
// A thread's run of 4 elements as one 16-byte (for f32) vector load per
// operand and one vector store per result, where the run is whole and
// every address is aligned to the vector; a contraction's run the same
// way inside its K loop; the scalar loop elsewhere (GpuPasses.td has the
// rule and an example).
//
// Invariants: the vector path computes every element with the same scalar
// operations as the loop it replaces (the body's ops are elementwise, and
// are rebuilt on vectors of 4), so results are bit for bit the scalar
// path's; the alignment the loads and stores claim is checked at run time
// before they run, so no address is ever misaligned.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/gpu/GpuPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace shardc {
#define GEN_PASS_DEF_GPUVECTORIZETHREADS
#include "compiler/targets/gpu/GpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

constexpr int64_t kRun = 4; // the output recipe's run of outputs per thread

bool isThreadForall(scf::ForallOp forall) {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  return mapping && !mapping->empty() && isa<gpu::GPUThreadMappingAttr>((*mapping)[0]);
}

/// Element types whose memref elements are bytes or wider (an i1 memref's
/// elements are bytes, an i1 vector's are bits: never vectorized).
bool vectorizableElement(Type t) {
  return t.isF16() || t.isBF16() || t.isF32() || t.isF64() || t.isInteger(8) ||
         t.isInteger(32) || t.isInteger(64);
}

/// Whether operand `map` reads the innermost loop dim as its own innermost
/// index (so a run of the loop is a run of the memref).
bool readsRun(AffineMap map, unsigned innermost) {
  return map.getNumResults() > 0 && map.getResults().back() == getAffineDimExpr(innermost,
                                                                                map.getContext());
}

/// The op's last static memref stride is 1 (or the memref is rank 0).
bool unitInnerStride(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() == 0)
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1;
}

/// Which loops of a thread's op the vector path runs: the run (the
/// innermost parallel loop, a thread's 4 consecutive outputs) and at most
/// one reduction loop (a contraction's K, run in order); every other loop
/// has extent 1.
struct Loops {
  unsigned run = 0;
  std::optional<unsigned> reduction;
};

/// The loops of `op` when the vector path can take it: on buffers, at most
/// one reduction loop, every loop but the run and the reduction of extent
/// 1, operands read through projected permutations, outputs that read the
/// run and not the reduction, byte-or-wider elements, a body of
/// elementwise ops without index reads, each operand reading the run as
/// its innermost, unit-stride index or not at all; with a reduction, every
/// output accumulates (its value is read by the body).
std::optional<Loops> eligible(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumParallelLoops() == 0 ||
      op.getNumReductionLoops() > 1)
    return std::nullopt;
  Loops loops;
  SmallVector<unsigned> parallel, reduction;
  op.getParallelDims(parallel);
  op.getReductionDims(reduction);
  loops.run = parallel.back();
  if (!reduction.empty())
    loops.reduction = reduction.front();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (unsigned d = 0; d < ranges.size(); ++d)
    if (d != loops.run && d != loops.reduction && ranges[d] != 1)
      return std::nullopt;
  if (!ShapedType::isDynamic(ranges[loops.run]) && ranges[loops.run] != kRun)
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !vectorizableElement(type.getElementType()))
      return std::nullopt;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return std::nullopt;
    if (op.isDpsInit(&operand)) {
      if (!readsRun(map, loops.run) ||
          (loops.reduction && map.isFunctionOfDim(*loops.reduction)))
        return std::nullopt;
      if (loops.reduction && op.getMatchingBlockArgument(&operand).use_empty())
        return std::nullopt;
    }
    // The run is read as the memref's own innermost index (contiguous), or
    // not at all (a broadcast: one element for the whole run); a
    // transposed read strides through memory and stays scalar.
    if (map.isFunctionOfDim(loops.run) && !readsRun(map, loops.run))
      return std::nullopt;
    if (readsRun(map, loops.run) && !unitInnerStride(operand.get()))
      return std::nullopt;
  }
  for (Operation &inner : op.getBody()->without_terminator()) {
    if (inner.getNumRegions() != 0 || isa<linalg::IndexOp>(inner))
      return std::nullopt;
    if (!isa<arith::ConstantOp>(inner) &&
        !(inner.hasTrait<OpTrait::Elementwise>() && inner.hasTrait<OpTrait::Vectorizable>()))
      return std::nullopt;
  }
  return loops;
}

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// True where `memref`, read as runs of kRun elements, has every run it
/// reads aligned to the run's bytes: its first run starts at a multiple of
/// them, and so does every step along the reduction (`reductionPos`, the
/// memref dim the reduction loop indexes, if any).
Value runsAligned(OpBuilder &b, Location loc, Value memref, std::optional<unsigned> reductionPos) {
  auto type = cast<MemRefType>(memref.getType());
  const int64_t elemBytes = type.getElementTypeBitWidth() / 8;
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value offsetBytes =
      arith::MulIOp::create(b, loc, meta.getOffset(), index(b, loc, elemBytes));
  Value address = arith::AddIOp::create(b, loc, base, offsetBytes);
  Value rem = arith::RemUIOp::create(b, loc, address, index(b, loc, kRun * elemBytes));
  Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem, index(b, loc, 0));
  if (reductionPos) {
    Value stride = meta.getStrides()[*reductionPos];
    Value srem = arith::RemUIOp::create(b, loc, stride, index(b, loc, kRun));
    ok = arith::AndIOp::create(
        b, loc, ok,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, srem, index(b, loc, 0)));
  }
  return ok;
}

/// The position among `map`'s results of loop `dim`, if it reads it.
std::optional<unsigned> positionOf(AffineMap map, std::optional<unsigned> dim) {
  if (!dim)
    return std::nullopt;
  for (unsigned i = 0; i < map.getNumResults(); ++i)
    if (map.getResult(i) == getAffineDimExpr(*dim, map.getContext()))
      return i;
  return std::nullopt;
}

/// The vector path of `op` at the builder's point: loads, the body on
/// vectors of kRun (inside a loop over the reduction, in order, the
/// outputs carried as accumulators), stores.
void emitVectorPath(OpBuilder &b, linalg::GenericOp op, const Loops &loops) {
  Location loc = op.getLoc();
  Block *body = op.getBody();
  auto vectorOf = [](Type scalar) { return VectorType::get({kRun}, scalar); };
  // The operand's element at the run's start, at reduction step `k`.
  auto indicesOf = [&](OpOperand &operand, Value k) {
    AffineMap m = op.getMatchingIndexingMap(&operand);
    SmallVector<Value> at;
    for (unsigned i = 0; i < m.getNumResults(); ++i)
      at.push_back(loops.reduction && m.getResult(i) == getAffineDimExpr(*loops.reduction,
                                                                          m.getContext())
                       ? k
                       : index(b, loc, 0));
    return at;
  };
  auto load = [&](OpOperand &operand, Value k) -> Value {
    Value memref = operand.get();
    Type elem = cast<MemRefType>(memref.getType()).getElementType();
    if (readsRun(op.getMatchingIndexingMap(&operand), loops.run)) {
      const uint64_t bytes = kRun * (elem.getIntOrFloatBitWidth() / 8);
      return vector::LoadOp::create(b, loc, vectorOf(elem), memref, indicesOf(operand, k),
                                    /*nontemporal=*/false, llvm::MaybeAlign(bytes));
    }
    Value s = memref::LoadOp::create(b, loc, memref, indicesOf(operand, k));
    return vector::BroadcastOp::create(b, loc, vectorOf(elem), s);
  };
  Value zero = index(b, loc, 0);
  // Outputs the body reads: loaded once, carried through the reduction.
  SmallVector<Value> accumulators;
  for (OpOperand &out : op.getDpsInitsMutable())
    if (!op.getMatchingBlockArgument(&out).use_empty())
      accumulators.push_back(load(out, zero));

  // The body on vectors, with `map` holding the block arguments' vectors.
  auto emitBody = [&](IRMapping &map) {
    auto operandOf = [&](Value v) -> Value {
      if (Value mapped = map.lookupOrNull(v))
        return mapped;
      Value vec = vector::BroadcastOp::create(b, loc, vectorOf(v.getType()), v);
      map.map(v, vec);
      return vec;
    };
    for (Operation &inner : body->without_terminator()) {
      if (auto c = dyn_cast<arith::ConstantOp>(inner)) {
        Value s = b.clone(inner)->getResult(0);
        map.map(c.getResult(), vector::BroadcastOp::create(b, loc, vectorOf(s.getType()), s));
        continue;
      }
      OperationState state(inner.getLoc(), inner.getName());
      for (Value v : inner.getOperands())
        state.addOperands(operandOf(v));
      for (Type t : inner.getResultTypes())
        state.addTypes(vectorOf(t));
      state.addAttributes(inner.getAttrs());
      Operation *vec = b.create(state);
      for (auto [from, to] : llvm::zip(inner.getResults(), vec->getResults()))
        map.map(from, to);
    }
    SmallVector<Value> results;
    for (Value v : cast<linalg::YieldOp>(body->getTerminator()).getValues())
      results.push_back(operandOf(v));
    return results;
  };
  auto mapArguments = [&](IRMapping &map, Value k, ValueRange accs) {
    size_t a = 0;
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(&operand);
      if (arg.use_empty())
        continue;
      map.map(arg, op.isDpsInit(&operand) ? accs[a++] : load(operand, k));
    }
  };

  SmallVector<Value> results;
  if (!loops.reduction) {
    IRMapping map;
    mapArguments(map, zero, accumulators);
    results = emitBody(map);
  } else {
    SmallVector<Range, 4> ranges =
        cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
    Value extent = getValueOrCreateConstantIndexOp(b, loc, ranges[*loops.reduction].size);
    auto loop = scf::ForOp::create(b, loc, zero, extent, index(b, loc, 1), accumulators);
    b.setInsertionPointToStart(loop.getBody());
    IRMapping map;
    mapArguments(map, loop.getInductionVar(), loop.getRegionIterArgs());
    scf::YieldOp::create(b, loc, emitBody(map));
    b.setInsertionPointAfter(loop);
    results.assign(loop.getResults().begin(), loop.getResults().end());
  }
  for (auto [value, out] : llvm::zip(results, op.getDpsInitsMutable())) {
    Type elem = cast<MemRefType>(out.get().getType()).getElementType();
    const uint64_t bytes = kRun * (elem.getIntOrFloatBitWidth() / 8);
    vector::StoreOp::create(b, loc, value, out.get(), indicesOf(out, zero), /*nontemporal=*/false,
                            llvm::MaybeAlign(bytes));
  }
}

/// `op` as `if (whole aligned runs) vector path else op`.
void vectorize(RewriterBase &rw, linalg::GenericOp op, const Loops &loops) {
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  SmallVector<Range, 4> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(rw, loc);
  Value extent = getValueOrCreateConstantIndexOp(rw, loc, ranges[loops.run].size);
  Value cond = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, extent,
                                     index(rw, loc, kRun));
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (readsRun(map, loops.run))
      cond = arith::AndIOp::create(
          rw, loc, cond, runsAligned(rw, loc, operand.get(), positionOf(map, loops.reduction)));
  }
  auto branch = scf::IfOp::create(rw, loc, cond, /*withElseRegion=*/true);
  OpBuilder thenB = branch.getThenBodyBuilder();
  emitVectorPath(thenB, op, loops);
  OpBuilder elseB = branch.getElseBodyBuilder();
  elseB.clone(*op);
  rw.eraseOp(op);
}

struct GpuVectorizeThreads : shardc::impl::GpuVectorizeThreadsBase<GpuVectorizeThreads> {
  void runOnOperation() override {
    IRRewriter rw(&getContext());
    // Named ops in a thread's tile (a matmul's, a fill's) as generics, so
    // one rule reads them all.
    SmallVector<linalg::LinalgOp> named;
    getOperation()->walk([&](linalg::LinalgOp op) {
      auto forall = dyn_cast<scf::ForallOp>(op->getParentOp());
      if (forall && isThreadForall(forall) && !isa<linalg::GenericOp>(op))
        named.push_back(op);
    });
    for (linalg::LinalgOp op : named) {
      rw.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rw, op);
    }
    SmallVector<std::pair<linalg::GenericOp, Loops>> ops;
    getOperation()->walk([&](linalg::GenericOp op) {
      auto forall = dyn_cast<scf::ForallOp>(op->getParentOp());
      if (!forall || !isThreadForall(forall))
        return;
      if (std::optional<Loops> loops = eligible(op))
        ops.push_back({op, *loops});
    });
    for (auto &[op, loops] : ops)
      vectorize(rw, op, loops);
  }
};

} // namespace
