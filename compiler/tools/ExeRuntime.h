//===- ExeRuntime.h - the runtime shardc links executables with -*- C++ -*-===//
//
// `shardc compile --exe` links a model's object with the standalone main
// and a static shardrt (runtime/exe, runtime/): their archives are embedded
// in shardc at build time (embed_runtime.sh), so an installed shardc needs
// only a system C++ driver to make executables.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_TOOLS_EXERUNTIME_H
#define SHARDC_COMPILER_TOOLS_EXERUNTIME_H

#include <cstddef>
#include <string>

namespace shardc {

struct EmbeddedFile {
  const char *name; // "libshardrt.lo"
  const unsigned char *bytes;
  size_t size;
};

/// The archives, ending with a null name.
extern const EmbeddedFile kExeRuntime[];

/// Links `object` (a model's object file) into an executable and returns
/// its bytes in `program`: the C++ driver is $CXX, else `c++` on PATH.
/// False with `error` when there is no driver or it fails.
bool linkExecutable(const std::string &object, std::string &program, std::string &error);

} // namespace shardc

#endif // SHARDC_COMPILER_TOOLS_EXERUNTIME_H
