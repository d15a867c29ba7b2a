// Element types: sizes, names, and the 16-bit float conversions that the
// reductions (threads and MPI) and the replica comparison share.
//
// Invariants: float -> f16/bf16 rounds to nearest, ties to even, keeps NaN a
// NaN (quiet) and overflows to infinity, so a value converted and reduced on
// any rank rounds the same way everywhere.
#ifndef SHARDRT_SRC_DTYPE_H
#define SHARDRT_SRC_DTYPE_H

#include "shardrt.h"

#include <cstdint>
#include <cstring>

namespace shardrt {

/// True for the values of shardrt_dtype.
inline bool isValidDtype(int32_t dtype) { return dtype >= SHARDRT_F32 && dtype <= SHARDRT_U16; }
inline bool isFloatDtype(int32_t dtype) {
  return dtype == SHARDRT_F32 || dtype == SHARDRT_F64 || dtype == SHARDRT_F16 ||
         dtype == SHARDRT_BF16;
}

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
inline float bf16ToFloat(uint16_t b) { return bitsFloat(static_cast<uint32_t>(b) << 16); }
uint16_t floatToBf16(float f);

/// Reads element `i` of a buffer of `dtype` as a double (bool and integers
/// exactly up to 2^53, 16-bit floats through float).
double loadAsDouble(const void *data, int64_t i, int32_t dtype);

} // namespace shardrt

#endif // SHARDRT_SRC_DTYPE_H
