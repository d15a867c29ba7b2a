//===- SoftFloat.cpp - bf16 conversion helpers LLVM may call --------------===//
//
// x86-64 has no bf16 instructions; LLVM lowers `fptrunc float/double to
// bfloat` to calls to __truncsfbf2 / __truncdfbf2, which libgcc 12 (Debian
// bookworm) does not provide. shardc's pipeline usually expands these
// conversions into integer code, but LLVM's own optimiser can re-form them,
// so the runtime provides the helpers (exported through shardrt_symbols()).
// Semantics: IEEE round-to-nearest-even, NaN stays NaN (quietened), as
// libgcc 13+ does. __bf16 is passed and returned in an SSE register, matching
// the calls LLVM emits.
//
//===----------------------------------------------------------------------===//
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

__bf16 bitsToBf16(uint16_t h) {
  __bf16 r;
  std::memcpy(&r, &h, 2);
  return r;
}

uint16_t roundFloatBits(uint32_t u) {
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep the sign and payload top, quiet it
    return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

} // namespace

extern "C" __bf16 __truncsfbf2(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return bitsToBf16(roundFloatBits(u));
}

// double -> bf16 in one rounding: first to float rounding toward zero with a
// sticky bit ("round to odd"), which keeps the second rounding exact.
extern "C" __bf16 __truncdfbf2(double d) {
  if (std::isnan(d)) {
    float f = static_cast<float>(d);
    return __truncsfbf2(f);
  }
  float f = static_cast<float>(d);
  if (static_cast<double>(f) != d && !std::isinf(f)) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if (std::fabs(static_cast<double>(f)) > std::fabs(d))
      --u; // step back toward zero
    u |= 1u;
    std::memcpy(&f, &u, 4);
  }
  return __truncsfbf2(f);
}
