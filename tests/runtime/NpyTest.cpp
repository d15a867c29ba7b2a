// .npy reading and writing: round trips for every dtype NumPy can hold
// (0-d included), files laid out exactly as NumPy writes them, and malformed
// files that must give errors naming the path and the problem.
#include "TestUtil.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sys/stat.h>

using namespace shardrt_test;
using Catch::Contains;

namespace {

std::string readBytes(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), (std::streamsize)bytes.size());
}

/// A version-1.0 file with `dict` as its header, padded like NumPy's.
std::string npyFile(const std::string &dict, const std::string &data, int major = 1) {
  size_t prefix = major == 1 ? 10 : 12;
  size_t len = dict.size() + 1;
  len += (64 - (prefix + len) % 64) % 64;
  std::string out = std::string("\x93NUMPY", 6) + char(major) + '\0';
  for (size_t k = 0; k < prefix - 8; ++k)
    out += char((len >> (8 * k)) & 0xFF);
  out += dict + std::string(len - dict.size() - 1, ' ') + "\n";
  return out + data;
}

std::string le32(float v) { return std::string(reinterpret_cast<const char *>(&v), 4); }

struct Read {
  shardrt_status status;
  shardrt_array array;
  std::string error;
};

Read readNpy(const std::string &path) {
  Read r;
  r.status = shardrt_npy_read(path.c_str(), &r.array);
  r.error = shardrt_last_error();
  return r;
}

} // namespace

TEST_CASE("npy round trip for every dtype and rank 0 to 8") {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {0}, {7}, {2, 3, 4}, {3, 0, 2}, {1, 1, 1, 1, 1, 1, 1, 2}};
  for (int32_t dtype : kAllDtypes) {
    for (const auto &shape : shapes) {
      INFO(shardrt_dtype_name(dtype) << " rank " << shape.size());
      shardrt_array a;
      REQUIRE(shardrt_array_alloc(&a, dtype, (int32_t)shape.size(), shape.data()) == SHARDRT_OK);
      int64_t n = shardrt_array_numel(&a);
      for (int64_t i = 0; i < n; ++i)
        storeValue(a.data, i, dtype, dtype == SHARDRT_BOOL ? i % 3 == 1 : (i * 7 % 13) - 6.5 * (dtype <= SHARDRT_BF16));
      std::string path = tempPath("rt.npy");
      REQUIRE(shardrt_npy_write(path.c_str(), &a) == SHARDRT_OK);

      std::string bytes = readBytes(path);
      REQUIRE(bytes.size() >= 10);
      CHECK(bytes.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
      size_t headerLen = (unsigned char)bytes[8] | ((unsigned char)bytes[9] << 8);
      CHECK((10 + headerLen) % 64 == 0);
      CHECK(bytes[10 + headerLen - 1] == '\n');
      CHECK(bytes.size() == 10 + headerLen + n * shardrt_dtype_size(dtype));
      std::string shapeText = shape.empty() ? "()" : shape.size() == 1 ? "(" + std::to_string(shape[0]) + ",)" : "";
      if (!shapeText.empty())
        CHECK_THAT(bytes.substr(10, headerLen), Contains("'shape': " + shapeText));

      Read r = readNpy(path);
      INFO(r.error);
      REQUIRE(r.status == SHARDRT_OK);
      CHECK(r.array.dtype == dtype);
      CHECK(r.array.rank == (int32_t)shape.size());
      for (size_t d = 0; d < shape.size(); ++d)
        CHECK(r.array.shape[d] == shape[d]);
      CHECK(r.array.data != nullptr);
      CHECK(std::memcmp(r.array.data, a.data, n * shardrt_dtype_size(dtype)) == 0);
      shardrt_array_free(&r.array);
      shardrt_array_free(&a);
      std::remove(path.c_str());
    }
  }
}

