// The bf16 conversion helpers the runtime exports for LLVM's libcalls:
// round-to-nearest-even, ties to even, NaN preserved, double rounded once.
#include "shardrt.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

extern "C" __bf16 __truncsfbf2(float);
extern "C" __bf16 __truncdfbf2(double);

static uint16_t bits(__bf16 b) {
  uint16_t h;
  std::memcpy(&h, &b, 2);
  return h;
}

static float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST_CASE("__truncsfbf2 rounds to nearest even", "[softfloat]") {
  CHECK(bits(__truncsfbf2(1.0f)) == 0x3f80);
  CHECK(bits(__truncsfbf2(-2.0f)) == 0xc000);
  // Exactly halfway between 0x3f80 and 0x3f81: ties to even (0x3f80).
  CHECK(bits(__truncsfbf2(fromBits(0x3f808000u))) == 0x3f80);
  // Halfway between 0x3f81 and 0x3f82: ties to even (0x3f82).
  CHECK(bits(__truncsfbf2(fromBits(0x3f818000u))) == 0x3f82);
  // Just above halfway rounds up.
  CHECK(bits(__truncsfbf2(fromBits(0x3f808001u))) == 0x3f81);
  CHECK(bits(__truncsfbf2(std::numeric_limits<float>::infinity())) == 0x7f80);
  // The largest float rounds to infinity in bf16.
  CHECK(bits(__truncsfbf2(std::numeric_limits<float>::max())) == 0x7f80);
  uint16_t nan = bits(__truncsfbf2(std::numeric_limits<float>::quiet_NaN()));
  CHECK((nan & 0x7f80) == 0x7f80);
  CHECK((nan & 0x007f) != 0);
}

TEST_CASE("__truncdfbf2 rounds once", "[softfloat]") {
  CHECK(bits(__truncdfbf2(1.0)) == 0x3f80);
  // 1 + 2^-8 + 2^-30: just above the bf16 halfway point 1 + 2^-8. Rounding
  // to float first would land exactly on the halfway point and tie to even
  // (0x3f80); one correct rounding gives 0x3f81.
  double d = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  CHECK(bits(__truncdfbf2(d)) == 0x3f81);
  CHECK(bits(__truncdfbf2(-d)) == 0xbf81);
  uint16_t nan = bits(__truncdfbf2(std::numeric_limits<double>::quiet_NaN()));
  CHECK((nan & 0x7f80) == 0x7f80);
}

TEST_CASE("the helpers are in the loader's symbol table", "[softfloat]") {
  bool sf = false, df = false;
  for (const shardrt_symbol *s = shardrt_symbols(); s->name; ++s) {
    sf |= std::string(s->name) == "__truncsfbf2" && s->address;
    df |= std::string(s->name) == "__truncdfbf2" && s->address;
  }
  CHECK(sf);
  CHECK(df);
}
