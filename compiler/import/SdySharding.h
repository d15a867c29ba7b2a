//===- SdySharding.h - Shardy's mesh and sharding text, read -----*- C++ -*-===//
//
// JAX prints a StableHLO module's shardings as Shardy attributes; in the
// generic op form MLIR keeps them as opaque text, which this reads:
//
//   #sdy.sharding<@mesh, [{"data"}, {}]>                 rows over "data"
//   #sdy.sharding<@mesh, [{"data", "model"}, {?}]>       two axes; dim 1 open
//   #sdy.sharding<@mesh, [{"a", ?}p1, {}], replicated={"b"}>
//   #sdy.sharding<@mesh, []>                             a replicated scalar
//
// A dim is `{}` (replicated, closed), `{?}` (replicated, open) or its axes
// major to minor, `, ?` after them when it is open, and an optional
// priority `pN` after the brace. garraySpec() writes the same placement as
// garray's `P(...)`:  P("data", None),  P(("data", "model"), ?),
// P("a"? p1, None). Sub-axes (`"z":(4)2`) split one mesh axis into parts,
// which a garray mesh cannot name: they are an error, as is anything else
// this does not read. Plain C++; no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_IMPORT_SDYSHARDING_H
#define SHARDC_COMPILER_IMPORT_SDYSHARDING_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardc {

struct SdyDim {
  std::vector<std::string> axes; // major to minor
  bool open = false;
  int64_t priority = -1; // -1: none written
};

struct SdySharding {
  std::string mesh; // without the '@'
  std::vector<SdyDim> dims;
  std::vector<std::string> replicated; // axes listed as explicitly replicated
  std::vector<std::string> unreduced;  // axes listed as unreduced
};

/// Reads the text of a `#sdy.sharding<...>` attribute: the whole attribute,
/// or only what is between its angle brackets. On failure returns nullopt
/// and sets `error` to what was expected and at which character.
std::optional<SdySharding> parseSdySharding(std::string_view text, std::string &error);

/// Reads `#sdy.sharding_per_value<[<@mesh, [...]>, ...]>`, a shard_map's
/// in_shardings or out_shardings: one sharding per value.
std::optional<std::vector<SdySharding>> parseSdyShardingPerValue(std::string_view text,
                                                                  std::string &error);

/// Reads `#sdy<manual_axes{"data", "model"}>`: the axes a shard_map's body
/// is written per device over.
std::optional<std::vector<std::string>> parseSdyManualAxes(std::string_view text,
                                                           std::string &error);

/// The placement as a garray `P(...)` spec (dims past the last are None).
std::string garraySpec(const SdySharding &sharding);

/// A Shardy mesh: its axes and their sizes, in order.
struct SdyMesh {
  std::vector<std::string> axes;
  std::vector<int64_t> sizes;
};

/// Reads the text of a `#sdy.mesh<...>` attribute (whole, or what is between
/// its angle brackets), as `sdy.mesh @mesh = <["data"=2, "model"=2]>` holds
/// it. `device_ids=[...]` is accepted only in the default order (0, 1, 2,
/// ...): a garray mesh numbers its devices row-major and has no other
/// order. On failure returns nullopt and sets `error`.
std::optional<SdyMesh> parseSdyMesh(std::string_view text, std::string &error);

} // namespace shardc

#endif
