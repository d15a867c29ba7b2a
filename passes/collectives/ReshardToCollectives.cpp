//===- ReshardToCollectives.cpp - reshards become planned collectives -----===//
//
// Each garray.reshard is replaced by the steps planReshard() returns
// (sharding/ReshardPlan.h): the cheapest sequence of all_slice,
// all_to_all, collective_permute, all_gather, all_reduce and reduce_scatter.
// Every step's result carries its sharding, its `bytes_per_device` the
// planner's cost, and its `reason` the reshard's, so the report can say why
// it exists. Two more rewrites keep the collective count down: a reshard
// whose only user is another reshard is planned as one diff (all_reduce then
// all_slice becomes reduce_scatter), and rank-0 all_reduces one op needs are
// packed into one.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"
#include "sharding/ReshardPlan.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
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
    // No reshard: the module is unchanged, and saying so spares the pass
    // manager a full re-verification of it.
    if (reshards.empty())
      return markAllAnalysesPreserved();
    SmallVector<ReshardOp> kept;
    for (ReshardOp op : reshards)
      if (!foldIntoUser(op))
        kept.push_back(op);
    for (ReshardOp op : kept)
      if (failed(lower(op)))
        return signalPassFailure();
    packScalarReductions();
  }

  //===--------------------------------------------------------------------===//
  // Several pending scalars reduced for one op share one collective.
  //===--------------------------------------------------------------------===//

  /// Rank-0 all_reduces whose results meet at one op U (U is the first user
  /// of each, in U's block) and that agree on kind, mesh, axes, element type
  /// and operand sharding become one all_reduce of their concatenation, right
  /// before U: two partial sums feeding one non-linear op (a max, a
  /// compare) cost one latency, not two. (A division keeps its numerator
  /// pending, so a masked mean reduces its count and then its quotient.) The
  /// values are reshaped to [1], concatenated, reduced, sliced back.
  void packScalarReductions() {
    SmallVector<Operation *> users;
    getOperation().walk([&](Operation *op) { users.push_back(op); });
    // Every part of the key is uniqued; groups in the order first met.
    using Key = std::tuple<Attribute, Attribute, Attribute, Type, Attribute, Attribute>;
    for (Operation *user : users) {
      llvm::MapVector<Key, SmallVector<AllReduceOp>> groups;
      for (Value v : user->getOperands()) {
        auto ar = v.getDefiningOp<AllReduceOp>();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!ar || !type || type.getRank() != 0 || !firstUserIs(v, user))
          continue;
        auto &members = groups[Key(ar.getKindAttr(), ar.getMeshAttr(), ar.getAxes(),
                                   type.getElementType(), getSharding(ar.getOperand()),
                                   getSharding(ar.getResult()))];
        if (!llvm::is_contained(members, ar))
          members.push_back(ar);
      }
      for (auto &[key, members] : groups)
        if (members.size() >= 2)
          pack(members, user);
    }
  }

  static bool firstUserIs(Value v, Operation *user) {
    for (Operation *u : v.getUsers())
      if (u->getBlock() != user->getBlock() || (u != user && u->isBeforeInBlock(user)))
        return false;
    return true;
  }

  /// `s` (a rank-0 sharding) as the same sharding of a rank-1 value.
  ShardingAttr withOneDim(ShardingAttr s, MeshOp mesh, const shardc::Mesh &core) {
    shardc::TensorSharding t =
        s ? *toCore(s, mesh, 0) : shardc::TensorSharding::replicated(0);
    t.dims.push_back(shardc::DimSharding{});
    return fromCore(mesh.getContext(), FlatSymbolRefAttr::get(mesh.getSymNameAttr()), core, t);
  }

  void pack(SmallVector<AllReduceOp> members, Operation *user) {
    AllReduceOp first = members.front();
    MeshOp mesh = lookupMesh(first, first.getMeshAttr());
    if (!mesh)
      return;
    FailureOr<shardc::Mesh> core = toCoreMesh(mesh);
    if (failed(core))
      return;
    OpBuilder b(user);
    Location loc = user->getLoc();
    Type elem = cast<RankedTensorType>(first.getType()).getElementType();
    auto one = RankedTensorType::get({1}, elem);
    int64_t n = static_cast<int64_t>(members.size());
    auto packed = RankedTensorType::get({n}, elem);
    ShardingAttr pendingOne = withOneDim(getSharding(first.getOperand()), mesh, *core);
    ShardingAttr reducedOne = withOneDim(getSharding(first.getResult()), mesh, *core);
    SmallVector<Value> parts;
    for (AllReduceOp ar : members) {
      Value r = ReshapeOp::create(b, ar.getLoc(), one, ar.getOperand());
      setSharding(r, pendingOne);
      parts.push_back(r);
    }
    Value cat = ConcatenateOp::create(b, loc, packed, parts, uint64_t(0));
    setSharding(cat, pendingOne);
    auto reduced = AllReduceOp::create(b, loc, packed, first.getKindAttr(), cat,
                                       first.getMeshAttr(), first.getAxes());
    setSharding(reduced.getResult(), reducedOne);
    std::vector<int> axes;
    for (Attribute a : first.getAxes())
      axes.push_back(mesh.axisIndex(cast<StringAttr>(a).getValue()));
    int64_t group = core->product(axes);
    int64_t bytes = n * std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
    reduced->setAttr("bytes_per_device", b.getI64IntegerAttr(2 * (group - 1) * bytes / group));
    SmallVector<StringRef> reasons;
    for (AllReduceOp ar : members)
      if (auto r = ar->getAttrOfType<StringAttr>("reason"))
        if (!llvm::is_contained(reasons, r.getValue()))
          reasons.push_back(r.getValue());
    reduced->setAttr("reason", b.getStringAttr("packed " + std::to_string(n) +
                                               " pending scalars: " +
                                               llvm::join(reasons, "; ")));
    for (int64_t at = 0; at < n; ++at) {
      AllReduceOp ar = members[at];
      Value s = SliceOp::create(b, ar.getLoc(), one, reduced.getResult(), ArrayRef<int64_t>{at},
                                ArrayRef<int64_t>{at + 1}, ArrayRef<int64_t>{1});
      setSharding(s, reducedOne);
      Value e = ReshapeOp::create(b, ar.getLoc(), ar.getType(), s);
      setSharding(e, getSharding(ar.getResult()));
      ar.getResult().replaceAllUsesWith(e);
      ar.erase();
    }
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
        std::max<int64_t>(1, type.getElementTypeBitWidth() / 8), /*listPairs=*/false);
    if (!plan.error.empty())
      return std::nullopt;
    return plan.totalBytes();
  }

  /// A reshard whose only user is another reshard (e.g. a pending value
  /// reduced for a sharding_constraint that then slices it) is planned as
  /// one diff from its source to the user's target when that moves no more
  /// bytes than the two plans in a row: all_reduce + all_slice becomes one
  /// reduce_scatter. Returns whether `op` was folded away.
  bool foldIntoUser(ReshardOp op) {
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
        pairs.reserve(2 * s.pairs.size());
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
