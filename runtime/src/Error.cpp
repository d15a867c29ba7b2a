// Thread-local last-error messages and the formatting helpers used to build
// them.  Invariant: shardrt_last_error() never returns NULL and the pointer
// stays valid until the next error is set on the same thread.
#include "Error.h"

#include <cstdarg>
#include <cstdio>
#include <vector>

namespace shardrt {
namespace {
thread_local std::string tlsLastError;

std::string vformat(const char *fmt, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  if (n <= 0)
    return std::string();
  std::vector<char> buf(static_cast<size_t>(n) + 1);
  std::vsnprintf(buf.data(), buf.size(), fmt, args);
  return std::string(buf.data(), static_cast<size_t>(n));
}
} // namespace

std::string format(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string s = vformat(fmt, args);
  va_end(args);
  return s;
}

void setLastError(const std::string &message) { tlsLastError = message; }
void clearLastError() { tlsLastError.clear(); }
const std::string &lastError() { return tlsLastError; }

shardrt_status fail(shardrt_status status, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  tlsLastError = vformat(fmt, args);
  va_end(args);
  return status;
}

std::string formatIds(const int64_t *ids, int64_t count, int64_t limit) {
  std::string s = "[";
  for (int64_t i = 0; i < count; ++i) {
    if (i == limit) {
      s += ",...";
      break;
    }
    if (i)
      s += ",";
    s += std::to_string(ids[i]);
  }
  return s + "]";
}

} // namespace shardrt

extern "C" const char *shardrt_last_error(void) { return shardrt::lastError().c_str(); }
