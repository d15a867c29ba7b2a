//===- ReadSignature.h - a compiled model's signature, read off its IR -*- C++ -*-===//
//
// What the host needs to run a model (names, dtypes, global and local
// shapes, placements) is read off the partitioned entry, where every value's
// sharding is known and types are still global.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_REPORT_READSIGNATURE_H
#define SHARDC_COMPILER_REPORT_READSIGNATURE_H

#include "compiler/host/Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace shardc {

/// "f32", "i64", "bool", ... as shardrt_dtype_name; "" for other types.
std::string dtypeName(mlir::Type t);

/// The function to compile: `name` (with or without "@"), else `main`, else
/// the only public function; an error naming what the model defines.
mlir::FailureOr<mlir::func::FuncOp> findEntry(mlir::ModuleOp module, llvm::StringRef name);

/// Reads names, dtypes, shapes and placements off the partitioned entry.
mlir::LogicalResult readSignature(mlir::func::FuncOp func, Signature &sig);

/// The text of a local tensor type and its size in bytes, as reports print.
std::string localTypeText(llvm::ArrayRef<int64_t> shape, mlir::Type element, int64_t &bytes);

} // namespace shardc

#endif // SHARDC_COMPILER_REPORT_READSIGNATURE_H
