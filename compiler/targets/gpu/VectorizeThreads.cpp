//===- VectorizeThreads.cpp - gpu-vectorize-threads ------------------------===//
//
// A thread's run of 4 elements as one 16-byte (for f32) vector load per
// operand and one vector store per result, where the run is whole and
// every address is aligned to the vector; the scalar loop elsewhere
// (GpuPasses.td has the rule and an example).
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
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
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

/// A thread's elementwise op that the vector path can take: on buffers,
/// every loop parallel, every loop but the innermost of extent 1, operands
/// read through projected permutations (broadcasts allowed), outputs
/// through the identity, byte-or-wider elements, a body of elementwise ops
/// and no index reads, and each operand reading the run as its innermost,
/// unit-stride index or not at all.
bool eligible(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (size_t d = 0; d + 1 < ranges.size(); ++d)
    if (ranges[d] != 1)
      return false;
  if (!ShapedType::isDynamic(ranges.back()) && ranges.back() != kRun)
    return false;
  const unsigned innermost = op.getNumLoops() - 1;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !vectorizableElement(type.getElementType()))
      return false;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return false;
    if (op.isDpsInit(&operand) && !map.isIdentity())
      return false;
    // The run is read as the memref's own innermost index (contiguous), or
    // not at all (a broadcast: one element for the whole run); a
    // transposed read strides through memory and stays scalar.
    if (map.isFunctionOfDim(innermost) && !readsRun(map, innermost))
      return false;
    if (readsRun(map, innermost) && !unitInnerStride(operand.get()))
      return false;
  }
  for (Operation &inner : op.getBody()->without_terminator()) {
    if (inner.getNumRegions() != 0 || isa<linalg::IndexOp>(inner))
      return false;
    if (!isa<arith::ConstantOp>(inner) &&
        !(inner.hasTrait<OpTrait::Elementwise>() && inner.hasTrait<OpTrait::Vectorizable>()))
      return false;
  }
  return true;
}

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// True where `memref` (read as a run of kRun elements) starts at an
/// address that is a multiple of the run's bytes.
Value runAligned(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  const int64_t elemBytes = type.getElementTypeBitWidth() / 8;
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value offsetBytes =
      arith::MulIOp::create(b, loc, meta.getOffset(), index(b, loc, elemBytes));
  Value address = arith::AddIOp::create(b, loc, base, offsetBytes);
  Value rem = arith::RemUIOp::create(b, loc, address, index(b, loc, kRun * elemBytes));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem, index(b, loc, 0));
}

/// The vector path of `op` at the builder's point: loads, the body on
/// vectors of kRun, stores.
void emitVectorPath(OpBuilder &b, linalg::GenericOp op) {
  Location loc = op.getLoc();
  const unsigned innermost = op.getNumLoops() - 1;
  Block *body = op.getBody();
  IRMapping map;
  auto vectorOf = [](Type scalar) { return VectorType::get({kRun}, scalar); };
  auto zeros = [&](Value memref) {
    return SmallVector<Value>(cast<MemRefType>(memref.getType()).getRank(), index(b, loc, 0));
  };
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = body->getArgument(operand.getOperandNumber());
    if (arg.use_empty())
      continue;
    Value memref = operand.get();
    Type elem = cast<MemRefType>(memref.getType()).getElementType();
    AffineMap m = op.getMatchingIndexingMap(&operand);
    Value v;
    if (readsRun(m, innermost)) {
      const uint64_t bytes = kRun * (elem.getIntOrFloatBitWidth() / 8);
      v = vector::LoadOp::create(b, loc, vectorOf(elem), memref, zeros(memref),
                                 /*nontemporal=*/false, llvm::MaybeAlign(bytes));
    } else {
      Value s = memref::LoadOp::create(b, loc, memref, zeros(memref));
      v = vector::BroadcastOp::create(b, loc, vectorOf(elem), s);
    }
    map.map(arg, v);
  }
  // Values the body takes from outside, broadcast once.
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
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  for (auto [value, out] : llvm::zip(yield.getValues(), op.getDpsInits())) {
    Type elem = cast<MemRefType>(out.getType()).getElementType();
    const uint64_t bytes = kRun * (elem.getIntOrFloatBitWidth() / 8);
    vector::StoreOp::create(b, loc, operandOf(value), out, zeros(out), /*nontemporal=*/false,
                            llvm::MaybeAlign(bytes));
  }
}

/// `op` as `if (whole aligned run) vector path else op`.
void vectorize(RewriterBase &rw, linalg::GenericOp op) {
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  const unsigned innermost = op.getNumLoops() - 1;
  Value out = op.getDpsInits().front();
  Value extent = memref::DimOp::create(rw, loc, out,
                                       cast<MemRefType>(out.getType()).getRank() - 1);
  Value cond = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, extent,
                                     index(rw, loc, kRun));
  for (OpOperand &operand : op->getOpOperands())
    if (readsRun(op.getMatchingIndexingMap(&operand), innermost))
      cond = arith::AndIOp::create(rw, loc, cond, runAligned(rw, loc, operand.get()));
  auto branch = scf::IfOp::create(rw, loc, cond, /*withElseRegion=*/true);
  OpBuilder thenB = branch.getThenBodyBuilder();
  emitVectorPath(thenB, op);
  OpBuilder elseB = branch.getElseBodyBuilder();
  elseB.clone(*op);
  rw.eraseOp(op);
}

struct GpuVectorizeThreads : shardc::impl::GpuVectorizeThreadsBase<GpuVectorizeThreads> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation()->walk([&](linalg::GenericOp op) {
      auto forall = dyn_cast<scf::ForallOp>(op->getParentOp());
      if (forall && isThreadForall(forall) && eligible(op))
        ops.push_back(op);
    });
    IRRewriter rw(&getContext());
    for (linalg::GenericOp op : ops)
      vectorize(rw, op);
  }
};

} // namespace
