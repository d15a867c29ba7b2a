//===- StableHloAttrText.h - StableHLO's opaque attributes, read -*- C++ -*-===//
//
// Parsed without the StableHLO dialect, JAX's attributes arrive as opaque
// text. The importer reads the two shapes they take:
//
//   #stablehlo.dot<lhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], ...>
//   #stablehlo.gather<offset_dims = [1], ..., index_vector_dim = 1>
//        -> named integer lists (a single integer is a list of one)
//   #stablehlo<comparison_direction GT>
//        -> the enum's case ("GT")
//
// Plain C++: no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_IMPORT_STABLEHLOATTRTEXT_H
#define SHARDC_COMPILER_IMPORT_STABLEHLOATTRTEXT_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardc {

/// The fields of a `#stablehlo.KIND<name = [ints], name = int, ...>` text.
struct StableHloFields {
  std::string kind; // "dot", "gather", "scatter", ...
  std::map<std::string, std::vector<int64_t>> fields;

  /// The list named `name`; empty when absent (StableHLO omits empty lists).
  const std::vector<int64_t> &list(const std::string &name) const;
};

/// Reads a fields attribute; on failure returns nullopt and sets `error`.
std::optional<StableHloFields> parseStableHloFields(std::string_view text, std::string &error);

/// Reads `#stablehlo<ENUM CASE>` and returns CASE when ENUM is `enumName`;
/// on failure returns nullopt and sets `error`.
std::optional<std::string> parseStableHloEnum(std::string_view text, std::string_view enumName,
                                              std::string &error);

} // namespace shardc

#endif