TEST_CASE("npy reads and writes bfloat16 as ml_dtypes saves it") {
  // np.save of np.array([1.5, -2.0, 3.25], ml_dtypes.bfloat16), byte for
  // byte: descr '<V2'; np.load returns it as '|V2', which reads alike.
  for (const char *descr : {"<V2", "|V2"}) {
    INFO(descr);
    std::string path = tempPath("bf16.npy");
    std::string dict =
        std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (3,), }";
    std::string header =
        std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict + std::string(117 - dict.size(), ' ') + "\n";
    REQUIRE(header.size() == 128);
    const uint16_t bits[] = {0x3FC0, 0xC000, 0x4050}; // 1.5, -2, 3.25
    writeBytes(path, header + std::string(reinterpret_cast<const char *>(bits), sizeof bits));
    Read r = readNpy(path);
    INFO(r.error);
    REQUIRE(r.status == SHARDRT_OK);
    CHECK(r.array.dtype == SHARDRT_BF16);
    REQUIRE(r.array.rank == 1);
    CHECK(r.array.shape[0] == 3);
    CHECK(std::memcmp(r.array.data, bits, sizeof bits) == 0);

    // Written back as ml_dtypes writes it.
    REQUIRE(shardrt_npy_write(path.c_str(), &r.array) == SHARDRT_OK);
    CHECK_THAT(readBytes(path), Contains("'descr': '<V2'"));
    shardrt_array_free(&r.array);
    std::remove(path.c_str());
  }
}

TEST_CASE("npy reads files laid out as NumPy writes them") {
  std::string path = tempPath("numpy.npy");
  SECTION("np.save of a (2, 3) float32 array, byte for byte") {
    std::string header = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                         "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
                         std::string(58, ' ') + "\n";
    REQUIRE(header.size() == 128);
    std::string data;
    for (int i = 0; i < 6; ++i)
      data += le32(float(i) + 0.5f);
    writeBytes(path, header + data);
    Read r = readNpy(path);
    INFO(r.error);
    REQUIRE(r.status == SHARDRT_OK);
    CHECK(r.array.rank == 2);
    CHECK(r.array.shape[0] == 2);
    CHECK(r.array.shape[1] == 3);
    CHECK(static_cast<float *>(r.array.data)[5] == 5.5f);
    shardrt_array_free(&r.array);

    // And shardrt writes the same bytes.
    shardrt_array a;
    int64_t shape[] = {2, 3};
    REQUIRE(shardrt_array_alloc(&a, SHARDRT_F32, 2, shape) == SHARDRT_OK);
    for (int i = 0; i < 6; ++i)
      static_cast<float *>(a.data)[i] = float(i) + 0.5f;
    REQUIRE(shardrt_npy_write(path.c_str(), &a) == SHARDRT_OK);
    CHECK(readBytes(path) == header + data);
    shardrt_array_free(&a);
  }
  SECTION("versions 2.0 and 3.0, other key orders, quotes and spacing") {
    for (int major : {2, 3}) {
      writeBytes(path, npyFile("{\"shape\":(2,),\"fortran_order\":False,\"descr\":\"<f4\"}",
                               le32(1) + le32(2), major));
      Read r = readNpy(path);
      INFO(r.error);
      REQUIRE(r.status == SHARDRT_OK);
      CHECK(r.array.rank == 1);
      CHECK(r.array.shape[0] == 2);
      CHECK(static_cast<float *>(r.array.data)[1] == 2.0f);
      shardrt_array_free(&r.array);
    }
  }
  SECTION("a 0-d scalar") {
    writeBytes(path, npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                             std::string("\0\0\0\0\0\0\xf0\x3f", 8)));
    Read r = readNpy(path);
    REQUIRE(r.status == SHARDRT_OK);
    CHECK(r.array.rank == 0);
    CHECK(shardrt_array_numel(&r.array) == 1);
    CHECK(static_cast<double *>(r.array.data)[0] == 1.0);
    shardrt_array_free(&r.array);
  }
  SECTION("unsigned values read as unsigned") {
    writeBytes(path, npyFile("{'descr': '<u4', 'fortran_order': False, 'shape': (2,), }",
                             std::string("\xff\xff\xff\xff\x00\x00\x00\x80", 8)));
    Read r = readNpy(path);
    REQUIRE(r.status == SHARDRT_OK);
    CHECK(r.array.dtype == SHARDRT_U32);
    CHECK(loadValue(r.array.data, 0, SHARDRT_U32) == 4294967295.0);
    CHECK(loadValue(r.array.data, 1, SHARDRT_U32) == 2147483648.0);
    shardrt_array_free(&r.array);
  }
  SECTION("16-bit integers, signed and unsigned") {
    writeBytes(path, npyFile("{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }",
                             std::string("\xff\xff\x00\x80", 4)));
    Read r = readNpy(path);
    REQUIRE(r.status == SHARDRT_OK);
    CHECK(r.array.dtype == SHARDRT_I16);
    CHECK(loadValue(r.array.data, 0, SHARDRT_I16) == -1.0);
    CHECK(loadValue(r.array.data, 1, SHARDRT_I16) == -32768.0);
    shardrt_array_free(&r.array);
    writeBytes(path, npyFile("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }",
                             std::string("\xff\xff\x00\x80", 4)));
    r = readNpy(path);
    REQUIRE(r.status == SHARDRT_OK);
    CHECK(r.array.dtype == SHARDRT_U16);
    CHECK(loadValue(r.array.data, 0, SHARDRT_U16) == 65535.0);
    CHECK(loadValue(r.array.data, 1, SHARDRT_U16) == 32768.0);
    shardrt_array_free(&r.array);
  }
  SECTION("bool bytes are normalised to 0 and 1") {
    writeBytes(path, npyFile("{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }",
                             std::string("\x00\x01\x02\xff", 4)));
    Read r = readNpy(path);
    REQUIRE(r.status == SHARDRT_OK);
    const unsigned char *p = static_cast<const unsigned char *>(r.array.data);
    CHECK((p[0] == 0 && p[1] == 1 && p[2] == 1 && p[3] == 1));
    shardrt_array_free(&r.array);
  }
  std::remove(path.c_str());
}

