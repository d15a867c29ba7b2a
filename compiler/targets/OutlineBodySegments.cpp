//===- OutlineBodySegments.cpp - cpu-outline-body-segments ----------------===//
//
// Cuts a very long straight-line LLVM function into consecutive segments,
// each a function of its own that passes values through a frame (see
// CpuPasses.td), so that LLVM compiles the step of an unrolled scan as many
// functions of bounded size, on several threads.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/CpuPasses.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <functional>
#include <optional>

namespace shardc {
#define GEN_PASS_DEF_CPUOUTLINEBODYSEGMENTS
#include "compiler/targets/CpuPasses.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Ops that stay in the function and are cloned into each segment that
/// reads them: constants, memref descriptors' insertvalue/extractvalue and
/// address arithmetic, which cost nothing to recompute and would otherwise
/// pass through the frame by the thousand.
bool isRematerialized(Operation *op) {
  return op->getNumRegions() == 0 && op->getNumResults() > 0 && isMemoryEffectFree(op);
}

/// Ops of `op` and of its regions.
int64_t opCount(Operation *op) {
  int64_t n = 0;
  op->walk([&](Operation *) { ++n; });
  return n;
}

/// The ops of one block, what each costs, and for each position `i` what a
/// cut after ops[i] would pass: how many values of earlier ops later ones
/// read, and whether a stack buffer (`llvm.alloca`) lives across it.
struct BlockPlan {
  SmallVector<Operation *> ops;
  SmallVector<bool> rematerialized;
  SmallVector<int64_t> cost;
  SmallVector<int64_t> liveAcross;
  SmallVector<bool> allocaAcross;
  llvm::DenseMap<Operation *, size_t> position;

  explicit BlockPlan(Block &block) {
    for (Operation &op : block.without_terminator()) {
      position[&op] = ops.size();
      ops.push_back(&op);
      rematerialized.push_back(isRematerialized(&op));
      cost.push_back(rematerialized.back() ? 0 : opCount(&op));
    }
    size_t n = ops.size();
    // The last position that reads an op's results, directly or through
    // rematerialized ops (which move with their readers).
    SmallVector<size_t> lastRead(n);
    for (size_t i = n; i-- > 0;) {
      lastRead[i] = i;
      for (Operation *user : ops[i]->getUsers()) {
        Operation *top = block.findAncestorOpInBlock(*user);
        auto it = top ? position.find(top) : position.end();
        size_t at = it == position.end() ? n : it->second; // the terminator: the end
        if (at < n && rematerialized[at])
          at = lastRead[at];
        lastRead[i] = std::max(lastRead[i], at);
      }
    }
    SmallVector<int64_t> live(n + 1, 0), stack(n + 1, 0);
    for (size_t i = 0; i < n; ++i) {
      if (rematerialized[i] || lastRead[i] == i)
        continue;
      int64_t values = ops[i]->getNumResults();
      live[i] += values;
      live[lastRead[i]] -= values;
      if (isa<LLVM::AllocaOp>(ops[i])) {
        ++stack[i];
        --stack[lastRead[i]];
      }
    }
    int64_t liveSum = 0, allocaSum = 0;
    for (size_t i = 0; i < n; ++i) {
      liveSum += live[i];
      allocaSum += stack[i];
      liveAcross.push_back(liveSum);
      allocaAcross.push_back(allocaSum > 0);
    }
  }
};

/// One segment of a function's block: its ops (rematerialized ones
/// excepted), the values it reads from outside itself and the
/// rematerialized ops it clones (operands first), and the values of its
/// ops that others read.
struct Segment {
  SmallVector<Operation *> ops;
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> clones;
  llvm::SetVector<Value> outputs;
};

/// The outside values and clones of the ops in `ops` (or nested in them)
/// read, given which top-level ops belong to the segment.
void collectReads(ArrayRef<Operation *> ops, Block &block,
                  const llvm::DenseSet<Operation *> &inside, Segment &segment) {
  auto definedInside = [&](Value v) {
    if (v.getParentBlock() == &block)
      return v.getDefiningOp() && inside.contains(v.getDefiningOp());
    Operation *scope = v.getDefiningOp() ? v.getDefiningOp() : v.getParentBlock()->getParentOp();
    Operation *top = block.findAncestorOpInBlock(*scope);
    return top && inside.contains(top);
  };
  std::function<void(Value)> read = [&](Value v) {
    if (definedInside(v))
      return;
    Operation *def = v.getDefiningOp();
    if (def && def->getBlock() == &block && isRematerialized(def)) {
      if (segment.clones.contains(def))
        return;
      for (Value operand : def->getOperands())
        read(operand);
      segment.clones.insert(def);
      return;
    }
    segment.inputs.insert(v);
  };
  for (Operation *op : ops)
    op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        read(v);
    });
}

