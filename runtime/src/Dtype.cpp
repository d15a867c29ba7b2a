// The dtype table behind shardrt_dtype_size/name/from_name, and the 16-bit
// float conversions.  The table is the single place a dtype's name and size
// live; the .npy reader has its own descr table because .npy spells types
// differently ("<f4", and "<V2" for ml_dtypes' bfloat16).
#include "Dtype.h"

#include <cmath>
#include <cstring>

namespace shardrt {
namespace {
struct DtypeInfo {
  const char *name;
  size_t size;
};
// Indexed by shardrt_dtype.
constexpr DtypeInfo kDtypes[] = {
    {"f32", 4}, {"f64", 8}, {"f16", 2}, {"bf16", 2},
    {"i64", 8}, {"i32", 4}, {"i8", 1},  {"bool", 1},
    {"u8", 1},  {"u32", 4}, {"u64", 8}, {"i16", 2}, {"u16", 2},
};
static_assert(sizeof(kDtypes) / sizeof(kDtypes[0]) == SHARDRT_U16 + 1, "dtype table");
} // namespace

float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0) {
    // Subnormal (or zero): mant * 2^-24, exact in float.
    float f = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return sign ? -f : f;
  }
  if (exp == 31)
    return bitsFloat(sign | 0x7F800000u | (mant << 13));
  return bitsFloat(sign | ((exp + 112u) << 23) | (mant << 13));
}

uint16_t floatToHalf(float f) {
  uint32_t x = floatBits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7FFFFFFFu;
  if (absx >= 0x7F800000u) {
    // Inf stays inf; NaN keeps its top payload bits and is forced quiet so it
    // cannot collapse to inf.
    uint32_t nan = absx > 0x7F800000u ? (0x200u | ((absx >> 13) & 0x3FFu)) : 0u;
    return static_cast<uint16_t>(sign | 0x7C00u | nan);
  }
  if (absx >= 0x477FF000u) // >= 65520, which rounds (ties to even) past 65504
    return static_cast<uint16_t>(sign | 0x7C00u);
  if (absx < 0x38800000u) {
    // Below the smallest normal half (2^-14). Adding 0.5 makes the FPU round
    // to a multiple of 2^-24 (the ulp of floats in [0.5, 1)), which is exactly
    // the subnormal half step, with ties to even.
    float r = bitsFloat(absx) + 0.5f;
    return static_cast<uint16_t>(sign | (floatBits(r) - 0x3F000000u));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to
  // nearest even; a carry out of the mantissa correctly bumps the exponent.
  uint32_t odd = (absx >> 13) & 1u;
  absx += 0xC8000FFFu + odd;
  return static_cast<uint16_t>(sign | (absx >> 13));
}

uint16_t floatToBf16(float f) {
  uint32_t x = floatBits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40u); // quiet NaN, never inf
  x += 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

namespace {
/// Element `i` of an array of T, read without assuming alignment.
template <typename T> double at(const char *p, int64_t i) {
  T v;
  std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return static_cast<double>(v);
}
} // namespace

double loadAsDouble(const void *data, int64_t i, int32_t dtype) {
  const char *p = static_cast<const char *>(data);
  switch (dtype) {
  case SHARDRT_F32: return at<float>(p, i);
  case SHARDRT_F64: return at<double>(p, i);
  case SHARDRT_F16: return halfToFloat(static_cast<uint16_t>(at<uint16_t>(p, i)));
  case SHARDRT_BF16: return bf16ToFloat(static_cast<uint16_t>(at<uint16_t>(p, i)));
  case SHARDRT_I64: return at<int64_t>(p, i);
  case SHARDRT_I32: return at<int32_t>(p, i);
  case SHARDRT_I16: return at<int16_t>(p, i);
  case SHARDRT_I8: return at<int8_t>(p, i);
  case SHARDRT_BOOL: return p[i] != 0 ? 1.0 : 0.0;
  case SHARDRT_U8: return at<uint8_t>(p, i);
  case SHARDRT_U16: return at<uint16_t>(p, i);
  case SHARDRT_U32: return at<uint32_t>(p, i);
  case SHARDRT_U64: return at<uint64_t>(p, i);
  }
  return std::nan("");
}

} // namespace shardrt

extern "C" {

size_t shardrt_dtype_size(int32_t dtype) {
  return shardrt::isValidDtype(dtype) ? shardrt::kDtypes[dtype].size : 0;
}

const char *shardrt_dtype_name(int32_t dtype) {
  return shardrt::isValidDtype(dtype) ? shardrt::kDtypes[dtype].name : nullptr;
}

int32_t shardrt_dtype_from_name(const char *name) {
  if (!name)
    return -1;
  for (int32_t d = SHARDRT_F32; d <= SHARDRT_U16; ++d)
    if (std::strcmp(name, shardrt::kDtypes[d].name) == 0)
      return d;
  return -1;
}

} // extern "C"
