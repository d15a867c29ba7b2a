//===- CombineAllReduces.cpp - comm-combine-all-reduces -------------------===//
//
// Buckets of independent comm.all_reduce ops become one collective each
// (Passes.td has the rule and an example). Members are taken in the order
// their operands become ready; a bucket is emitted right after its last
// member's operand is computed, which precedes every member's first use
// (the bucket is closed before a member would be ready only after some
// member's result is read), and each result is sliced out just before its
// own first use: dominance holds and what each value receives is the same.
//
//===----------------------------------------------------------------------===//
#include "dialects/comm/Comm.h"
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"
#include "passes/collectives/Overlap.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

#include <limits>
#include <tuple>

namespace shardc {
#define GEN_PASS_DEF_COMMCOMBINEALLREDUCES
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

int64_t bytesOf(RankedTensorType t) {
  return t.getNumElements() * std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
}

/// An all-reduce of a block, with where its operand becomes ready and
/// where its result is first read, as positions of the block's ops.
struct Member {
  comm::AllReduceOp op;
  int64_t position = 0; // of the all_reduce itself
  int64_t ready = -1;   // the op defining its operand; -1: from outside the block
  int64_t firstUse = std::numeric_limits<int64_t>::max();
};

struct Bucket {
  SmallVector<Member> members; // in readiness order
  int64_t bytes = 0;
  int64_t minFirstUse = std::numeric_limits<int64_t>::max();
};

/// Same device groups, reduction and element type: one collective can
/// carry them all. (The groups are a flat list cut every group_size
/// entries, so both are part of the key.)
using Key = std::tuple<Attribute, Attribute, Attribute, Type>;

Key keyOf(comm::AllReduceOp op) {
  return {op.getGroupsAttr(), op.getGroupSizeAttr(), op.getKindAttr(),
          cast<RankedTensorType>(op.getType()).getElementType()};
}

/// Emits `bucket` as one collective where its last member's operand is
/// ready (`ops` are the block's ops by position), slicing each member's
/// result out just before its first use.
void emit(const Bucket &bucket, ArrayRef<Operation *> ops, Block &block) {
  if (bucket.members.size() < 2)
    return; // a lone all-reduce stays as it is
  const Member &last = bucket.members.back();
  comm::AllReduceOp lastOp = last.op;
  OpBuilder b(lastOp->getContext());
  if (last.ready < 0)
    b.setInsertionPointToStart(&block);
  else
    b.setInsertionPointAfter(ops[last.ready]);
  Location loc = lastOp.getLoc();
  Type elem = cast<RankedTensorType>(lastOp.getType()).getElementType();

  SmallVector<Value> flat;
  SmallVector<Attribute> parts;
  int64_t total = 0;
  for (const Member &m : bucket.members) {
    comm::AllReduceOp op = m.op;
    auto type = cast<RankedTensorType>(op.getType());
    int64_t n = type.getNumElements();
    Value v = op.getOperand();
    if (type.getRank() != 1)
      v = garray::ReshapeOp::create(b, op.getLoc(), RankedTensorType::get({n}, elem), v);
    flat.push_back(v);
    total += n;
    NamedAttrList part;
    part.append("location", b.getStringAttr(garray::locationText(op.getLoc())));
    if (auto reason = op->getAttrOfType<StringAttr>("reason"))
      part.append("reason", reason);
    part.append("type", TypeAttr::get(type));
    part.append("bytes", b.getI64IntegerAttr(bytesOf(type)));
    parts.push_back(part.getDictionary(b.getContext()));
  }
  auto packedType = RankedTensorType::get({total}, elem);
  Value cat = garray::ConcatenateOp::create(b, loc, packedType, flat, uint64_t(0));
  auto reduced = comm::AllReduceOp::create(b, loc, packedType, lastOp.getKindAttr(), cat,
                                           lastOp.getGroupsAttr(), lastOp.getGroupSizeAttr());
  reduced->setAttr("parts", b.getArrayAttr(parts));
  reduced->setAttr("reason", b.getStringAttr("combined " + std::to_string(parts.size()) +
                                             " independent all-reduces"));
  int64_t offset = 0;
  for (const Member &m : bucket.members) {
    comm::AllReduceOp op = m.op;
    auto type = cast<RankedTensorType>(op.getType());
    int64_t n = type.getNumElements();
    if (m.firstUse < static_cast<int64_t>(ops.size())) {
      OpBuilder at(ops[m.firstUse]);
      Value v = garray::SliceOp::create(at, op.getLoc(), RankedTensorType::get({n}, elem),
                                        reduced.getResult(), ArrayRef<int64_t>{offset},
                                        ArrayRef<int64_t>{offset + n}, ArrayRef<int64_t>{1});
      if (type.getRank() != 1)
        v = garray::ReshapeOp::create(at, op.getLoc(), type, v);
      op.getResult().replaceAllUsesWith(v);
    }
    offset += n;
  }
  for (Member m : bucket.members)
    m.op.erase();
}

struct CommCombineAllReduces : shardc::impl::CommCombineAllReducesBase<CommCombineAllReduces> {
  using Base::Base;

