//===- SourcePosition.h - "file:line:col" of an MLIR location --*- C++ -*-===//
//
// The GPU target names ops in the manifest and in run-time messages (an
// out-of-memory's value) by the first file position their location holds.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_GPU_SOURCEPOSITION_H
#define SHARDC_COMPILER_TARGETS_GPU_SOURCEPOSITION_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/Twine.h"

#include <string>

namespace shardc::gpu {

/// "model.mlir:12:5", or "" when `loc` holds no file position.
inline std::string sourcePosition(mlir::Location loc) {
  std::string position;
  loc->walk([&](mlir::Location l) {
    if (auto file = mlir::dyn_cast<mlir::FileLineColLoc>(l)) {
      position = (file.getFilename().getValue() + ":" + llvm::Twine(file.getLine()) + ":" +
                  llvm::Twine(file.getColumn()))
                     .str();
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return position;
}

} // namespace shardc::gpu

#endif // SHARDC_COMPILER_TARGETS_GPU_SOURCEPOSITION_H
