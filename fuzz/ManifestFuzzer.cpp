//===- ManifestFuzzer.cpp - libFuzzer target: the manifest reader ----------===//
//
// Any text as manifest.json: readManifest must accept it or say why, never
// crash; a manifest it accepts must be within the bounds it promises
// (compiler/host/Signature.h), which the run-time code relies on.
//
//===----------------------------------------------------------------------===//
#include "compiler/host/Signature.h"
#include "sharding/Limits.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  shardc::Signature sig;
  shardc::ManifestObject object;
  std::string error;
  if (!shardc::readManifest(text, sig, object, error))
    return 0;
  if (sig.mesh.deviceCount() < 1 || sig.mesh.deviceCount() > shardc::kMaxMeshDevices ||
      object.file.empty() || object.file.find('/') != std::string::npos)
    std::abort();
  for (const auto *list : {&sig.inputs, &sig.outputs})
    for (const shardc::TensorSignature &t : *list)
      if (t.localShape != shardc::localShape(t.shape, t.sharding, sig.mesh) ||
          !shardc::valueNameProblem(t.name).empty())
        std::abort();
  return 0;
}