  void runOnOperation() override {
    if (maxBytes <= 0)
      return;
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks)
      combine(*block);
  }

  void combine(Block &block) {
    SmallVector<Operation *> ops;
    DenseMap<Operation *, int64_t> position;
    // work[i]: the work of the ops before position i (all-reduces count
    // nothing), to weigh what lies between two members' readiness.
    SmallVector<int64_t> work = {0};
    for (Operation &op : block) {
      position[&op] = static_cast<int64_t>(ops.size());
      ops.push_back(&op);
      work.push_back(work.back() + shardc::nestedWork(&op));
    }
    SmallVector<Member> members;
    for (Operation *op : ops) {
      auto ar = dyn_cast<comm::AllReduceOp>(op);
      auto type = ar ? dyn_cast<RankedTensorType>(ar.getType()) : nullptr;
      if (!type || !type.hasStaticShape())
        continue;
      Member m;
      m.op = ar;
      m.position = position[op];
      Operation *def = ar.getOperand().getDefiningOp();
      // An all-reduce of another's result stays where it is: the result it
      // reads is sliced out of a combined one just before it.
      if (def && isa<comm::AllReduceOp>(def))
        continue;
      if (Operation *ready = shardc::definitionInBlock(ar.getOperand(), &block))
        m.ready = position[ready];
      if (Operation *use = shardc::firstUseInBlock(ar.getResult(), &block))
        m.firstUse = position[use];
      members.push_back(m);
    }
    llvm::stable_sort(members, [](const Member &a, const Member &b) {
      return std::tie(a.ready, a.position) < std::tie(b.ready, b.position);
    });

    llvm::MapVector<Key, Bucket> open;
    SmallVector<Bucket> done;
    auto workBetween = [&](int64_t from, int64_t to) { return work[to + 1] - work[from + 1]; };
    for (const Member &m : members) {
      comm::AllReduceOp op = m.op;
      Bucket &bucket = open[keyOf(op)];
      int64_t bytes = bytesOf(cast<RankedTensorType>(op.getType()));
      // Close the bucket when this member would make it too large, when a
      // member's result is read before this one is ready (emitting after
      // this one would be too late for it), or when enough work lies
      // between the first member's readiness and this one's that the first
      // should start without waiting (overlapping that work).
      if (!bucket.members.empty() &&
          (bucket.bytes + bytes > maxBytes || m.ready >= bucket.minFirstUse ||
           (overlapWork > 0 &&
            workBetween(bucket.members.front().ready, m.ready) > overlapWork))) {
        done.push_back(std::move(bucket));
        bucket = Bucket();
      }
      bucket.members.push_back(m);
      bucket.bytes += bytes;
      bucket.minFirstUse = std::min(bucket.minFirstUse, m.firstUse);
    }
    for (auto &entry : open)
      done.push_back(std::move(entry.second));
    for (const Bucket &bucket : done)
      emit(bucket, ops, block);
  }
};

} // namespace
