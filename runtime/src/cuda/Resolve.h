// Filling an entry-point table from a library opened with dlopen: the
// driver's (Driver.cpp) and NCCL's (Nccl.cpp).
#ifndef SHARDRT_SRC_CUDA_RESOLVE_H
#define SHARDRT_SRC_CUDA_RESOLVE_H

#include <dlfcn.h>

#include <string>

namespace shardrt::cuda {

/// Resolves `name` in `library` into `slot`; false, and `missing` set to
/// the first name not found, when it is absent.
template <typename Fn>
bool resolve(void *library, const char *name, Fn *&slot, std::string &missing) {
  slot = reinterpret_cast<Fn *>(dlsym(library, name));
  if (!slot && missing.empty())
    missing = name;
  return slot != nullptr;
}

} // namespace shardrt::cuda

#endif // SHARDRT_SRC_CUDA_RESOLVE_H
