// The signature a compiled object carries for standalone executables
// (`shardc_signature`; its format is documented with the compiler's
// signatureText in compiler/host/Signature.h): the entry, the target, the
// mesh, and every input's and output's name, dtype, global shape and
// placement. C++ standard library only.
#ifndef SHARDRT_EXE_SIGNATURETEXT_H
#define SHARDRT_EXE_SIGNATURETEXT_H

#include "shardrt.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardrt::exe {

struct Tensor {
  std::string name;
  int32_t dtype = -1;
  std::vector<int64_t> shape;                 // global
  std::vector<std::vector<int32_t>> dimAxes;  // per dim, the mesh axes splitting it
};

struct Signature {
  std::string entry, target;
  std::vector<std::string> axes;
  std::vector<int64_t> sizes;
  std::vector<Tensor> inputs, outputs;

  bool gpu() const { return target.rfind("ptx-", 0) == 0; }
  int64_t ranks() const;
  shardrt_placement placement(const Tensor &t) const;
};

/// Parses `text`; false with `error` naming the line when it is malformed.
bool parseSignature(const std::string &text, Signature &sig, std::string &error);

} // namespace shardrt::exe

#endif // SHARDRT_EXE_SIGNATURETEXT_H
