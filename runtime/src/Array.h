// Helpers for shardrt_array shared by the .npy reader and placement.
//
// Invariant: an array that a shardrt function returns owns a non-NULL malloc'd
// buffer (even with zero elements, so callers never special-case NULL), and a
// failed allocation leaves the array empty (data NULL, rank 0).
#ifndef SHARDRT_SRC_ARRAY_H
#define SHARDRT_SRC_ARRAY_H

#include "shardrt.h"

#include <cstdint>
#include <string>

namespace shardrt {

/// Product of `shape[0..rank)`, or -1 when a dimension is negative or the
/// number of bytes (`numel * elemSize`) would overflow int64_t.
int64_t checkedNumel(int32_t rank, const int64_t *shape, size_t elemSize);

/// "[2,3]" for messages; "[]" for rank 0.
std::string formatShape(int32_t rank, const int64_t *shape);

} // namespace shardrt

#endif // SHARDRT_SRC_ARRAY_H
