// shardrt_array: allocation, size and release.  The array type is plain C so
// host programs can fill one themselves; the checks here are the ones every
// producer (npy, scatter, gather) relies on: a valid dtype, rank within
// SHARDRT_MAX_RANK, non-negative dimensions, and a byte size that fits.
#include "Array.h"

#include "Dtype.h"
#include "Error.h"

#include <cstdlib>
#include <cstring>

namespace shardrt {

int64_t checkedNumel(int32_t rank, const int64_t *shape, size_t elemSize) {
  int64_t n = 1, bytes = 0;
  for (int32_t d = 0; d < rank; ++d) {
    if (shape[d] < 0 || __builtin_mul_overflow(n, shape[d], &n))
      return -1;
  }
  if (__builtin_mul_overflow(n, static_cast<int64_t>(elemSize), &bytes))
    return -1;
  return n;
}

std::string formatShape(int32_t rank, const int64_t *shape) {
  return formatIds(shape, rank < 0 ? 0 : rank, SHARDRT_MAX_RANK);
}

} // namespace shardrt

using namespace shardrt;

extern "C" {

int64_t shardrt_array_numel(const shardrt_array *a) {
  if (!a || a->rank < 0 || a->rank > SHARDRT_MAX_RANK)
    return 0;
  int64_t n = checkedNumel(a->rank, a->shape, 1);
  return n < 0 ? 0 : n;
}

shardrt_status shardrt_array_alloc(shardrt_array *a, int32_t dtype, int32_t rank,
                                   const int64_t *shape) {
  if (!a)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_array_alloc: the array is NULL");
  std::memset(a, 0, sizeof *a);
  if (!isValidDtype(dtype))
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_array_alloc: dtype %d is not a shardrt_dtype",
                dtype);
  if (rank < 0 || rank > SHARDRT_MAX_RANK)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_array_alloc: rank %d is outside 0..%d", rank,
                SHARDRT_MAX_RANK);
  if (rank > 0 && !shape)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_array_alloc: shape is NULL with rank %d", rank);
  size_t es = shardrt_dtype_size(dtype);
  int64_t n = checkedNumel(rank, shape, es);
  if (n < 0)
    return fail(SHARDRT_ERR_ARGUMENT,
                "shardrt_array_alloc: shape %s has a negative dimension or is too large",
                formatShape(rank, shape).c_str());
  void *data = std::calloc(n > 0 ? static_cast<size_t>(n) : 1, es);
  if (!data)
    return fail(SHARDRT_ERR_ARGUMENT, "shardrt_array_alloc: cannot allocate %lld bytes for %s",
                (long long)(n * (int64_t)es), formatShape(rank, shape).c_str());
  a->dtype = dtype;
  a->rank = rank;
  for (int32_t d = 0; d < rank; ++d)
    a->shape[d] = shape[d];
  a->data = data;
  return SHARDRT_OK;
}

void shardrt_array_free(shardrt_array *a) {
  if (!a)
    return;
  std::free(a->data);
  a->data = nullptr;
}

} // extern "C"
