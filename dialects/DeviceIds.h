//===- DeviceIds.h - checks on lists of device ids --------------*- C++ -*-===//
//
// Shared by the verifiers of garray's and comm's collectives. A collective
// over a 65,536-device mesh is verified after every pass, so these are one
// pass over a table of marks when the ids are dense (device ids are), and a
// sort otherwise; never a node-based set.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECTS_DEVICEIDS_H
#define SHARDC_DIALECTS_DEVICEIDS_H

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace shardc {

/// A device id listed twice in `ids` (all non-negative), if any.
inline std::optional<int64_t> repeatedDeviceId(std::vector<int64_t> ids) {
  int64_t top = 0;
  for (int64_t id : ids)
    top = std::max(top, id);
  if (top < 4 * static_cast<int64_t>(ids.size()) + 64) {
    std::vector<uint8_t> seen(static_cast<size_t>(top) + 1, 0);
    for (int64_t id : ids)
      if (seen[id]++)
        return id;
    return std::nullopt;
  }
  std::sort(ids.begin(), ids.end());
  auto it = std::adjacent_find(ids.begin(), ids.end());
  if (it == ids.end())
    return std::nullopt;
  return *it;
}

} // namespace shardc

#endif
