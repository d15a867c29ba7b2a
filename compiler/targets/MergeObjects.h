//===- MergeObjects.h - Several relocatable objects -> one ----------------===//
//
// Parallel code generation (LlvmCodegen.h) makes one object per partition;
// an artifact holds one `model.o`. This links them into one relocatable
// object, as `ld.lld -r` does, with LLD linked into shardc: no external
// linker is needed at compile time. The inputs and the output pass through a
// temporary folder (LLD reads and writes files), which is removed on every
// path. Calls are serialized: LLD keeps global state.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_MERGEOBJECTS_H
#define SHARDC_COMPILER_TARGETS_MERGEOBJECTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace shardc {

/// The bytes of one relocatable ELF object holding every input's sections
/// and symbols. An error carries LLD's own message (e.g. a symbol defined
/// twice).
llvm::Expected<std::string> mergeRelocatableObjects(llvm::ArrayRef<std::string> objects);

} // namespace shardc

#endif // SHARDC_COMPILER_TARGETS_MERGEOBJECTS_H