/// Rebuilds the segment's clones and ops at `b`'s insertion point in the
/// block's order (clones of ops before the segment first), reading its
/// inputs as `map` says; `first`..`last` bound the segment in the block,
/// `position` numbers the block's ops as they were (moving ops makes
/// isBeforeInBlock renumber the block at every call).
void rebuild(Segment &segment, Operation *first, Operation *last, OpBuilder &b, IRMapping &map,
             const llvm::DenseMap<Operation *, size_t> &position) {
  llvm::DenseSet<Operation *> own(segment.ops.begin(), segment.ops.end());
  for (Operation *op : segment.clones)
    if (position.at(op) < position.at(first))
      b.clone(*op, map);
  SmallVector<Operation *> range;
  for (Operation *op = first; op != last->getNextNode(); op = op->getNextNode())
    range.push_back(op);
  Block *into = b.getInsertionBlock();
  for (Operation *op : range) {
    if (own.contains(op))
      op->moveBefore(into, into->end());
    else if (segment.clones.contains(op))
      b.clone(*op, map);
    b.setInsertionPointToEnd(into);
  }
  // The moved ops read the loads and clones now (the clones already do).
  for (Operation *op : segment.ops)
    op->walk([&](Operation *nested) {
      for (OpOperand &operand : nested->getOpOperands())
        if (Value to = map.lookupOrNull(operand.get()))
          operand.set(to);
    });
}

