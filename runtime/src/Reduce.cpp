// Elementwise reduction kernels: one template per element type, the group
// order fixed by the caller.  See Reduce.h for the numeric contract; this file
// keeps it by looping sources outermost (so each element still sees the
// sources in order) and by doing integer arithmetic in uint64_t, where
// wrap-around is defined.
#include "Reduce.h"

#include "Dtype.h"
#include "SmallArray.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

// The runtime is built for baseline x86-64, but reductions run on whatever
// CPU loads it: the entry points are cloned for AVX-512 and AVX2 and picked
// at load time (an ifunc), and the kernels below are inlined into each clone
// so that they vectorize at its width. Elementwise arithmetic does not
// change with the vector width, so every clone gives the same bits.
#if defined(__x86_64__) && defined(__clang__)
#define SHARDRT_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SHARDRT_VECTOR_CLONES
#endif
#define SHARDRT_ALWAYS_INLINE __attribute__((always_inline)) inline

namespace shardrt {
namespace {

template <int32_t Op, typename T> T combineAs(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if constexpr (Op == SHARDRT_SUM)
      return a + b;
    else if constexpr (Op == SHARDRT_PROD)
      return a * b;
    else if constexpr (Op == SHARDRT_MAX)
      return std::isnan(a) ? a : std::isnan(b) ? b : (b > a ? b : a);
    else
      return std::isnan(a) ? a : std::isnan(b) ? b : (b < a ? b : a);
  } else {
    if constexpr (Op == SHARDRT_SUM)
      return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    else if constexpr (Op == SHARDRT_PROD)
      return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    else if constexpr (Op == SHARDRT_MAX)
      return b > a ? b : a;
    else
      return b < a ? b : a;
  }
}

template <typename T> T combine(T a, T b, int32_t op) {
  switch (op) {
  case SHARDRT_SUM:
    return combineAs<SHARDRT_SUM>(a, b);
  case SHARDRT_PROD:
    return combineAs<SHARDRT_PROD>(a, b);
  case SHARDRT_MAX:
    return combineAs<SHARDRT_MAX>(a, b);
  default: // SHARDRT_MIN
    return combineAs<SHARDRT_MIN>(a, b);
  }
}

/// One source into the accumulator, the operator fixed at compile time so
/// that the loop vectorizes (the same arithmetic, in the same order, as an
/// element-by-element loop).
template <int32_t Op, typename T>
SHARDRT_ALWAYS_INLINE void combineInto(T *out, const T *src, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    out[i] = combineAs<Op>(out[i], src[i]);
}

/// out[i] = a[i] op b[i], the first two sources in one pass; `out` may be
/// either of them. Each case is a loop of its own: one whose output is
/// exactly an input would fail the vectorizer's overlap check at run time.
template <int32_t Op, typename T>
SHARDRT_ALWAYS_INLINE void combineFirstPair(T *out, const T *a, const T *b, int64_t count) {
  if (out == a)
    return combineInto<Op>(out, b, count);
  if (out == b) {
    for (int64_t i = 0; i < count; ++i)
      out[i] = combineAs<Op>(a[i], out[i]);
    return;
  }
  for (int64_t i = 0; i < count; ++i)
    out[i] = combineAs<Op>(a[i], b[i]);
}

template <int32_t Op, typename T>
SHARDRT_ALWAYS_INLINE void reducePlainAs(T *out, const void *const *srcs, int64_t numSrcs,
                                         int64_t count) {
  const T *first = static_cast<const T *>(srcs[0]);
  if (numSrcs == 1) {
    if (out != first)
      std::memcpy(out, first, static_cast<size_t>(count) * sizeof(T));
    return;
  }
  combineFirstPair<Op>(out, first, static_cast<const T *>(srcs[1]), count);
  for (int64_t m = 2; m < numSrcs; ++m)
    combineInto<Op>(out, static_cast<const T *>(srcs[m]), count);
}

template <typename T>
SHARDRT_ALWAYS_INLINE void reducePlain(T *out, const void *const *srcs, int64_t numSrcs,
                                       int64_t count, int32_t op) {
  switch (op) {
  case SHARDRT_SUM:
    return reducePlainAs<SHARDRT_SUM>(out, srcs, numSrcs, count);
  case SHARDRT_PROD:
    return reducePlainAs<SHARDRT_PROD>(out, srcs, numSrcs, count);
  case SHARDRT_MAX:
    return reducePlainAs<SHARDRT_MAX>(out, srcs, numSrcs, count);
  default:
    return reducePlainAs<SHARDRT_MIN>(out, srcs, numSrcs, count);
  }
}

// f16/bf16: blocks of float accumulators, so each element is rounded to 16 bits
// once, after the whole group has been combined.
template <int32_t Op, typename T>
SHARDRT_ALWAYS_INLINE void combinePair(T *a, T *b, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    T r = combineAs<Op>(a[i], b[i]);
    a[i] = r;
    b[i] = r;
  }
}

