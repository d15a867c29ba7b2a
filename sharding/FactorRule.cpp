//===- FactorRule.cpp - rule builder and printing -------------------------===//
#include "sharding/FactorRule.h"

namespace shardc {

static std::string factorName(int f) {
  std::string s(1, static_cast<char>('i' + f % 18));
  if (f >= 18)
    s += std::to_string(f / 18);
  return s;
}

std::string FactorRule::str() const {
  auto tensors = [](const std::vector<TensorFactors> &list) {
    std::string s = "(";
    for (size_t t = 0; t < list.size(); ++t) {
      s += t ? ",[" : "[";
      for (size_t d = 0; d < list[t].size(); ++d) {
        if (d)
          s += ",";
        for (size_t k = 0; k < list[t][d].size(); ++k)
          s += (k ? " " : "") + factorName(list[t][d][k]);
      }
      s += "]";
    }
    return s + ")";
  };
  std::string s = tensors(operands) + "->" + tensors(results);
  std::string red, repl;
  for (size_t f = 0; f < kinds.size(); ++f) {
    if (kinds[f] == FactorKind::Reduction)
      red += (red.empty() ? "" : ",") + factorName(f);
    if (kinds[f] == FactorKind::NeedReplication)
      repl += (repl.empty() ? "" : ",") + factorName(f);
  }
  if (!red.empty())
    s += std::string(" ") + reductionName(reduction) + "={" + red + "}";
  if (!repl.empty())
    s += " replicated={" + repl + "}";
  return s;
}

std::string FactorRule::validate() const {
  if (kinds.size() != factorSizes.size())
    return "factor kinds and sizes disagree";
  for (size_t t = 0; t < numTensors(); ++t)
    for (const DimFactors &dim : tensor(t))
      for (int f : dim)
        if (f < 0 || static_cast<size_t>(f) >= numFactors())
          return "tensor #" + std::to_string(t) + " uses unknown factor #" + std::to_string(f);
  for (size_t t = 0; t < results.size(); ++t)
    for (const DimFactors &dim : results[t])
      for (int f : dim)
        if (kinds[f] == FactorKind::Reduction)
          return "reduction factor " + factorName(f) + " indexes result #" + std::to_string(t);
  for (int o : pending.operands)
    if (o < 0 || static_cast<size_t>(o) >= operands.size())
      return "pending flow names operand #" + std::to_string(o);
  return "";
}

int FactorRuleBuilder::factor(int64_t size, FactorKind kind) {
  rule.factorSizes.push_back(size);
  rule.kinds.push_back(kind);
  return static_cast<int>(rule.factorSizes.size() - 1);
}

FactorRuleBuilder &FactorRuleBuilder::operand(FactorRule::TensorFactors dims) {
  rule.operands.push_back(std::move(dims));
  return *this;
}

FactorRuleBuilder &FactorRuleBuilder::result(FactorRule::TensorFactors dims) {
  rule.results.push_back(std::move(dims));
  return *this;
}

FactorRuleBuilder &FactorRuleBuilder::reduction(Reduction r) {
  rule.reduction = r;
  return *this;
}

FactorRuleBuilder &FactorRuleBuilder::pending(PendingFlow flow) {
  rule.pending = std::move(flow);
  return *this;
}

FactorRule FactorRuleBuilder::elementwise(const std::vector<int64_t> &shape,
                                          size_t numOperands, PendingFlow flow) {
  FactorRuleBuilder b;
  FactorRule::TensorFactors dims;
  for (int64_t s : shape)
    dims.push_back({b.factor(s)});
  for (size_t i = 0; i < numOperands; ++i)
    b.operand(dims);
  b.result(dims);
  b.pending(std::move(flow));
  return b.build();
}

} // namespace shardc
