// .npy files: read (format 1.0, 2.0, 3.0) and write (1.0, or 2.0 when the
// header would not fit), C order, little-endian, the dtypes of kDescrs only.
//
// Invariants: a malformed or truncated file is an error that names the path
// and what is wrong, never a crash or a silent reinterpretation; every size is
// checked against the file size before anything is allocated or read.  Written
// headers are padded so the data starts at a multiple of 64 bytes, as NumPy
// does.  bool data read from a file is normalised to 0/1 (the shardrt_dtype
// contract), since NumPy may store any non-zero byte as True.
#include "Array.h"
#include "Dtype.h"
#include "Error.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

namespace shardrt {
namespace {

struct NpyDescr {
  const char *descr;
  int32_t dtype;
};
// NumPy has no bfloat16 of its own: ml_dtypes' bfloat16 (JAX's) saves as
// '<V2', a 2-byte void, and np.load gives it back as '|V2', which
// `.view(ml_dtypes.bfloat16)` turns into bfloat16 again. No other 2-byte
// type saves as a void, so both read as bf16, and bf16 writes as '<V2'
// (the first descr of a dtype is the one written).
constexpr NpyDescr kDescrs[] = {
    {"<f4", SHARDRT_F32}, {"<f8", SHARDRT_F64}, {"<f2", SHARDRT_F16},  {"<V2", SHARDRT_BF16},
    {"|V2", SHARDRT_BF16}, {"<i8", SHARDRT_I64}, {"<i4", SHARDRT_I32}, {"<i2", SHARDRT_I16},
    {"|i1", SHARDRT_I8},  {"<u8", SHARDRT_U64}, {"<u4", SHARDRT_U32}, {"<u2", SHARDRT_U16},
    {"|u1", SHARDRT_U8},  {"|b1", SHARDRT_BOOL},
};
constexpr const char *kSupported =
    "<f4, <f8, <f2, <V2 (bfloat16, as ml_dtypes saves it), <i8, <i4, <i2, |i1, <u8, <u4, <u2, "
    "|u1 and |b1";
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

int32_t dtypeForDescr(const std::string &descr) {
  for (const NpyDescr &d : kDescrs)
    if (descr == d.descr)
      return d.dtype;
  return -1;
}

const char *descrForDtype(int32_t dtype) {
  for (const NpyDescr &d : kDescrs)
    if (d.dtype == dtype)
      return d.descr;
  return nullptr;
}

struct Header {
  std::string descr;
  bool fortranOrder = false;
  int32_t rank = 0;
  int64_t shape[SHARDRT_MAX_RANK] = {};
};

/// Parses the header dict, a Python literal such as
///   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
/// Only the subset NumPy writes is accepted; anything else is an error with
/// the offset where parsing stopped.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : s(text) {}

