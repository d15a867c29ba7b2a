//===- RuntimeTypes.cpp - garray's element types and reductions in shardrt's ABI -===//
#include "dialects/garray/RuntimeTypes.h"

namespace mlir::garray {

std::optional<shardrt_dtype> runtimeDtype(Type t) {
  if (t.isF32()) return SHARDRT_F32;
  if (t.isF64()) return SHARDRT_F64;
  if (t.isF16()) return SHARDRT_F16;
  if (t.isBF16()) return SHARDRT_BF16;
  if (t.isInteger(64)) return SHARDRT_I64;
  if (t.isInteger(32)) return SHARDRT_I32;
  if (t.isInteger(16)) return SHARDRT_I16;
  if (t.isInteger(8)) return SHARDRT_I8;
  if (t.isInteger(1)) return SHARDRT_BOOL;
  return std::nullopt;
}

shardrt_reduce_op runtimeReduceOp(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::sum: return SHARDRT_SUM;
  case ReductionKind::max: return SHARDRT_MAX;
  case ReductionKind::min: return SHARDRT_MIN;
  case ReductionKind::prod: return SHARDRT_PROD;
  }
  return SHARDRT_SUM; // unreachable: the switch covers every kind
}

} // namespace mlir::garray
