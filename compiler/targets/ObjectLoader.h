//===- ObjectLoader.h - Load a shardc CPU object in process ---------------===//
//
// Loads the x86-64 ELF object that emitObject (CpuTarget.h) produces into the
// current process with LLVM ORC and hands out its `void <entry>_shardc(void**)`
// entry points. No MLIR dependency: a host program links only libLLVM.
//
// Symbol resolution, in this order: the caller's table (typically the
// runtime's shardrt_symbols()), then the current process (libc, libm). The
// object is linked during load(), so an unresolvable symbol is a load() error
// that names it, not a crash at the first call.
//
// Threads: lookup() may be called from any thread; the entry functions it
// returns may run concurrently (generated code keeps no global mutable
// state). The code stays valid while the LoadedObject lives.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TARGETS_OBJECTLOADER_H
#define SHARDC_COMPILER_TARGETS_OBJECTLOADER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <utility>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace shardc {

class LoadedObject {
public:
  /// `void <entry>_shardc(void **buffers)`; see CpuTarget.h for the ABI.
  using EntryFn = void (*)(void **);
  /// A symbol the object may import: name (unmangled C name) and address.
  using Symbol = std::pair<std::string, void *>;

  /// Loads and links `objectBytes` (copied; the caller's bytes may go away).
  /// Fails if the object is not a valid object for this host, if `symbols`
  /// has a duplicate name or a null address, or if an undefined symbol of
  /// the object is neither in `symbols` nor in the current process.
  static llvm::Expected<std::unique_ptr<LoadedObject>> load(llvm::StringRef objectBytes,
                                                            llvm::ArrayRef<Symbol> symbols);

  /// The address of function `name` (e.g. "matmul_shardc") in the object.
  llvm::Expected<EntryFn> lookup(llvm::StringRef name);
  /// The address of data symbol `name` (e.g. the profile's site names).
  llvm::Expected<const void *> lookupData(llvm::StringRef name);

  ~LoadedObject();
  LoadedObject(const LoadedObject &) = delete;
  LoadedObject &operator=(const LoadedObject &) = delete;

private:
  struct SessionErrors;
  LoadedObject(std::unique_ptr<llvm::orc::LLJIT> jit, std::shared_ptr<SessionErrors> errors);
  llvm::Error withSessionErrors(llvm::Error error);

  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::shared_ptr<SessionErrors> sessionErrors;
};

} // namespace shardc

#endif // SHARDC_COMPILER_TARGETS_OBJECTLOADER_H
