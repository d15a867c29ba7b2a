//===- VerifyUtils.h - helpers shared by garray verifiers -------*- C++ -*-===//
#ifndef SHARDC_DIALECTS_GARRAY_VERIFYUTILS_H
#define SHARDC_DIALECTS_GARRAY_VERIFYUTILS_H

#include "dialects/garray/GArray.h"

#include "llvm/ADT/SmallSet.h"

namespace mlir::garray {

/// Checks that `dims` are in [0, rank) and not already in `seen`; messages
/// start with `label` and call the list `name`.
inline LogicalResult checkDimList(Operation *op, StringRef label, StringRef name,
                                  ArrayRef<int64_t> dims, int64_t rank,
                                  llvm::SmallSet<int64_t, 8> &seen) {
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return op->emitOpError(label) << ": " << name << " dimension " << d
                                    << " is out of range for rank " << rank;
    if (!seen.insert(d).second)
      return op->emitOpError(label) << ": " << name << " dimension " << d << " is listed twice";
  }
  return success();
}


} // namespace mlir::garray

#endif
