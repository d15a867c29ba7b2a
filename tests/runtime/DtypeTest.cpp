// Dtype table and the 16-bit float conversions (round to nearest even,
// subnormals, overflow, NaN), checked against known bit patterns.
#include "runtime/src/Dtype.h"
#include "shardrt.h"

#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>

using namespace shardrt;

TEST_CASE("dtype sizes and names") {
  const char *names[] = {"f32", "f64", "f16", "bf16", "i64", "i32", "i8",
                         "bool", "u8",  "u32", "u64",  "i16", "u16"};
  const size_t sizes[] = {4, 8, 2, 2, 8, 4, 1, 1, 1, 4, 8, 2, 2};
  for (int32_t d = 0; d < 13; ++d) {
    CHECK(shardrt_dtype_size(d) == sizes[d]);
    CHECK(std::string(shardrt_dtype_name(d)) == names[d]);
    CHECK(shardrt_dtype_from_name(names[d]) == d);
  }
  CHECK(shardrt_dtype_size(13) == 0);
  CHECK(shardrt_dtype_size(-1) == 0);
  CHECK(shardrt_dtype_name(13) == nullptr);
  CHECK(shardrt_dtype_from_name("u1") == -1);
  CHECK(shardrt_dtype_from_name("F32") == -1);
  CHECK(shardrt_dtype_from_name(nullptr) == -1);
}

TEST_CASE("float to f16 rounds to nearest even") {
  CHECK(floatToHalf(1.0f) == 0x3C00);
  CHECK(floatToHalf(-2.0f) == 0xC000);
  CHECK(floatToHalf(0.0f) == 0x0000);
  CHECK(floatToHalf(-0.0f) == 0x8000);
  CHECK(floatToHalf(0.1f) == 0x2E66);
  CHECK(floatToHalf(65504.0f) == 0x7BFF);
  CHECK(floatToHalf(65519.0f) == 0x7BFF); // below the halfway point to 65536
  CHECK(floatToHalf(65520.0f) == 0x7C00); // halfway: ties to even = infinity
  CHECK(floatToHalf(1e10f) == 0x7C00);
  CHECK(floatToHalf(-INFINITY) == 0xFC00);
  CHECK(floatToHalf(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);     // tie, stays even
  CHECK(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02); // tie, up to even
  CHECK(floatToHalf(1.0f + std::ldexp(1.0f, -10)) == 0x3C01);
  CHECK(floatToHalf(std::ldexp(1.0f, -14)) == 0x0400); // smallest normal
  CHECK(floatToHalf(std::ldexp(1.0f, -24)) == 0x0001); // smallest subnormal
  CHECK(floatToHalf(std::ldexp(1.0f, -25)) == 0x0000); // tie to even (0)
  CHECK(floatToHalf(3 * std::ldexp(1.0f, -25)) == 0x0002);
  CHECK(floatToHalf(std::ldexp(1.0f, -30)) == 0x0000);
  uint16_t nan = floatToHalf(NAN);
  CHECK((nan & 0x7C00) == 0x7C00);
  CHECK((nan & 0x03FF) != 0);
}

TEST_CASE("f16 to float and back is the identity on every non-NaN pattern") {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = halfToFloat(static_cast<uint16_t>(h));
    bool isNan = (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0;
    INFO("pattern " << h);
    if (isNan) {
      CHECK(std::isnan(f));
      CHECK(std::isnan(halfToFloat(floatToHalf(f))));
    } else {
      CHECK(floatToHalf(f) == h);
    }
  }
  CHECK(halfToFloat(0x0001) == std::ldexp(1.0f, -24));
  CHECK(halfToFloat(0x7BFF) == 65504.0f);
  CHECK(halfToFloat(0xFC00) == -INFINITY);
}

TEST_CASE("float to bf16 rounds to nearest even") {
  CHECK(floatToBf16(1.0f) == 0x3F80);
  CHECK(floatToBf16(-1.0f) == 0xBF80);
  CHECK(floatToBf16(1.0f + std::ldexp(1.0f, -8)) == 0x3F80);     // tie, stays even
  CHECK(floatToBf16(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3F82); // tie, up to even
  CHECK(floatToBf16(FLT_MAX) == 0x7F80);                          // rounds to infinity
  CHECK(floatToBf16(INFINITY) == 0x7F80);
  uint16_t nan = floatToBf16(NAN);
  CHECK(std::isnan(bf16ToFloat(nan)));
  // A NaN whose payload lives only in the low bits must not become infinity.
  uint32_t lowNan = 0x7F800001u;
  float f;
  std::memcpy(&f, &lowNan, 4);
  CHECK(std::isnan(bf16ToFloat(floatToBf16(f))));
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float v = bf16ToFloat(static_cast<uint16_t>(b));
    if (!std::isnan(v))
      REQUIRE(floatToBf16(v) == b);
  }
}
