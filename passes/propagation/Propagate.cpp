//===- Propagate.cpp - garray-propagate: shardings to a fixed point -------===//
//
// The IR glue around passes/core/FactorMerge.h. Keeps:
//   - a worklist of ops; when a value's sharding grows, its users and its
//     definition are revisited, so information flows both ways;
//   - dims only grow (the core's extendOpenDims), so the loop terminates;
//   - function results and sharding_constraint results are sinks with fixed
//     shardings; their operands are pulled toward them;
//   - after the fixed point, any op without a rule that touches a sharded
//     value is an error: shardc never silently computes a local copy.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"
#include "passes/core/FactorMerge.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

#include <deque>

namespace shardc {
#define GEN_PASS_DEF_GARRAYPROPAGATE
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;
using shardc::FactorRule;
using shardc::TensorSharding;

namespace {

bool isTensor(Value v) { return isa<RankedTensorType>(v.getType()); }

/// The one mesh all annotations in `func` name; null if none; failure if two.
FailureOr<MeshOp> findMesh(func::FuncOp func) {
  FlatSymbolRefAttr name;
  Operation *first = nullptr;
  LogicalResult ok = success();
  auto visit = [&](ShardingAttr s, Operation *where) {
    if (!s || failed(ok))
      return;
    if (!lookupMesh(func, s.getMesh())) {
      ok = where->emitError("the sharding names mesh ")
           << s.getMesh() << ", but no garray.mesh with that name is in scope";
      return;
    }
    if (!name) {
      name = s.getMesh();
      first = where;
    } else if (name != s.getMesh()) {
      InFlightDiagnostic d = where->emitError("a function may use one mesh, but this names ")
                             << s.getMesh() << " while an earlier annotation names " << name;
      d.attachNote(first->getLoc()) << "first mesh named here";
      ok = failure();
    }
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    visit(func.getArgAttrOfType<ShardingAttr>(i, kShardingAttrName), func);
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    visit(getResultSharding(func, i), func);
  func.walk([&](Operation *op) {
    if (auto c = dyn_cast<ShardingConstraintOp>(op))
      visit(c.getSharding(), op);
    else if (auto s = op->getAttrOfType<ShardingAttr>(kShardingAttrName))
      visit(s, op);
  });
  if (failed(ok))
    return failure();
  if (!name)
    return MeshOp();
  MeshOp mesh = lookupMesh(func, name);
  if (!mesh)
    return func.emitError("sharding annotations name mesh ")
           << name << ", but no garray.mesh with that name is in scope";
  return mesh;
}

FactorRule identityRule(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return shardc::FactorRuleBuilder::elementwise({t.getShape().begin(), t.getShape().end()}, 1,
                                                {});
}

class FunctionPropagation {
public:
  FunctionPropagation(func::FuncOp func, MeshOp mesh, const shardc::Mesh &core)
      : func(func), mesh(mesh), core(core) {}

  LogicalResult run() {
    if (failed(seed()))
      return failure();
    std::deque<Operation *> queue;
    llvm::DenseSet<Operation *> queued;
    auto push = [&](Operation *op) {
      if (op && queued.insert(op).second)
        queue.push_back(op);
    };
    func.walk([&](Operation *op) { push(op); });
    while (!queue.empty()) {
      Operation *op = queue.front();
      queue.pop_front();
      queued.erase(op);
      for (Value changed : step(op)) {
        for (Operation *user : changed.getUsers())
          push(user);
        push(changed.getDefiningOp());
      }
    }
    if (failed(checkRuleless()))
      return failure();
    finalize();
    return success();
  }

private:
  LogicalResult seed() {
    for (BlockArgument arg : func.getArguments()) {
      if (!isTensor(arg))
        continue;
      if (auto s = func.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(), kShardingAttrName)) {
        std::string what = "argument #" + std::to_string(arg.getArgNumber());
        if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "garray.name"))
          what = "argument '" + name.str() + "'";
        if (failed(verifyShardingFor(s, arg.getType(), func,
                                     [&] { return emitError(arg.getLoc()); }, what)))
          return failure();
        state[arg] = *toCore(s, mesh, cast<RankedTensorType>(arg.getType()).getRank());
      }
    }
    SmallVector<func::ReturnOp> rets;
    func.walk([&](func::ReturnOp r) { rets.push_back(r); });
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      if (auto s = getResultSharding(func, i)) {
        std::string what = "result #" + std::to_string(i);
        if (auto name = func.getResultAttrOfType<StringAttr>(i, "garray.name"))
          what = "result '" + name.str() + "'";
        if (failed(verifyShardingFor(s, func.getResultTypes()[i], func,
                                     [&] { return func.emitError(); }, what)))
          return failure();
        for (func::ReturnOp ret : rets)
          sinks[{ret, i}] =
              *toCore(s, mesh, cast<RankedTensorType>(func.getResultTypes()[i]).getRank());
      }
    // Values made by ops without a rule are whole on every device: closed
    // and replicated, so propagation never pushes a sharding into them.
    func.walk([&](Operation *op) {
      if (isa<ShardingRuleOpInterface, ShardingConstraintOp, ReshardOp, AllReduceOp, AllGatherOp,
              AllSliceOp>(op))
        return;
      for (Value r : op->getResults())
        if (isTensor(r))
          state[r] = TensorSharding::replicated(cast<RankedTensorType>(r.getType()).getRank());
    });
    LogicalResult ok = success();
    func.walk([&](ShardingConstraintOp c) {
      if (failed(ok))
        return;
      FailureOr<TensorSharding> s = toCore(c.getSharding(), mesh, c.getType().getRank(),
                                           [&] { return c.emitError(); });
      if (failed(s))
        ok = failure();
      else
        state[c.getResult()] = *s;
    });
    return ok;
  }