TEST_CASE("malformed npy files give errors naming the file and the problem") {
  std::string path = tempPath("bad.npy");
  const std::string good = npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                                   std::string(24, '\0'));
  struct Case {
    const char *name;
    std::string bytes;
    shardrt_status status;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"empty", "", SHARDRT_ERR_FORMAT, "truncated: 0 bytes is too short"},
      {"bad magic", "\x93NUMPZ\x01\x00" + good.substr(8), SHARDRT_ERR_FORMAT,
       "not a .npy file"},
      {"version 4.0", std::string("\x93NUMPY\x04\x00", 8) + good.substr(8), SHARDRT_ERR_FORMAT,
       ".npy format version 4.0 is not supported"},
      {"fortran order",
       npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", std::string(24, '\0')),
       SHARDRT_ERR_FORMAT, "fortran_order is True; shardrt reads C-order arrays only"},
      {"big-endian",
       npyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", std::string(24, '\0')),
       SHARDRT_ERR_FORMAT, "dtype '>f4' is big-endian; shardrt reads little-endian .npy files"},
      {"complex", npyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "abcdefgh"),
       SHARDRT_ERR_FORMAT, "dtype '<c8' is not supported"},
      {"structured",
       npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", "12345678"),
       SHARDRT_ERR_FORMAT, "structured dtypes"},
      {"missing key", npyFile("{'descr': '<f4', 'fortran_order': False, }", ""),
       SHARDRT_ERR_FORMAT, "the header lacks key 'shape'"},
      {"extra key",
       npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", "1234"),
       SHARDRT_ERR_FORMAT, "unexpected key 'x'"},
      {"not a dict", npyFile("descr", ""), SHARDRT_ERR_FORMAT, "malformed header"},
      {"rank 9",
       npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", "1234"),
       SHARDRT_ERR_FORMAT, "more than 8 dimensions"},
      {"negative dim",
       npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", ""),
       SHARDRT_ERR_FORMAT, "expected a non-negative integer"},
      {"huge shape",
       npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", ""),
       SHARDRT_ERR_FORMAT, "is too large"},
      {"truncated data", good.substr(0, good.size() - 4), SHARDRT_ERR_FORMAT,
       "truncated: shape [2,3] of f32 needs 24 data bytes but the file has 20"},
      {"truncated header", good.substr(0, 40), SHARDRT_ERR_FORMAT,
       "truncated: the header claims"},
  };
  for (const Case &c : cases) {
    INFO(c.name);
    writeBytes(path, c.bytes);
    Read r = readNpy(path);
    CHECK(r.status == c.status);
    CHECK_THAT(r.error, Catch::StartsWith(path + ": "));
    CHECK_THAT(r.error, Contains(c.message));
    CHECK(r.array.data == nullptr);
  }

  // Every truncation of a valid file is an error, never a crash.
  for (size_t len = 0; len < good.size(); ++len) {
    INFO("truncated to " << len << " bytes");
    writeBytes(path, good.substr(0, len));
    Read r = readNpy(path);
    CHECK(r.status == SHARDRT_ERR_FORMAT);
    CHECK(r.array.data == nullptr);
  }
  std::remove(path.c_str());

  Read missing = readNpy(path + ".missing");
  CHECK(missing.status == SHARDRT_ERR_IO);
  CHECK_THAT(missing.error, Contains(path + ".missing: cannot open"));
  std::string dir = tempPath("dir.npy");
  mkdir(dir.c_str(), 0700);
  Read directory = readNpy(dir);
  CHECK(directory.status == SHARDRT_ERR_IO);
  CHECK_THAT(directory.error, Contains("not a regular file"));
  rmdir(dir.c_str());
}

