// Per-call scratch arrays on the collective paths: one value per group
// member or world rank. Groups and worlds are usually small, and a heap
// allocation is a visible part of a small all_reduce, so up to N values
// live on the stack.
#ifndef SHARDRT_SRC_SMALLARRAY_H
#define SHARDRT_SRC_SMALLARRAY_H

#include <cstddef>
#include <vector>

namespace shardrt {

/// `n` values of T (uninitialized when n <= N), on the stack up to N.
template <typename T, size_t N> class SmallArray {
public:
  explicit SmallArray(size_t n) : heap(n > N ? n : 0), ptr(n > N ? heap.data() : local) {}
  SmallArray(const SmallArray &) = delete;
  SmallArray &operator=(const SmallArray &) = delete;

  T *data() { return ptr; }
  T &operator[](size_t i) { return ptr[i]; }

private:
  T local[N];
  std::vector<T> heap;
  T *ptr;
};

} // namespace shardrt

#endif // SHARDRT_SRC_SMALLARRAY_H