template <typename T>
SHARDRT_ALWAYS_INLINE void reducePair(void *a, void *b, int64_t count, int32_t op) {
  T *x = static_cast<T *>(a), *y = static_cast<T *>(b);
  switch (op) {
  case SHARDRT_SUM:
    return combinePair<SHARDRT_SUM>(x, y, count);
  case SHARDRT_PROD:
    return combinePair<SHARDRT_PROD>(x, y, count);
  case SHARDRT_MAX:
    return combinePair<SHARDRT_MAX>(x, y, count);
  default:
    return combinePair<SHARDRT_MIN>(x, y, count);
  }
}

template <float (*Load)(uint16_t), uint16_t (*Store)(float)>
void reduceHalf(uint16_t *out, const void *const *srcs, int64_t numSrcs, int64_t count,
                int32_t op) {
  constexpr int64_t kBlock = 256;
  float acc[kBlock];
  for (int64_t base = 0; base < count; base += kBlock) {
    int64_t n = count - base < kBlock ? count - base : kBlock;
    const uint16_t *first = static_cast<const uint16_t *>(srcs[0]) + base;
    for (int64_t i = 0; i < n; ++i)
      acc[i] = Load(first[i]);
    for (int64_t m = 1; m < numSrcs; ++m) {
      const uint16_t *src = static_cast<const uint16_t *>(srcs[m]) + base;
      for (int64_t i = 0; i < n; ++i)
        acc[i] = combine(acc[i], Load(src[i]), op);
    }
    for (int64_t i = 0; i < n; ++i)
      out[base + i] = Store(acc[i]);
  }
}

void reduceBool(uint8_t *out, const void *const *srcs, int64_t numSrcs, int64_t count,
                int32_t op) {
  bool any = op == SHARDRT_SUM || op == SHARDRT_MAX; // or; otherwise and
  // The first two sources in one pass, as reducePlain (out may be either).
  const uint8_t *first = static_cast<const uint8_t *>(srcs[0]);
  const uint8_t *second = numSrcs > 1 ? static_cast<const uint8_t *>(srcs[1]) : first;
  for (int64_t i = 0; i < count; ++i)
    out[i] = any ? ((first[i] != 0) | (second[i] != 0)) : ((first[i] != 0) & (second[i] != 0));
  for (int64_t m = 2; m < numSrcs; ++m) {
    const uint8_t *src = static_cast<const uint8_t *>(srcs[m]);
    for (int64_t i = 0; i < count; ++i)
      out[i] = any ? (out[i] | (src[i] != 0)) : (out[i] & (src[i] != 0));
  }
}

/// Whether reduceInOrder may write `out` directly: every kernel above
/// reads the first two sources at an element before writing it, and reads
/// a 16-bit float block whole before storing it, so `out` may be the first
/// or second source exactly; it must not overlap any other.
bool canReduceInto(const void *out, const void *const *srcs, int64_t numSrcs, int64_t bytes) {
  auto lo = reinterpret_cast<uintptr_t>(out);
  for (int64_t m = 0; m < numSrcs; ++m) {
    auto at = reinterpret_cast<uintptr_t>(srcs[m]);
    bool disjoint = at + static_cast<uintptr_t>(bytes) <= lo ||
                    lo + static_cast<uintptr_t>(bytes) <= at;
    if (!disjoint && !(m < 2 && at == lo))
      return false;
  }
  return true;
}

} // namespace

const char *reduceOpName(int32_t op) {
  switch (op) {
  case SHARDRT_SUM:
    return "sum";
  case SHARDRT_MAX:
    return "max";
  case SHARDRT_MIN:
    return "min";
  case SHARDRT_PROD:
    return "prod";
  }
  return "?";
}

