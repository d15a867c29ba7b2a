//===- NpyFuzzer.cpp - libFuzzer target: the .npy reader -------------------===//
//
// Any bytes as a .npy file: shardrt_npy_read must return an array or an
// error, never crash, and an array it returns must be self-consistent (its
// byte size is its shape times its dtype size). The reader takes a path, so
// each input is written to an anonymous in-memory file (memfd) and read back
// through /proc/self/fd.
//
//===----------------------------------------------------------------------===//
#include "shardrt.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fd = memfd_create("npy", 0);
  if (fd < 0)
    std::abort();
  for (size_t done = 0; done < size;) {
    ssize_t n = write(fd, data + done, size - done);
    if (n <= 0)
      std::abort();
    done += static_cast<size_t>(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  shardrt_array a{};
  if (shardrt_npy_read(path.c_str(), &a) == SHARDRT_OK) {
    int64_t elements = shardrt_array_numel(&a);
    if (elements < 0 || shardrt_dtype_size(a.dtype) == 0 || (elements > 0 && !a.data))
      std::abort(); // an array the reader accepted must be usable
    shardrt_array_free(&a);
  }
  close(fd);
  return 0;
}
