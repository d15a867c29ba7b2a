//===- npy_tool.cpp - write and check .npy files for the CLI tests --------===//
//
// The CLI tests build their inputs and read back shardc's outputs with this
// helper instead of Python (NumPy is not guaranteed where the tests run). It
// goes through shardrt's own npy reader and writer and its dtype conversions.
//
//   npy_tool write PATH DTYPE DIMS [V ...]
//       DIMS is comma-separated ("8,2"), or "scalar" for rank 0. With no V the
//       array is zero; with one V every element is V; otherwise exactly numel
//       values, row-major. DTYPE: f32 f64 bf16 i64 i32 i16 i8 u64 u32 u16 u8 bool.
//   npy_tool check PATH DTYPE DIMS V ... [--tol T]
//       Exit 0 when the file has that dtype and shape and every element is
//       within T (default 1e-5, absolute + relative) of V; else print what
//       differs and exit 1.
//   npy_tool print PATH
//       "f32 (2,): -5.25 -0.75"
//
//===----------------------------------------------------------------------===//
#include "runtime/src/Dtype.h"
#include "shardrt.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int usage() {
  std::fprintf(stderr, "usage: npy_tool write PATH DTYPE DIMS [V ...]\n"
                       "       npy_tool check PATH DTYPE DIMS V ... [--tol T]\n"
                       "       npy_tool print PATH\n");
  return 2;
}

bool parseDims(const std::string &text, std::vector<int64_t> &dims) {
  dims.clear();
  if (text == "scalar")
    return true;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos
                                                                      : comma - start);
    char *end = nullptr;
    long long v = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || v < 0)
      return false;
    dims.push_back(v);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return dims.size() <= SHARDRT_MAX_RANK;
}

double get(const shardrt_array &a, int64_t i) {
  return shardrt::isValidDtype(a.dtype) ? shardrt::loadAsDouble(a.data, i, a.dtype) : NAN;
}

bool set(shardrt_array &a, int64_t i, double v) {
  switch (a.dtype) {
  case SHARDRT_F32: static_cast<float *>(a.data)[i] = static_cast<float>(v); return true;
  case SHARDRT_F64: static_cast<double *>(a.data)[i] = v; return true;
  case SHARDRT_I64: static_cast<int64_t *>(a.data)[i] = static_cast<int64_t>(v); return true;
  case SHARDRT_I32: static_cast<int32_t *>(a.data)[i] = static_cast<int32_t>(v); return true;
  case SHARDRT_I8: static_cast<int8_t *>(a.data)[i] = static_cast<int8_t>(v); return true;
  case SHARDRT_BOOL: static_cast<uint8_t *>(a.data)[i] = v != 0; return true;
  // Negative values wrap as the signed integer's cast would.
  case SHARDRT_U8: static_cast<uint8_t *>(a.data)[i] = static_cast<uint8_t>(static_cast<int64_t>(v)); return true;
  case SHARDRT_U32: static_cast<uint32_t *>(a.data)[i] = static_cast<uint32_t>(static_cast<int64_t>(v)); return true;
  case SHARDRT_I16: static_cast<int16_t *>(a.data)[i] = static_cast<int16_t>(static_cast<int64_t>(v)); return true;
  case SHARDRT_U16: static_cast<uint16_t *>(a.data)[i] = static_cast<uint16_t>(static_cast<int64_t>(v)); return true;
  case SHARDRT_U64:
    static_cast<uint64_t *>(a.data)[i] =
        v < 0 ? static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
    return true;
  case SHARDRT_BF16:
    static_cast<uint16_t *>(a.data)[i] = shardrt::floatToBf16(static_cast<float>(v));
    return true;
  default: return false;
  }
}

std::string shapeString(const int64_t *shape, int rank) {
  std::string s = "(";
  for (int i = 0; i < rank; ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]) + (rank == 1 ? "," : "");
  return s + ")";
}

