//===- Sharding.cpp - meshes, shardings, the ceil layout ------------------===//
//
// Plain data; see Sharding.h for the invariants. Nothing here touches IR.
//
//===----------------------------------------------------------------------===//
#include "sharding/Sharding.h"

#include "shardrt_layout.h"

#include <algorithm>
#include <set>

namespace shardc {

const char *reductionName(Reduction r) {
  switch (r) {
  case Reduction::Sum: return "sum";
  case Reduction::Max: return "max";
  case Reduction::Min: return "min";
  case Reduction::Prod: return "prod";
  }
  return "?";
}

int Mesh::indexOf(const std::string &name) const {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] == name)
      return static_cast<int>(i);
  return -1;
}

int64_t Mesh::deviceCount() const {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

std::vector<int64_t> Mesh::coords(int64_t id) const {
  std::vector<int64_t> c(sizes.size());
  for (size_t i = sizes.size(); i-- > 0;) {
    c[i] = id % sizes[i];
    id /= sizes[i];
  }
  return c;
}

int64_t Mesh::deviceId(const std::vector<int64_t> &c) const {
  int64_t id = 0;
  for (size_t i = 0; i < sizes.size(); ++i)
    id = id * sizes[i] + c[i];
  return id;
}

int64_t Mesh::product(const std::vector<int> &axisList) const {
  int64_t n = 1;
  for (int a : axisList)
    n *= sizes[a];
  return n;
}

int64_t Mesh::indexInGroup(int64_t device, const std::vector<int> &axisList) const {
  std::vector<int64_t> c = coords(device);
  int64_t index = 0;
  for (int a : axisList)
    index = index * sizes[a] + c[a];
  return index;
}

std::vector<std::vector<int64_t>> Mesh::groups(const std::vector<int> &axisList) const {
  // Key each device by its coordinates off `axisList`; members of one group
  // share the key. Groups are numbered in the order their first member
  // appears, and each member sits at indexInGroup: the major→minor order in
  // which shards concatenate. Keys are below deviceCount / groupSize, so a
  // table maps them to groups: O(devices x mesh rank).
  std::vector<bool> inList(sizes.size(), false);
  for (int a : axisList)
    inList[a] = true;
  int64_t groupSize = product(axisList);
  const int64_t n = deviceCount();
  std::vector<std::vector<int64_t>> result;
  std::vector<int64_t> keyToGroup(static_cast<size_t>(n / groupSize), -1);
  std::vector<int64_t> c(sizes.size(), 0);
  for (int64_t d = 0; d < n; ++d) {
    int64_t key = 0, index = 0;
    for (size_t i = 0; i < sizes.size(); ++i)
      if (!inList[i])
        key = key * sizes[i] + c[i];
    for (int a : axisList)
      index = index * sizes[a] + c[a];
    if (keyToGroup[key] < 0) {
      keyToGroup[key] = static_cast<int64_t>(result.size());
      result.emplace_back(groupSize, -1);
    }
    result[keyToGroup[key]][index] = d;
    for (size_t i = c.size(); i-- > 0;) { // the last axis is minor
      if (++c[i] < sizes[i])
        break;
      c[i] = 0;
    }
  }
  return result;
}

std::string Mesh::str() const {
  std::string s = "[";
  for (size_t i = 0; i < axes.size(); ++i) {
    if (i)
      s += ", ";
    s += "\"" + axes[i] + "\"=" + std::to_string(sizes[i]);
  }
  return s + "]";
}

TensorSharding TensorSharding::replicated(size_t rank, bool open) {
  TensorSharding t;
  t.dims.assign(rank, DimSharding{{}, open});
  return t;
}

bool TensorSharding::isFullyReplicated() const {
  if (isPending())
    return false;
  for (const DimSharding &d : dims)
    if (!d.axes.empty())
      return false;
  return true;
}

bool TensorSharding::sameLayout(const TensorSharding &o) const {
  if (dims.size() != o.dims.size())
    return false;
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i].axes != o.dims[i].axes)
      return false;
  std::vector<int> a = pending, b = o.pending;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b && (a.empty() || pendingKind == o.pendingKind);
}

std::vector<int> TensorSharding::usedAxes() const {
  std::vector<int> used;
  for (const DimSharding &d : dims)
    used.insert(used.end(), d.axes.begin(), d.axes.end());
  used.insert(used.end(), pending.begin(), pending.end());
  return used;
}

std::string TensorSharding::validate(const Mesh &mesh) const {
  std::set<int> seen;
  auto check = [&](int axis, const std::string &where) -> std::string {
    if (axis < 0 || axis >= static_cast<int>(mesh.axes.size()))
      return where + " names mesh axis #" + std::to_string(axis) +
             ", which is not an axis of mesh " + mesh.str();
    if (!seen.insert(axis).second)
      return where + " uses mesh axis \"" + mesh.axes[axis] +
             "\" a second time; each axis may split a value only once";
    return "";
  };
  for (size_t d = 0; d < dims.size(); ++d)
    for (int a : dims[d].axes)
      if (std::string e = check(a, "dim " + std::to_string(d)); !e.empty())
        return e;
  for (int a : pending)
    if (std::string e = check(a, "unreduced"); !e.empty())
      return e;
  return "";
}

std::string TensorSharding::str(const Mesh &mesh) const {
  auto name = [&](int a) {
    return a >= 0 && a < static_cast<int>(mesh.axes.size()) ? "\"" + mesh.axes[a] + "\""
                                                             : "#" + std::to_string(a);
  };
  std::string s = "P(";
  for (size_t d = 0; d < dims.size(); ++d) {
    if (d)
      s += ", ";
    const DimSharding &dim = dims[d];
    if (dim.axes.empty())
      s += dim.open ? "?" : "None";
    else if (dim.axes.size() == 1)
      s += name(dim.axes[0]);
    else {
      s += "(";
      for (size_t i = 0; i < dim.axes.size(); ++i)
        s += (i ? ", " : "") + name(dim.axes[i]);
      s += ")";
    }
    if (!dim.axes.empty() && dim.open)
      s += "?";
  }
  s += ")";
  if (isPending()) {
    s += std::string(" unreduced=") + reductionName(pendingKind) + "(";
    for (size_t i = 0; i < pending.size(); ++i)
      s += (i ? ", " : "") + name(pending[i]);
    s += ")";
  }
  return s;
}

bool isPrefix(const std::vector<int> &a, const std::vector<int> &b) {
  return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

int64_t shardSize(int64_t globalSize, int64_t numShards) {
  return shardrt_shard_size(globalSize, numShards);
}

int64_t validInShard(int64_t globalSize, int64_t numShards, int64_t index) {
  return shardrt_shard_valid(globalSize, numShards, index);
}

std::vector<int64_t> localShape(const std::vector<int64_t> &shape,
                                const TensorSharding &sharding, const Mesh &mesh) {
  std::vector<int64_t> local = shape;
  for (size_t d = 0; d < shape.size() && d < sharding.dims.size(); ++d)
    local[d] = shardSize(shape[d], mesh.product(sharding.dims[d].axes));
  return local;
}

} // namespace shardc
