//===- npycmp.cpp - compare a result .npy with the expected one -----------===//
//
// The GPU bundle's check (it runs where there is no NumPy for sure):
//
//   npycmp EXPECTED.npy ACTUAL.npy [--rtol R] [--atol A]
//
// Exit 0 when both have the same dtype and shape and every element obeys
// |actual - expected| <= atol + rtol * |expected| (defaults 1e-4 and 1e-5;
// integers and bools must be equal); else print the largest difference,
// where it is and the tolerance there, and exit 1. Exit 2 on a file that
// cannot be read.
//
//===----------------------------------------------------------------------===//
#include "shardrt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

double element(const shardrt_array &a, int64_t i) {
  switch (a.dtype) {
  case SHARDRT_F32: return static_cast<const float *>(a.data)[i];
  case SHARDRT_F64: return static_cast<const double *>(a.data)[i];
  case SHARDRT_I64: return static_cast<double>(static_cast<const int64_t *>(a.data)[i]);
  case SHARDRT_I32: return static_cast<const int32_t *>(a.data)[i];
  case SHARDRT_I8: return static_cast<const int8_t *>(a.data)[i];
  case SHARDRT_BOOL: return static_cast<const uint8_t *>(a.data)[i];
  case SHARDRT_U8: return static_cast<const uint8_t *>(a.data)[i];
  case SHARDRT_U32: return static_cast<const uint32_t *>(a.data)[i];
  case SHARDRT_U64: return static_cast<double>(static_cast<const uint64_t *>(a.data)[i]);
  case SHARDRT_F16: return static_cast<double>(static_cast<const _Float16 *>(a.data)[i]);
  case SHARDRT_BF16: {
    // bf16 is the top half of an f32.
    uint32_t bits = static_cast<uint32_t>(static_cast<const uint16_t *>(a.data)[i]) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  default: return std::nan("");
  }
}

std::string indexText(const shardrt_array &a, int64_t flat) {
  std::string s = "]";
  for (int32_t d = a.rank - 1; d >= 0; --d) {
    s = std::to_string(flat % a.shape[d]) + (s == "]" ? "" : ", ") + s;
    flat /= a.shape[d];
  }
  return "[" + s;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: npycmp EXPECTED.npy ACTUAL.npy [--rtol R] [--atol A]\n");
    return 2;
  }
  double rtol = 1e-4, atol = 1e-5;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rtol"))
      rtol = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--atol"))
      atol = std::atof(argv[i + 1]);
  }
  shardrt_array e{}, a{};
  if (shardrt_npy_read(argv[1], &e) != SHARDRT_OK || shardrt_npy_read(argv[2], &a) != SHARDRT_OK) {
    std::printf("cannot read: %s\n", shardrt_last_error());
    return 2;
  }
  bool same = e.dtype == a.dtype && e.rank == a.rank;
  for (int32_t d = 0; same && d < e.rank; ++d)
    same = e.shape[d] == a.shape[d];
  if (!same) {
    std::printf("dtype or shape differs\n");
    return 1;
  }
  // 16-bit floats: at least 8 units in the last place of the type.
  if (e.dtype == SHARDRT_F16)
    rtol = std::max(rtol, 8 * 9.77e-4);
  if (e.dtype == SHARDRT_BF16)
    rtol = std::max(rtol, 8 * 7.81e-3);
  const bool exact = e.dtype == SHARDRT_I64 || e.dtype == SHARDRT_I32 || e.dtype == SHARDRT_I8 ||
                     e.dtype == SHARDRT_BOOL || e.dtype == SHARDRT_U8 || e.dtype == SHARDRT_U32 ||
                     e.dtype == SHARDRT_U64;
  double worst = 0, worstTol = 0;
  int64_t at = -1;
  for (int64_t i = 0; i < shardrt_array_numel(&e); ++i) {
    double x = element(e, i), y = element(a, i);
    double tol = exact ? 0 : atol + rtol * std::fabs(x);
    double diff = std::isnan(x) && std::isnan(y) ? 0 : std::fabs(y - x);
    if (std::isnan(diff) || diff - tol > worst - worstTol || (at < 0 && diff > tol)) {
      if (diff > tol || std::isnan(diff)) {
        worst = std::isnan(diff) ? INFINITY : diff;
        worstTol = tol;
        at = i;
      }
    }
  }
  if (at >= 0) {
    std::printf("max |diff| %.3g at %s (expected %.9g, got %.9g), tolerance %.3g\n", worst,
                indexText(e, at).c_str(), element(e, at), element(a, at), worstTol);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