  /// Runs one core step on `rule` over `values` (operands then results; a
  /// null Value stands for a fixed sink `fixed`), returning what changed.
  SmallVector<Value> apply(const FactorRule &rule, ArrayRef<Value> values,
                           const TensorSharding *fixed = nullptr) {
    std::vector<std::optional<TensorSharding>> tensors;
    for (Value v : values) {
      if (!v) {
        tensors.push_back(*fixed);
        continue;
      }
      auto it = state.find(v);
      tensors.push_back(it == state.end() ? std::nullopt
                                          : std::optional<TensorSharding>(it->second));
    }
    SmallVector<Value> changed;
    for (size_t t : shardc::propagateStep(rule, tensors, core)) {
      Value v = values[t];
      if (!v)
        continue;
      auto it = state.find(v);
      if (it == state.end() || !(it->second.dims == tensors[t]->dims)) {
        state[v] = *tensors[t];
        changed.push_back(v);
      }
    }
    return changed;
  }

  SmallVector<Value> step(Operation *op) {
    if (auto rule = dyn_cast<ShardingRuleOpInterface>(op)) {
      if (!llvm::all_of(op->getOperands(), isTensor) || !llvm::all_of(op->getResults(), isTensor))
        return {};
      SmallVector<Value> values(op->getOperands());
      values.append(op->result_begin(), op->result_end());
      return apply(rule.getFactorRule(), values);
    }
    if (auto c = dyn_cast<ShardingConstraintOp>(op))
      return apply(identityRule(c.getResult()), {c.getOperand(), c.getResult()});
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      SmallVector<Value> changed;
      for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
        auto sink = sinks.find({ret, static_cast<unsigned>(i)});
        if (sink == sinks.end() || !isTensor(v))
          continue;
        changed.append(apply(identityRule(v), {v, Value()}, &sink->second));
      }
      return changed;
    }
    return {};
  }

  LogicalResult checkRuleless() {
    LogicalResult ok = success();
    func.walk([&](Operation *op) {
      if (isa<ShardingRuleOpInterface, ShardingConstraintOp, func::ReturnOp, ReshardOp,
              AllReduceOp, AllGatherOp, AllSliceOp>(op) ||
          failed(ok))
        return;
      for (auto [i, v] : llvm::enumerate(op->getOperands())) {
        auto it = state.find(v);
        if (it == state.end() || it->second.isFullyReplicated())
          continue;
        TensorSharding closed = it->second;
        for (shardc::DimSharding &d : closed.dims)
          d.open = false;
        ok = op->emitError("'") << op->getName() << "' has no sharding rule, but operand #" << i
                                << " is sharded " << closed.str(core)
                                << "; express it with garray ops, or replicate the value first "
                                   "with garray.sharding_constraint ... P()";
        return;
      }
    });
    return ok;
  }

  void finalize() {
    MLIRContext *ctx = func.getContext();
    FlatSymbolRefAttr meshRef = FlatSymbolRefAttr::get(ctx, mesh.getSymName());
    auto finalOf = [&](Value v) {
      auto it = state.find(v);
      TensorSharding s = it == state.end()
                             ? TensorSharding::replicated(cast<RankedTensorType>(v.getType()).getRank())
                             : it->second;
      for (shardc::DimSharding &d : s.dims)
        d.open = false;
      return fromCore(ctx, meshRef, core, s);
    };
    for (BlockArgument arg : func.getArguments())
      if (isTensor(arg))
        setSharding(arg, finalOf(arg));
    func.walk([&](Operation *op) {
      if (isa<func::ReturnOp>(op) || op->getNumResults() == 0 ||
          !llvm::all_of(op->getResults(), isTensor))
        return;
      for (Value r : op->getResults())
        setSharding(r, finalOf(r));
    });
    // An undeclared result takes the sharding of what the first return gives.
    func::ReturnOp ret;
    func.walk([&](func::ReturnOp r) {
      if (!ret)
        ret = r;
    });
    for (auto [i, v] : llvm::enumerate(ret.getOperands()))
      if (isTensor(v) && !getResultSharding(func, i))
        func.setResultAttr(i, kShardingAttrName, finalOf(v));
  }

  func::FuncOp func;
  MeshOp mesh;
  const shardc::Mesh &core;
  llvm::DenseMap<Value, TensorSharding> state;
  std::map<std::pair<Operation *, unsigned>, TensorSharding> sinks;
};

struct Propagate : shardc::impl::GArrayPropagateBase<Propagate> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<MeshOp> mesh = findMesh(func);
      if (failed(mesh))
        return signalPassFailure();
      if (!*mesh)
        continue; // nothing placed: every value is replicated, nothing to do
      FailureOr<shardc::Mesh> core = toCoreMesh(*mesh);
      if (failed(core))
        return signalPassFailure();
      if (failed(FunctionPropagation(func, *mesh, *core).run()))
        return signalPassFailure();
    }
  }
};
} // namespace
