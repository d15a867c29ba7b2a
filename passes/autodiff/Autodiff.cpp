//===- Autodiff.cpp - garray-autodiff: value_and_grad by reverse mode -----===//
//
// Differentiates the *global* function, before anything is sharded, so the
// gradient is exactly the derivative of the program the user wrote; the
// partitioner later derives how devices combine it (a pending sum reduced
// once), the same way it does for the forward pass. Keeps:
//   - the forward pass is the callee's body, copied once at the call site;
//     the loss is its returned value;
//   - only *active* values get cotangents: floats that depend on a `wrt`
//     argument. Integer and boolean values (masks, indices, compares) and
//     constants never do, so their ops need no adjoint;
//   - cotangents are keyed by the callee's values (not the copies), so the
//     same caller value passed as two arguments still gets separate
//     gradients per argument;
//   - a value used several times gets the sum of its uses' cotangents;
//   - an active op without VjpOpInterface is an error naming it, never a
//     silently zero gradient;
//   - the differentiated function is then cleaned (dead cotangents erased,
//     common subexpressions merged), so a global sum the forward pass and an
//     adjoint both compute is computed, and reduced across devices, once.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "dialects/garray/OpEmitter.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace shardc {
#define GEN_PASS_DEF_GARRAYAUTODIFF
#include "passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace mlir::garray;

namespace {

bool isFloatTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && isa<FloatType>(t.getElementType());
}

LogicalResult expand(ValueAndGradOp vg, SymbolTableCollection &symbols) {
  auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(vg, vg.getCalleeAttr());
  if (!callee || callee.isExternal())
    return vg.emitOpError("no function @") << vg.getCallee() << " with a body to differentiate";
  if (!callee.getBody().hasOneBlock())
    return callee.emitError("garray-autodiff: @")
           << callee.getSymName() << " has several blocks; a differentiated function must be "
           << "one straight-line block";
  Block &body = callee.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());

  // Forward pass: copy the body, callee arguments -> call operands.
  OpBuilder b(vg);
  IRMapping map;
  for (auto [arg, operand] : llvm::zip(callee.getArguments(), vg.getArgs()))
    map.map(arg, operand);
  DenseSet<Value> active;
  for (int64_t i : vg.getWrt())
    active.insert(callee.getArgument(i));
  SmallVector<std::pair<Operation *, Operation *>> tape; // (callee op, its copy)
  for (Operation &op : body.without_terminator()) {
    if (isa<func::CallOp, ValueAndGradOp>(op))
      return op.emitError("garray-autodiff: a call inside @")
             << callee.getSymName() << " cannot be differentiated yet; inline the callee";
    if (op.getNumRegions() != 0)
      return op.emitError("garray-autodiff: ops with regions cannot be differentiated");
    tape.push_back({&op, b.clone(op, map)});
    if (llvm::any_of(op.getOperands(), [&](Value v) { return active.contains(v); }))
      for (Value r : op.getResults())
        if (isFloatTensor(r))
          active.insert(r);
  }
  Value loss = ret.getOperand(0);

  // Reverse pass, at the call site (after the forward copy). Its ops are
  // labelled for explain and the report: a gradient's dot is at the
  // forward dot's location, and must not read as the user's own op.
  Location loc = vg.getLoc();
  DenseMap<Value, Value> adjoint;
  auto accumulate = [&](Value v, Value g) {
    auto [it, inserted] = adjoint.try_emplace(v, g);
    if (!inserted)
      it->second = AddOp::create(b, derivedLoc(loc, "sum of gradients"), it->second, g);
  };
  if (active.contains(loss)) {
    accumulate(loss, OpEmitter{b, derivedLoc(loc, "gradient seed")}.splat(loss.getType(), 1.0));
  }
  // Labels every op an adjoint rule builds as the gradient of its op.
  struct Label : OpBuilder::Listener {
    std::string text;
    void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
      op->setLoc(derivedLoc(op->getLoc(), text));
    }
  } label;
  for (auto [op, copy] : llvm::reverse(tape)) {
    if (llvm::none_of(op->getResults(), [&](Value r) { return adjoint.count(r); }))
      continue;
    auto vjp = dyn_cast<VjpOpInterface>(copy);
    if (!vjp)
      return op->emitError("garray-autodiff: '")
             << op->getName() << "' has no adjoint (VjpOpInterface), so @" << callee.getSymName()
             << " cannot be differentiated through it";
    SmallVector<Value> resultGrads;
    for (Value r : op->getResults())
      resultGrads.push_back(adjoint.count(r) ? adjoint.lookup(r)
                                             : OpEmitter{b, loc}.splat(r.getType(), 0.0));
    SmallVector<Value> operandGrads;
    label.text = "gradient of " + op->getName().getStringRef().str();
    b.setListener(&label);
    LogicalResult built = vjp.buildVjp(b, resultGrads, operandGrads);
    b.setListener(nullptr);
    if (failed(built))
      return failure();
    for (auto [operand, g] : llvm::zip(op->getOperands(), operandGrads))
      if (g && active.contains(operand))
        accumulate(operand, g);
  }

  SmallVector<Value> results{map.lookup(loss)};
  for (int64_t i : vg.getWrt()) {
    Value arg = callee.getArgument(i);
    results.push_back(adjoint.count(arg) ? adjoint.lookup(arg)
                                         : OpEmitter{b, loc}.splat(arg.getType(), 0.0));
  }
  vg.replaceAllUsesWith(results);
  vg.erase();
  return success();
}

/// Erases the pure ops of `block` that nothing uses, last first, so chains
/// of cotangents no gradient needs disappear.
void eraseDeadOps(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
}

struct GArrayAutodiff : shardc::impl::GArrayAutodiffBase<GArrayAutodiff> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ValueAndGradOp> calls;
    module.walk([&](ValueAndGradOp op) { calls.push_back(op); });
    // stop_gradient means something to differentiation only: once it is
    // done, each is its operand.
    auto dropStopGradients = [&] {
      module.walk([](StopGradientOp op) {
        op.getResult().replaceAllUsesWith(op.getOperand());
        op.erase();
      });
    };
    if (calls.empty())
      return dropStopGradients();
    SymbolTableCollection symbols;
    llvm::SetVector<func::FuncOp> callees;
    llvm::SetVector<Block *> blocks;
    for (ValueAndGradOp vg : calls) {
      if (auto f = symbols.lookupNearestSymbolFrom<func::FuncOp>(vg, vg.getCalleeAttr()))
        callees.insert(f);
      blocks.insert(vg->getBlock());
      if (failed(expand(vg, symbols)))
        return signalPassFailure();
    }
    // The adjoint rules build every operand's cotangent; those of inactive
    // operands (the data, constants) and forward values the loss does not
    // need are dropped here.
    for (Block *block : blocks)
      eraseDeadOps(*block);
    // Adjoints recompute what the forward pass already has (a weighted
    // mean's sum of weights, a max's broadcast result): merge the copies so
    // the partitioner reduces each global sum once, not once per copy.
    llvm::SetVector<Operation *> funcs;
    for (Block *block : blocks)
      funcs.insert(block->getParentOp());
    IRRewriter rewriter(&getContext());
    for (Operation *f : funcs) {
      DominanceInfo dom(f);
      eliminateCommonSubExpressions(rewriter, dom, f);
    }
    // A loss function only differentiated is not part of the program any
    // more (it would otherwise be propagated and compiled on its own).
    for (func::FuncOp f : callees)
      if (f.isPrivate() && SymbolTable::symbolKnownUseEmpty(f, module))
        f.erase();
    dropStopGradients();
  }
};

} // namespace
