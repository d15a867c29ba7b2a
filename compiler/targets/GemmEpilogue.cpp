//===- GemmEpilogue.cpp - an elementwise consumer computed in the GEMM's tiles -===//
//
// See GemmEpilogue.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/GemmEpilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;

namespace shardc::gemm {
namespace {

/// Vector transfers of i1 would store packed bits where a memref of i1
/// holds a byte per element: such operands stay with the unfused generic.
bool hasByteElements(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return !type || type.getElementTypeBitWidth() % 8 == 0;
}

bool isFreshAllocation(Value v) {
  auto alloc = v.getDefiningOp<memref::AllocOp>();
  return alloc && alloc->getNumOperands() == 0;
}

/// A buffer the generic may write from inside the GEMM: a fresh allocation,
/// or an output of the entry, which overlaps no other buffer (CpuTarget.h).
bool isPrivateOutput(Value v) {
  if (isFreshAllocation(v))
    return true;
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && isa<MemRefType>(v.getType()) &&
         isa_and_nonnull<func::FuncOp>(arg.getOwner()->getParentOp());
}

/// An op the epilogue can apply to vectors: elementwise (arith, math) with
/// scalar results, or a scalar constant.
bool isVectorizableBodyOp(Operation &op) {
  if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
    return false;
  if (!isa<arith::ConstantOp>(op) && !op.hasTrait<OpTrait::Elementwise>())
    return false;
  return llvm::all_of(op.getResultTypes(),
                      [](Type t) { return t.isIntOrFloat(); });
}

} // namespace

linalg::GenericOp findEpilogue(linalg::MatmulOp op) {
  Value c = op.getDpsInits()[0];
  auto cType = dyn_cast<MemRefType>(c.getType());
  if (!cType || cType.getRank() != 2 || !cType.hasStaticShape() || !isFreshAllocation(c) ||
      !cType.getElementType().isF32())
    return {};
  Block *block = op->getBlock();
  linalg::GenericOp found;
  for (Operation *user : c.getUsers()) {
    if (user == op.getOperation() || isa<memref::DeallocOp>(user))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(user);
        fill && fill->getBlock() == block && fill->isBeforeInBlock(op))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || found)
      return {};
    found = generic;
  }
  if (!found || found->getBlock() != block || !op->isBeforeInBlock(found) ||
      !found.hasPureBufferSemantics() || found.getNumLoops() != 2 ||
      found.getNumParallelLoops() != 2 || found.hasIndexSemantics() ||
      found.getStaticLoopRanges() != SmallVector<int64_t>(cType.getShape()))
    return {};
  int cReads = 0;
  for (OpOperand *in : found.getDpsInputOperands()) {
    Value v = in->get();
    AffineMap map = found.getMatchingIndexingMap(in);
    if (v == c) {
      cReads += 1;
      if (!map.isIdentity())
        return {};
      continue;
    }
    if (!isa<MemRefType>(v.getType())) {
      if (!v.getType().isIntOrFloat())
        return {};
      continue;
    }
    if (!map.isProjectedPermutation() || !cast<MemRefType>(v.getType()).hasStaticShape())
      return {};
  }
  if (cReads != 1 || !llvm::all_of(found->getOperands(), hasByteElements))
    return {};
  for (OpOperand &out : found.getDpsInitsMutable()) {
    Value v = out.get();
    if (!found.getMatchingIndexingMap(&out).isIdentity() ||
        found.payloadUsesValueFromOperand(&out) || !isPrivateOutput(v) ||
        llvm::is_contained(op->getOperands(), v) ||
        llvm::any_of(found.getDpsInputs(), [&](Value in) { return in == v; }))
      return {};
  }
  if (!llvm::all_of(found.getBody()->without_terminator(), isVectorizableBodyOp))
    return {};
  // Computing the generic at the matmul moves its reads and writes there:
  // nothing between may touch memory, and what it uses must exist there.
  for (Operation *between = op->getNextNode(); between != found.getOperation();
       between = between->getNextNode())
    if (!isMemoryEffectFree(between) &&
        !(between->getNumResults() == 1 && isFreshAllocation(between->getResult(0))))
      return {};
  for (Value v : found->getOperands()) {
    Operation *def = v.getDefiningOp();
    if (v != c && def && def->getBlock() == block && !def->isBeforeInBlock(op) &&
        !isFreshAllocation(v))
      return {};
  }
  return found;
}

void hoistEpilogueAllocs(RewriterBase &rewriter, linalg::MatmulOp op,
                         linalg::GenericOp epilogue) {
  for (Value v : epilogue->getOperands()) {
    Operation *def = v.getDefiningOp();
    if (def && def->getBlock() == op->getBlock() && op->isBeforeInBlock(def))
      rewriter.moveOpBefore(def, op);
  }
}

linalg::GenericOp epilogueReading(Value c) {
  linalg::GenericOp found;
  for (Operation *user : c.getUsers())
    if (auto generic = dyn_cast<linalg::GenericOp>(user)) {
      if (found)
        return {};
      found = generic;
    }
  return found;
}

namespace {

/// The K block loop around `op`, or null.
scf::ForOp kBlockLoop(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (auto loop = dyn_cast<scf::ForOp>(p); loop && loop->hasAttr(kKBlockLoopAttr))
      return loop;
  return {};
}

} // namespace

