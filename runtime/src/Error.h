// Error reporting shared by every part of shardrt.
//
// Each thread keeps its own last-error message (shardrt_last_error()), so
// ranks of a threads world never see each other's messages; the backend copies
// the world's first failure to the caller of shardrt_threads_run.  A failing
// function sets the message and returns the status in one step (`fail`), so no
// error path can forget either half.
#ifndef SHARDRT_SRC_ERROR_H
#define SHARDRT_SRC_ERROR_H

#include "shardrt.h"

#include <cstdint>
#include <string>

namespace shardrt {

/// printf-style formatting into a std::string.
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void setLastError(const std::string &message);
void clearLastError();
const std::string &lastError();

/// Sets this thread's last error and returns `status`.
shardrt_status fail(shardrt_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/// "[0,1,2,3]"; lists longer than `limit` end in ",...".
std::string formatIds(const int64_t *ids, int64_t count, int64_t limit = 32);

} // namespace shardrt

#endif // SHARDRT_SRC_ERROR_H
