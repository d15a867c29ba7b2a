//===- Halo.h - which neighbour shards a shift reads ------------*- C++ -*-===//
//
// A shift by `offset` along a dim split into shards of s elements (ceil
// layout) gives each shard j, in local coordinates, y[t] = x_global[j*s + t
// - offset]. With |offset| = q*s + r that is two contiguous pieces, each
// read whole from one shard:
//
//   offset > 0:  y[0, r)   <- shard j-q-1, local [s-r, s)
//                y[r, s)   <- shard j-q,   local [0, s-r)
//   offset < 0:  y[0, s-r) <- shard j+q,   local [r, s)
//                y[s-r, s) <- shard j+q+1, local [0, r)
//
// A piece from distance 0 is the shard's own data (no communication); any
// other is one collective permute of the piece between group members that
// far apart. Sources outside the array (the edge, a device with no such
// neighbour, the padding of a short shard) are not handled here: the caller
// masks by global index. Shared by global-to-local (which emits the pieces)
// and the report (which lists their permutes before they exist).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SHARDING_HALO_H
#define SHARDC_SHARDING_HALO_H

#include <cstdint>
#include <string>
#include <vector>

namespace shardc {

struct HaloPiece {
  /// Which shard it comes from: j - distance (so positive = an earlier shard).
  int64_t distance;
  /// Its elements in the source shard's local coordinates: [start, start + size).
  int64_t start, size;
};

/// The non-empty pieces of one shard's result, in result order (their sizes
/// sum to s). Requires s > 0.
std::vector<HaloPiece> haloPieces(int64_t s, int64_t offset);

/// Why a piece is exchanged, for the collective's `reason` and the report.
std::string haloReason(int64_t dim, int64_t offset, const HaloPiece &piece);

} // namespace shardc

#endif // SHARDC_SHARDING_HALO_H
