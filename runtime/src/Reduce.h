// Elementwise reduction kernels used by the threads backend.
//
// Invariant: every element is combined left to right in the order of `srcs`
// (the group order), ((s0 op s1) op s2) ..., so any rank that runs the kernel
// on the same inputs gets bitwise the same result.  16-bit floats accumulate
// in float and round once at the end.  Integers wrap (two's complement) instead
// of overflowing.  bool: sum and max are logical or, min and prod logical and;
// results are always 0 or 1.  Float max/min propagate NaN.
#ifndef SHARDRT_SRC_REDUCE_H
#define SHARDRT_SRC_REDUCE_H

#include "shardrt.h"

#include <cstdint>

namespace shardrt {

inline bool isValidReduceOp(int32_t op) { return op >= SHARDRT_SUM && op <= SHARDRT_PROD; }
const char *reduceOpName(int32_t op);

/// out[i] = srcs[0][i] op srcs[1][i] op ... op srcs[numSrcs-1][i] for i in
/// [0, count).  `out` may be srcs[0] or srcs[1] (exactly); it must not
/// overlap any other source.  numSrcs >= 1.
void reduceInOrder(void *out, const void *const *srcs, int64_t numSrcs, int64_t count,
                   int32_t dtype, int32_t op);

/// The same reduction written to each of `numOuts` outputs, which may alias
/// the sources element for element (an all-reduce in place): the result of a
/// cache-sized chunk is formed aside, then copied to every output. One
/// output that reduceInOrder may write (see there) is written directly.
void reduceInOrderTo(void *const *outs, int64_t numOuts, const void *const *srcs,
                     int64_t numSrcs, int64_t count, int32_t dtype, int32_t op);

/// The all-reduce of two buffers in one pass: a[i] = b[i] = a[i] op b[i]
/// (a first, as reduceInOrder with srcs {a, b}) for i in [0, count).
/// Returns false, touching nothing, for the dtypes it does not handle in
/// one pass (16-bit floats and bool); the caller then uses reduceInOrder.
bool reducePairInPlace(void *a, void *b, int64_t count, int32_t dtype, int32_t op);

} // namespace shardrt

#endif // SHARDRT_SRC_REDUCE_H
