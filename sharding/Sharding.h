//===- Sharding.h - IR-free model of meshes and shardings -------*- C++ -*-===//
//
// The vocabulary every shardc phase shares, in plain C++ so that the
// propagation core and the reshard planner can be unit-tested without IR.
//
//   Mesh          named axes with sizes, e.g. ["data"=2, "model"=4]; a device's
//                 coordinates follow axis order and its id is row-major.
//   DimSharding   the mesh axes (indices into the mesh) that split one tensor
//                 dimension, major to minor; `open` dims may still be extended
//                 by propagation, closed ones may not.
//   TensorSharding one DimSharding per dimension plus the *pending* (unreduced)
//                 axes: the value is a partial sum/max/min/prod over them and
//                 each device holds one partial.
//
// Invariants (checked by validate()): every axis index is in range; no axis
// appears twice in one TensorSharding, whether in dims or pending. Shard sizes
// follow the ceil layout: a dim of size n over k shards has shards of
// ceil(n/k), the trailing ones short or empty.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SHARDING_SHARDING_H
#define SHARDC_SHARDING_SHARDING_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardc {

/// What a pending (unreduced) value still needs combining with.
enum class Reduction { Sum, Max, Min, Prod };

const char *reductionName(Reduction r);

struct Mesh {
  std::vector<std::string> axes;
  std::vector<int64_t> sizes;

  /// Index of the axis called `name`, or -1.
  int indexOf(const std::string &name) const;
  int64_t deviceCount() const;
  /// Coordinates of device `id` (row-major over axes).
  std::vector<int64_t> coords(int64_t id) const;
  int64_t deviceId(const std::vector<int64_t> &coords) const;
  /// Product of the sizes of `axisList`.
  int64_t product(const std::vector<int> &axisList) const;
  /// The device groups that vary only along `axisList`: one group per
  /// combination of the other coordinates, in increasing device order; inside
  /// a group, members are ordered row-major over `axisList` as given (major
  /// first), which is the order their shards concatenate in.
  std::vector<std::vector<int64_t>> groups(const std::vector<int> &axisList) const;
  /// Position of `device` within its group over `axisList` (row-major).
  int64_t indexInGroup(int64_t device, const std::vector<int> &axisList) const;
  std::string str() const; // ["data"=4, "model"=2]
};

/// Whether axis list `a` is a prefix of `b` (a dim split over `b` is split
/// over `a` first: it holds what `a` asks).
bool isPrefix(const std::vector<int> &a, const std::vector<int> &b);

struct DimSharding {
  std::vector<int> axes;
  bool open = false;

  bool operator==(const DimSharding &o) const {
    return axes == o.axes && open == o.open;
  }
};

struct TensorSharding {
  std::vector<DimSharding> dims;
  std::vector<int> pending;
  Reduction pendingKind = Reduction::Sum;

  static TensorSharding replicated(size_t rank, bool open = false);
  bool isPending() const { return !pending.empty(); }
  bool isFullyReplicated() const;
  /// Same axes on every dim and same pending set (openness ignored).
  bool sameLayout(const TensorSharding &o) const;
  /// Every axis the value uses, in dims and pending.
  std::vector<int> usedAxes() const;
  /// "" when valid, else a message naming the dimension and axis.
  std::string validate(const Mesh &mesh) const;
  /// P("data", None) unreduced=sum("model"), with axis names from `mesh`.
  std::string str(const Mesh &mesh) const;
};

/// Ceil layout of one dimension (runtime/include/shardrt_layout.h, shared
/// with the runtime): size of every (padded) shard.
int64_t shardSize(int64_t globalSize, int64_t numShards);
/// Valid elements in shard `index` (0 for an empty trailing shard).
int64_t validInShard(int64_t globalSize, int64_t numShards, int64_t index);
/// Local (padded) shape of a value with global `shape` under `sharding`.
std::vector<int64_t> localShape(const std::vector<int64_t> &shape,
                                const TensorSharding &sharding, const Mesh &mesh);

} // namespace shardc

#endif // SHARDC_SHARDING_SHARDING_H