/// Splits `fn`'s block into segments of about `perSegment` ops, each cut
/// where the fewest values cross it, within half a segment of that size.
/// The values that cross pass through a frame on the caller's stack.
void splitFunction(LLVM::LLVMFuncOp fn, int64_t perSegment, SymbolTable &symbols) {
  if (!fn.getBody().hasOneBlock())
    return;
  Block &block = fn.getBody().front();
  BlockPlan plan(block);
  int64_t total = 0;
  for (int64_t c : plan.cost)
    total += c;
  if (total <= 2 * perSegment)
    return;

  SmallVector<size_t> ends; // a segment ends after ops[e]
  size_t n = plan.ops.size();
  int64_t filled = 0, remaining = total;
  std::optional<size_t> best;
  for (size_t i = 0; i < n; ++i) {
    filled += plan.cost[i];
    bool inWindow = filled >= perSegment / 2 && remaining - filled > perSegment / 2;
    if (inWindow && !plan.allocaAcross[i] &&
        (!best || plan.liveAcross[i] < plan.liveAcross[*best]))
      best = i;
    if (best && (filled >= perSegment + perSegment / 2 || remaining - filled <= perSegment / 2)) {
      ends.push_back(*best);
      int64_t taken = 0;
      for (size_t k = ends.size() > 1 ? ends[ends.size() - 2] + 1 : 0; k <= *best; ++k)
        taken += plan.cost[k];
      filled -= taken;
      remaining -= taken;
      best.reset();
    }
  }
  if (ends.empty() || ends.back() + 1 < n)
    ends.push_back(n - 1);
  if (ends.size() < 2)
    return;

  // What each segment, and the terminator after them, reads and writes.
  SmallVector<Segment> segments(ends.size());
  SmallVector<std::pair<Operation *, Operation *>> bounds;
  llvm::DenseMap<Operation *, size_t> owner;
  for (auto [k, end] : llvm::enumerate(ends)) {
    size_t begin = k ? ends[k - 1] + 1 : 0;
    bounds.push_back({plan.ops[begin], plan.ops[end]});
    for (size_t i = begin; i <= end; ++i)
      if (!plan.rematerialized[i]) {
        segments[k].ops.push_back(plan.ops[i]);
        owner[plan.ops[i]] = k;
      }
  }
  for (Segment &segment : segments) {
    llvm::DenseSet<Operation *> inside(segment.ops.begin(), segment.ops.end());
    collectReads(segment.ops, block, inside, segment);
  }
  Segment tail;
  Operation *terminator = block.getTerminator();
  collectReads({terminator}, block, {}, tail);
  auto noteOutput = [&](Value v) {
    if (Operation *def = v.getDefiningOp(); def && owner.count(def))
      segments[owner[def]].outputs.insert(v);
  };
  for (Segment &segment : segments)
    llvm::for_each(segment.inputs, noteOutput);
  llvm::for_each(tail.inputs, noteOutput);

  // The frame: a slot per value that a segment or the terminator reads
  // from elsewhere.
  llvm::SetVector<Value> slotted;
  for (Segment &segment : segments)
    slotted.insert(segment.inputs.begin(), segment.inputs.end());
  slotted.insert(tail.inputs.begin(), tail.inputs.end());
  MLIRContext *ctx = fn.getContext();
  SmallVector<Type> slotTypes;
  llvm::DenseMap<Value, int32_t> slot;
  for (Value v : slotted) {
    slot[v] = static_cast<int32_t>(slotTypes.size());
    slotTypes.push_back(v.getType());
  }
  auto frameType = LLVM::LLVMStructType::getLiteral(ctx, slotTypes);
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto address = [&](OpBuilder &b, Value frame, Value v) {
    return LLVM::GEPOp::create(b, fn.getLoc(), ptrType, frameType, frame,
                               ArrayRef<LLVM::GEPArg>{0, slot[v]});
  };

  OpBuilder b(ctx);
  b.setInsertionPointToStart(&block);
  Value one = LLVM::ConstantOp::create(b, fn.getLoc(), b.getI64Type(), b.getI64IntegerAttr(1));
  Value frame = LLVM::AllocaOp::create(b, fn.getLoc(), ptrType, frameType, one);
  for (BlockArgument arg : block.getArguments())
    if (slotted.contains(arg))
      LLVM::StoreOp::create(b, fn.getLoc(), arg, address(b, frame, arg));

  auto functionType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptrType});
  for (auto [k, segment] : llvm::enumerate(segments)) {
    Location loc = bounds[k].first->getLoc();
    b.setInsertionPoint(bounds[k].first);
    OpBuilder atEnd = OpBuilder::atBlockEnd(fn->getBlock());
    auto callee = LLVM::LLVMFuncOp::create(atEnd, loc,
                                           (fn.getSymName() + "_seg" + llvm::Twine(k)).str(),
                                           functionType, LLVM::Linkage::Internal);
    symbols.insert(callee);
    // Made no_inline with the loop nests' functions: LLVM's inliner would
    // undo the split. Nothing else reaches the frame while a segment runs.
    callee->setAttr(shardc::kOutlinedNestAttr, UnitAttr::get(ctx));
    callee.setArgAttr(0, LLVM::LLVMDialect::getNoAliasAttrName(), UnitAttr::get(ctx));
    LLVM::CallOp::create(b, loc, callee, ValueRange{frame});

    OpBuilder inner = OpBuilder::atBlockEnd(callee.addEntryBlock(b));
    Value calleeFrame = callee.getArgument(0);
    IRMapping map;
    for (Value input : segment.inputs)
      map.map(input, LLVM::LoadOp::create(inner, loc, input.getType(),
                                          address(inner, calleeFrame, input)));
    rebuild(segment, bounds[k].first, bounds[k].second, inner, map, plan.position);
    for (Value output : segment.outputs)
      LLVM::StoreOp::create(inner, loc, output, address(inner, calleeFrame, output));
    LLVM::ReturnOp::create(inner, loc, ValueRange{});
  }

  // The terminator reads what it needs back, and clones what it computes
  // from that.
  b.setInsertionPoint(terminator);
  IRMapping map;
  for (Value input : tail.inputs)
    map.map(input, LLVM::LoadOp::create(b, fn.getLoc(), input.getType(),
                                        address(b, frame, input)));
  for (Operation *op : tail.clones)
    b.clone(*op, map);
  for (auto [from, to] : map.getValueMap())
    Value(from).replaceUsesWithIf(to, [&](OpOperand &use) { return use.getOwner() == terminator; });

  // The originals of the clones are read by nothing now.
  for (size_t i = n; i-- > 0;)
    if (plan.rematerialized[i] && plan.ops[i]->use_empty())
      plan.ops[i]->erase();
}

struct OutlineBodySegments
    : shardc::impl::CpuOutlineBodySegmentsBase<OutlineBodySegments> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<LLVM::LLVMFuncOp> functions(module.getOps<LLVM::LLVMFuncOp>());
    for (LLVM::LLVMFuncOp fn : functions)
      if (!fn.isExternal())
        splitFunction(fn, opsPerSegment, symbols);
  }
};

} // namespace
