//===- ReshardToCollectives.cpp - reshards become planned collectives -----===//
//
// Each garray.reshard is replaced by the steps planReshard() returns
// (passes/core/ReshardPlan.h); every step's result carries its sharding, and
// its `reason` carries the reshard's, so the report can say why it exists.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"
#include "passes/core/ReshardPlan.h"

#include "mlir/IR/Builders.h"

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
    // No reshard: the module is unchanged, and saying so spares the pass
    // manager a full re-verification of it.
    if (reshards.empty())
      return markAllAnalysesPreserved();
    for (ReshardOp op : reshards)
      if (failed(lower(op)))
        return signalPassFailure();
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