SHARDRT_VECTOR_CLONES
void reduceInOrder(void *out, const void *const *srcs, int64_t numSrcs, int64_t count,
                   int32_t dtype, int32_t op) {
  if (count <= 0)
    return;
  switch (dtype) {
  case SHARDRT_F32:
    return reducePlain(static_cast<float *>(out), srcs, numSrcs, count, op);
  case SHARDRT_F64:
    return reducePlain(static_cast<double *>(out), srcs, numSrcs, count, op);
  case SHARDRT_F16:
    return reduceHalf<halfToFloat, floatToHalf>(static_cast<uint16_t *>(out), srcs, numSrcs,
                                                count, op);
  case SHARDRT_BF16:
    return reduceHalf<bf16ToFloat, floatToBf16>(static_cast<uint16_t *>(out), srcs, numSrcs,
                                                count, op);
  case SHARDRT_I64:
    return reducePlain(static_cast<int64_t *>(out), srcs, numSrcs, count, op);
  case SHARDRT_I32:
    return reducePlain(static_cast<int32_t *>(out), srcs, numSrcs, count, op);
  case SHARDRT_I8:
    return reducePlain(static_cast<int8_t *>(out), srcs, numSrcs, count, op);
  case SHARDRT_BOOL:
    return reduceBool(static_cast<uint8_t *>(out), srcs, numSrcs, count, op);
  case SHARDRT_U8:
    return reducePlain(static_cast<uint8_t *>(out), srcs, numSrcs, count, op);
  case SHARDRT_U32:
    return reducePlain(static_cast<uint32_t *>(out), srcs, numSrcs, count, op);
  case SHARDRT_U64:
    return reducePlain(static_cast<uint64_t *>(out), srcs, numSrcs, count, op);
  case SHARDRT_I16:
    return reducePlain(static_cast<int16_t *>(out), srcs, numSrcs, count, op);
  case SHARDRT_U16:
    return reducePlain(static_cast<uint16_t *>(out), srcs, numSrcs, count, op);
  }
}

void reduceInOrderTo(void *const *outs, int64_t numOuts, const void *const *srcs,
                     int64_t numSrcs, int64_t count, int32_t dtype, int32_t op) {
  const int64_t es = static_cast<int64_t>(shardrt_dtype_size(dtype));
  if (numOuts == 1 && canReduceInto(outs[0], srcs, numSrcs, count * es))
    return reduceInOrder(outs[0], srcs, numSrcs, count, dtype, op);
  constexpr int64_t kChunkBytes = 16 << 10;
  alignas(64) char chunk[kChunkBytes];
  const int64_t step = kChunkBytes / es;
  SmallArray<const void *, 8> at(static_cast<size_t>(numSrcs));
  for (int64_t off = 0; off < count; off += step) {
    const int64_t n = std::min(step, count - off);
    for (int64_t m = 0; m < numSrcs; ++m)
      at[m] = static_cast<const char *>(srcs[m]) + off * es;
    reduceInOrder(chunk, at.data(), numSrcs, n, dtype, op);
    for (int64_t k = 0; k < numOuts; ++k)
      std::memcpy(static_cast<char *>(outs[k]) + off * es, chunk, static_cast<size_t>(n * es));
  }
}

SHARDRT_VECTOR_CLONES
bool reducePairInPlace(void *a, void *b, int64_t count, int32_t dtype, int32_t op) {
  if (count <= 0)
    return true;
  switch (dtype) {
  case SHARDRT_F32:
    return reducePair<float>(a, b, count, op), true;
  case SHARDRT_F64:
    return reducePair<double>(a, b, count, op), true;
  case SHARDRT_I64:
    return reducePair<int64_t>(a, b, count, op), true;
  case SHARDRT_I32:
    return reducePair<int32_t>(a, b, count, op), true;
  case SHARDRT_I8:
    return reducePair<int8_t>(a, b, count, op), true;
  case SHARDRT_U8:
    return reducePair<uint8_t>(a, b, count, op), true;
  case SHARDRT_U32:
    return reducePair<uint32_t>(a, b, count, op), true;
  case SHARDRT_U64:
    return reducePair<uint64_t>(a, b, count, op), true;
  case SHARDRT_I16:
    return reducePair<int16_t>(a, b, count, op), true;
  case SHARDRT_U16:
    return reducePair<uint16_t>(a, b, count, op), true;
  default:
    return false;
  }
}

} // namespace shardrt
