//===- PropagationState.cpp - the read-only queries on propagation's state -===//
#include "passes/propagation/PropagationState.h"

namespace shardc::propagation {

using namespace mlir;
using namespace mlir::garray;

SmallVector<func::ReturnOp, 1> PropagationState::returnsOf(func::FuncOp func) const {
  auto it = returns.find(func.getOperation());
  if (it == returns.end())
    return {};
  return SmallVector<func::ReturnOp, 1>(it->second.begin(), it->second.end());
}

bool PropagationState::hasOwnRule(Value v) const {
  auto r = dyn_cast<OpResult>(v);
  return !r || ruleFor(r.getOwner());
}

TensorSharding PropagationState::writtenLayout(Value v) const {
  if (auto r = dyn_cast<OpResult>(v))
    if (auto call = dyn_cast<func::CallOp>(r.getOwner()))
      if (func::FuncOp callee = calleeInSet(call))
        return resultLayout(callee, r.getResultNumber());
  return closedFinal(v);
}

TensorSharding PropagationState::resultLayout(func::FuncOp func, unsigned i) const {
  return sinkAnnotations.count({returnsOf(func).front(), i}) ? declaredResult(func, i)
                                                            : returnedLayout(func, i);
}

TensorSharding PropagationState::returnedLayout(func::FuncOp func, unsigned i) const {
  SmallVector<func::ReturnOp, 1> rets = returnsOf(func);
  TensorSharding s = closedFinal(rets.front().getOperand(i));
  for (func::ReturnOp r : ArrayRef<func::ReturnOp>(rets).drop_front()) {
    TensorSharding other = closedFinal(r.getOperand(i));
    for (auto [mine, theirs] : llvm::zip(s.dims, other.dims)) {
      auto [end, unused] = std::mismatch(mine.axes.begin(), mine.axes.end(), theirs.axes.begin(),
                                         theirs.axes.end());
      mine.axes.erase(end, mine.axes.end());
    }
    // Partial sums that differ are none (insert-reshards reduces each
    // value at its return).
    if (other.pending != s.pending || other.pendingKind != s.pendingKind)
      s.pending.clear();
  }
  return s;
}

func::FuncOp PropagationState::calleeInSet(func::CallOp call) const {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  return callee && inSet.contains(callee.getOperation()) ? callee : func::FuncOp();
}

TensorSharding PropagationState::closedFinal(Value v) const {
  const TensorSharding *known = this->known(v);
  return closed(known ? *known
                      : TensorSharding::replicated(cast<RankedTensorType>(v.getType()).getRank()));
}

TensorSharding PropagationState::closed(TensorSharding s) {
  for (shardc::DimSharding &d : s.dims)
    d.open = false;
  return s;
}

TensorSharding PropagationState::declaredResult(func::FuncOp func, unsigned i) const {
  TensorSharding s = table.get(sinkAnnotations.find({returnsOf(func).front(), i})->second.full);
  TensorSharding got = returnedLayout(func, i);
  for (size_t d = 0; d < s.dims.size(); ++d) {
    shardc::DimSharding &dim = s.dims[d];
    const std::vector<int> &more = got.dims[d].axes;
    bool extends = dim.open && more.size() > dim.axes.size() && shardc::isPrefix(dim.axes, more);
    std::vector<int> used = s.usedAxes();
    for (size_t k = dim.axes.size(); extends && k < more.size(); ++k)
      extends = !llvm::is_contained(used, more[k]);
    if (extends)
      dim.axes = more;
    dim.open = false;
  }
  return s;
}

const FactorRule *PropagationState::ruleFor(Operation *op) const {
  auto at = opIndex.find(op);
  return at == opIndex.end() || !ruleOf[at->second] ? nullptr : &ruleOf[at->second]->rule;
}

std::vector<TensorSharding> PropagationState::finalShardings(ValueRange values) const {
  std::vector<TensorSharding> out;
  for (Value v : values)
    out.push_back(closedFinal(v));
  return out;
}

unsigned PropagationState::idOf(Value v) const {
  if (auto r = dyn_cast<OpResult>(v)) {
    if (auto it = opIndex.find(r.getOwner()); it != opIndex.end())
      return firstResult[it->second] + r.getResultNumber();
    return newId(v); // not expected: every result of these functions is collected
  }
  auto arg = cast<BlockArgument>(v);
  auto [it, inserted] = blockArgBase.try_emplace(arg.getOwner(), valueOf.size());
  if (inserted)
    for (BlockArgument a : arg.getOwner()->getArguments())
      newId(a);
  return it->second + arg.getArgNumber();
}

unsigned PropagationState::newId(Value v) const {
  valueOf.push_back(v);
  ids.push_back(ShardingTable::kUnknown);
  return valueOf.size() - 1;
}

const TensorSharding *PropagationState::known(Value v) const {
  ShardingTable::Id id = ids[idOf(v)];
  return id == ShardingTable::kUnknown ? nullptr : &table.get(id);
}


std::string PropagationState::written(const Annotation &a) const {
  const TensorSharding &s = table.get(a.full);
  std::string out = "P(";
  for (auto [d, dim] : llvm::enumerate(s.dims)) {
    TensorSharding one;
    one.dims = {dim};
    std::string text = one.str(core); // "P(...)"
    out += (d ? ", " : "") + text.substr(2, text.size() - 3);
    if (!a.priority.empty() && a.priority[d] != kLastRound)
      out += " p" + std::to_string(a.priority[d]);
  }
  out += ")";
  if (s.isPending()) {
    out += std::string(", unreduced = ") + shardc::reductionName(s.pendingKind) + "(";
    for (auto [i, axis] : llvm::enumerate(s.pending))
      out += (i ? ", \"" : "\"") + core.axes[axis] + "\"";
    out += ")";
  }
  return out;
}

} // namespace shardc::propagation
