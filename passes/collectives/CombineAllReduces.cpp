//===- CombineAllReduces.cpp - comm-combine-all-reduces -------------------===//
//
// Buckets of independent comm.all_reduce ops become one collective each
// (Passes.td has the rule and an example). A bucket's members are in one
// block and none of their results is used before the bucket is emitted
// right after its last member: every member's operand is defined before
// that point, every use of its result comes after it, so moving the
// reduction there preserves dominance and what each value receives.
//
//===----------------------------------------------------------------------===//
#include "dialects/comm/Comm.h"
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace shardc {
#define GEN_PASS_DEF_COMMCOMBINEALLREDUCES
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

int64_t bytesOf(RankedTensorType t) {
  return t.getNumElements() * std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
}

struct Bucket {
  SmallVector<comm::AllReduceOp> members;
  int64_t bytes = 0;
};

/// Same device groups, reduction and element type: one collective can
/// carry them all. (The groups are a flat list cut every group_size
/// entries, so both are part of the key.)
using Key = std::tuple<Attribute, Attribute, Attribute, Type>;

Key keyOf(comm::AllReduceOp op) {
  return {op.getGroupsAttr(), op.getGroupSizeAttr(), op.getKindAttr(),
          cast<RankedTensorType>(op.getType()).getElementType()};
}

/// Emits `bucket` as one collective right after its last member.
void emit(Bucket &bucket) {
  if (bucket.members.size() < 2) {
    bucket = Bucket();
    return;
  }
  comm::AllReduceOp last = bucket.members.back();
  OpBuilder b(last->getContext());
  b.setInsertionPointAfter(last);
  Location loc = last.getLoc();
  Type elem = cast<RankedTensorType>(last.getType()).getElementType();

  SmallVector<Value> flat;
  SmallVector<Attribute> parts;
  int64_t total = 0;
  for (comm::AllReduceOp op : bucket.members) {
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
  auto reduced = comm::AllReduceOp::create(b, loc, packedType, last.getKindAttr(), cat,
                                           last.getGroupsAttr(), last.getGroupSizeAttr());
  reduced->setAttr("parts", b.getArrayAttr(parts));
  reduced->setAttr("reason", b.getStringAttr("combined " + std::to_string(parts.size()) +
                                             " independent all-reduces"));
  int64_t offset = 0;
  for (comm::AllReduceOp op : bucket.members) {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t n = type.getNumElements();
    Value v = garray::SliceOp::create(b, op.getLoc(), RankedTensorType::get({n}, elem),
                                      reduced.getResult(), ArrayRef<int64_t>{offset},
                                      ArrayRef<int64_t>{offset + n}, ArrayRef<int64_t>{1});
    if (type.getRank() != 1)
      v = garray::ReshapeOp::create(b, op.getLoc(), type, v);
    op.getResult().replaceAllUsesWith(v);
    offset += n;
  }
  for (comm::AllReduceOp op : bucket.members)
    op.erase();
  bucket = Bucket();
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
    llvm::MapVector<Key, Bucket> buckets;
    // The bucket each pending member's result belongs to.
    DenseMap<Value, Key> pending;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      // A use of a pending result (here or nested in op's regions): its
      // bucket must be emitted before op.
      SmallVector<Key> due;
      op.walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (auto it = pending.find(v); it != pending.end() && !llvm::is_contained(due, it->second))
            due.push_back(it->second);
      });
      for (const Key &k : due)
        flush(buckets[k], pending);

      auto ar = dyn_cast<comm::AllReduceOp>(op);
      auto type = ar ? dyn_cast<RankedTensorType>(ar.getType()) : nullptr;
      if (!type || !type.hasStaticShape())
        continue;
      Key k = keyOf(ar);
      Bucket &bucket = buckets[k];
      if (!bucket.members.empty() && bucket.bytes + bytesOf(type) > maxBytes)
        flush(bucket, pending);
      bucket.members.push_back(ar);
      bucket.bytes += bytesOf(type);
      pending[ar.getResult()] = k;
    }
    for (auto &[k, bucket] : buckets)
      flush(bucket, pending);
  }

  void flush(Bucket &bucket, DenseMap<Value, Key> &pending) {
    for (comm::AllReduceOp op : bucket.members)
      pending.erase(op.getResult());
    emit(bucket);
  }
};

} // namespace
