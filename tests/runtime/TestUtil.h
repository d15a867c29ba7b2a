// Helpers shared by the runtime's unit tests: running a lambda on every rank
// of a threads world, and storing/loading values of any dtype.
//
// Catch2 assertions are not thread-safe, so rank bodies never assert: they
// record what they saw into per-rank slots, and the test asserts on the main
// thread after shardrt_threads_run() has joined every rank.
#ifndef SHARDRT_TESTS_TESTUTIL_H
#define SHARDRT_TESTS_TESTUTIL_H

#include "runtime/src/Dtype.h"
#include "shardrt.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace shardrt_test {

/// Runs `body(comm)` on every rank of a fresh `n`-rank world.
template <typename F> shardrt_status runWorld(int32_t n, F body) {
  shardrt_world *world = shardrt_threads_create(n);
  if (!world)
    return SHARDRT_ERR_ARGUMENT;
  shardrt_status s = shardrt_threads_run(
      world, [](shardrt_comm *comm, void *user) -> int32_t { return (*static_cast<F *>(user))(comm); },
      &body);
  shardrt_world_destroy(world);
  return s;
}

/// The device ids 0 .. n-1: a whole world as one group.
inline std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[i] = i;
  return v;
}

/// `count` floats of mixed magnitudes from `seed`, for sums whose order
/// shows in the last bits.
inline std::vector<float> randomFloats(int seed, int64_t count) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1e3f, 1e3f);
  std::vector<float> v(static_cast<size_t>(count));
  for (float &x : v)
    x = dist(gen) * (1 + (gen() % 5));
  return v;
}

