//===- LoweringPatterns.h - garray (local) → linalg, by op family -*- C++ -*-===//
//
// One file per op family; each adds its patterns here. All produce tensor-level
// linalg/arith/math so that elementwise fusion and bufferization run upstream.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_LOWERING_LOWERINGPATTERNS_H
#define SHARDC_PASSES_LOWERING_LOWERINGPATTERNS_H

#include <cstdint>

namespace mlir {
class RewritePatternSet;
class OpBuilder;
class Location;
class Value;
class Type;
namespace garray {
enum class ReductionKind : uint32_t;
} // namespace garray
} // namespace mlir

namespace shardc {
void populateConstantLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateElementwiseLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateBroadcastLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateShapeLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateDotGeneralLoweringPatterns(mlir::RewritePatternSet &patterns);
/// Rewrites each dot_general whose only use transposes its result into
/// [batch..., rhs free..., lhs free...] as the dot_general with its operands
/// swapped, replacing the transpose (garray to garray; run before lowering).
void swapTransposedContractions(mlir::Operation *root);
void populateReduceLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateGatherLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateIotaLoweringPatterns(mlir::RewritePatternSet &patterns);

/// `acc` combined with `x` by `kind` (ReduceLowering.cpp): add, multiply,
/// max or min (NaN-propagating on floats), or/and on i1. Reductions and
/// the scatters' row updates share it.
mlir::Value combineByKind(mlir::OpBuilder &b, mlir::Location l, mlir::garray::ReductionKind kind,
                          mlir::Value acc, mlir::Value x);

/// An empty tensor of `type`'s shape filled with `value`.
mlir::Value createFilled(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                         mlir::Value value);
} // namespace shardc

#endif
