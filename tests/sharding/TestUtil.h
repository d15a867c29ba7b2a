//===- TestUtil.h - small builders shared by the core unit tests ---------===//
#ifndef SHARDC_TESTS_CORE_TESTUTIL_H
#define SHARDC_TESTS_CORE_TESTUTIL_H

#include "sharding/Sharding.h"

#include <vector>

namespace shardc::test {

/// ["data"=2, "model"=4]: ids are row-major, id = data * 4 + model.
inline Mesh dataModelMesh() { return Mesh{{"data", "model"}, {2, 4}}; }
constexpr int kData = 0;
constexpr int kModel = 1;

/// One closed (or open) dimension split by `axes`, major to minor.
inline DimSharding closedDim(std::vector<int> axes = {}) { return DimSharding{std::move(axes), false}; }
inline DimSharding openDim(std::vector<int> axes = {}) { return DimSharding{std::move(axes), true}; }

inline TensorSharding sharding(std::vector<DimSharding> dims, std::vector<int> pending = {},
                               Reduction kind = Reduction::Sum) {
  TensorSharding t;
  t.dims = std::move(dims);
  t.pending = std::move(pending);
  t.pendingKind = kind;
  return t;
}

} // namespace shardc::test

#endif // SHARDC_TESTS_CORE_TESTUTIL_H