TEST_CASE("npy write errors") {
  int64_t shape[] = {3};
  shardrt_array a;
  REQUIRE(shardrt_array_alloc(&a, SHARDRT_F32, 1, shape) == SHARDRT_OK);
  std::string path = tempPath("bad-dtype.npy");
  a.dtype = 99;
  CHECK(shardrt_npy_write(path.c_str(), &a) == SHARDRT_ERR_ARGUMENT);
  CHECK_THAT(shardrt_last_error(), Contains("dtype 99 is not a shardrt_dtype"));
  struct stat st;
  CHECK(stat(path.c_str(), &st) != 0); // nothing written
  a.dtype = SHARDRT_F32;

  CHECK(shardrt_npy_write("/nonexistent-dir/x.npy", &a) == SHARDRT_ERR_IO);
  CHECK_THAT(shardrt_last_error(), Contains("/nonexistent-dir/x.npy: cannot open for writing"));
  void *data = a.data;
  a.data = nullptr;
  CHECK(shardrt_npy_write(path.c_str(), &a) == SHARDRT_ERR_ARGUMENT);
  a.data = data;
  shardrt_array_free(&a);
}

TEST_CASE("array allocation checks its arguments") {
  shardrt_array a;
  int64_t shape[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  CHECK(shardrt_array_alloc(&a, SHARDRT_F32, 9, shape) == SHARDRT_ERR_ARGUMENT);
  CHECK(a.data == nullptr);
  CHECK(shardrt_array_alloc(&a, 42, 1, shape) == SHARDRT_ERR_ARGUMENT);
  int64_t negative[] = {2, -1};
  CHECK(shardrt_array_alloc(&a, SHARDRT_F32, 2, negative) == SHARDRT_ERR_ARGUMENT);
  CHECK_THAT(shardrt_last_error(), Contains("[2,-1]"));
  REQUIRE(shardrt_array_alloc(&a, SHARDRT_I64, 0, nullptr) == SHARDRT_OK);
  CHECK(shardrt_array_numel(&a) == 1);
  CHECK(static_cast<int64_t *>(a.data)[0] == 0);
  shardrt_array_free(&a);
  CHECK(a.data == nullptr);
}
