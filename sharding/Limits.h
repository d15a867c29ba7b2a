//===- Limits.h - the sizes shardc compiles and runs -------------*- C++ -*-===//
//
// The documented limits of shardc (docs/design.md, "Model (input)"), in one
// place for every layer that checks them: the dialect's verifier (meshes),
// the input contract (tensor sizes, constants), the manifest reader (a
// compiled artifact is checked against the same bounds before it is
// loaded). Past them a size cannot be addressed on one host, or the compiler
// would materialize it itself.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SHARDING_LIMITS_H
#define SHARDC_SHARDING_LIMITS_H

#include <cstdint>
#include <limits>
#include <optional>

namespace shardc {

/// The most devices a mesh may have (mesh_c4).
inline constexpr int64_t kMaxMeshDevices = 65536;
/// The largest static dimension a tensor may have (2^40).
inline constexpr int64_t kMaxDimSize = int64_t(1) << 40;
/// The largest global size of one tensor, in bytes (2^42, 4 TiB).
inline constexpr int64_t kMaxTensorBytes = int64_t(1) << 42;
/// The most elements a constant may hold (2^24): the compiler materializes
/// constants, so a larger one is computed instead (iota, broadcast_in_dim).
inline constexpr int64_t kMaxConstantElements = int64_t(1) << 24;
/// The most elements all constants of a model may hold together (2^26), so
/// that compile memory is bounded by the limits, not by how many constants
/// a small text can write.
inline constexpr int64_t kMaxModelConstantElements = int64_t(1) << 26;
/// The longest chain of function calls (a model's helpers, a JAX export's
/// private functions): passes that follow calls recurse once per level.
inline constexpr int64_t kMaxCallDepth = 256;

/// `a * b` for non-negative operands, or nullopt when either is negative or
/// the product exceeds INT64_MAX.
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  if (a < 0 || b < 0)
    return std::nullopt;
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a)
    return std::nullopt;
  return a * b;
}

/// `a + b` for non-negative operands, saturating at INT64_MAX (estimates
/// that only need to say "more than").
inline int64_t saturatingAdd(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max()
                                                     : a + b;
}

} // namespace shardc

#endif // SHARDC_SHARDING_LIMITS_H
