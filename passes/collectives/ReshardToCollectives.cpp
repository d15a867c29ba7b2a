//===- ReshardToCollectives.cpp - reshards become planned collectives -----===//
//
// Each garray.reshard is replaced by the steps planReshard() returns
// (passes/core/ReshardPlan.h): the cheapest sequence of all_slice,
// all_to_all, collective_permute, all_gather, all_reduce and reduce_scatter.
// Every step's result carries its sharding, its `bytes_per_device` the
// planner's cost, and its `reason` the reshard's, so the report can say why
// it exists.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"
#include "passes/core/ReshardPlan.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

#include <optional>

namespace shardc {
#define GEN_PASS_DEF_GARRAYRESHARDTOCOLLECTIVES
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {
struct ReshardToCollectives
    : shardc::impl::GArrayReshardToCollectivesBase<ReshardToCollectives> {
  void runOnOperation() override {
    SmallVector<ReshardOp> reshards;
    getOperation().walk([&](ReshardOp op) { reshards.push_back(op); });
    SmallVector<ReshardOp> kept;
    for (ReshardOp op : reshards) {
      FailureOr<bool> folded = foldIntoUser(op);
      if (failed(folded))
        return signalPassFailure();
      if (!*folded)
        kept.push_back(op);
    }
    for (ReshardOp op : kept)
      if (failed(lower(op)))
        return signalPassFailure();
  }

  /// The planner's cost of moving `v` (with its sharding) to `target`, or
  /// nullopt when no plan exists.
  std::optional<int64_t> cost(Value v, ShardingAttr target) {
    MeshOp mesh = lookupMesh(v.getParentBlock()->getParentOp(), target.getMesh());
    if (!mesh)
      return std::nullopt;
    FailureOr<shardc::Mesh> core = toCoreMesh(mesh);
    if (failed(core))
      return std::nullopt;
    auto type = cast<RankedTensorType>(v.getType());
    unsigned rank = type.getRank();
    ShardingAttr fromAttr = getSharding(v);
    if (fromAttr && fromAttr.getMesh() != target.getMesh())
      return std::nullopt;
    shardc::TensorSharding from = fromAttr ? *toCore(fromAttr, mesh, rank)
                                           : shardc::TensorSharding::replicated(rank);
    shardc::ReshardPlan plan = shardc::planReshard(
        from, *toCore(target, mesh, rank), *core,
        {type.getShape().begin(), type.getShape().end()},
        std::max<int64_t>(1, type.getElementTypeBitWidth() / 8));
    if (!plan.error.empty())
      return std::nullopt;
    return plan.totalBytes();
  }

  /// A reshard whose only user is another reshard (e.g. a pending value
  /// reduced for a sharding_constraint that then slices it) is planned as
  /// one diff from its source to the user's target when that moves no more
  /// bytes than the two plans in a row: all_reduce + all_slice becomes one
  /// reduce_scatter. Returns whether `op` was folded away.
  FailureOr<bool> foldIntoUser(ReshardOp op) {
    if (!op.getResult().hasOneUse())
      return false;
    auto user = dyn_cast<ReshardOp>(*op.getResult().getUsers().begin());
    if (!user || user.getSharding().getMesh() != op.getSharding().getMesh())
      return false;
    std::optional<int64_t> first = cost(op.getOperand(), op.getSharding());
    std::optional<int64_t> second = cost(op.getResult(), user.getSharding());
    std::optional<int64_t> direct = cost(op.getOperand(), user.getSharding());
    if (!first || !second || !direct || *direct > *first + *second)
      return false;
    auto inner = op->getAttrOfType<StringAttr>("reason");
    auto outer = user->getAttrOfType<StringAttr>("reason");
    if (inner && outer) {
      // Each distinct reason once, outermost first.
      SmallVector<StringRef> parts;
      for (StringAttr r : {outer, inner}) {
        SmallVector<StringRef> split;
        r.getValue().split(split, "; folded with: ");
        for (StringRef p : split)
          if (!llvm::is_contained(parts, p))
            parts.push_back(p);
      }
      user->setAttr("reason",
                    StringAttr::get(op.getContext(), llvm::join(parts, "; folded with: ")));
    } else if (inner)
      user->setAttr("reason", inner);
    user.setOperand(op.getOperand());
    op.erase();
    return true;
  }

  LogicalResult lower(ReshardOp op) {
    MeshOp mesh = lookupMesh(op, op.getSharding().getMesh());
    FailureOr<shardc::Mesh> core = toCoreMesh(mesh);
    if (failed(core))
      return failure();
    auto type = op.getType();
    unsigned rank = type.getRank();
    ShardingAttr fromAttr = getSharding(op.getOperand());
    shardc::TensorSharding from = fromAttr ? *toCore(fromAttr, mesh, rank)
                                           : shardc::TensorSharding::replicated(rank);
    shardc::TensorSharding to = *toCore(op.getSharding(), mesh, rank);
    int64_t elementBytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    shardc::ReshardPlan plan = shardc::planReshard(
        from, to, *core, {type.getShape().begin(), type.getShape().end()}, elementBytes);
    if (!plan.error.empty())
      return op.emitError("cannot reshard: ") << plan.error;

    OpBuilder b(op);
    MLIRContext *ctx = op.getContext();
    FlatSymbolRefAttr meshRef = op.getSharding().getMesh();
    Value cur = op.getOperand();
    for (const shardc::CollectiveStep &s : plan.steps) {
      SmallVector<Attribute> names;
      for (int a : s.axes)
        names.push_back(b.getStringAttr(core->axes[a]));
      ArrayAttr axes = b.getArrayAttr(names);
      Operation *created;
      switch (s.kind) {
      case shardc::CollectiveStep::Kind::AllReduce:
        created = AllReduceOp::create(b, op.getLoc(), type,
                                      ReductionKindAttr::get(ctx, fromCore(s.reduction)), cur,
                                      meshRef, axes);
        break;
      case shardc::CollectiveStep::Kind::AllGather:
        created = AllGatherOp::create(b, op.getLoc(), type, cur, b.getI64IntegerAttr(s.dim),
                                      meshRef, axes);
        break;
      case shardc::CollectiveStep::Kind::AllSlice:
        created = AllSliceOp::create(b, op.getLoc(), type, cur, b.getI64IntegerAttr(s.dim),
                                     meshRef, axes);
        break;
      case shardc::CollectiveStep::Kind::ReduceScatter:
        created = ReduceScatterOp::create(b, op.getLoc(), type,
                                          ReductionKindAttr::get(ctx, fromCore(s.reduction)), cur,
                                          b.getI64IntegerAttr(s.dim), meshRef, axes);
        break;
      case shardc::CollectiveStep::Kind::AllToAll:
        created = AllToAllOp::create(b, op.getLoc(), type, cur, b.getI64IntegerAttr(s.toDim),
                                     b.getI64IntegerAttr(s.dim), meshRef, axes);
        break;
      case shardc::CollectiveStep::Kind::CollectivePermute: {
        SmallVector<int64_t> pairs;
        for (auto [source, target] : s.pairs) {
          pairs.push_back(source);
          pairs.push_back(target);
        }
        created = CollectivePermuteOp::create(b, op.getLoc(), type, cur, meshRef, axes,
                                              b.getDenseI64ArrayAttr(pairs));
        break;
      }
      }
      setSharding(created->getResult(0), fromCore(ctx, meshRef, *core, s.after));
      created->setAttr("bytes_per_device", b.getI64IntegerAttr(s.bytesPerDevice));
      if (Attribute reason = op->getAttr("reason"))
        created->setAttr("reason", reason);
      cur = created->getResult(0);
    }
    op.replaceAllUsesWith(cur);
    op.erase();
    return success();
  }
};
} // namespace
