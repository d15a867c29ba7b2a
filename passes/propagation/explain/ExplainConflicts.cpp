//===- ExplainConflicts.cpp - explain: conflicts and dropped axes -----------===//
//
// Who proposed what where a merge could not keep every proposal, an axis
// an op uses for something else, a reshape that drops a split dim.
//
//===----------------------------------------------------------------------===//
#include "passes/propagation/explain/PropagationExplainer.h"

#include "sharding/FactorMerge.h"

#include "mlir/IR/AsmState.h"

#include <deque>
#include <map>
#include <memory>

namespace shardc::propagation {

using namespace mlir;
using namespace mlir::garray;

bool PropagationExplainer::operandsConflict(Operation *op) {
  return llvm::is_contained(conflictFactors(op), true);
}

std::vector<bool> PropagationExplainer::conflictFactors(Operation *op) {
  const FactorRule *ruled = st.ruleFor(op);
  if (!ruled)
    return {};
  const FactorRule &rule = *ruled;
  std::vector<bool> conflicting(rule.numFactors(), false);
  std::vector<bool> inResult(rule.numFactors(), false);
  for (const auto &result : rule.results)
    for (const auto &dim : result)
      for (int f : dim)
        inResult[f] = true;
  std::vector<TensorSharding> operands = st.finalShardings(op->getOperands());
  std::vector<const TensorSharding *> views;
  for (const TensorSharding &s : operands)
    views.push_back(&s);
  shardc::FactorAxes merged = shardc::mergeFactors(rule, views, st.core);
  for (size_t t = 0; t < operands.size(); ++t) {
    auto proj = shardc::projectToFactors(rule, t, operands[t], st.core);
    for (size_t f = 0; f < proj.size(); ++f)
      if (inResult[f] && rule.kinds[f] != shardc::FactorKind::NeedReplication && proj[f] &&
          !shardc::isPrefix(*proj[f], merged[f]))
        conflicting[f] = true;
  }
  return conflicting;
}

std::optional<std::pair<unsigned, int64_t>> PropagationExplainer::unevenDim(Value v) {
  TensorSharding s = st.closedFinal(v);
  auto type = cast<RankedTensorType>(v.getType());
  for (auto [d, dim] : llvm::enumerate(s.dims)) {
    int64_t k = st.core.product(dim.axes);
    if (k > 1 && type.getDimSize(d) % k != 0)
      return std::make_pair(static_cast<unsigned>(d), k);
  }
  return std::nullopt;
}

std::string PropagationExplainer::reshapeDrops(Operation *op) {
  const FactorRule *rule = st.ruleFor(op);
  if (!rule)
    return "";
  TensorSharding in = st.closedFinal(op->getOperand(0));
  auto sizes = [&](llvm::raw_ostream &os, ArrayRef<int> pieces) {
    llvm::interleave(pieces, os, [&](int f) { os << rule->factorSizes[f]; }, " x ");
  };
  for (auto [d, dim] : llvm::enumerate(in.dims)) {
    int64_t k = st.core.product(dim.axes);
    const FactorRule::DimFactors &pieces = rule->operands[0][d];
    if (k <= 1 || pieces.empty())
      continue;
    std::string out;
    llvm::raw_string_ostream os(out);
    os << "splits dim " << d << " (size "
       << cast<RankedTensorType>(op->getOperand(0).getType()).getDimSize(d) << ") into " << k
       << " contiguous blocks";
    int lead = pieces.front();
    if (pieces.size() > 1) {
      os << ", and the reshape regroups that dim into pieces ";
      sizes(os, pieces);
      if (rule->kinds[lead] == shardc::FactorKind::NeedReplication)
        os << " (major first) that do not line up with the result's dims";
      else
        os << " (major first): the blocks stay blocks of the result only when the " << k
           << " devices divide the leading piece (" << rule->factorSizes[lead]
           << "), and a mesh axis is never split across dims";
      return out;
    }
    // One piece: dropped when the result dim holding it has pieces before
    // it (a block of a minor piece is not a contiguous block there).
    for (auto [e, resultPieces] : llvm::enumerate(rule->results[0])) {
      auto at = llvm::find(resultPieces, lead);
      if (at == resultPieces.end() || at == resultPieces.begin())
        continue;
      os << ", and the reshape merges that dim into result dim " << e << " after pieces ";
      sizes(os, ArrayRef<int>(resultPieces).take_front(at - resultPieces.begin()));
      os << ": blocks of a minor piece are not contiguous blocks of the merged dim";
      return out;
    }
  }
  return "";
}

bool PropagationExplainer::onlyReduced(Operation *op) {
  const FactorRule *rule = st.ruleFor(op);
  if (!rule)
    return false;
  for (auto [t, v] : llvm::enumerate(op->getOperands()))
    for (auto [f, axes] :
         llvm::enumerate(shardc::projectToFactors(*rule, t, st.closedFinal(v), st.core)))
      if (axes && !axes->empty() && rule->kinds[f] != shardc::FactorKind::Reduction)
        return false;
  return true;
}

std::string PropagationExplainer::reducedRivals(Operation *op) {
  const FactorRule *rule = st.ruleFor(op);
  if (!rule)
    return "";
  std::vector<TensorSharding> operands = st.finalShardings(op->getOperands());
  for (size_t f = 0; f < rule->numFactors(); ++f) {
    if (rule->kinds[f] != shardc::FactorKind::Reduction)
      continue;
    for (size_t t = 0; t < operands.size(); ++t)
      if (auto rival = shardc::rivalSplit(*rule, operands, t, static_cast<int>(f));
          rival && rival->operand > t)
        return "operand #" + std::to_string(t) + " by " + axisList(st.core, rival->against) +
               ", operand #" +
               std::to_string(rival->operand) + " by " + axisList(st.core, rival->axes);
  }
  return "";
}

std::string PropagationExplainer::droppedOf(Value v) {
  auto r = dyn_cast<OpResult>(v);
  Operation *op = r ? r.getOwner() : nullptr;
  const FactorRule *rule = op && isa<ShardingRuleOpInterface>(op) ? st.ruleFor(op) : nullptr;
  if (!rule || rule->results.size() != op->getNumResults() ||
      rule->operands.size() != op->getNumOperands() ||
      !llvm::all_of(op->getOperands(), isTensor) || !llvm::all_of(op->getResults(), isTensor))
    return "";
  std::vector<TensorSharding> operands = st.finalShardings(op->getOperands());
  std::vector<TensorSharding> results = st.finalShardings(op->getResults());
  // The op as insert-reshards runs it (shared with its reasons).
  shardc::FactorAxes axes = shardc::executionAxes(*rule, operands, results, st.core);
  const FactorRule::TensorFactors &resDims = rule->results[r.getResultNumber()];
  for (size_t t = 0; t < operands.size(); ++t)
    for (const shardc::MovedAxis &m : shardc::movedAxes(*rule, axes, operands, t, st.core)) {
      size_t d = m.dim;
      if (d >= rule->operands[t].size() || rule->operands[t][d].size() != 1)
        continue; // a reshape's regrouped dim: said by reshapeDrops
      int f = rule->operands[t][d].front();
      auto e = llvm::find_if(resDims, [&](const FactorRule::DimFactors &dim) {
        return llvm::is_contained(dim, f);
      });
      if (e == resDims.end())
        continue; // a dim the op reduces: said by partialOf
      if (m.where.empty())
        continue; // not used at all: the value is whole there, said elsewhere
      // On its own dims the value says where the axis went; another
      // result's or a reduced dim is the op's.
      std::string use = m.usedByResult == static_cast<int>(r.getResultNumber())
                            ? "it splits dim " + std::to_string(m.usedForDim) + " instead"
                            : "the op uses it for " + m.where;
      return "; operand #" + std::to_string(t) + "'s \"" + st.core.axes[m.axis] + "\" (its dim " +
             std::to_string(d) + ") does not split dim " + std::to_string(e - resDims.begin()) +
             " here: " + use;
    }
  return "";
}

std::string PropagationExplainer::conflictOf(Value v) {
  auto it = st.conflicts.find(st.idOf(v));
  if (it == st.conflicts.end())
    return "";
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "; conflicting proposals (the defining op's holds against its users'; users and "
        "ties keep what they share):";
  // An op that reads the value in two slots (x * x) proposes twice: say each
  // proposal once.
  SmallVector<std::pair<int64_t, ShardingTable::Id>> said;
  for (auto entry : it->second) {
    if (llvm::is_contained(said, entry))
      continue;
    auto [proposer, id] = entry;
    Operation *op = proposer >= 0 ? st.nodes[proposer].op : st.ties[~proposer].second;
    os << (said.empty() ? "" : ",") << " "
       << PropagationState::closed(st.table.get(id)).str(st.core) << " from ";
    said.push_back(entry);
    if (op)
      os << op->getName() << " (" << locationText(op->getLoc()) << ")";
    else
      os << "a sharding group";
  }
  return out;
}


} // namespace shardc::propagation
