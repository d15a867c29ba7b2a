//===- ExpandOptimizers.cpp - garray-expand-optimizers --------------------===//
//
// Optimizer updates and global-norm clipping as plain global garray ops,
// written before propagation so that they are partitioned like the rest of
// the step. Keeps:
//   - every update is elementwise in the parameter and its state, so a
//     moment may be sharded differently from its parameter (ZeRO-style):
//     the partitioner moves data, the math does not change;
//   - the clipping norm sums the squares of every gradient over its *global*
//     shape (one scalar per gradient, added, then sqrt): sharded gradients
//     give pending scalar sums reduced once, never a per-device norm;
//   - hyper-parameters become constants of the parameter's element type.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "dialects/garray/OpEmitter.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYEXPANDOPTIMIZERS
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {

/// The gradient as the update reads it: pinned to its parameter's declared
/// layout (when the parameter is an argument with a placement). A gradient
/// over a sharded batch is a pending sum that the update uses several times
/// and non-linearly (mu, g^2); without the pin insert-reshards would reduce
/// a derived copy at each such use. With it the sum is reduced exactly once.
/// Moments sharded further (ZeRO-1) are then reached by the planner (a
/// reduce-scatter of the pending sum); pinning to the moments' layout
/// instead made propagation shard the gradient's dot and gather the batch
/// (docs/decisions.md).
/// The pin says who wrote it (its `reason`): explain quotes it, so a user
/// does not look for a constraint they never wrote.
Value pinGradient(OpBuilder &b, Operation *update, Value grad, Value param) {
  ShardingAttr s = getSharding(param);
  if (!s || !isa<BlockArgument>(param))
    return grad;
  auto pin = ShardingConstraintOp::create(b, update->getLoc(), grad.getType(), grad, s);
  pin->setAttr("reason", b.getStringAttr("the gradient pinned to its parameter's layout by " +
                                         update->getName().getStringRef() +
                                         " (garray-expand-optimizers)"));
  return pin;
}

void expand(SgdUpdateOp op) {
  OpBuilder b(op);
  Location loc = derivedFrom(op);
  OpEmitter e{b, loc};
  Value g = pinGradient(b, op, op.getGrad(), op.getParam());
  op.replaceAllUsesWith(e.sub(op.getParam(), e.scale(g, op.getLr().convertToDouble())));
  op.erase();
}

void expand(MomentumUpdateOp op) {
  OpBuilder b(op);
  Location loc = derivedFrom(op);
  OpEmitter e{b, loc};
  Value g = pinGradient(b, op, op.getGrad(), op.getParam());
  Value v = e.add(e.scale(op.getVelocity(), op.getMomentum().convertToDouble()), g);
  Value w = e.sub(op.getParam(), e.scale(v, op.getLr().convertToDouble()));
  op.replaceAllUsesWith(ValueRange{w, v});
  op.erase();
}

// Bias correction uses t as a runtime value (a step counter fed back between
// steps), so 1 - beta^t is computed with garray.pow on a rank-0 tensor.
void expand(AdamUpdateOp op) {
  OpBuilder b(op);
  Location loc = derivedFrom(op);
  OpEmitter e{b, loc};
  double b1 = op.getBeta1().convertToDouble(), b2 = op.getBeta2().convertToDouble();
  Type type = op.getParam().getType(), scalar = op.getT().getType();
  Value g = pinGradient(b, op, op.getGrad(), op.getParam());
  Value mu = e.add(e.scale(op.getMu(), b1), e.scale(g, 1.0 - b1));
  Value nu = e.add(e.scale(op.getNu(), b2), e.scale(e.mul(g, g), 1.0 - b2));
  auto correction = [&](double beta) {
    Value pow = PowOp::create(b, loc, e.splat(scalar, beta), op.getT());
    return e.broadcastScalar(e.sub(e.splat(scalar, 1.0), pow), type);
  };
  Value muHat = e.div(mu, correction(b1));
  Value nuHat = e.div(nu, correction(b2));
  Value denom = e.add(SqrtOp::create(b, loc, nuHat), e.splat(type, op.getEps().convertToDouble()));
  Value step = e.div(muHat, denom);
  double wd = op.getWeightDecay().convertToDouble();
  if (wd != 0.0)
    step = e.add(step, e.scale(op.getParam(), wd));
  Value w = e.sub(op.getParam(), e.scale(step, op.getLr().convertToDouble()));
  op.replaceAllUsesWith(ValueRange{w, mu, nu});
  op.erase();
}

// clipped = g * max_norm / max(norm, max_norm).
void expand(ClipByGlobalNormOp op) {
  OpBuilder b(op);
  Location loc = derivedFrom(op);
  OpEmitter e{b, loc};
  Value total;
  for (Value g : op.getGrads()) {
    Value sq = e.sumAll(e.mul(g, g));
    total = total ? e.add(total, sq) : sq;
  }
  Type scalar = total.getType();
  double maxNorm = op.getMaxNorm().convertToDouble();
  Value norm = SqrtOp::create(b, loc, total);
  Value limit = e.splat(scalar, maxNorm);
  Value factor = e.div(limit, MaxOp::create(b, loc, norm, limit));
  SmallVector<Value> clipped;
  for (Value g : op.getGrads())
    clipped.push_back(e.mul(g, e.broadcastScalar(factor, g.getType())));
  op.replaceAllUsesWith(clipped);
  op.erase();
}

struct GArrayExpandOptimizers
    : shardc::impl::GArrayExpandOptimizersBase<GArrayExpandOptimizers> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<SgdUpdateOp, MomentumUpdateOp, AdamUpdateOp, ClipByGlobalNormOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      llvm::TypeSwitch<Operation *>(op)
          .Case<SgdUpdateOp, MomentumUpdateOp, AdamUpdateOp, ClipByGlobalNormOp>(
              [](auto o) { expand(o); });
  }
};

} // namespace
