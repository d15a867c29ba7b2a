//===- Steering.cpp - priorities and op classes ---------------------------===//
#include "sharding/Steering.h"

namespace shardc {

TensorSharding activeInRound(const TensorSharding &full, const std::vector<int64_t> &priority,
                             int64_t round) {
  TensorSharding s = full;
  for (size_t d = 0; d < s.dims.size() && d < priority.size(); ++d)
    if (priority[d] > round && !isOpenEmpty(s.dims[d]))
      s.dims[d] = DimSharding{};
  return s;
}

bool isOpenEmpty(const DimSharding &d) { return d.open && d.axes.empty(); }

bool isPassThrough(const FactorRule &rule) {
  std::vector<bool> inResult(rule.numFactors(), false);
  for (const auto &res : rule.results)
    for (const auto &dim : res)
      for (int f : dim)
        inResult[f] = true;
  for (size_t f = 0; f < rule.numFactors(); ++f)
    if (rule.kinds[f] == FactorKind::Reduction || !inResult[f])
      return false;
  return true;
}

} // namespace shardc