inline double elapsedSeconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Stores `v` as element `i` of a buffer of `dtype` (exact for the small
/// integers and halves the tests use).
inline void storeValue(void *buf, int64_t i, int32_t dtype, double v) {
  char *p = static_cast<char *>(buf);
  switch (dtype) {
  case SHARDRT_F32: {
    float f = static_cast<float>(v);
    std::memcpy(p + i * 4, &f, 4);
    return;
  }
  case SHARDRT_F64:
    std::memcpy(p + i * 8, &v, 8);
    return;
  case SHARDRT_F16: {
    uint16_t h = shardrt::floatToHalf(static_cast<float>(v));
    std::memcpy(p + i * 2, &h, 2);
    return;
  }
  case SHARDRT_BF16: {
    uint16_t h = shardrt::floatToBf16(static_cast<float>(v));
    std::memcpy(p + i * 2, &h, 2);
    return;
  }
  case SHARDRT_I64: {
    int64_t x = static_cast<int64_t>(v);
    std::memcpy(p + i * 8, &x, 8);
    return;
  }
  case SHARDRT_I32: {
    int32_t x = static_cast<int32_t>(v);
    std::memcpy(p + i * 4, &x, 4);
    return;
  }
  case SHARDRT_I8:
    p[i] = static_cast<char>(static_cast<int8_t>(v));
    return;
  case SHARDRT_BOOL:
    p[i] = v != 0 ? 1 : 0;
    return;
  // Negative values wrap, as a cast of the signed integer would (a double
  // below zero has no unsigned value to convert to).
  case SHARDRT_U8:
    p[i] = static_cast<char>(static_cast<uint8_t>(static_cast<int64_t>(v)));
    return;
  case SHARDRT_U32: {
    uint32_t x = static_cast<uint32_t>(static_cast<int64_t>(v));
    std::memcpy(p + i * 4, &x, 4);
    return;
  }
  case SHARDRT_U64: {
    uint64_t x = v < 0 ? static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
    std::memcpy(p + i * 8, &x, 8);
    return;
  }
  case SHARDRT_I16: {
    int16_t x = static_cast<int16_t>(static_cast<int64_t>(v));
    std::memcpy(p + i * 2, &x, 2);
    return;
  }
  case SHARDRT_U16: {
    uint16_t x = static_cast<uint16_t>(static_cast<int64_t>(v));
    std::memcpy(p + i * 2, &x, 2);
    return;
  }
  }
}

inline bool isUnsignedDtype(int32_t dtype) {
  return dtype == SHARDRT_U8 || dtype == SHARDRT_U16 || dtype == SHARDRT_U32 ||
         dtype == SHARDRT_U64;
}

inline double loadValue(const void *buf, int64_t i, int32_t dtype) {
  return shardrt::loadAsDouble(buf, i, dtype);
}

// Inputs chosen so every result is exact in every dtype: sums lie in [-40, 40]
// (exact in bf16, no i8 overflow) and products have magnitude at most 4.
// Unsigned ones are never negative; their max and min inputs mix values
// with the top bit set and small ones, which a signed order would rank
// the other way round (exact in a double: 2^63 + a multiple of 2^11).
inline double reduceInput(int32_t op, int32_t dtype, int64_t r, int64_t i) {
  if (dtype == SHARDRT_BOOL)
    return op == SHARDRT_SUM || op == SHARDRT_MAX ? ((r * 3 + i) % 4 == 0) : ((r + i) % 5 != 0);
  if (op == SHARDRT_PROD)
    return (r + i) % 4 == 0 ? 2 : ((r * 5 + i) % 3 == 0 ? (isUnsignedDtype(dtype) ? 1 : -1) : 1);
  const int64_t k = (r * 7 + i * 3) % 11;
  if (isUnsignedDtype(dtype)) {
    if (op == SHARDRT_SUM || k % 2 == 0)
      return static_cast<double>(k);
    return dtype == SHARDRT_U8    ? 128.0 + k
           : dtype == SHARDRT_U16 ? 32768.0 + k
           : dtype == SHARDRT_U32 ? 2147483648.0 + k
                                  : 9223372036854775808.0 + 2048.0 * k;
  }
  return static_cast<double>(k) - 5;
}

inline double reduceExpected(int32_t op, int32_t dtype, const std::vector<int64_t> &members, int64_t i) {
  double acc = reduceInput(op, dtype, members[0], i);
  for (size_t m = 1; m < members.size(); ++m) {
    double v = reduceInput(op, dtype, members[m], i);
    if (dtype == SHARDRT_BOOL)
      acc = op == SHARDRT_SUM || op == SHARDRT_MAX ? (acc != 0 || v != 0) : (acc != 0 && v != 0);
    else if (op == SHARDRT_SUM)
      acc += v;
    else if (op == SHARDRT_PROD)
      acc *= v;
    else if (op == SHARDRT_MAX)
      acc = std::max(acc, v);
    else
      acc = std::min(acc, v);
  }
  return acc;
}

/// A path for a scratch file (Bazel's TEST_TMPDIR when set).
inline std::string tempPath(const std::string &name) {
  const char *dir = std::getenv("TEST_TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/shardrt_test_" +
         std::to_string(static_cast<long>(getpid())) + "_" + name;
}

constexpr int32_t kAllDtypes[] = {SHARDRT_F32, SHARDRT_F64, SHARDRT_F16, SHARDRT_BF16,
                                  SHARDRT_I64, SHARDRT_I32, SHARDRT_I8,  SHARDRT_BOOL,
                                  SHARDRT_U8,  SHARDRT_U32, SHARDRT_U64, SHARDRT_I16,
                                  SHARDRT_U16};
constexpr int32_t kAllOps[] = {SHARDRT_SUM, SHARDRT_MAX, SHARDRT_MIN, SHARDRT_PROD};

/// A world of `n` ranks split into groups of `groupSize`, listed group after
/// group in `groups` (the layout shardrt's grouped collectives take).
struct GroupCase {
  int32_t n;
  std::vector<int64_t> groups;
  int64_t groupSize;
};

/// Worlds of 1, 2, 3, 4 and 8 ranks; groups in rank and non-rank order; the
/// rows and columns of a 2x2 and a 2x4 mesh.
inline const std::vector<GroupCase> kGroupCases = {
    {1, {0}, 1},
    {2, {0, 1}, 2},
    {3, {2, 0, 1}, 3}, // group order, not rank order, decides the layout
    {4, {0, 1, 2, 3}, 4},
    {4, {0, 2, 1, 3}, 2}, // 2x2 columns
    {4, {0, 1, 2, 3}, 2}, // 2x2 rows
    {8, {0, 4, 1, 5, 2, 6, 3, 7}, 2}, // 2x4: over "data"
    {8, {0, 1, 2, 3, 4, 5, 6, 7}, 4}, // 2x4: over "model"
    {8, {7, 6, 5, 4, 3, 2, 1, 0}, 8},
};

/// The members of `rank`'s group, and its `position` in it.
inline const int64_t *groupOf(const GroupCase &c, int64_t rank, int64_t *position) {
  size_t at = std::find(c.groups.begin(), c.groups.end(), rank) - c.groups.begin();
  *position = static_cast<int64_t>(at % c.groupSize);
  return c.groups.data() + (at / c.groupSize) * c.groupSize;
}


} // namespace shardrt_test

#endif // SHARDRT_TESTS_TESTUTIL_H
