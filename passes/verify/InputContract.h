//===- InputContract.h - what a model may contain, checked first -*- C++ -*-===//
//
// The input contract of `shardc compile` (docs/design.md, "Model (input)"):
// what a model may contain, checked on the parsed module before anything
// else reads it, even MLIR's verifier (a foreign op's own verifier is
// upstream code that may not survive hostile attributes).
//
//   - ops: garray's, with func, cf and scf around them, and arith / math on
//     scalars (index and loop arithmetic). On tensors, only arith.constant
//     and tensor.extract besides garray: an elementwise op of another
//     dialect (arith.addf for garray.add) has no sharding rule and no
//     lowering. comm's collectives only in the body of a garray.shard_map,
//     which is a local program. Any other dialect (linalg, memref, llvm,
//     an unregistered one) is an error naming the op and its location.
//   - sizes (sharding/Limits.h): every static dimension of every tensor is
//     at most kMaxDimSize,
//     a tensor's global size at most kMaxTensorBytes, and a constant at
//     most kMaxConstantElements elements: sizes past these cannot be
//     addressed on one host, or would be materialized by the compiler
//     itself. Byte counts are computed with overflow checks.
//
// A violation is an error at the offending op (or argument) naming it, the
// value and the limit, and what to write instead.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_VERIFY_INPUTCONTRACT_H
#define SHARDC_PASSES_VERIFY_INPUTCONTRACT_H

#include "sharding/Limits.h"

#include <cstdint>
#include <optional>

#include "llvm/Support/LogicalResult.h"

namespace mlir {
class ModuleOp;
class Type;
} // namespace mlir

namespace shardc {

/// The bytes of a statically shaped tensor type (elements of less than a
/// byte count as one byte), or nullopt when not static or past INT64_MAX.
std::optional<int64_t> tensorBytes(mlir::Type type);

/// What an op of a dialect a model may not contain is told.
inline constexpr const char *kNotAModelOp =
    "is not an op a shardc model may contain: a model is written in garray ops, with func, "
    "cf and scf around them and arith or math on scalars";

/// Checks the contract on a parsed module; safe on a module that has not
/// been verified. Emits one error per violation at its location.
llvm::LogicalResult verifyInputContract(mlir::ModuleOp module);

} // namespace shardc

#endif // SHARDC_PASSES_VERIFY_INPUTCONTRACT_H