bool canFuseIntoTile(vector::TransferWriteOp write, bool singleKBlock) {
  return write.getVectorType().getRank() == 2 && !write.getMask() &&
         write.getPermutationMap().isMinorIdentity() && (singleKBlock || kBlockLoop(write));
}

void fuseIntoTile(RewriterBase &rewriter, vector::TransferWriteOp write,
                  linalg::GenericOp epilogue, Value c) {
  MLIRContext *ctx = write.getContext();
  Location loc = write.getLoc();
  ArrayRef<int64_t> shape = write.getVectorType().getShape();
  SmallVector<Value> at(write.getIndices());
  rewriter.setInsertionPoint(write);

  // In the last K block (or always, with one K block) the epilogue; in the
  // others, the store of C as before.
  Block *epilogueBlock = write->getBlock();
  if (scf::ForOp kLoop = kBlockLoop(write)) {
    Value next = arith::AddIOp::create(rewriter, loc, kLoop.getInductionVar(), kLoop.getStep());
    Value last = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge, next,
                                       kLoop.getUpperBound());
    auto branch = scf::IfOp::create(rewriter, loc, TypeRange{}, last, /*withElseRegion=*/true);
    rewriter.moveOpBefore(write, branch.elseBlock()->getTerminator());
    epilogueBlock = branch.thenBlock();
    rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
  }

  auto vectorOf = [&](Type element) { return VectorType::get(shape, element); };
  auto broadcast = [&](Value scalar) -> Value {
    return vector::BroadcastOp::create(rewriter, loc, vectorOf(scalar.getType()), scalar);
  };
  Block *body = epilogue.getBody();
  IRMapping values;
  for (OpOperand *in : epilogue.getDpsInputOperands()) {
    BlockArgument arg = body->getArgument(in->getOperandNumber());
    Value v = in->get();
    if (v == c) {
      values.map(arg, write.getVector());
      continue;
    }
    auto type = dyn_cast<MemRefType>(v.getType());
    AffineMap map = epilogue.getMatchingIndexingMap(in);
    if (!type) {
      values.map(arg, broadcast(v));
      continue;
    }
    if (map.getNumResults() == 0) {
      values.map(arg, broadcast(memref::LoadOp::create(rewriter, loc, v, ValueRange{})));
      continue;
    }
    // The operand's dims are loop dims (a projected permutation): index it
    // at the tile's origin; a loop dim it lacks is broadcast.
    SmallVector<Value> indices;
    for (AffineExpr e : map.getResults())
      indices.push_back(at[cast<AffineDimExpr>(e).getPosition()]);
    SmallVector<AffineExpr> toVector;
    for (unsigned d = 0; d < 2; ++d) {
      std::optional<unsigned> pos = map.getResultPosition(getAffineDimExpr(d, ctx));
      toVector.push_back(pos ? getAffineDimExpr(*pos, ctx) : getAffineConstantExpr(0, ctx));
    }
    Type element = type.getElementType();
    Value padding = arith::ConstantOp::create(rewriter, loc, element, rewriter.getZeroAttr(element));
    values.map(arg, vector::TransferReadOp::create(
                        rewriter, loc, vectorOf(element), v, indices,
                        AffineMap::get(map.getNumResults(), 0, toVector, ctx), padding,
                        /*mask=*/Value(), rewriter.getBoolArrayAttr({true, true})));
  }
  for (Operation &op : body->without_terminator()) {
    if (isa<arith::ConstantOp>(op)) {
      values.map(op.getResult(0), broadcast(rewriter.clone(op)->getResult(0)));
      continue;
    }
    SmallVector<Value> operands;
    for (Value operand : op.getOperands())
      operands.push_back(values.contains(operand) ? values.lookup(operand) : broadcast(operand));
    SmallVector<Type> types;
    for (Type t : op.getResultTypes())
      types.push_back(vectorOf(t));
    OperationState state(loc, op.getName().getStringRef(), operands, types, op.getAttrs());
    values.map(op.getResults(), rewriter.create(state)->getResults());
  }
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  for (auto [result, out] : llvm::zip(yield.getOperands(), epilogue.getDpsInits())) {
    Value v = values.contains(result) ? values.lookup(result) : broadcast(result);
    vector::TransferWriteOp::create(rewriter, loc, v, out, at, identity,
                                    ArrayRef<bool>{true, true});
  }
  if (write->getBlock() == epilogueBlock)
    rewriter.eraseOp(write);
}

void restrictToEdges(RewriterBase &rewriter, linalg::GenericOp epilogue, Value c, int64_t mr,
                     int64_t nr) {
  ArrayRef<int64_t> shape = cast<MemRefType>(c.getType()).getShape();
  int64_t m = shape[0], n = shape[1], fullRows = m - m % mr, fullCols = n - n % nr;
  rewriter.setInsertionPoint(epilogue);
  auto restrictTo = [&](int64_t row, int64_t rows, int64_t col, int64_t cols) {
    if (rows <= 0 || cols <= 0)
      return;
    SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(row), rewriter.getIndexAttr(col)};
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(rows), rewriter.getIndexAttr(cols)};
    (void)cast<TilingInterface>(epilogue.getOperation())
        .getTiledImplementation(rewriter, offsets, sizes);
  };
  restrictTo(fullRows, m - fullRows, 0, n);
  restrictTo(0, fullRows, fullCols, n - fullCols);
  rewriter.eraseOp(epilogue);
}

} // namespace shardc::gemm