int write(int argc, char **argv) {
  if (argc < 5)
    return usage();
  const char *path = argv[2];
  int32_t dtype = shardrt_dtype_from_name(argv[3]);
  std::vector<int64_t> dims;
  if (dtype < 0 || !parseDims(argv[4], dims)) {
    std::fprintf(stderr, "npy_tool: bad dtype '%s' or dims '%s'\n", argv[3], argv[4]);
    return 2;
  }
  shardrt_array a{};
  if (shardrt_array_alloc(&a, dtype, static_cast<int32_t>(dims.size()), dims.data()) !=
      SHARDRT_OK) {
    std::fprintf(stderr, "npy_tool: %s\n", shardrt_last_error());
    return 1;
  }
  int64_t n = shardrt_array_numel(&a);
  int nv = argc - 5;
  if (nv != 0 && nv != 1 && nv != n) {
    std::fprintf(stderr, "npy_tool: %d values for %lld elements\n", nv,
                 static_cast<long long>(n));
    shardrt_array_free(&a);
    return 2;
  }
  for (int64_t i = 0; i < n && nv > 0; ++i)
    set(a, i, std::strtod(argv[5 + (nv == 1 ? 0 : i)], nullptr));
  shardrt_status st = shardrt_npy_write(path, &a);
  shardrt_array_free(&a);
  if (st != SHARDRT_OK) {
    std::fprintf(stderr, "npy_tool: writing %s: %s\n", path, shardrt_last_error());
    return 1;
  }
  return 0;
}

int check(int argc, char **argv) {
  if (argc < 5)
    return usage();
  const char *path = argv[2];
  double tol = 1e-5;
  std::vector<double> expected;
  for (int i = 5; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tol") == 0 && i + 1 < argc) {
      tol = std::strtod(argv[++i], nullptr);
      continue;
    }
    expected.push_back(std::strtod(argv[i], nullptr));
  }
  std::vector<int64_t> dims;
  if (!parseDims(argv[4], dims))
    return usage();
  shardrt_array a{};
  if (shardrt_npy_read(path, &a) != SHARDRT_OK) {
    std::fprintf(stderr, "npy_tool: reading %s: %s\n", path, shardrt_last_error());
    return 1;
  }
  int rc = 0;
  const char *dtype = shardrt_dtype_name(a.dtype);
  bool sameShape = a.rank == static_cast<int32_t>(dims.size());
  for (int i = 0; sameShape && i < a.rank; ++i)
    sameShape = a.shape[i] == dims[i];
  int64_t n = shardrt_array_numel(&a);
  if (!dtype || std::strcmp(dtype, argv[3]) != 0) {
    std::fprintf(stderr, "%s: dtype %s, expected %s\n", path, dtype ? dtype : "?", argv[3]);
    rc = 1;
  } else if (!sameShape) {
    std::fprintf(stderr, "%s: shape %s, expected %s\n", path,
                 shapeString(a.shape, a.rank).c_str(),
                 shapeString(dims.data(), static_cast<int>(dims.size())).c_str());
    rc = 1;
  } else if (static_cast<int64_t>(expected.size()) != n) {
    std::fprintf(stderr, "%s: %lld elements, %zu expected values given\n", path,
                 static_cast<long long>(n), expected.size());
    rc = 1;
  } else {
    for (int64_t i = 0; i < n; ++i) {
      double v = get(a, i), e = expected[i];
      if (!(std::fabs(v - e) <= tol + tol * std::fabs(e))) {
        std::fprintf(stderr, "%s: element %lld is %.9g, expected %.9g (tolerance %g)\n", path,
                     static_cast<long long>(i), v, e, tol);
        rc = 1;
      }
    }
  }
  shardrt_array_free(&a);
  return rc;
}

int print(int argc, char **argv) {
  if (argc != 3)
    return usage();
  shardrt_array a{};
  if (shardrt_npy_read(argv[2], &a) != SHARDRT_OK) {
    std::fprintf(stderr, "npy_tool: reading %s: %s\n", argv[2], shardrt_last_error());
    return 1;
  }
  const char *dtype = shardrt_dtype_name(a.dtype);
  std::printf("%s %s:", dtype ? dtype : "?", shapeString(a.shape, a.rank).c_str());
  for (int64_t i = 0; i < shardrt_array_numel(&a); ++i)
    std::printf(" %.9g", get(a, i));
  std::printf("\n");
  shardrt_array_free(&a);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  std::string cmd = argv[1];
  if (cmd == "write")
    return write(argc, argv);
  if (cmd == "check")
    return check(argc, argv);
  if (cmd == "print")
    return print(argc, argv);
  return usage();
}
