//===- Halo.cpp - which neighbour shards a shift reads --------------------===//
#include "sharding/Halo.h"

namespace shardc {

std::vector<HaloPiece> haloPieces(int64_t s, int64_t offset) {
  int64_t k = offset < 0 ? -offset : offset, q = k / s, r = k % s;
  std::vector<HaloPiece> pieces;
  auto add = [&](HaloPiece p) {
    if (p.size > 0)
      pieces.push_back(p);
  };
  if (offset >= 0) {
    add({q + 1, s - r, r});
    add({q, 0, s - r});
  } else {
    add({-q, r, s - r});
    add({-(q + 1), 0, r});
  }
  return pieces;
}

std::string haloReason(int64_t dim, int64_t offset, const HaloPiece &piece) {
  int64_t d = piece.distance < 0 ? -piece.distance : piece.distance;
  // "the previous shard", "the shard 2 after it": each device's neighbour,
  // named from the device that reads.
  std::string from = d == 1 ? (piece.distance < 0 ? "the next shard" : "the previous shard")
                            : "the shard " + std::to_string(d) +
                                  (piece.distance < 0 ? " positions after" : " positions before") +
                                  " its own";
  return "halo exchange: a shift by " + std::to_string(offset) + " along dim " +
         std::to_string(dim) + " makes each device read " + std::to_string(piece.size) +
         " element(s) of dim " + std::to_string(dim) + " from " + from;
}

} // namespace shardc
