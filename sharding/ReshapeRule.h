//===- ReshapeRule.h - a reshape's factors, from its two shapes --*- C++ -*-===//
//
// A reshape keeps the row-major order of elements, so a dimension that is
// split or merged can keep its sharding *if* the two shapes share factors:
//
//   [8,4] -> [32]     ([i,j])->([i j])        merge: 32 = 8 (major) x 4
//   [32]  -> [8,4]    ([i j])->([i,j])        split
//   [8,4] -> [4,8]    ([i j,k])->([i,j k])    8 = 4x2 and 8 = 2x4
//   [4,6] -> [6,4]    ([i j,l])->([i k,m])    only the major 2 is common;
//                                              j, k, l, m are NeedReplication
//
// Both shapes are walked major to minor with the part of the current operand
// and result dim not yet assigned to factors. Invariant: the factors assigned
// so far multiply to the same number on both sides, so the next factor of
// either side starts at the same linear stride; their gcd g > 1 is therefore
// a common factor (major in both remainders). When the remainders are
// coprime, no factor is common until the running products meet again: every
// piece in between is its own NeedReplication factor, so a sharding there is
// gathered rather than mis-assigned. Size-1 dims index no factor.
//
// Why gcd and not only "one size divides the other": [6,4] -> [4,6] shares
// its major 2 (rows 0-2 of the first are rows 0-1 of the second), which a
// divisibility-only walk would give up on.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SHARDING_RESHAPERULE_H
#define SHARDC_SHARDING_RESHAPERULE_H

#include "sharding/FactorRule.h"

namespace shardc {

/// The factor rule of a reshape from `in` to `out` (one operand, one result;
/// pending flow left as None for the caller to set). Shapes whose element
/// counts differ, or contain a 0, get a NeedReplication factor per dim.
FactorRule reshapeRule(const std::vector<int64_t> &in, const std::vector<int64_t> &out);

} // namespace shardc

#endif // SHARDC_SHARDING_RESHAPERULE_H