  /// Empty on success, else what is wrong.
  std::string parse(Header *h) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skipWs();
    if (!eat('{'))
      return error("expected '{' to open the header dict");
    while (true) {
      skipWs();
      if (eat('}'))
        break;
      std::string key;
      if (!parseString(&key))
        return error("expected a quoted key");
      skipWs();
      if (!eat(':'))
        return error("expected ':' after key '" + key + "'");
      skipWs();
      if (key == "descr") {
        if (haveDescr)
          return error("key 'descr' appears twice");
        haveDescr = true;
        if (i < s.size() && s[i] == '[')
          return "structured dtypes (a list 'descr') are not supported; shardrt reads " +
                 std::string(kSupported);
        if (!parseString(&h->descr))
          return error("expected a quoted string for 'descr'");
      } else if (key == "fortran_order") {
        if (haveOrder)
          return error("key 'fortran_order' appears twice");
        haveOrder = true;
        if (eatWord("True"))
          h->fortranOrder = true;
        else if (eatWord("False"))
          h->fortranOrder = false;
        else
          return error("expected True or False for 'fortran_order'");
      } else if (key == "shape") {
        if (haveShape)
          return error("key 'shape' appears twice");
        haveShape = true;
        std::string bad = parseShape(h);
        if (!bad.empty())
          return bad;
      } else {
        return error("unexpected key '" + key + "'");
      }
      skipWs();
      if (eat(','))
        continue;
      skipWs();
      if (eat('}'))
        break;
      return error("expected ',' or '}'");
    }
    skipWs();
    if (i != s.size())
      return error("unexpected text after the header dict");
    if (!haveDescr || !haveOrder || !haveShape)
      return std::string("the header lacks key '") +
             (!haveDescr ? "descr" : !haveOrder ? "fortran_order" : "shape") + "'";
    return std::string();
  }

private:
  std::string error(const std::string &what) const {
    return format("malformed header: %s at offset %zu", what.c_str(), i);
  }
  void skipWs() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
      ++i;
  }
  bool eat(char c) {
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool eatWord(const char *w) {
    size_t n = std::strlen(w);
    if (s.compare(i, n, w) != 0)
      return false;
    i += n;
    return true;
  }
  bool parseString(std::string *out) {
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"'))
      return false;
    char quote = s[i];
    size_t end = s.find(quote, i + 1);
    if (end == std::string::npos)
      return false;
    *out = s.substr(i + 1, end - i - 1);
    i = end + 1;
    return true;
  }
  std::string parseShape(Header *h) {
    if (!eat('('))
      return error("expected '(' to open 'shape'");
    h->rank = 0;
    while (true) {
      skipWs();
      if (eat(')'))
        return std::string();
      if (i >= s.size() || s[i] < '0' || s[i] > '9')
        return error("expected a non-negative integer in 'shape'");
      int64_t v = 0;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s[i] - '0', &v))
          return error("a dimension in 'shape' is too large");
        ++i;
      }
      eat('L'); // Python 2 longs
      if (h->rank == SHARDRT_MAX_RANK)
        return format("shape has more than %d dimensions (SHARDRT_MAX_RANK)", SHARDRT_MAX_RANK);
      h->shape[h->rank++] = v;
      skipWs();
      if (eat(','))
        continue;
      skipWs();
      if (eat(')'))
        return std::string();
      return error("expected ',' or ')' in 'shape'");
    }
  }

  const std::string &s;
  size_t i = 0;
};

struct FileCloser {
  void operator()(FILE *f) const { std::fclose(f); }
};
using File = std::unique_ptr<FILE, FileCloser>;

uint64_t readLittle(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int k = bytes - 1; k >= 0; --k)
    v = (v << 8) | p[k];
  return v;
}

