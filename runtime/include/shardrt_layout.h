/*===- shardrt_layout.h - the ceil layout of one sharded dimension -*- C -*-===*
 *
 * The one definition of how a dimension of n elements splits over k shards,
 * shared by the compiler (sharding/Sharding.h: local types, masks, the
 * planner) and the runtime (scatter, gather, the collectives' blocks), so
 * that the two cannot disagree. Dependency-free C, header-only.
 *
 * Every shard has the padded size s = ceil(n / k); shard i holds the global
 * elements [offset_i, offset_i + valid_i) with offset_i = min(i * s, n) and
 * valid_i = min(n - offset_i, s): the leading shards are full, the trailing
 * ones short or empty. 5 over 4 is 2, 2, 1, 0; 2 over 4 is 1, 1, 0, 0. The
 * valid counts sum to n. One shard (k <= 1) holds everything.
 *
 * Inputs: n >= 0, k >= 1, 0 <= i < k. The arithmetic does not overflow for
 * any n and k that fit in int64_t (ceil is n / k plus one when k does not
 * divide n, never n + k - 1).
 *
 *===----------------------------------------------------------------------===*/
#ifndef SHARDRT_LAYOUT_H
#define SHARDRT_LAYOUT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The padded size of every shard: ceil(n / k). */
static inline int64_t shardrt_shard_size(int64_t n, int64_t k) {
  return k <= 1 ? n : n / k + (n % k != 0 ? 1 : 0);
}

/* Where shard i starts in the global dimension (n for an empty shard). */
static inline int64_t shardrt_shard_offset(int64_t n, int64_t k, int64_t i) {
  int64_t s = shardrt_shard_size(n, k);
  /* Past the last full block the shard is empty. Checked before the product,
   * so i * s <= n never overflows, however many shards there are. */
  if (s == 0 || i > n / s)
    return n;
  return i * s < n ? i * s : n;
}

/* How many elements of shard i are real (the rest is padding). */
static inline int64_t shardrt_shard_valid(int64_t n, int64_t k, int64_t i) {
  int64_t s = shardrt_shard_size(n, k);
  int64_t left = n - shardrt_shard_offset(n, k, i);
  return left < s ? left : s;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SHARDRT_LAYOUT_H */