shardrt_status readNpy(const char *path, shardrt_array *out) {
  File f(std::fopen(path, "rb"));
  if (!f)
    return fail(SHARDRT_ERR_IO, "%s: cannot open: %s", path, std::strerror(errno));
  struct stat st;
  if (fstat(fileno(f.get()), &st) != 0)
    return fail(SHARDRT_ERR_IO, "%s: cannot stat: %s", path, std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return fail(SHARDRT_ERR_IO, "%s: not a regular file", path);
  const int64_t fileSize = st.st_size;

  unsigned char prefix[12];
  if (fileSize < 10)
    return fail(SHARDRT_ERR_FORMAT, "%s: truncated: %lld bytes is too short for a .npy file",
                path, (long long)fileSize);
  if (std::fread(prefix, 1, 10, f.get()) != 10)
    return fail(SHARDRT_ERR_IO, "%s: cannot read the header: %s", path, std::strerror(errno));
  if (std::memcmp(prefix, kMagic, kMagicLen) != 0)
    return fail(SHARDRT_ERR_FORMAT, "%s: not a .npy file (it does not start with \\x93NUMPY)",
                path);
  const int major = prefix[6], minor = prefix[7];
  int64_t prefixLen, headerLen;
  if (major == 1 && minor == 0) {
    prefixLen = 10;
    headerLen = static_cast<int64_t>(readLittle(prefix + 8, 2));
  } else if ((major == 2 || major == 3) && minor == 0) {
    prefixLen = 12;
    if (fileSize < prefixLen)
      return fail(SHARDRT_ERR_FORMAT, "%s: truncated: %lld bytes is too short for a .npy %d.0 "
                  "header", path, (long long)fileSize, major);
    if (std::fread(prefix + 10, 1, 2, f.get()) != 2)
      return fail(SHARDRT_ERR_IO, "%s: cannot read the header: %s", path, std::strerror(errno));
    headerLen = static_cast<int64_t>(readLittle(prefix + 8, 4));
  } else {
    return fail(SHARDRT_ERR_FORMAT,
                "%s: .npy format version %d.%d is not supported (shardrt reads 1.0, 2.0 and 3.0)",
                path, major, minor);
  }
  if (headerLen > fileSize - prefixLen)
    return fail(SHARDRT_ERR_FORMAT,
                "%s: truncated: the header claims %lld bytes but only %lld follow", path,
                (long long)headerLen, (long long)(fileSize - prefixLen));
  std::string text(static_cast<size_t>(headerLen), '\0');
  if (headerLen > 0 && std::fread(&text[0], 1, text.size(), f.get()) != text.size())
    return fail(SHARDRT_ERR_IO, "%s: cannot read the header: %s", path, std::strerror(errno));

  Header h;
  std::string bad = HeaderParser(text).parse(&h);
  if (!bad.empty())
    return fail(SHARDRT_ERR_FORMAT, "%s: %s", path, bad.c_str());
  int32_t dtype = dtypeForDescr(h.descr);
  if (dtype < 0) {
    if (!h.descr.empty() && h.descr[0] == '>' && dtypeForDescr("<" + h.descr.substr(1)) >= 0)
      return fail(SHARDRT_ERR_FORMAT,
                  "%s: dtype '%s' is big-endian; shardrt reads little-endian .npy files", path,
                  h.descr.c_str());
    return fail(SHARDRT_ERR_FORMAT, "%s: dtype '%s' is not supported; shardrt reads %s", path,
                h.descr.c_str(), kSupported);
  }
  if (h.fortranOrder)
    return fail(SHARDRT_ERR_FORMAT,
                "%s: fortran_order is True; shardrt reads C-order arrays only "
                "(save with np.ascontiguousarray)",
                path);
  const size_t es = shardrt_dtype_size(dtype);
  const int64_t numel = checkedNumel(h.rank, h.shape, es);
  if (numel < 0)
    return fail(SHARDRT_ERR_FORMAT, "%s: shape %s is too large", path,
                formatShape(h.rank, h.shape).c_str());
  const int64_t dataBytes = numel * static_cast<int64_t>(es);
  const int64_t available = fileSize - prefixLen - headerLen;
  if (available < dataBytes)
    return fail(SHARDRT_ERR_FORMAT,
                "%s: truncated: shape %s of %s needs %lld data bytes but the file has %lld",
                path, formatShape(h.rank, h.shape).c_str(), shardrt_dtype_name(dtype),
                (long long)dataBytes, (long long)available);

  if (shardrt_status s = shardrt_array_alloc(out, dtype, h.rank, h.shape))
    return fail(s, "%s: %s", path, lastError().c_str());
  if (dataBytes > 0 &&
      std::fread(out->data, 1, static_cast<size_t>(dataBytes), f.get()) !=
          static_cast<size_t>(dataBytes)) {
    shardrt_array_free(out);
    return fail(SHARDRT_ERR_IO, "%s: cannot read %lld data bytes: %s", path,
                (long long)dataBytes, std::strerror(errno));
  }
  if (dtype == SHARDRT_BOOL) {
    unsigned char *p = static_cast<unsigned char *>(out->data);
    for (int64_t k = 0; k < numel; ++k)
      p[k] = p[k] != 0;
  }
  return SHARDRT_OK;
}

/// The header block (magic through the padded dict), or empty if `a` cannot
/// be described.
std::string makeHeader(const char *descr, const shardrt_array &a) {
  std::string dict = format("{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int32_t d = 0; d < a.rank; ++d)
    dict += (d ? ", " : "") + std::to_string(a.shape[d]);
  dict += a.rank == 1 ? ",), }" : "), }";
  for (int major : {1, 2}) {
    size_t prefixLen = major == 1 ? 10 : 12;
    size_t unpadded = prefixLen + dict.size() + 1; // + '\n'
    size_t headerLen = dict.size() + (64 - unpadded % 64) % 64 + 1;
    if (major == 1 && headerLen > 0xFFFF)
      continue;
    std::string out(kMagic, kMagicLen);
    out += static_cast<char>(major);
    out += '\0';
    for (size_t k = 0; k < prefixLen - 8; ++k)
      out += static_cast<char>((headerLen >> (8 * k)) & 0xFF);
    out += dict;
    out.append(headerLen - dict.size() - 1, ' ');
    out += '\n';
    return out;
  }
  return std::string();
}

shardrt_status writeNpy(const char *path, const shardrt_array *a) {
  if (!isValidDtype(a->dtype))
    return fail(SHARDRT_ERR_ARGUMENT, "%s: dtype %d is not a shardrt_dtype", path, a->dtype);
  const char *descr = descrForDtype(a->dtype);
  if (!descr) // every dtype has one (kDescrs); a new dtype must add its own
    return fail(SHARDRT_ERR_ARGUMENT, "%s: %s has no .npy dtype", path,
                shardrt_dtype_name(a->dtype));
  if (a->rank < 0 || a->rank > SHARDRT_MAX_RANK)
    return fail(SHARDRT_ERR_ARGUMENT, "%s: rank %d is outside 0..%d", path, a->rank,
                SHARDRT_MAX_RANK);
  const size_t es = shardrt_dtype_size(a->dtype);
  const int64_t numel = checkedNumel(a->rank, a->shape, es);
  if (numel < 0)
    return fail(SHARDRT_ERR_ARGUMENT, "%s: shape %s has a negative dimension or is too large",
                path, formatShape(a->rank, a->shape).c_str());
  const size_t dataBytes = static_cast<size_t>(numel) * es;
  if (dataBytes > 0 && !a->data)
    return fail(SHARDRT_ERR_ARGUMENT, "%s: the array's data is NULL", path);
  std::string header = makeHeader(descr, *a);

  File f(std::fopen(path, "wb"));
  if (!f)
    return fail(SHARDRT_ERR_IO, "%s: cannot open for writing: %s", path, std::strerror(errno));
  bool ok = std::fwrite(header.data(), 1, header.size(), f.get()) == header.size() &&
            (dataBytes == 0 || std::fwrite(a->data, 1, dataBytes, f.get()) == dataBytes);
  int err = errno;
  ok = std::fclose(f.release()) == 0 && ok;
  if (!ok) {
    err = err ? err : errno;
    std::remove(path); // no half-written file that a later read would misjudge
    return fail(SHARDRT_ERR_IO, "%s: cannot write: %s", path, std::strerror(err));
  }
  return SHARDRT_OK;
}

} // namespace
} // namespace shardrt

using namespace shardrt;

extern "C" {

shardrt_status shardrt_npy_read(const char *path, shardrt_array *out) {
  if (!out)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_npy_read: out is NULL");
  std::memset(out, 0, sizeof *out);
  if (!path)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_npy_read: path is NULL");
  try {
    return readNpy(path, out);
  } catch (const std::bad_alloc &) {
    shardrt_array_free(out);
    return fail(SHARDRT_ERR_IO, "%s: out of memory while reading", path);
  }
}

shardrt_status shardrt_npy_write(const char *path, const shardrt_array *a) {
  if (!path)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_npy_write: path is NULL");
  if (!a)
    return fail(SHARDRT_ERR_ARGUMENT, "%s: shardrt_npy_write: the array is NULL", path);
  try {
    return writeNpy(path, a);
  } catch (const std::bad_alloc &) {
    return fail(SHARDRT_ERR_IO, "%s: out of memory while writing", path);
  }
}

} // extern "C"
